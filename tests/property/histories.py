"""Random game histories for the property tests, and the driver that plays them through the real write path.

Vocabulary:
    history    what an example does to one game, in order: the game's set-up
               (start rating, parameters, league rules, time zone) and a list
               of operations.
    operation  one thing a referee or an admin does: submit a result (through
               the services or, for a share, the REST API), void one, correct
               one, edit a bot, raise the pro floor.
    record     the test's own account of what was stored: every result as the
               oracle reads it (the body as submitted, bots as played: the
               values they had when the result was stored, kept through a
               correction for the bots already at its table), and its status. The
               oracle's expected ledger is computed from the record, never
               from the code under test.

Results are played in 2026 (in the past, so every rating period has closed
and nothing is in the future), at times drawn independently of the order the
operations arrive in, so many are *late* (played before results already
rated).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.test import TestCase, override_settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from games.bridge.scoring import board_vulnerability_name, possible_ns_scores
from leagues.models import Bot, Game, League
from matches.models import Match
from matches.services import match_correct, match_submit, match_void
from ratings.models import PlayerRating
from ratings.services import ratings_request_full_replay
from tests import factories
from tests.factories import api_token_for
from tests.matches.rows import rows_changed, rows_snapshot
from tests.oracle import GameSpec, ResultSpec
from tests.oracle_db import oracle_game_spec

BOTS = ("easy", "normal", "hard")
PLAYERS = {"slaps": 5, "preferans": 5, "bridge": 24}  # bridge: up to 6 tables of 4
ZONES = ("UTC", "Europe/Berlin", "America/New_York")
# A start near a daylight-saving change of each zone, so periods straddle it.
ZONE_START = {
    "UTC": dt.datetime(2026, 3, 26, 12),
    "Europe/Berlin": dt.datetime(2026, 3, 26, 12),
    "America/New_York": dt.datetime(2026, 3, 5, 12),
}


# --- strategies -----------------------------------------------------------------------------------


@st.composite
def played_at_offsets(draw) -> int:
    """Minutes after the history's start: anywhere in 8 days, often just around a local midnight."""
    day = draw(st.integers(0, 7))
    near_midnight = draw(st.booleans())
    if near_midnight:
        return day * 1440 + 720 + draw(st.sampled_from([-30, -1, 0, 1, 30]))  # the start is at local noon
    return day * 1440 + draw(st.integers(0, 1439))


@st.composite
def slaps_results(draw, players: int) -> dict:
    a, b = draw(st.lists(st.integers(0, players - 1), min_size=2, max_size=2, unique=True))
    return {"players": [a, b], "winner": draw(st.sampled_from([a, b]))}


