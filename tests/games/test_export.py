"""Exporting (issue 14): filters, and round trips into an empty database that give identical ratings.

A round trip: a game's history is entered through the one write path and
rated; its ratings and ledger are noted; it is exported; every player,
result and rating is then deleted (the games, leagues and bots stay, as a
fresh installation has them), and ``import_results`` reads the file back.
The expected values are the ratings before the export: the comparison is
between two independent paths (entered one by one and rated as they came,
or imported at once and replayed), never the engine's word for itself.
"""

import csv
import io
import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from rest_framework.test import APIClient

from games.exporting import CHUNK, export_csv_pieces, export_json_pieces
from leagues.models import Game, League, Player
from matches.confirmation import match_dispute
from matches.models import Match
from matches.services import match_submit
from ratings.models import PlayerRating, Promotion, RatingChange, RatingState
from tests.conftest import api_for
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory, bridge_session_body, figures_now

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 1, 17, 0, tzinfo=UTC)
WIPED = (
    "matches_auditentry",  # append-only for rows (a trigger refuses DELETE); a fresh database has none
    "bridge_boardtable",
    "bridge_board",
    "preferans_deal",
    "matches_seat",
    "ratings_ratingchange",
    "ratings_promotion",
    "ratings_playerrating",
    "matches_match",
    "leagues_player",
)


def export(*args: str) -> str:
    out = StringIO()
    call_command("export_results", *args, stdout=out)
    return out.getvalue()


def wipe_everything_but_the_games() -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the deferred foreign keys' checks, before TRUNCATE
            cursor.execute(f"TRUNCATE {', '.join(WIPED)} CASCADE")
        else:  # SQLite (make test's default): no TRUNCATE; children first, checked at the test's end
            for table in WIPED:
                cursor.execute(f"DELETE FROM {table}")  # noqa: S608 - the names above, no input
    RatingState.objects.update(
        applied_until_played_at=None, applied_until_match_id=None, replay_from_played_at=None, replay_from_match_id=None
    )
    assert not Player.objects.exists()
    assert not Match.objects.exists()


def ratings_of(game: Game) -> dict:
    """Everything rated in ``game``, people by name and number (ids change in a new database)."""
    return {
        "standings": sorted(
            PlayerRating.objects.filter(game=game).values_list(
                "player__name", "player__federation_id", "league__slug", "rating", "peak_rating", "rated_matches"
            )
        ),
        "ledger": [
            (played_at, unit, name, before, after, delta, details)
            for played_at, unit, name, before, after, delta, details in RatingChange.objects.filter(game=game)
            .order_by("played_at", "match__played_at", "unit", "player__name")
            .values_list("played_at", "unit", "player__name", "rating_before", "rating_after", "delta", "details")
        ],
        "promotions": sorted(
            Promotion.objects.filter(game=game).values_list(
                "player__name", "from_league__slug", "to_league__slug", "played_at", "rating"
            )
        ),
        "matches": sorted(Match.objects.filter(game=game).values_list("played_at", "rated", "status", "league__slug")),
    }


def enter(referee, bodies, capture) -> None:
    with capture(execute=True):
        for body in bodies:
            match_submit(referee=referee, data=body)


def people(count: int) -> list[Player]:
    # Names with accents, a formula's start and a comma; numbers with leading zeros, and one without.
    names = ["Ana Žnidaršič", "=Bojan Kos", "Cvetka, Vesna", "Đuro Perić", "Eva Lenarčič", "-Filip", "Gal Bizjak"]
    names += [f"Player {n}" for n in range(count)]
    return [PlayerFactory(name=names[n], federation_id=f"00{n}7" if n % 3 else "") for n in range(count)]


def slaps_history(players: list[Player]) -> list[dict]:
    ids = [player.pk for player in players]
    bodies = []
    for n in range(40):
        a, b = ids[n % len(ids)], ids[(n * 3 + 1) % len(ids)]
        if a == b:
            b = ids[(n + 1) % len(ids)]
        played = START + timedelta(hours=n * 7)
        bodies.append(
            {"game": "slaps", "played_at": played.isoformat(), "players": [a, b], "winner": a if n % 3 else b}
        )
    bodies[5]["rated"] = False  # a friendly goes out and comes back, never rated
    return bodies


