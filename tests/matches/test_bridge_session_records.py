"""A bridge session as its scorer knows it: scoring and standings, pair numbers, contracts, adjusted rows, the
hand record; and the scores a board cannot have, refused with the board and table named (issue 24)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.bridge.models import Board, BoardTable
from matches.models import Match
from ratings.models import RatingChange
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db
PLAYED = (timezone.now() - timedelta(hours=3)).isoformat()


@pytest.fixture
def twelve(reference_data):
    return [player.pk for player in PlayerFactory.create_batch(12)]


def howell_board(ids, number=1, **extra):
    """Board 1 (nobody vulnerable, North deals) at three tables of a Howell, pairs 1-6 by pair number:
    4♠ by North making 10 tricks (+420), 11 tricks (+450) and 9 tricks (one down, -50)."""
    pairs = [ids[i : i + 2] for i in range(0, 12, 2)]
    return {
        "number": number,
        **extra,
        "tables": [
            {"ns": pairs[0], "ew": pairs[1], "ns_pair": "1", "ew_pair": "2", "contract": "4S", "declarer": "N",
             "tricks": 10, "lead": "HK"},
            {"ns": pairs[2], "ew": pairs[3], "ns_pair": "3", "ew_pair": "4", "contract": "4S", "declarer": "N",
             "tricks": 11, "ns_score": 450},
            {"ns": pairs[4], "ew": pairs[5], "ns_pair": "5", "ew_pair": "6", "ns_score": -50},
        ],
    }  # fmt: skip


def post(client, boards, **session):
    body = {"game": "bridge", "played_at": PLAYED, "boards": boards, **session}
    return client.post("/api/matches/", body, format="json")


def test_a_matchpoint_evening_answers_its_standings_as_a_club_scores_them(referee_client, twelve):
    answer = post(referee_client, [howell_board(twelve)], scoring="matchpoints", movement="howell", event="Club night")
    assert answer.status_code == 201, answer.json()
    detail = referee_client.get(f"/api/matches/{answer.json()['id']}/").json()
    assert detail["scoring"] == "matchpoints"
    # By hand: top 2 x (3 - 1) = 4. NS: +450 beats both (4 MP, 100 %), +420 beats -50 (2, 50 %), -50 none (0 %);
    # each EW pair the complement. A Howell ranks one list: 100 % twice (1=), 50 % twice (3=), 0 % twice (5=).
    got = {row["pair"]: (row["score"], row["rank"], row["direction"], row["section"]) for row in detail["standings"]}
    assert got == {
        "3": (100.0, 1, None, None), "6": (100.0, 1, None, None),
        "1": (50.0, 3, None, None), "2": (50.0, 3, None, None),
        "4": (0.0, 5, None, None), "5": (0.0, 5, None, None),
    }  # fmt: skip
    pair_3 = next(row for row in detail["standings"] if row["pair"] == "3")
    assert pair_3["players"] == sorted(twelve[4:6])
    first, second, third = detail["boards"][0]["tables"]
    # The contract gave table 1's score; table 2's agreed with its own; the play is kept as typed.
    assert (first["ns_score"], first["contract"], first["declarer"], first["tricks"], first["lead"]) == (
        420, "4S", "N", 10, "HK"
    )  # fmt: skip
    assert (second["ns_pair"], second["ew_pair"], second["ns_score"]) == ("3", "4", 450)
    assert (third["contract"], third["declarer"], third["tricks"]) == (None, None, None)
    assert Match.objects.get().facts == {"scoring": "matchpoints", "movement": "howell", "event": "Club night"}


def test_the_rating_is_still_the_seeds_imp_duels(referee_client, twelve, django_capture_on_commit_callbacks):
    """Whatever the club's scoring, the rating is seed 003's: each table against each other, in IMPs."""
    with django_capture_on_commit_callbacks(execute=True):
        answer = post(referee_client, [howell_board(twelve)], scoring="matchpoints")
    assert answer.status_code == 201
    changes = {change.player_id: change for change in RatingChange.objects.all()}
    # Table 1's NS (+420) against table 2 (+450): -30 = -1 IMP; against table 3 (-50): +470 = +10 IMPs.
    assert float(changes[twelve[0]].details["imps"]) == pytest.approx((-1 + 10) / 2)
    assert changes[twelve[0]].details["duels"] == 2


@pytest.mark.parametrize(
    ("number", "score", "words"),
    [
        (1, 4200, "+4200 is not a bridge score: did you mean +420?"),
        (2, 420, "+420 cannot be scored when NS are vulnerable (4\u2665 or 4\u2660 making is 620)"),
        (1, 10, "+10 is not a bridge score: the smallest plus score is +50"),
    ],
)
def test_a_score_the_board_cannot_have_is_refused_naming_board_and_table(referee_client, twelve, number, score, words):
    ids = twelve
    boards = [
        {"number": number, "tables": [
            {"ns": ids[0:2], "ew": ids[2:4], "ns_score": 100},
            {"ns": ids[4:6], "ew": ids[6:8], "ns_score": score},
        ]}
    ]  # fmt: skip
    answer = post(referee_client, boards)
    assert answer.status_code == 400
    assert answer.json() == {"boards": [f"Board {number}, table 2: {words}"]}
    assert not Match.objects.exists()
    assert not Board.objects.exists()


def test_a_contract_that_does_not_give_the_score_typed_is_refused(referee_client, twelve):
    board = howell_board(twelve)
    board["tables"][1]["ns_score"] = 420  # 4♠ by North taking 11 tricks is +450 on board 1
    answer = post(referee_client, [board])
    assert answer.status_code == 400
    (message,) = answer.json()["boards"]
    assert message.startswith("Board 1, table 2: 4S by N taking 11 tricks scores +450 for NS")
    assert message.endswith("not +420.")
    assert not Match.objects.exists()


def test_the_vulnerability_given_overrides_the_board_numbers(referee_client, twelve):
    """+620 is no score on board 1 (nobody vulnerable) unless the evening says NS were vulnerable."""
    ids = twelve
    tables = [{"ns": ids[0:2], "ew": ids[2:4], "ns_score": 620}, {"ns": ids[4:6], "ew": ids[6:8], "ns_score": 650}]
    assert post(referee_client, [{"number": 1, "tables": tables}]).status_code == 400
    answer = post(referee_client, [{"number": 1, "vulnerability": "NS", "dealer": "E", "tables": tables}])
    assert answer.status_code == 201, answer.json()
    board = referee_client.get(f"/api/matches/{answer.json()['id']}/").json()["boards"][0]
    assert (board["vulnerability"], board["dealer"]) == ("NS", "E")


def test_an_adjusted_table_counts_in_the_standings_and_is_never_rated(
    referee_client, twelve, django_capture_on_commit_callbacks
):
    board = howell_board(twelve)
    board["tables"][2] = {
        "ns": twelve[8:10], "ew": twelve[10:12], "ns_pair": "5", "ew_pair": "6", "adjusted": {"ns": "A+", "ew": "A-"}
    }  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        answer = post(referee_client, [board], scoring="matchpoints")
    assert answer.status_code == 201, answer.json()
    detail = referee_client.get(f"/api/matches/{answer.json()['id']}/").json()
    # Rated: the two played tables' eight players, one duel each; the adjusted pairs have no ledger row.
    assert set(RatingChange.objects.values_list("player_id", flat=True)) == set(twelve[:8])
    assert detail["boards"][0]["tables"][2]["adjusted"] == {"ns": "A+", "ew": "A-"}
    assert detail["boards"][0]["tables"][2]["ns_score"] is None
    scores = {row["pair"]: row["score"] for row in detail["standings"]}
    # By hand: three entries, top 4. The two played scores have n = 2 of N = 3: Neuberg, (MP + 1) x 3/2 - 1:
    # +450 beats +420 (2 MP) -> 3.5 (87.5 %); +420 0 MP -> 0.5 (12.5 %). A+ is 60 % of the top, A- 40 %.
    assert scores == {"3": 87.5, "4": 12.5, "1": 12.5, "2": 87.5, "5": 60.0, "6": 40.0}


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"tricks": 14}, "the tricks taken are a whole number from 0 to 13"),
        ({"lead": "Z9"}, "the lead is a suit and a card"),
        ({"declarer": "X"}, "the declarer is N, E, S or W"),
        ({"contract": "8S"}, "is not a contract"),
        ({"adjusted": {"ns": "A+", "ew": "A-"}}, "give one of the NS score, the NS IMPs or an adjusted score"),
        ({"ns_score": None, "contract": None, "adjusted": {"ns": "A++", "ew": "A-"}}, "an adjusted score is"),
        ({"ns_pair": "1 OR 1=1"}, "ns_pair is at most 10 letters, digits or hyphens"),
        ({"ns_score": None, "adjusted": {"ns": "A=", "ew": "A="}}, "an adjusted score was not played"),
    ],
)
def test_hostile_table_fields_are_refused_and_store_nothing(referee_client, twelve, change, says):
    board = howell_board(twelve)
    board["tables"][1] |= change
    answer = post(referee_client, [board])
    assert answer.status_code == 400
    (message,) = answer.json()["boards"]
    assert message.startswith("Board 1, table 2: ")
    assert says in message
    assert not Match.objects.exists()
    assert not BoardTable.objects.exists()


@pytest.mark.parametrize(
    ("session", "field"),
    [
        ({"scoring": "rubber"}, "scoring"),
        ({"movement": "sideways"}, "movement"),
        ({"event": "x" * 201}, "event"),
        ({"scoring_options": {"sections": {"nested": "no"}}}, "scoring_options"),
    ],
)
def test_hostile_session_fields_are_refused(referee_client, twelve, session, field):
    answer = post(referee_client, [howell_board(twelve)], **session)
    assert answer.status_code == 400
    assert field in answer.json()
    assert not Match.objects.exists()


@pytest.mark.parametrize(
    ("board", "says"),
    [
        ({"vulnerability": "Sideways"}, "the vulnerability is None, NS, EW or All"),
        ({"dealer": "Q"}, "the dealer is N, E, S or W"),
        ({"deal": "N:AKQJT98765432... ... ... ..."}, "Board 1: "),
        ({"byes": [{"pair": "7", "points": "lots"}]}, "byes are a list of"),
    ],
)
def test_hostile_board_fields_are_refused(referee_client, twelve, board, says):
    answer = post(referee_client, [howell_board(twelve, **board)])
    assert answer.status_code == 400
    (message,) = answer.json()["boards"]
    assert says in message
    assert not Match.objects.exists()


def test_a_deal_is_kept_written_from_north(referee_client, twelve):
    # Each hand one whole suit, given from East: East spades, South hearts, West diamonds, North clubs.
    deal = "E:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
    answer = post(referee_client, [howell_board(twelve, deal=deal)])
    assert answer.status_code == 201, answer.json()
    board = referee_client.get(f"/api/matches/{answer.json()['id']}/").json()["boards"][0]
    assert board["deal"] == "N:...AKQJT98765432 AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432."


def test_a_deal_is_analysed_once_the_session_is_stored(referee_client, twelve, django_capture_on_commit_callbacks):
    """The double-dummy table and par come from a task after the commit (eager here). Each hand holds one
    whole suit (North clubs, East spades, South hearts, West diamonds). A side whose trumps are its own (in
    either hand) ruffs or wins every trick: 13; trumps held by the opponents, or no trumps (the opening
    leader, on declarer's left, runs a 13-card suit), give none. So North and South take 13 in clubs and
    hearts, East and West in spades and diamonds, nobody any in no trumps. Par, by hand: both sides make a
    grand slam; 7♠ outranks 7♥ and no sacrifice pays (NS take no trick in spades or no trumps), so EW's
    7♠, nobody vulnerable: 7 x 30 + 300 + 1000 = 1510 to EW, -1510 for NS."""
    deal = "N:...AKQJT98765432 AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432."
    with django_capture_on_commit_callbacks(execute=True):
        answer = post(referee_client, [howell_board(twelve, deal=deal)])
    assert answer.status_code == 201, answer.json()
    board = referee_client.get(f"/api/matches/{answer.json()['id']}/").json()["boards"][0]
    for seat in "NS":
        assert board["double_dummy"][seat] == {"C": 13, "D": 0, "H": 13, "S": 0, "NT": 0}
    for seat in "EW":
        assert board["double_dummy"][seat] == {"C": 0, "D": 13, "H": 0, "S": 13, "NT": 0}
    assert board["par"]["score"] == -1510
    assert any(
        contract.startswith("7S ") and contract.endswith(("E", "W", "EW")) for contract in board["par"]["contracts"]
    )