def _zero_sum(draw, seats: int, big: bool) -> list[str]:
    """Whists of one deal, in seat order, summing to zero; at most two decimals, each within +-10,000."""
    limit = 10_000 if big else 30
    values = []
    for _ in range(seats - 1):
        cents = draw(st.booleans())
        whole = draw(st.integers(-limit // seats, limit // seats))
        values.append(whole * 100 + (draw(st.integers(-99, 99)) if cents else 0))
    values.append(-sum(values))
    return [f"{value / 100:.2f}" if value % 100 else str(value // 100) for value in values]


@st.composite
def preferans_results(draw, players: int, big_whists: bool) -> dict:
    seat_count = draw(st.integers(2, 4))
    bots = draw(st.lists(st.sampled_from(BOTS), max_size=seat_count - 1, unique=True))
    humans = seat_count - len(bots)
    people = draw(st.lists(st.integers(0, players - 1), min_size=humans, max_size=humans, unique=True))
    seats = [{"player": index} for index in people] + [{"bot": slug} for slug in bots]
    seats = draw(st.permutations(seats))
    deals = [_zero_sum(draw, seat_count, big_whists and draw(st.booleans())) for _ in range(draw(st.integers(1, 4)))]
    return {"seats": list(seats), "deals": deals}


#: Every NS score a board can have, by vulnerability, in order (hypothesis shrinks toward the first).
POSSIBLE = {
    vulnerability: sorted(possible_ns_scores(vulnerability), key=abs) for vulnerability in ("None", "NS", "EW", "All")
}


@st.composite
def bridge_results(draw, players: int) -> dict:
    """1-6 tables; regular pairs (0-1, 2-3, ...) or an occasional shuffle; 1-3 boards, same seating."""
    tables = draw(st.integers(1, 6))
    if draw(st.booleans()):
        regular = st.integers(0, players // 2 - 1)
        pair_ids = draw(st.lists(regular, min_size=2 * tables, max_size=2 * tables, unique=True))
        pairs = [[2 * pair, 2 * pair + 1] for pair in pair_ids]
    else:
        seated = draw(st.lists(st.integers(0, players - 1), min_size=4 * tables, max_size=4 * tables, unique=True))
        pairs = [seated[i : i + 2] for i in range(0, len(seated), 2)]
    team_match = tables == 2 and draw(st.integers(0, 9)) == 0
    boards = []
    for number in range(1, draw(st.integers(1, 3)) + 1):
        rows = []
        for table in range(tables):
            row = {"ns": pairs[2 * table], "ew": pairs[2 * table + 1]}
            if tables == 1 or (team_match and table == 0):
                row["ns_imps"] = draw(st.sampled_from(["0", "1", "-1", "1.5", "-2", "3", "7", "-12", "24"]))
            elif not team_match:
                # A score the board can have at its vulnerability (the cleaner refuses any other).
                row["ns_score"] = draw(st.sampled_from(POSSIBLE[board_vulnerability_name(number)]))
            rows.append(row)
        boards.append({"number": number, "tables": rows})
    return {"boards": boards}


@st.composite
def operations(draw, result_strategy, *, bot_edits: bool, floor_raises: bool) -> list[tuple]:
    ops: list[tuple] = []
    submitted = 0
    for _ in range(draw(st.integers(1, 10))):
        kinds = ["submit"] * 6 + (["void", "correct"] if submitted else [])
        kinds += ["bot"] if bot_edits else []
        kinds += ["floor"] if floor_raises else []
        kind = draw(st.sampled_from(kinds))
        if kind == "submit":
            ops.append(("submit", draw(result_strategy), draw(played_at_offsets()), draw(_filing()), draw(_via())))
            submitted += 1
        elif kind == "void":
            ops.append(("void", draw(st.integers(0, submitted - 1)), draw(_via())))
        elif kind == "correct":
            target = draw(st.integers(0, submitted - 1))
            replacement = (draw(result_strategy), draw(played_at_offsets()), draw(_filing()), draw(_via()))
            ops.append(("correct", target, *replacement))
        elif kind == "bot":
            rating = draw(st.integers(900, 2600))
            ops.append(("bot", draw(st.sampled_from(BOTS)), rating, rating + draw(st.integers(0, 900))))
        else:
            ops.append(("floor", draw(st.sampled_from(["1800", "1805", "1850"]))))
    return ops


def _via():
    """About a third of the writes go through the REST API, the rest through the services."""
    return st.sampled_from(["service", "service", "api"])


def _filing():
    """The league a result is filed under, and whether it is a friendly (1 in 8)."""
    return st.tuples(st.sampled_from(["amateur", "amateur", "pro"]), st.integers(0, 7).map(lambda n: n == 0))


@dataclass
class History:
    game_slug: str
    start_rating: str
    parameters: dict
    zone: str
    period_days: int
    period_anchor: dt.date
    ops: list[tuple] = field(default_factory=list)


@st.composite
def histories(draw, game_slug: str, *, known_bugs: bool = True) -> History:
    """A history for one game. ``known_bugs=False`` keeps to histories that avoid the three
    rule bugs being fixed in parallel (mid-game promotion and the floor, bots as played, DST
    periods): only for checking the oracle against today's code while developing."""
    players = PLAYERS[game_slug]
    near = known_bugs and draw(st.booleans())
    start = draw(st.sampled_from(["1790", "1795"])) if near else "1000"
    parameters = {}
    zone, period_days = "UTC", 0
    if game_slug == "slaps":
        # Short K-switches so a short history crosses from provisional to established K.
        k_rules = [{}, {"provisional_matches": 2}, {"k_provisional": 40, "provisional_matches": 3}]
        parameters = draw(st.sampled_from(k_rules))
        result = slaps_results(players)
    elif game_slug == "preferans":
        # Smoothing starts at 4000 by default, out of a short history's reach: a game may start it lower.
        parameters = draw(st.sampled_from([{}, {}, {"smoothing_start": 1010, "smoothing_scale": 40}]))
        result = preferans_results(players, big_whists=known_bugs)
    else:
        zone = draw(st.sampled_from(ZONES)) if known_bugs else "UTC"
        period_days = draw(st.sampled_from([0, 0, 1, 3, 7]))
        # With the default bonus_scale (100 deals) a short history's partnerships hardly differ; a small
        # scale makes every board played together count, within a session too.
        parameters = draw(st.sampled_from([{}, {"bonus_scale": 2}, {"bonus_max": 120, "bonus_scale": 4}]))
        result = bridge_results(players)
    anchor = dt.date(2026, 3, 2) + dt.timedelta(days=draw(st.integers(0, 6)))
    ops = draw(operations(result, bot_edits=known_bugs and game_slug == "preferans", floor_raises=known_bugs))
    if near:
        # Players around 1800 meet the pro floor: often one an admin raised above the threshold.
        ops.insert(0, ("floor", draw(st.sampled_from(["1800", "1805", "1850", "1850"]))))
    return History(game_slug, start, parameters, zone, period_days, anchor, ops)


# --- the driver -------------------------------------------------------------------------------------


class Driver:
    """Plays a history through matches.services and the REST API, keeping the record."""

    def __init__(self, *, history: History, referee, admin) -> None:
        self.history = history
        self.game = Game.objects.get(slug=history.game_slug)
        self.referee, self.admin = referee, admin
        self.api = APIClient()
        self.api.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(referee)}")
        self.admin_api = APIClient()
        self.admin_api.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(admin)}")
        self.players = [factories.PlayerFactory().pk for _ in range(PLAYERS[history.game_slug])]
        self.start = ZONE_START[history.zone].replace(tzinfo=ZoneInfo(history.zone))
        self.matches: list[int] = []  # submissions in the order they were made
        self.record: dict[int, ResultSpec] = {}

    # -- set-up, as an admin would save it
    def set_up(self) -> None:
        self.game.start_rating = self.history.start_rating
        self.game.parameters = self.history.parameters
        self.game.save()
        League.objects.filter(game=self.game, tier="amateur").update(
            rating_period_days=self.history.period_days, rating_period_anchor=self.history.period_anchor
        )

    def game_spec(self) -> GameSpec:
        """The game's leagues as stored, with the parameters, start rating and zone this history set."""
        return replace(
            oracle_game_spec(game=self.game),
            parameters=dict(self.history.parameters),
            start_rating=self.history.start_rating,
            time_zone=self.history.zone,
        )

    # -- bodies
    def _api_body(self, result: dict, minutes: int, filing: tuple[str, bool]) -> dict:
        tier, friendly = filing
        body = {
            "game": self.game.slug,
            "played_at": (self.start + dt.timedelta(minutes=minutes)).isoformat(),
            "rated": not friendly,
            "league": f"{self.game.slug}-{tier}",
        }
        ids = self.players
        if "players" in result:
            body["players"] = [ids[i] for i in result["players"]]
            body["winner"] = ids[result["winner"]]
        elif "seats" in result:
            body["seats"] = [{"player": ids[s["player"]]} if "player" in s else dict(s) for s in result["seats"]]
            body["deals"] = [list(deal) for deal in result["deals"]]
        else:
            body["boards"] = [
                {
                    "number": board["number"],
                    "tables": [
                        {**table, "ns": [ids[i] for i in table["ns"]], "ew": [ids[i] for i in table["ew"]]}
                        for table in board["tables"]
                    ],
                }
                for board in result["boards"]
            ]
        return body

    def _oracle_body(self, body: dict, *, replaces: ResultSpec | None = None) -> dict:
        """The body as the oracle reads it, each bot seat with the bot's values as played.

        As played (PRODUCT.md "Bots as played"): the bot's values now, except
        that a correction (``replaces``: the record of the result it corrects)
        keeps, for a bot already at that result's table, the values recorded
        with it, since the game was played against the bot as it was then.
        """
        if "seats" in body:
            played = {
                seat["bot"]: {"rating": seat["rating"], "max_rating": seat["max_rating"]}
                for seat in (replaces.body.get("seats", []) if replaces else [])
                if "bot" in seat
            }
            bots = {bot.slug: bot for bot in Bot.objects.filter(game=self.game)}
            seats = [
                s
                if "player" in s
                else {
                    **s,
                    **played.get(
                        s["bot"], {"rating": str(bots[s["bot"]].rating), "max_rating": str(bots[s["bot"]].max_rating)}
                    ),
                }
                for s in body["seats"]
            ]
            return {"seats": seats, "deals": body["deals"]}
        return {key: body[key] for key in ("players", "winner", "boards") if key in body}

    def _remember(self, match_id: int, body: dict) -> None:
        self.record[match_id] = ResultSpec(
            id=match_id,
            played_at=dt.datetime.fromisoformat(body["played_at"]),
            league=body["league"],
            status="rated" if body["rated"] else "friendly",
            body=self._oracle_body(body, replaces=self.record.get(match_id)),
        )

    # -- operations
    def run(self) -> None:
        self.set_up()
        for op in self.history.ops:
            with TestCase.captureOnCommitCallbacks(execute=True):
                getattr(self, f"_op_{op[0]}")(*op[1:])

    def _admitted(self, body: dict) -> bool:
        """Whether every player of the body may play in the league it names: the pro league's results
        are between its players (issue 12 item 3); the amateur league takes anyone."""
        if body["league"] != f"{self.game.slug}-pro":
            return True
        ids = set(body.get("players", []))
        ids |= {seat["player"] for seat in body.get("seats", []) if "player" in seat}
        ids |= {p for board in body.get("boards", []) for t in board["tables"] for p in (*t["ns"], *t["ew"])}
        pros = PlayerRating.objects.filter(game=self.game, league__tier="pro", player_id__in=ids).count()
        return pros == len(ids)

    def _refused(self, body: dict, via: str, *, match_id: int | None = None) -> bool:
        """A body filing players under a league they are not in is refused, naming the league, and stores nothing."""
        if self._admitted(body):
            return False
        before = rows_snapshot()
        if via == "api":
            client, path = (self.api, "/api/matches/") if match_id is None else (
                self.admin_api, f"/api/matches/{match_id}/correct/")  # fmt: skip
            response = client.post(path, body, format="json")
            assert response.status_code == 400, response.content
            assert list(response.json()) == ["league"], response.content
        else:
            if match_id is None:
                write = lambda: match_submit(referee=self.referee, data=body)  # noqa: E731
            else:
                write = lambda: match_correct(match_id=match_id, by=self.admin, data=body)  # noqa: E731
            with pytest.raises(ValidationError) as refused:
                write()
            assert list(refused.value.message_dict) == ["league"]
        assert rows_changed(before, rows_snapshot()) == {}
        return True

    def _op_submit(self, result, minutes, filing, via) -> None:
        body = self._api_body(result, minutes, filing)
        if self._refused(body, via):
            return
        if via == "api":
            response = self.api.post("/api/matches/", body, format="json")
            assert response.status_code == 201, response.content
            match_id = response.json()["id"]
        else:
            match_id = match_submit(referee=self.referee, data=body).pk
        self.matches.append(match_id)
        self._remember(match_id, body)

    def _op_void(self, index, via) -> None:
        if index >= len(self.matches):
            return  # that submission was refused
        match_id = self.matches[index]
        if via == "api":
            response = self.admin_api.post(f"/api/matches/{match_id}/void/", format="json")
            assert response.status_code == 200, response.content
        else:
            match_void(match_id=match_id, by=self.admin)
        previous = self.record[match_id]
        self.record[match_id] = ResultSpec(previous.id, previous.played_at, previous.league, "void", previous.body)

    def _op_correct(self, index, result, minutes, filing, via) -> None:
        if index >= len(self.matches):
            return  # that submission was refused
        match_id = self.matches[index]
        if self.record[match_id].status == "void":
            return  # a voided match cannot be corrected (and stays void)
        body = self._api_body(result, minutes, filing)
        if self._refused(body, via, match_id=match_id):
            return  # the result stays as it was
        if via == "api":
            response = self.admin_api.post(f"/api/matches/{match_id}/correct/", body, format="json")
            assert response.status_code == 200, response.content
        else:
            match_correct(match_id=match_id, by=self.admin, data=body)
        self._remember(match_id, body)

    def _op_bot(self, slug, rating, max_rating) -> None:
        """An admin edits a bot in Django admin (a plain model save): future games only."""
        bot = Bot.objects.get(game=self.game, slug=slug)
        bot.rating, bot.max_rating = rating, max_rating
        bot.save()

    def _op_floor(self, floor) -> None:
        """An admin raises the pro floor: the league is saved and the game replayed, as LeagueAdmin does."""
        league = League.objects.get(game=self.game, tier="pro")
        league.rating_floor = floor
        league.save()
        ratings_request_full_replay(game_id=self.game.pk)


def play(history: History, *, referee, admin):
    """Run the history in a transaction that is rolled back afterwards; returns (driver, callback result)."""

    def within(check):
        with override_settings(TIME_ZONE=history.zone), transaction.atomic():
            driver = Driver(history=history, referee=referee, admin=admin)
            driver.run()
            try:
                return check(driver)
            finally:
                transaction.set_rollback(True)

    return within


def match_count(game: Game) -> int:
    return Match.objects.filter(game=game).count()
