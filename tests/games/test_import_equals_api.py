"""An import rates exactly as the same results entered through ``POST /api/matches/`` (issue 14).

For each of the eight real bridge files (skipped when they are absent), and
for a Slaps CSV of a few hundred rows: ``manage.py import_results`` stores
and rates the file in its game; then the same results go through the API,
one request each, into a twin game (an empty rating pool with the same rules
and leagues: the fresh state) and are rated by the same path every entered
result takes (the rating task, on commit). The API bodies are built here:
for bridge from the reader's plan (its ``PlayerRef``s mapped, by this test, to
the players the import created: by federation number, else by name), for
Slaps from the test's own rows, never from the stored matches. Then every
ledger row and every player's rating is the same in both games.
"""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command

from games.bridge.importing import parse_pbn, parse_usebio
from games.imports import PlayerRef
from leagues.models import Game, Player
from ratings.models import PlayerRating, RatingChange
from tests.conftest import api_for
from tests.games.test_bridge_import import DATA, FILES, REAL_FILES
from tests.games.test_import_results import twin_game

pytestmark = pytest.mark.django_db


def _ledger(game: Game) -> list[tuple]:
    return sorted(
        RatingChange.objects.filter(game=game).values_list(
            "played_at", "unit", "player_id", "rating_before", "rating_after", "delta", "peak_after"
        )
    )


def _standings(game: Game) -> list[tuple]:
    return sorted(
        PlayerRating.objects.filter(game=game).values_list(
            "player_id", "league__tier", "rating", "peak_rating", "rated_matches"
        )
    )


def _import(path, game: str, referee) -> str:
    out = StringIO()
    call_command("import_results", str(path), "--game", game, "--referee", referee.username, stdout=out, stderr=out)
    return out.getvalue()


def _spelled(name: str) -> str:
    return unicodedata.normalize("NFC", " ".join(name.split()))


def _player_of(ref: PlayerRef) -> int:
    """The player the import made of a person the file names: by their number, else the one of that name."""
    if ref.federation_id:
        return Player.objects.get(federation_id=ref.federation_id).pk
    return Player.objects.get(name__iexact=_spelled(ref.name), federation_id="").pk


def _post_all(client, bodies, django_capture_on_commit_callbacks) -> None:
    for body in bodies:
        with django_capture_on_commit_callbacks(execute=True):  # the rating task runs (eager Celery) as it would
            response = client.post("/api/matches/", body, format="json")
        assert response.status_code == 201, response.content[:500]


@REAL_FILES
@pytest.mark.parametrize("facts", FILES, ids=[facts.file for facts in FILES])
def test_a_real_bridge_file_rates_as_its_boards_entered_through_the_api(
    facts, referee, django_capture_on_commit_callbacks
):
    path = DATA / facts.file
    out = _import(path, "bridge", referee)
    assert "Imported 1 result" in out, out
    bridge = Game.objects.get(slug="bridge")
    assert RatingChange.objects.filter(game=bridge).exists()

    twin = twin_game("bridge")
    data = path.read_bytes()
    plan = parse_pbn(data) if facts.file.endswith(".pbn") else parse_usebio(data)
    assert len(plan.results) == 1  # one session, one match
    ids = {ref: _player_of(ref) for ref in plan.people()}
    bodies = []
    for result in plan.results:
        boards = [
            {
                "number": board["number"],
                "tables": [
                    {
                        "ns": [ids[person] for person in table["ns"]],
                        "ew": [ids[person] for person in table["ew"]],
                        "ns_score": table["ns_score"],
                    }
                    for table in board["tables"]
                    if "ns_score" in table  # the played tables: adjusted ones are kept unrated
                ],
            }
            for board in result["boards"]
        ]
        bodies.append({"game": twin.slug, "played_at": result["played_at"], "boards": boards})
    _post_all(api_for(referee), bodies, django_capture_on_commit_callbacks)

    imported, entered = _ledger(bridge), _ledger(twin)
    assert len(imported) >= 4 * facts.pairs  # every pair's two players, on at least two boards
    assert imported == entered
    assert _standings(bridge) == _standings(twin)


NAMES = [f"Member {n:03d}" for n in range(40)]
START = datetime(2025, 9, 1, 18, 0, tzinfo=UTC)


def _slaps_rows(count: int) -> list[tuple[datetime, int, int, str]]:
    """Rows of a season: (time, player a, player b, winner "a"/"b"), spread over people and clock zones."""
    rows = []
    for index in range(count):
        a = (index * 7) % len(NAMES)
        b = (a + 1 + (index * 11) % (len(NAMES) - 1)) % len(NAMES)
        rows.append((START + timedelta(hours=index * 5), a, b, "a" if (index * 13) % 5 < 3 else "b"))
    return rows


def test_a_slaps_csv_of_a_season_rates_as_the_api(tmp_path, referee, django_capture_on_commit_callbacks):
    rows = _slaps_rows(300)
    lines = ["played_at,player_a,player_a_id,player_b,player_b_id,winner"]
    for index, (at, a, b, winner) in enumerate(rows):
        # The same instants, written in two zones: UTC, and an hour ahead.
        local, zone = (at + timedelta(hours=1), "+01:00") if index % 2 else (at, "Z")
        shown = local.strftime("%Y-%m-%dT%H:%M:%S") + zone
        number_a = f"0{a:04d}" if a % 3 == 0 else ""  # some members have club numbers (a leading zero kept)
        number_b = f"0{b:04d}" if b % 3 == 0 else ""
        lines.append(f"{shown},{NAMES[a]},{number_a},{NAMES[b]},{number_b},{winner}")
    path = tmp_path / "season.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = _import(path, "slaps", referee)
    assert "Imported 300 results (40 new players); 300 rated." in out, out

    twin = twin_game("slaps")
    player = {
        n: (Player.objects.get(federation_id=f"0{n:04d}") if n % 3 == 0 else Player.objects.get(name=NAMES[n])).pk
        for n in range(len(NAMES))
    }
    bodies = [
        {
            "game": twin.slug,
            "played_at": at.isoformat(),
            "players": [player[a], player[b]],
            "winner": player[a] if winner == "a" else player[b],
        }
        for at, a, b, winner in rows
    ]
    _post_all(api_for(referee), bodies, django_capture_on_commit_callbacks)
    slaps = Game.objects.get(slug="slaps")
    assert len(_ledger(slaps)) == 600
    assert _ledger(slaps) == _ledger(twin)
    assert _standings(slaps) == _standings(twin)