def preferans_history(players: list[Player]) -> list[dict]:
    ids = [player.pk for player in players]
    bodies = []
    for n in range(8):
        seats = [{"player": ids[(n + k) % len(ids)]} for k in range(3 if n % 2 else 4)]
        if n % 3 == 0:
            seats[-1] = {"bot": "normal"}
        size = len(seats)
        deals = [[(4 if k == (n + d) % size else 0) - (4 / size) for k in range(size)] for d in range(3)]
        deals = [[round(value, 2) for value in deal] for deal in deals]
        deals = [[*deal[:-1], round(-sum(deal[:-1]), 2)] for deal in deals]
        bodies.append(
            {"game": "preferans", "played_at": (START + timedelta(days=n)).isoformat(), "seats": seats, "deals": deals}
        )
    return bodies


def bridge_history(players: list[Player]) -> list[dict]:
    ids = [player.pk for player in players]
    scores = [[(420, -50), (110, 140)], [(-100, 620), (50, 50)], [(170, 170), (-200, 100)]]
    return [
        bridge_session_body(ids[week:] + ids[:week], START + timedelta(days=7 * week), board_scores)
        for week, board_scores in enumerate(scores)
    ]


HISTORIES = {"slaps": (slaps_history, 7), "preferans": (preferans_history, 5), "bridge": (bridge_history, 8)}


@pytest.mark.parametrize(
    ("slug", "format"),
    [("slaps", "json"), ("preferans", "json"), ("bridge", "json"), ("slaps", "csv"), ("preferans", "csv")],
)
def test_an_export_imported_into_an_empty_database_gives_identical_ratings(
    tmp_path, referee, django_capture_on_commit_callbacks, slug, format
):
    game = Game.objects.get(slug=slug)
    history, count = HISTORIES[slug]
    enter(referee, history(people(count)), django_capture_on_commit_callbacks)
    before = ratings_of(game)
    assert before["ledger"]
    assert before["standings"]
    exported = tmp_path / f"{slug}.{format}"
    call_command("export_results", "--game", slug, "--format", format, "--output", str(exported), stdout=StringIO())

    wipe_everything_but_the_games()
    out = StringIO()
    call_command("import_results", str(exported), "--game", slug, "--referee", referee.username, stdout=out)
    assert f"0 matched, {count} new, 0 ambiguous" in out.getvalue()
    after = ratings_of(game)
    assert after == before


def test_the_filters_pick_a_league_and_days_in_the_clubs_zone(settings, referee, django_capture_on_commit_callbacks):
    settings.TIME_ZONE = "Europe/Ljubljana"  # UTC+1 in March
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    played = [
        datetime(2026, 3, 1, 22, 30, tzinfo=UTC),  # 23:30 on 1 March in Ljubljana
        datetime(2026, 3, 1, 23, 30, tzinfo=UTC),  # 00:30 on 2 March in Ljubljana
        datetime(2026, 3, 3, 12, 0, tzinfo=UTC),
    ]
    bodies = [
        {"game": "slaps", "played_at": at.isoformat(), "players": [ann.pk, bob.pk], "winner": ann.pk} for at in played
    ]
    enter(referee, bodies, django_capture_on_commit_callbacks)

    def rows(*args: str) -> list[str]:
        return [line.split(",")[0] for line in export("--game", "slaps", "--format", "csv", *args).splitlines()[1:]]

    assert len(rows()) == 3
    assert rows("--to", "2026-03-01") == ["2026-03-01T22:30:00+00:00"]
    assert rows("--from", "2026-03-02", "--to", "2026-03-02") == ["2026-03-01T23:30:00+00:00"]
    assert len(rows("--from", "2026-03-02")) == 2
    assert len(rows("--league", "slaps-amateur")) == 3
    assert rows("--league", "slaps-pro") == []
    dump = export("--game", "slaps", "--format", "json", "--from", "2026-03-03")
    assert dump.count('"played_at"') == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--league", "bridge-pro"), "--league: Slaps has no league 'bridge-pro'"),
        (("--from", "2026-13-01"), "--from: '2026-13-01' is not a date"),
        (("--from", "2026-03-02", "--to", "2026-03-01"), "--to: 2026-03-01 is before from"),
    ],
)
def test_a_bad_filter_is_refused_naming_the_option(reference_data, args, message):
    with pytest.raises(CommandError, match=message):
        export("--game", "slaps", "--format", "csv", *args)


