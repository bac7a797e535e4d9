"""Bridge's kind: everything about Bridge results above its engine (see games.base)."""

from __future__ import annotations

from django.db.models import Prefetch
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from games.base import BaseKind
from games.bridge import api, pages, views
from games.bridge.digest import session_digest
from games.bridge.importing import parse_pbn, parse_usebio
from games.bridge.loading import bridge_inputs
from games.bridge.models import Board
from games.bridge.parameters import BRIDGE_PARAMETER_TEXTS
from games.bridge.records import (
    bridge_board_opponents,
    bridge_change_notes,
    bridge_deals_together,
    bridge_head_to_head,
    bridge_pair_meetings,
    bridge_pair_record,
    player_bridge_records,
)
from games.bridge.results import (
    bridge_boards_store,
    bridge_clean,
    bridge_input_body,
    bridge_stored_body,
    bridge_tables_player_move,
)
from games.bridge.session import session_page_context, session_sides, session_title
from matches.models import Match
from ratings.engines import bridge as bridge_engine
from ratings.parameters import rating_parameters


class BridgeKind(BaseKind):
    slug = "bridge"

    # --- results (matches) -----------------------------------------------------------------

    parts = ("boards",)
    rating_periods = True
    result_noun = "session"

    def system_label(self):
        # The engine's label, in the reader's language (the engines speak English only).
        return _("Pairs Elo (bridge)")

    def parameter_texts(self):
        return BRIDGE_PARAMETER_TEXTS

    def clean(self, data, errors, game):
        return bridge_clean(data, errors)

    def input_body(self, cleaned):
        return bridge_input_body(cleaned)

    def stored_body(self, match):
        return bridge_stored_body(match)

    def result_key(self, body):
        """A session is the same session when its time, its players and its scores are: what a file knows
        beside them (pair numbers, contracts, leads, the hand records) differs between a club's files and
        the entry page, and never makes another result."""
        boards = [
            {
                "number": board["number"],
                "tables": [
                    {key: table[key] for key in ("ns", "ew", "ns_score", "ns_imps", "adjusted") if key in table}
                    for table in board["tables"]
                ],
            }
            for board in body.get("boards", ())
        ]
        return super().result_key({"played_at": body.get("played_at"), "boards": boards})

    def store_parts(self, match, cleaned):
        bridge_boards_store(match, cleaned)

    def parts_player_move(self, match_ids, *, drop_id, keep_id):
        bridge_tables_player_move(match_ids, drop_id=drop_id, keep_id=keep_id)

    # --- rating input (ratings) ------------------------------------------------------------

    def replay_state(self) -> dict[frozenset, int]:
        """The deals each pair has played together so far (games.bridge.loading)."""
        return {}

    def load(self, chunk, context):
        return bridge_inputs(chunk, context)

    # --- API -------------------------------------------------------------------------------

    answer_fields = api.ANSWER_FIELDS
    body_fields = api.BODY_FIELDS
    body_example_name = "Bridge"
    body_example = api.BODY_EXAMPLE

    # --- pages -----------------------------------------------------------------------------

    def profile_sections(self):
        return [
            (
                "records",
                "games/bridge/_profile_records.html",
                lambda player: {"bridge": player_bridge_records(player=player)},
            )
        ]

    templates = {
        **BaseKind.templates,
        "entry": views.PAGE,
        "match_results": "games/bridge/_match_results.html",
        "seats_line": "games/bridge/_seats_line.html",
        "seats_names": "games/bridge/_seats_names.html",
        "profile_opponents": "games/bridge/_profile_opponents.html",
        "profile_result": "games/bridge/_profile_result.html",
        "profile_change": "games/bridge/_profile_change.html",
        "confirm_result": "games/bridge/_confirm_result.html",
    }

    def entry_view(self, request, game):
        return views.entry(request, game)

    def entry_label(self, game):
        return _("Record %(game)s") % {"game": game.name.lower()}

    def match_page_context(self, match):
        return session_page_context(match)

    def page_urls(self):
        # A session's travellers and pairs' scorecards, beside its match page (``games.bridge.pages``).
        system = {"system": self.slug}
        return [
            path("matches/<int:pk>/boards/<int:number>/", pages.traveller_page, system, name="bridge-traveller"),
            path("matches/<int:pk>/pairs/<str:pair>/", pages.scorecard_page, system, name="bridge-scorecard"),
            path(
                "matches/<int:pk>/players/<int:player>/scorecard/",
                pages.player_scorecard,
                system,
                name="bridge-player-scorecard",
            ),
        ]

    # --- import/export ---------------------------------------------------------------------

    importers = {"pbn": parse_pbn, "usebio": parse_usebio}

    def body_players(self, body, swap):
        boards = [
            {
                **board,
                "tables": [
                    {**table, "ns": [swap(p) for p in table["ns"]], "ew": [swap(p) for p in table["ew"]]}
                    for table in board["tables"]
                ],
            }
            for board in body["boards"]
        ]
        return {**body, "boards": boards}

    def history_opponents(self, match, player_id, unit):
        return bridge_board_opponents(match, player_id, unit)

    # --- pages (continued) -----------------------------------------------------------------

    def match_title(self, match):
        return session_title(match)

    # --- the player's profile (web.pages) --------------------------------------------------

    def profile_rating_units(self):
        return (pgettext_lazy("one rated", "board"), pgettext_lazy("many rated", "boards"))

    def rated_units(self, count):
        return ngettext("%(count)s rated board", "%(count)s rated boards", count) % {"count": count}

    def profile_change_notes(self, matches, player):
        return bridge_change_notes(matches, player)

    def digest_extra(self, matches, player):
        return session_digest(matches, player)

    # --- admin and corrections ---------------------------------------------------------------

    def admin_players(self, match):
        # A session seats every player of the evening once: the count says more than 24 names. (Pairs
        # would need the boards' tables read: partners may change during an evening.)
        count = len(match.seats.all())
        return ngettext("Session of %(count)d player", "Session of %(count)d players", count) % {"count": count}

    def entry_initial(self, match):
        return views.bridge_entry_initial(match)

    # --- import: the files of its own formats ------------------------------------------------

    importer_files = {
        "pbn": (".pbn", gettext_lazy("PBN (a bridge scoring program's)")),
        "usebio": (".xml", gettext_lazy("USEBIO 1.2 XML (a bridge scoring program's)")),
    }

    # --- reading its parts (matches.selectors) -------------------------------------------------

    def part_prefetches(self):
        tables = Prefetch(
            "boards",
            queryset=Board.objects.order_by("position").prefetch_related(
                "tables", "tables__ns_1", "tables__ns_2", "tables__ew_1", "tables__ew_2"
            ),
        )
        return {"boards": tables}

    def season_sides(self, match_ids):
        """A session's standings (its scoring program's ranking, per section and direction): each group of
        pairs ranked together is a contest, each pair a side scored by its percentage or IMPs."""
        matches = Match.objects.filter(pk__in=match_ids).prefetch_related(self.part_prefetches()["boards"])
        return {match.pk: session_sides(match) for match in matches}

    # --- head-to-head and compare (ratings.compare) -----------------------------------------------

    compare_side_size = 2
    profile_head_to_head = False  # its records section lists the opposing pairs (``profile_sections``)
    meeting_nouns = (pgettext_lazy("one meeting", "board"), pgettext_lazy("many meetings", "boards"))
    points_label = gettext_lazy("net IMPs")

    def head_to_head(self, *, player, game):
        return bridge_head_to_head(player=player, game=game)

    def compare_record(self, *, game, a, b):
        rows = bridge_pair_record(game=game, a=a, b=b)
        return rows[0] if rows else None

    def compare_meetings(self, *, game, a, b, limit):
        return bridge_pair_meetings(game=game, a=a, b=b, limit=limit)

    def compare_expected(self, *, game, a, b, ratings):
        # Seed 003's E for one pair against another, each rated with its partnership bonus.
        together_a, together_b = bridge_deals_together(game=game, pairs=[a, b])
        return bridge_engine.pairs_expected_score(
            (ratings[a[0]], ratings[a[1]]),
            together_a,
            (ratings[b[0]], ratings[b[1]]),
            together_b,
            rating_parameters(game=game),
        )

    def crosstable(self, *, game, player_ids):
        return None  # bridge is met pair against pair: the profile's head-to-head lists the pairs

    compare_expected_note = gettext_lazy(
        "Seed 003's expected score of pair A in a duel against pair B, each pair rated as its partners' mean plus "
        "its partnership bonus, the gap capped at 400 (the rule of 400)."
    )
