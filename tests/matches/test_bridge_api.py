"""Bridge through the API and the pages: sessions, hostile input, partnerships, quality."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from games.bridge.models import Board, BoardTable
from leagues.models import Game
from matches.models import Match
from ratings.models import RatingChange
from tests.factories import PlayerFactory, bridge_evening_form
from tests.oracle_db import assert_ledger_is_the_oracles

pytestmark = pytest.mark.django_db
PLAYED = (timezone.now() - timedelta(hours=3)).isoformat()


@pytest.fixture
def eight(reference_data):
    return [player.pk for player in PlayerFactory.create_batch(8)]


def table(ns, ew, **score):
    return {"ns": list(ns), "ew": list(ew), **score}


def board(*tables, number=1):
    return {"number": number, "tables": list(tables)}


def session(ids, boards=None, **extra):
    a, b, c, d, e, f, g, h = ids
    default = [
        board(table((a, b), (c, d), ns_score=420), table((e, f), (g, h), ns_score=-50), number=1),
        board(table((a, b), (c, d), ns_score=-100), table((e, f), (g, h), ns_score=140), number=2),
    ]
    return {"game": "bridge", "played_at": PLAYED, "boards": default if boards is None else boards, **extra}


def test_a_session_is_stored_rated_and_read_back(referee_client, eight, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = referee_client.post("/api/matches/", session(eight), format="json")
    assert response.status_code == 201, response.json()
    detail = referee_client.get(f"/api/matches/{response.json()['id']}/").json()
    assert detail["status"] == "rated"
    assert detail["league"] == "bridge-amateur"
    first_table = {"table": 1, "ns": sorted(eight[:2]), "ew": sorted(eight[2:4]), "ns_score": 420, "ns_imps": None}
    first_table |= dict.fromkeys(
        ("section", "ns_pair", "ew_pair", "contract", "declarer", "tricks", "lead", "adjusted")
    )
    assert detail["boards"][0]["tables"][0] == first_table
    # Board 1 of the 16-board cycle: North deals, nobody vulnerable; no hand record was given.
    assert {key: detail["boards"][0][key] for key in ("dealer", "vulnerability", "deal", "double_dummy", "par")} == {
        "dealer": "N", "vulnerability": "None", "deal": None, "double_dummy": None, "par": None
    }  # fmt: skip
    assert detail["scoring"] == "cross_imps"  # entered as scores, ranked by IMPs as it always was
    assert len(detail["rating_changes"]) == 8
    assert RatingChange.objects.count() == 16  # 8 players x 2 boards
    a = eight[0]
    history = referee_client.get(f"/api/players/{a}/history/?game=bridge").json()["results"]
    assert [row["details"]["imps"] for row in history] == [10.0, -6.0]  # 470 -> 10; -240 -> -6
    # The ratings themselves: every ledger row is the independent oracle's (tests/oracle).
    assert assert_ledger_is_the_oracles(game=Game.objects.get(slug="bridge")) == 16


def test_single_table_and_team_match_in_imps(referee_client, eight, django_capture_on_commit_callbacks):
    a, b, c, d, e, f, g, h = eight
    boards = [
        board(table((a, b), (c, d), ns_imps=7), number=1),
        board(table((a, b), (c, d), ns_imps=-3), table((e, f), (g, h)), number=2),
    ]
    with django_capture_on_commit_callbacks(execute=True):
        response = referee_client.post("/api/matches/", session(eight, boards), format="json")
    assert response.status_code == 201, response.json()
    assert RatingChange.objects.filter(unit=0).count() == 4
    assert RatingChange.objects.filter(unit=1).count() == 8
    # One table in IMPs is NS against EW; a team match in IMPs is {NS1, EW2} against {NS2, EW1}: the oracle's rows.
    assert assert_ledger_is_the_oracles(game=Game.objects.get(slug="bridge")) == 12


def _two(i, first, second):
    return [board(table((i[0], i[1]), (i[2], i[3]), **first), table((i[4], i[5]), (i[6], i[7]), **second))]


HOSTILE = [
    ("pair with the same player twice", lambda i: [board(table((i[0], i[0]), (i[2], i[3]), ns_imps=1))]),
    (
        "player at two seats",
        lambda i: [
            board(table((i[0], i[1]), (i[2], i[3]), ns_score=420), table((i[0], i[5]), (i[6], i[7]), ns_score=10))
        ],
    ),
    ("table with missing seats", lambda i: [board(table((i[0], i[1]), (i[2],), ns_imps=1))]),
    ("table without EW", lambda i: [board({"ns": [i[0], i[1]], "ns_imps": 1})]),
    ("board without scores", lambda i: _two(i, {}, {})),
    ("board without tables", lambda i: [board()]),
    ("one table with a score", lambda i: [board(table((i[0], i[1]), (i[2], i[3]), ns_score=420))]),
    ("score not a multiple of ten", lambda i: _two(i, {"ns_score": 425}, {"ns_score": 10})),
    ("absurd score", lambda i: _two(i, {"ns_score": 99990}, {"ns_score": 10})),
    ("score with two minus signs", lambda i: _two(i, {"ns_score": "--420"}, {"ns_score": 10})),
    ("score of non-ASCII digits", lambda i: _two(i, {"ns_score": "\u0664\u0662\u0660"}, {"ns_score": 10})),
    ("score as a boolean", lambda i: _two(i, {"ns_score": True}, {"ns_score": 10})),
    ("score as a float", lambda i: _two(i, {"ns_score": 420.0}, {"ns_score": 10})),
    ("IMPs beyond 24", lambda i: [board(table((i[0], i[1]), (i[2], i[3]), ns_imps=25))]),
    ("score and IMPs", lambda i: [board(table((i[0], i[1]), (i[2], i[3]), ns_imps=2, ns_score=10))]),
    ("unknown player", lambda i: [board(table((i[0], i[1]), (i[2], 999999), ns_imps=1))]),
    ("same board twice", lambda i: [board(table((i[0], i[1]), (i[2], i[3]), ns_imps=1))] * 2),
    ("boards not a list", lambda i: "board 1: 420"),
    ("no boards", lambda i: []),
    ("table not an object", lambda i: [board("NS 420")]),
]


@pytest.mark.parametrize(("case", "make_boards"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_bad_sessions_are_a_400_on_boards_and_store_nothing(referee_client, eight, case, make_boards):
    response = referee_client.post("/api/matches/", session(eight, make_boards(eight)), format="json")
    assert response.status_code == 400, response.content
    assert "boards" in response.json(), response.json()
    assert not Match.objects.exists()
    assert not Board.objects.exists()
    assert not BoardTable.objects.exists()


def test_unknown_league_is_refused(referee_client, eight):
    response = referee_client.post("/api/matches/", session(eight, league="slaps-pro"), format="json")
    assert response.status_code == 400
    assert "league" in response.json()


def test_profile_shows_partnerships_and_head_to_head(client, referee_client, eight, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        referee_client.post("/api/matches/", session(eight), format="json")
    html = client.get(f"/players/{eight[0]}/").content.decode()
    assert "<h2>Bridge partnerships</h2>" in html
    assert '<h2 id="head-to-head">Head-to-head against pairs</h2>' in html
    partner = client.get(f"/api/players/{eight[1]}/").json()["name"]
    assert partner in html.split('<h2 id="head-to-head">')[0]


def test_bridge_records_take_three_queries_whatever_the_history(
    referee_client, eight, django_capture_on_commit_callbacks, django_assert_num_queries
):
    """``player_bridge_records``'s docstring promises a fixed number of queries: held here."""
    from games.bridge.records import player_bridge_records
    from leagues.models import Player

    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(3):
            assert referee_client.post("/api/matches/", session(eight), format="json").status_code == 201
    player = Player.objects.get(pk=eight[0])
    with django_assert_num_queries(3):
        partners, opponents = player_bridge_records(player=player)
    assert [record.deals for record in partners] == [6]  # 3 sessions x 2 boards, one partner
    assert sum(record.deals for record in opponents) == 6
    stranger = PlayerFactory()
    with django_assert_num_queries(1):
        assert player_bridge_records(player=stranger) == ([], [])