def test_a_large_export_is_written_in_pieces(referee, django_capture_on_commit_callbacks):
    """More results than one chunk: Preferans games keep one key each across the chunks' seams."""
    players = people(4)
    ids = [player.pk for player in players]
    bodies = [
        {
            "game": "preferans",
            "played_at": (START + timedelta(minutes=n)).isoformat(),
            "seats": [{"player": ids[0]}, {"player": ids[1]}, {"player": ids[2]}],
            "deals": [[2, -1, -1]],
            "rated": False,
        }
        for n in range(CHUNK + 3)
    ]
    enter(referee, bodies, django_capture_on_commit_callbacks)
    pieces = list(export_csv_pieces(Game.objects.get(slug="preferans")))
    assert len(pieces) > 1
    keys = [line.split(",")[0] for line in "".join(pieces).splitlines()[1:]]
    assert keys == [str(n) for n in range(1, CHUNK + 4)]
    assert League.objects.filter(game__slug="preferans").exists()


def test_a_json_dump_cut_off_anywhere_is_not_json(referee, django_capture_on_commit_callbacks):
    """A download that stops early (docs/api.md, issue 25) must not read as a whole dump: the dump closes
    its object only at its very end, so every cut before that is invalid JSON, whichever piece it falls in."""
    players = people(3)
    enter(referee, slaps_history(players), django_capture_on_commit_callbacks)
    pieces = list(export_json_pieces(Game.objects.get(slug="slaps")))
    whole = "".join(pieces)
    assert json.loads(whole)["results"]
    end = len(whole.rstrip())  # past the closing brace only whitespace: the dump is whole there
    for cut in range(end):
        with pytest.raises(json.JSONDecodeError):
            json.loads(whole[:cut])


def test_a_downloaded_csv_imports_into_an_empty_database(tmp_path, referee, django_capture_on_commit_callbacks):
    """The site's download (a byte order mark, the staff's numbers) is a file the importer reads."""
    game = Game.objects.get(slug="preferans")
    enter(referee, preferans_history(people(5)), django_capture_on_commit_callbacks)
    before = ratings_of(game)
    response = api_for(AdminFactory()).get("/api/games/preferans/results.csv")
    downloaded = tmp_path / "preferans.csv"
    downloaded.write_bytes(b"".join(response.streaming_content))
    assert downloaded.read_bytes().startswith(b"\xef\xbb\xbf")

    wipe_everything_but_the_games()
    call_command(
        "import_results", str(downloaded), "--game", "preferans", "--referee", referee.username, stdout=StringIO()
    )
    assert ratings_of(game) == before


# --- exports tell the truth (issue 25) ------------------------------------------------------------------


def csv_rows_of(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))


def test_the_public_csv_says_each_results_status_and_never_calls_a_waiting_one_rated(
    referee, django_capture_on_commit_callbacks
):
    """A rated result, a friendly, one waiting for a second referee and one that referee disputed: the
    public download says which is which, and only the rated one is ``rated=true``."""
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")

    def slaps(hours: int, **extra) -> dict:
        played = (START + timedelta(hours=hours)).isoformat()
        return {"game": "slaps", "played_at": played, "players": [ann.pk, bob.pk], "winner": ann.pk} | extra

    enter(referee, [slaps(0), slaps(1, rated=False)], django_capture_on_commit_callbacks)
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)
    enter(referee, [slaps(2), slaps(3)], django_capture_on_commit_callbacks)
    disputed = Match.objects.get(played_at=START + timedelta(hours=3))
    match_dispute(match_id=disputed.pk, by=RefereeFactory(), note="Bob won this one.")

    figures_now(Game.objects.get(slug="slaps"))  # the public file is prepared in the background
    response = APIClient().get("/api/games/slaps/results.csv")
    rows = csv_rows_of(b"".join(response.streaming_content).decode())
    assert [(row["rated"], row["status"]) for row in rows] == [
        ("true", "rated"),
        ("false", "friendly"),
        ("", "waiting"),
        ("", "disputed"),
    ]
    dump = json.loads(export("--game", "slaps", "--format", "json"))
    assert [result["status"] for result in dump["results"]] == ["rated", "friendly", "waiting", "disputed"]


