"""The pages part of a kind: the template partials a match shows, its entry page, the profile's parts, its routes.

Who calls it: the pages, never branching on a game: the web app's pages and
the shared templates (``web``: the match page, the confirmations list, a
player's profile; ``{% include match.game.kind.templates.seats_line %}``),
the entry pages and the menu (``games.entry``, ``games.context_processors``),
admin's match list (``matches.admin``), the profile's figures
(``ratings.selectors``), the calculators' index (``ratings.calculators``)
and ``config.urls`` (``page_urls``).

What a game overrides: ``templates`` for the places its game shows
differently, and with an ``"entry"`` template its ``entry_view`` and
``entry_initial`` (a correction's form); ``page_urls`` and the calculator's
name and label for pages of its own; ``match_page_context``, ``match_title``
and the profile's members when its matches have parts; ``admin_players``
for a game whose players are not every seat's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from django.http import HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext_lazy

from leagues.models import Player
from matches.models import Match


class PagesPart:
    """What the pages ask of a game: the partials and context a match shows, its entry page, its routes."""

    #: What a result of the game is called on pages (``leagues.kinds.GameKind.result_noun``).
    result_noun: ClassVar[str]

    #: Template partials by place, each under ``templates/games/``; the shared pages include the one
    #: their kind names (``{% include match.game.kind.templates.seats_line %}``), never branching on a
    #: game. These defaults show a game of seats only, each seat with its result (a score) and rating
    #: change; a kind names its own for the places its game shows differently. "entry", the entry
    #: page, has no default: a kind with one adds it and ``entry_view``.
    templates = {
        "match_results": "games/_match_results.html",  # match page: the seats' results and changes, the parts
        "seats_line": "games/_seats_line.html",  # a row of a match list: the seats, linked, with results
        "seats_names": "games/_seats_names.html",  # the confirmations list's message: the seats' names
        "profile_opponents": "games/_profile_opponents.html",  # profile: whom the player met
        "profile_result": "games/_profile_result.html",  # profile: the player's result
        "profile_change": "games/_profile_change.html",  # profile: why the rating changed
        # the confirmations list: the whole result a second referee checks (given ``extra``, the kind's
        # ``match_page_context``), in a card that fits a phone
        "confirm_result": "games/_confirm_result.html",
        # a player's head-to-head rows (the profile, the full list): opponents, record, rating change
        "head_to_head": "games/_head_to_head.html",
    }

    @property
    def has_entry_page(self) -> bool:
        return "entry" in self.templates

    def entry_view(self, request, game) -> HttpResponse:
        """Answer the game's entry page (``results/<game>/``), once the referee is checked.

        Only asked of a kind with an entry page (``has_entry_page``).
        """
        raise NotImplementedError(f"{self!r} has no entry page.")

    def entry_label(self, game) -> str:
        """The menu's link to the game's entry page."""
        return _("Enter %(game)s") % {"game": game.name}

    def entry_initial(self, match: Match) -> dict[str, str] | None:
        """The game's fields of its entry page filled in from a stored match, as the page posts them: the
        form a correction starts from (``games.entry``, ``/results/<game>/?correct=<pk>``). The time, rated
        and the league are the shared code's. The match comes as ``match_detail`` reads it.

        None (this default): the page cannot show this match; admin then corrects it as JSON (its
        "Correct as JSON" page)."""
        return None

    def match_page_context(self, match) -> dict:
        """What the game's match partial needs beyond the match and its seats (``web.pages.match_page``)."""
        return {}

    def match_title(self, match: Match) -> str:
        """The match page's heading (``web.pages.match_page``): by default the game, its result noun and
        the match's number, "Slaps match #12"; bridge names the evening by its club and date."""
        return _("%(game)s %(noun)s #%(number)s") % {
            "game": match.game.name,
            "noun": self.result_noun,
            "number": match.pk,
        }

    def profile_sections(self) -> list[tuple[str, str, Callable[[Player], dict]]]:
        """What the game adds to every player's profile: (name, template, read), ``read(player)`` giving the
        template's context. Each is cached on the ratings and results versions; none by default."""
        return []

    def profile_rating_units(self) -> tuple[str, str]:
        """What one ledger row of the game rates, one and many: the profile chart's axis and its table
        ("match", "matches"; Preferans rates deals, bridge boards)."""
        return (pgettext_lazy("one rated", "match"), pgettext_lazy("many rated", "matches"))

    def profile_change_notes(self, matches: list[Match], player: Player) -> dict[int, dict[str, Any]]:
        """What the game's ``profile_change`` partial needs beyond a row's match, seats and the player's
        ledger rows (``match.player_changes``), by match id: it becomes the row's ``notes``. ``matches`` are
        the game's matches of one list on the profile or the history page; at most one query for all of
        them. A game of seats needs nothing."""
        return {}

    def digest_extra(self, matches: list[Match], player: Player) -> tuple[str, str] | None:
        """What the game adds to an evening's email digest (``notices.digests``) after the player's results,
        rating changes and standing: (HTML, plain text), or None for nothing (this default). ``matches`` are
        the player's rated results of the evening in this game, oldest first, read without their parts (the
        kind reads what it needs). Links may be the site's own paths: the mail makes them absolute."""
        return None

    def admin_players(self, match: Match) -> str:
        """The players of a match, short, for admin's match list (``matches.admin``). The match comes with
        its seats, players and bots read (one query for the page). A game of seats: every seat's name."""
        names = [seat.occupant.name for seat in match.seats.all()]
        if len(names) <= 4:
            return ", ".join(names)
        more = len(names) - 4
        return ngettext("%(names)s and %(count)s more", "%(names)s and %(count)s more", more) % {
            "names": ", ".join(names[:4]),
            "count": more,
        }

    def page_urls(self) -> list:
        """The game's own pages beyond its entry page (a calculator, a helper its entry page posts to), as
        ``django.urls.path`` patterns; ``config.urls`` adds every registered kind's before the shared entry
        route, so a game added by ``CARDRANK_EXTRA_GAME_KINDS`` brings its pages without editing Cardrank.
        None by default."""
        return []

    #: The URL name of the game's calculator page (what one result would do to a rating); "" for none.
    calculator_url_name: ClassVar[str] = ""

    #: The calculator's name on the calculators' index and tabs (``ratings.calculators.calculator_links``).
    calculator_label: ClassVar[str] = ""