def test_entry_page_previews_imps_and_saves(referee, eight, django_capture_on_commit_callbacks):
    browser = Client()
    browser.force_login(referee)
    data = bridge_evening_form(eight, [(420, -50), ("", "")], league="bridge-amateur")
    preview = browser.post("/results/bridge/", {**data, "action": "check", "board": "1"}, HTTP_HX_REQUEST="true")
    # 420 against -50: 470 apart, 10 IMPs to NS pair 1 (WBF scale 430-490)
    assert "Board 1: 1\u20131 +10, 2\u20132 \u221210" in preview.content.decode()
    asked = browser.post("/results/bridge/", data, HTTP_HX_REQUEST="true").content.decode()
    assert "You declared 2 boards and filled 1" in asked
    assert not Match.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        saved = browser.post("/results/bridge/", {**data, "action": "save_short"}, HTTP_HX_REQUEST="true")
    assert 'id="saved"' in saved.content.decode()
    assert Match.objects.get().boards.count() == 1  # the blank board is skipped
    bad = browser.post("/results/bridge/", {**data, "pair-ns1-2": eight[0]}, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="error-boards"' in bad
    assert "NS pair 1 needs two different players." in bad
    assert Match.objects.count() == 1


def test_scores_as_text_are_read_alike_by_the_api_and_the_entry_pages_preview(referee_client, referee, eight):
    """One reading of a score: what the API stores, the preview shows; what it refuses, the preview marks bad."""
    a, b, c, d, e, f, g, h = eight
    browser = Client()
    browser.force_login(referee)
    form = bridge_evening_form(eight, [("", -50)], action="check", board="1")
    for text, stored in [(" 420 ", 420), ("-0", 0), ("--420", None), ("20000", None), ("425", None)]:
        body = session(eight, boards=[board(table((a, b), (c, d), ns_score=text), table((e, f), (g, h), ns_score=-50))])
        response = referee_client.post("/api/matches/", body, format="json")
        preview = browser.post("/results/bridge/", {**form, "b1-t1-score": text}, HTTP_HX_REQUEST="true")
        assert preview.status_code == 200, text
        marked_bad = 'class="zero-sum-bad"' in preview.content.decode()
        if stored is None:
            assert response.status_code == 400, (text, response.content)
            assert "whole multiple of 10" in str(response.json()["boards"])
            assert marked_bad, text
        else:
            assert response.status_code == 201, (text, response.json())
            assert response.json()["boards"][0]["tables"][0]["ns_score"] == stored
            assert not marked_bad, text
    assert BoardTable.objects.count() == 4  # the two sessions stored; nothing of the refused ones


def test_rating_quality_page_and_command(client, referee_client, eight, django_capture_on_commit_callbacks, capsys):
    with django_capture_on_commit_callbacks(execute=True):
        referee_client.post("/api/matches/", session(eight), format="json")
    overview = client.get("/quality/").content.decode()
    assert "Bridge" in overview
    assert "Slaps" in overview
    assert "Preferans" in overview
    detail = client.get("/quality/bridge/").content.decode()
    # One session: the newer half starts at it. Two tables a board: one duel a board, two forecasts.
    assert '<dd id="q-units">2</dd>' in detail
    assert client.get("/quality/bridge/?league=nope").status_code == 404
    call_command("rating_quality", "--game", "bridge", "--json")
    import json

    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["game"] == "bridge"
    assert rows[0]["units"] == 2
    assert 0 <= rows[0]["rmse"] <= 1