def test_the_status_column_reads_back_and_a_contradiction_is_refused(tmp_path, referee):
    header = "played_at,player_a,player_b,winner,rated,status\n"
    good = tmp_path / "good.csv"
    good.write_text(
        header + "2026-03-01T18:00Z,Ann,Bob,a,,waiting\n2026-03-01T19:00Z,Ann,Bob,a,,friendly\n", encoding="utf-8"
    )
    call_command("import_results", str(good), "--game", "slaps", "--referee", referee.username, stdout=StringIO())
    assert list(Match.objects.order_by("played_at").values_list("rated", flat=True)) == [True, False]

    bad = tmp_path / "bad.csv"
    bad.write_text(header + "2026-03-02T18:00Z,Ann,Bob,a,true,friendly\n", encoding="utf-8")
    out = StringIO()
    with pytest.raises(CommandError, match="Nothing was imported"):
        call_command("import_results", str(bad), "--game", "slaps", "--referee", referee.username, stdout=out)
    assert "rated 'true' contradicts status 'friendly'" in out.getvalue()
    assert Match.objects.count() == 2


def test_whists_are_numbers_in_the_csv_negative_ones_too(referee, django_capture_on_commit_callbacks):
    enter(referee, preferans_history(people(5)), django_capture_on_commit_callbacks)
    rows = csv_rows_of(export("--game", "preferans", "--format", "csv"))
    whists = [row[f"whists_{n}"] for row in rows for n in range(1, 5) if row[f"whists_{n}"]]
    assert any(cell.startswith("-") for cell in whists)
    assert all(Decimal(cell) == Decimal(cell).quantize(Decimal("0.01")) for cell in whists)  # not '-3: a number


NAMES = ["'=Ana", "''+Bo", "'Tis Cene", "=Dan", "+Eva", "-Filip", "@Gal", "'@Hana", "'-Ivo"]


@pytest.mark.parametrize("format", ["csv", "json"])
def test_a_round_trip_keeps_every_name_byte_for_byte(tmp_path, referee, django_capture_on_commit_callbacks, format):
    players = [PlayerFactory(name=name) for name in NAMES]
    bodies = [
        {
            "game": "slaps",
            "played_at": (START + timedelta(hours=n)).isoformat(),
            "players": [players[n].pk, players[(n + 1) % len(players)].pk],
            "winner": players[n].pk,
        }
        for n in range(len(players))
    ]
    enter(referee, bodies, django_capture_on_commit_callbacks)
    exported = tmp_path / f"slaps.{format}"
    call_command("export_results", "--game", "slaps", "--format", format, "--output", str(exported), stdout=StringIO())

    wipe_everything_but_the_games()
    call_command("import_results", str(exported), "--game", "slaps", "--referee", referee.username, stdout=StringIO())
    assert sorted(Player.objects.values_list("name", flat=True)) == sorted(NAMES)


TWO = '[{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}]'


def _dump(results: str, *, players: str = "[]") -> bytes:
    head = '{"format": "cardrank-results", "version": 1, "game": {"rating_system": "elo"}, "leagues": []'
    return f'{head}, "players": {players}, "results": {results}}}'.encode()


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nests deeper than 32 levels"),
        ("deep-objects.json", b'{"a": ' * 100_000 + b"1" + b"}" * 100_000, "nests deeper than 32 levels"),
        ("deep-result.json", _dump("[" * 200 + "]" * 200), "nests deeper than 32 levels"),
        ("long-number.json", _dump("[" + "9" * 5000 + "]"), "a number too long to be read"),
        ("game-list.json", b'{"format": "cardrank-results", "game": ["slaps"]}', "A dump of a None game"),
        ("players-text.json", _dump("[]", players='"Ann"'), "are lists of objects"),
        ("name-list.json", _dump("[]", players='[{"id": 1, "name": ["Ann"]}]'), "are lists of objects"),
        ("league-list.json", _dump('[{"players": [1, 2], "winner": 1, "league": []}]', players=TWO), "result 1"),
        ("bad-utf8.json", b'{"format": "cardrank-results\xff"}', "not UTF-8"),
        ("nul.csv", b"played_at,player_a,player_b,winner\n2026-03-01T18:00Z,A\x00n,Bob,a\n", "NUL byte"),
        ("bad-utf8.csv", b"played_at,player_a,player_b,winner\n2026-03-01T18:00Z,\xffAnn,Bob,a\n", "not UTF-8"),
    ],
)
def test_a_malformed_file_is_a_clear_error_and_stores_nothing(tmp_path, referee, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match="Nothing was imported"):
        call_command(
            "import_results", str(path), "--game", "slaps", "--referee", referee.username, stdout=out, stderr=err
        )
    assert message in out.getvalue() + err.getvalue()
    assert not Match.objects.exists()
    assert not Player.objects.exists()
