"""The downloads (issue 14): a league's table, a player's history and a game's results as CSV, a game's
JSON dump for the staff; streamed, named, safe in a spreadsheet, and private numbers kept for the staff.

Expected ratings are hand calculations (seed 000's Elo, K = 32 for new players).
"""

import csv
import io
import json
from datetime import UTC, datetime, timedelta

import pytest

from matches.services import match_submit
from tests.conftest import api_for
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory, bridge_session_body

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)


def rows_of(response) -> list[dict[str, str]]:
    assert response.streaming  # written as it is read, never held whole
    data = b"".join(response.streaming_content)
    assert data.startswith("\ufeff".encode())  # Excel reads UTF-8 names right with the byte order mark
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))


@pytest.fixture
def league_history(referee, django_capture_on_commit_callbacks):
    """Ann beats Bob, then Ann beats =Cleo: two Slaps results, rated."""
    ann = PlayerFactory(name="Ann Novak", federation_id="00123")
    bob = PlayerFactory(name="Bob Berg")
    cleo = PlayerFactory(name="=HYPERLINK(1)", federation_id="0042")
    bodies = [
        {"game": "slaps", "played_at": START.isoformat(), "players": [ann.pk, bob.pk], "winner": ann.pk},
        {
            "game": "slaps",
            "played_at": (START + timedelta(days=1)).isoformat(),
            "players": [cleo.pk, ann.pk],
            "winner": ann.pk,
        },
    ]
    with django_capture_on_commit_callbacks(execute=True):
        for body in bodies:
            match_submit(referee=referee, data=body)
    return ann, bob, cleo


def test_the_leaderboard_csv_is_the_table_as_shown(anon_client, league_history):
    ann = league_history[0]
    response = anon_client.get("/api/leagues/slaps-amateur/leaderboard.csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="slaps-amateur-leaderboard.csv"' in response["Content-Disposition"]
    rows = rows_of(response)
    # Ann: 1000 -> 1016 (E = 0.5), then beats Cleo at 1000: E = 1/(1+10^(-16/400)) = 0.523, +15.3 -> 1031.
    # Cleo lost at 1000 to 1016: E = 0.477, 1000 - 32 * 0.477 = 984.7 -> 985. Bob lost at 1000: 984.
    assert [(row["rank"], row["player"], row["rating"], row["rated_matches"]) for row in rows] == [
        ("1", "Ann Novak", "1031", "2"),
        ("2", "'=HYPERLINK(1)", "985", "1"),  # a formula's start is written as text
        ("3", "Bob Berg", "984", "1"),
    ]
    assert {row["federation_id"] for row in rows} == {""}  # the club's numbers are not public
    assert rows[0]["provisional"] == "yes"
    assert rows[0]["peak_rating"] == "1031"
    assert rows[0]["player_id"] == str(ann.pk)


def test_the_staff_get_the_federation_numbers(league_history):
    rows = rows_of(api_for(AdminFactory()).get("/api/leagues/slaps-amateur/leaderboard.csv?sort=peak"))
    assert [row["federation_id"] for row in rows] == ["00123", "0042", ""]  # text: leading zeros kept


def test_the_history_csv_has_a_row_per_rating_change(anon_client, league_history, settings):
    settings.TIME_ZONE = "Europe/Ljubljana"
    ann = league_history[0]
    response = anon_client.get(f"/api/players/{ann.pk}/history.csv?game=slaps")
    assert f'filename="player-{ann.pk}-history-slaps.csv"' in response["Content-Disposition"]
    rows = rows_of(response)
    assert [
        (row["played_at"], row["game"], row["league"], row["opponents"], row["rating_before"], row["delta"])
        for row in rows
    ] == [
        ("2026-03-01T19:00:00+01:00", "slaps", "slaps-amateur", "Bob Berg", "1000", "16"),
        ("2026-03-02T19:00:00+01:00", "slaps", "slaps-amateur", "'=HYPERLINK(1)", "1016", "15"),
    ]
    assert rows[1]["rating_after"] == "1031"
    assert rows[0]["match"]
    assert rows[0]["unit"] == "0"


def test_a_bridge_history_names_the_pairs_met_on_each_board(anon_client, referee, django_capture_on_commit_callbacks):
    players = [PlayerFactory(name=name) for name in "ABCDEFGH"]
    body = bridge_session_body([p.pk for p in players], START, [(420, -50), (110, 140)])
    with django_capture_on_commit_callbacks(execute=True):
        match_submit(referee=referee, data=body)
    rows = rows_of(anon_client.get(f"/api/players/{players[0].pk}/history.csv"))
    assert [(row["unit"], row["opponents"]) for row in rows] == [("0", "C & D"), ("1", "C & D")]
    assert all(row["game"] == "bridge" for row in rows)


def test_the_results_csv_takes_the_filters_and_hides_numbers_from_the_public(anon_client, league_history):
    everything = rows_of(anon_client.get("/api/games/slaps/results.csv"))
    assert [(row["player_a"], row["player_b"], row["winner"]) for row in everything] == [
        ("Ann Novak", "Bob Berg", "a"),
        ("'=HYPERLINK(1)", "Ann Novak", "b"),
    ]
    assert {row["player_a_id"] for row in everything} == {""}
    response = anon_client.get("/api/games/slaps/results.csv?from=2026-03-02&league=slaps-amateur")
    assert 'filename="slaps-results-slaps-amateur-2026-03-02-now.csv"' in response["Content-Disposition"]
    assert len(rows_of(response)) == 1
    staff = rows_of(api_for(AdminFactory()).get("/api/games/slaps/results.csv?to=2026-03-01"))
    assert [(row["player_a_id"], row["player_b_id"]) for row in staff] == [("00123", "")]


@pytest.mark.parametrize(
    ("query", "field"),
    [("from=yesterday", "from"), ("to=2026-02-30", "to"), ("league=bridge-pro", "league"), ("from=0001-01-01", "from")],
)
def test_a_bad_filter_is_400_naming_it(anon_client, reference_data, query, field):
    response = anon_client.get(f"/api/games/slaps/results.csv?{query}", HTTP_ACCEPT="text/csv")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"  # refusals are JSON, whatever was asked for
    assert field in response.json()


@pytest.mark.parametrize(
    "path",
    [
        "/api/games/bridge/results.csv",  # bridge has no CSV: its dump is the staff's
        "/api/games/chess/results.csv",
        "/api/games/sla%20ps/results.csv",
        "/api/leagues/nope/leaderboard.csv",
        "/api/players/999999/history.csv",
        "/api/players/-1/history.csv",
        "/api/players/1e3/history.csv",
    ],
)
def test_unknown_things_are_a_json_404(anon_client, reference_data, path):
    response = anon_client.get(path)
    assert response.status_code == 404
    assert "detail" in response.json()


def test_the_json_dump_is_the_staffs(anon_client, league_history, tmp_path):
    assert anon_client.get("/api/games/slaps/results.json").status_code == 401
    assert api_for(RefereeFactory()).get("/api/games/slaps/results.json").status_code == 403
    response = api_for(AdminFactory()).get("/api/games/slaps/results.json")
    assert response.status_code == 200
    assert response.streaming
    assert 'filename="slaps-results.json"' in response["Content-Disposition"]
    dump = json.loads(b"".join(response.streaming_content))
    assert dump["format"] == "cardrank-results"
    assert len(dump["results"]) == 2
    assert sorted(player["federation_id"] for player in dump["players"]) == ["", "00123", "0042"]
    assert {league["slug"] for league in dump["leagues"]} == {"slaps-amateur", "slaps-pro"}


def test_the_pages_link_their_downloads(client, league_history):
    ann = league_history[0]
    page = client.get("/leagues/slaps-amateur/").content.decode()
    assert 'href="/api/leagues/slaps-amateur/leaderboard.csv" download' in page
    assert 'href="/api/games/slaps/results.csv?league=slaps-amateur" download' in page
    assert "results.json" not in page  # the dump is the staff's
    profile = client.get(f"/players/{ann.pk}/").content.decode()
    assert f'href="/api/players/{ann.pk}/history.csv" download' in profile
    client.force_login(AdminFactory())
    staff_page = client.get("/leagues/slaps-amateur/").content.decode()
    assert 'href="/api/games/slaps/results.json" download' in staff_page
    dump = client.get("/api/games/slaps/results.json")  # the signed-in staff's session is enough
    assert dump.status_code == 200
    bridge = client.get("/leagues/bridge-amateur/").content.decode()
    assert "results.csv" not in bridge  # bridge results have no CSV; its table has
    assert "leaderboard.csv" in bridge


@pytest.mark.parametrize("matches", [4, 40])
@pytest.mark.usefixtures("heavy_reads_unlimited")  # the view's queries, not its turn's
def test_a_download_costs_the_same_queries_however_long(
    anon_client, referee, django_capture_on_commit_callbacks, django_assert_max_num_queries, matches
):
    """Queries per chunk of rows, not per row: 4 results or 40 cost the same."""
    players = [PlayerFactory(name=f"Q {n}") for n in range(4)]
    bodies = [
        {
            "game": "slaps",
            "played_at": (START + timedelta(hours=n)).isoformat(),
            "players": [players[n % 4].pk, players[(n + 1) % 4].pk],
            "winner": players[n % 4].pk,
        }
        for n in range(matches)
    ]
    with django_capture_on_commit_callbacks(execute=True):
        for body in bodies:
            match_submit(referee=referee, data=body)
    with django_assert_max_num_queries(6):
        assert len(rows_of(anon_client.get(f"/api/players/{players[0].pk}/history.csv"))) == matches // 2
    with django_assert_max_num_queries(5):
        assert len(rows_of(anon_client.get("/api/games/slaps/results.csv"))) == matches
    with django_assert_max_num_queries(2):
        assert len(rows_of(anon_client.get("/api/leagues/slaps-amateur/leaderboard.csv"))) == 4
