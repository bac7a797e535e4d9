"""Hand records (games.bridge.deals): deals read and checked, double-dummy tables and par.

Where the expected values come from:

- deals written here by hand, and what a deal is (4 hands of 13 cards, each card once);
- two deals where each hand holds one whole suit, solved by hand below: the side holding
  the trump suit ruffs the first trick (or wins it with a trump) and runs its 13 trumps, the
  other side takes nothing; in notrump the opening leader runs a whole suit, so every
  declarer takes 0. Par is the highest grand slam, scored by the laws (Law 77);
- the real PBN files of ``shared/data/bridge-results`` (Magic Contest and Ruter): each board's
  ``OptimumResultTable`` (tricks per declarer and strain) and ``OptimumScore`` (par, from
  North-South), read by the small regexes below, never by the code under test. No file there
  carries a ``DoubleDummyTricks`` tag; Magic Contest's Butler file has no deals (``[Deal ""]``);
- the USEBIO HANDSETs of the two Compscore files, read with ElementTree here.
"""

from __future__ import annotations

import itertools
import re

import pytest
from defusedxml.ElementTree import parse as xml_parse

from games.bridge.deals import DealError, analyse, deal_from_hands, deal_parse, double_dummy, par
from games.bridge.models import Board
from games.importing import import_apply, import_plan_read
from leagues.models import Game
from tests.shared_data import shared_data

DATA = shared_data("bridge-results")
REAL_FILES = pytest.mark.shared_data("bridge-results")

DEAL = "N:KQT6.AJT.T984.65 A2.K9876.72.9742 J543.43.AQ5.AKJ3 987.Q52.KJ63.QT8"
NORTH, EAST, SOUTH, WEST = DEAL[2:].split()
# Each hand holds one whole suit: North spades, East hearts, South diamonds, West clubs.
ONE_SUIT_EACH = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
# The same with the suits moved: North hearts, East spades, South clubs, West diamonds.
ONE_SUIT_EACH_EW_HIGH = "N:.AKQJT98765432.. AKQJT98765432... ...AKQJT98765432 ..AKQJT98765432."


def hand_table(ns_strains: set[str]) -> dict[str, dict[str, int]]:
    """The double-dummy table of a one-suit-each deal: 13 tricks in the side's two suits, else 0."""
    ew_strains = {"C", "D", "H", "S"} - ns_strains
    return {
        seat: {strain: 13 if strain in (ns_strains if seat in "NS" else ew_strains) else 0 for strain in STRAINS}
        for seat in "NESW"
    }


STRAINS = ("C", "D", "H", "S", "NT")


class TestDealParse:
    def test_a_deal_from_north_is_kept_as_it_is(self):
        assert deal_parse(DEAL) == DEAL

    def test_another_first_seat_is_turned_to_start_with_north(self):
        # "E:" lists East, South, West, North.
        assert deal_parse(f"E:{EAST} {SOUTH} {WEST} {NORTH}") == DEAL
        assert deal_parse(f"W:{WEST} {NORTH} {EAST} {SOUTH}") == DEAL
        assert deal_parse(f"S:{SOUTH} {WEST} {NORTH} {EAST}") == DEAL

    def test_ten_as_10_lower_case_unsorted_ranks_and_spaces_are_written_one_way(self):
        messy = "  n : qk6t.JaT.49t8.56   a2.k9876.72.9742 J543.43.AQ5.AKJ3 987.Q52.KJ63.Q108 "
        assert deal_parse(messy) == DEAL

    def test_voids_stay_empty_suits(self):
        assert deal_parse(ONE_SUIT_EACH) == ONE_SUIT_EACH
        assert deal_parse("E:.AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432 AKQJT98765432...") == ONE_SUIT_EACH

    @pytest.mark.parametrize(
        ("text", "problem"),
        [
            # A card twice: North's ♠K also in East's hand (in place of East's ♠2).
            (f"N:{NORTH} AK.K9876.72.9742 {SOUTH} {WEST}", "♠K is dealt twice: to North and to East."),
            ("N:KQT6.AJT.T984.65 AK.K9876.72.9742 J543.43.AQ5.AKJ3 987.Q52.KJ63.QT8", "♠K is dealt twice"),
            (f"N:KQT6.AJT.T984.66 {EAST} {SOUTH} {WEST}", "North holds ♣6 twice."),
            # 12 cards: West's ♣8 left out; 14: a card more.
            (f"N:{NORTH} {EAST} {SOUTH} 987.Q52.KJ63.QT", "West holds 12 cards, not 13."),
            (f"N:{NORTH} A2.K9876.72.97432 {SOUTH} {WEST}", "East holds 14 cards, not 13."),
            # Ranks that are not ranks: 1, a spot card x, Z.
            (f"N:KQ16.AJT.T984.65 {EAST} {SOUTH} {WEST}", "North's ♠ have '1', which is not a rank"),
            (f"N:{NORTH} {EAST} {SOUTH} 987.Q52.KJ63.QTx", "West's ♣ have 'X', which is not a rank"),
            (f"N:{NORTH} {EAST} J543.43.AZ5.AKJ3 {WEST}", "South's ♦ have 'Z', which is not a rank"),
            # The first hand's letter.
            (f"X:{NORTH} {EAST} {SOUTH} {WEST}", "starts with the first hand's seat (N, E, S or W)"),
            (f"{NORTH} {EAST} {SOUTH} {WEST}", "starts with the first hand's seat"),
            # Not four hands, a hand not of four suits, an unknown hand.
            (f"N:{NORTH} {EAST} {SOUTH}", "it has 3 hands, not 4."),
            (f"N:{NORTH} {EAST} {SOUTH} {WEST} {WEST}", "it has 5 hands, not 4."),
            (f"N:{NORTH} {EAST} {SOUTH} 987.Q52.KJ63QT8", "West's hand '987.Q52.KJ63QT8' is not four suits"),
            (f"N:{NORTH} - {SOUTH} {WEST}", "East's hand '-' is not four suits"),
            ("", "The deal is empty"),
            ("   ", "The deal is empty"),
        ],
    )
    def test_what_is_not_a_deal_is_refused_saying_what_is_wrong(self, text, problem):
        with pytest.raises(DealError, match=re.escape(problem)):
            deal_parse(text)
        # In a list, the deal is named by its place; nothing is solved.
        with pytest.raises(DealError, match="^Deal 2: .*" + re.escape(problem)):
            double_dummy([DEAL, text])

    def test_a_deal_error_is_a_value_error(self):
        with pytest.raises(ValueError, match="not 13"):
            deal_parse(f"N:{NORTH} {EAST} {SOUTH} 987.Q52.KJ63.QT")

    def test_what_is_not_text_is_refused(self):
        with pytest.raises(DealError, match="A deal is PBN text, not NoneType"):
            deal_parse(None)


class TestDealFromHands:
    HANDS = {
        "N": {"S": "KQT6", "H": "AJT", "D": "T984", "C": "65"},
        "E": {"S": "A2", "H": "K9876", "D": "72", "C": "9742"},
        "S": {"S": "J543", "H": "43", "D": "AQ5", "C": "AKJ3"},
        "W": {"S": "987", "H": "Q52", "D": "KJ63", "C": "QT8"},
    }

    def test_hands_per_seat_and_suit_make_the_deal(self):
        assert deal_from_hands(self.HANDS) == DEAL

    def test_round_trip_through_the_deal_text(self):
        text = deal_from_hands(self.HANDS)
        hands = dict(zip("NESW", text[2:].split(), strict=True))
        again = {seat: dict(zip("SHDC", hand.split("."), strict=True)) for seat, hand in hands.items()}
        assert again == self.HANDS
        assert deal_from_hands(again) == text == deal_parse(text)

    def test_usebio_names_any_order_10_and_voids(self):
        hands = {
            "East": {"CLUBS": "9742", "DIAMONDS": "72", "HEARTS": "K9876", "SPADES": "A2"},
            "north": {"clubs": "65", "diamonds": "10984", "hearts": "AJ10", "spades": "KQ106"},
            "West": {"Spades": "987", "Hearts": "Q52", "Diamonds": "KJ63", "Clubs": "Q108"},
            "South": {"S": "J543", "H": "43", "D": "AQ5", "C": "AKJ3"},
        }
        assert deal_from_hands(hands) == DEAL
        voids = {
            "N": {"S": "AKQJT98765432", "H": "", "D": None},  # clubs left out: a void too
            "E": {"H": "AKQJT98765432"},
            "S": {"D": "AKQJT98765432"},
            "W": {"C": "AKQJT98765432", "S": ""},
        }
        assert deal_from_hands(voids) == ONE_SUIT_EACH

    @pytest.mark.parametrize(
        ("change", "problem"),
        [
            ({"W": None}, "The hands of West are missing."),
            ({"X": {"S": "A"}}, "'X' is not a seat: N, E, S or W."),
            ({"W": {"S": "987", "H": "Q52", "D": "KJ63", "C": "QT"}}, "West holds 12 cards, not 13."),
            ({"W": {"S": "987", "H": "Q52", "D": "KJ63", "C": "QTA"}}, "♣A is dealt twice: to South and to West."),
            ({"W": {"S": "987", "H": "Q52", "D": "KJ63", "N": "QT8"}}, "'N', which is not a suit"),
            ({"W": {"S": "987", "H": "Q52", "D": "KJ63", "C": "QT8x"}}, "West's ♣ have 'X', which is not a rank"),
        ],
    )
    def test_what_is_not_a_deal_is_refused(self, change, problem):
        hands = {seat: suits for seat, suits in {**self.HANDS, **change}.items() if suits is not None}
        with pytest.raises(DealError, match=re.escape(problem)):
            deal_from_hands(hands)

    def test_a_seat_given_twice_is_refused(self):
        with pytest.raises(DealError, match="North's hand is given twice"):
            deal_from_hands({**self.HANDS, "North": self.HANDS["N"]})


class TestHandCheckedDeals:
    def test_double_dummy_of_one_suit_each(self):
        assert double_dummy([ONE_SUIT_EACH, ONE_SUIT_EACH_EW_HIGH]) == [
            hand_table({"S", "D"}),
            hand_table({"H", "C"}),
        ]

    def test_more_deals_than_one_solver_call_takes_come_back_in_order(self):
        deals = [ONE_SUIT_EACH, ONE_SUIT_EACH_EW_HIGH] * 23  # 46: two calls of at most 40
        tables = double_dummy(deals)
        assert len(tables) == 46
        assert tables[::2] == [hand_table({"S", "D"})] * 23
        assert tables[1::2] == [hand_table({"H", "C"})] * 23

    @pytest.mark.parametrize(
        ("deal", "vulnerability", "expected"),
        [
            # NS bid 7S over EW's 7H; EW's only higher bid, 7NT, takes no trick. 7S: 7 x 30 = 210,
            # game 300 (vulnerable 500), grand slam 1000 (vulnerable 1500).
            (ONE_SUIT_EACH, "None", {"score": 1510, "contracts": ["7S NS"]}),
            (ONE_SUIT_EACH, "All", {"score": 2210, "contracts": ["7S NS"]}),
            (ONE_SUIT_EACH, "EW", {"score": 1510, "contracts": ["7S NS"]}),
            (ONE_SUIT_EACH, "Love", {"score": 1510, "contracts": ["7S NS"]}),  # PBN's synonym
            # EW hold spades: the score is from NS's side.
            (ONE_SUIT_EACH_EW_HIGH, "NS", {"score": -1510, "contracts": ["7S EW"]}),
            (ONE_SUIT_EACH_EW_HIGH, "EW", {"score": -2210, "contracts": ["7S EW"]}),
            (ONE_SUIT_EACH_EW_HIGH, "Both", {"score": -2210, "contracts": ["7S EW"]}),
        ],
    )
    def test_par_is_the_top_grand_slam(self, deal, vulnerability, expected):
        for dealer in "NESW":
            assert par(deal, dealer=dealer, vulnerability=vulnerability) == expected

    def test_analyse_gives_both_for_each_board(self):
        assert analyse([(ONE_SUIT_EACH, "N", "None"), (ONE_SUIT_EACH_EW_HIGH, "E", "All")]) == [
            {"double_dummy": hand_table({"S", "D"}), "par": {"score": 1510, "contracts": ["7S NS"]}},
            {"double_dummy": hand_table({"H", "C"}), "par": {"score": -2210, "contracts": ["7S EW"]}},
        ]

    @pytest.mark.parametrize(
        ("dealer", "vulnerability", "problem"),
        [
            ("X", "None", "'X' is not a dealer: N, E, S or W."),
            ("", "None", "'' is not a dealer"),
            ("N", "Neither", "'Neither' is not a vulnerability: None, NS, EW or All."),
            ("N", "ns", "'ns' is not a vulnerability"),
        ],
    )
    def test_an_unknown_dealer_or_vulnerability_is_refused(self, dealer, vulnerability, problem):
        with pytest.raises(DealError, match=re.escape(problem)):
            par(ONE_SUIT_EACH, dealer=dealer, vulnerability=vulnerability)
        with pytest.raises(DealError, match=re.escape(f"Deal 2: {problem}")):
            analyse([(ONE_SUIT_EACH, "N", "None"), (ONE_SUIT_EACH, dealer, vulnerability)])

    def test_analyse_refuses_a_bad_deal_by_its_place(self):
        with pytest.raises(DealError, match=re.escape("Deal 3: West holds 12 cards, not 13.")):
            analyse([(DEAL, "N", "None"), (DEAL, "E", "NS"), (f"N:{NORTH} {EAST} {SOUTH} 987.Q52.KJ63.QT", "S", "EW")])


# The real files, as the test reads them.
BOARD = re.compile(r'^\[Board "(\d+)"\]', re.MULTILINE)
TAG = re.compile(r'^\[(Dealer|Vulnerable|Deal|OptimumScore) "([^"]*)"\]', re.MULTILINE)
RESULT_TABLE = re.compile(r'^\[OptimumResultTable "[^"]*"\]\n((?:[^\[\n].*\n?)*)', re.MULTILINE)
RESULT_ROW = re.compile(r"^([NESW])\s+(NT|[SHDC])\s+(\d+)\s*$", re.MULTILINE)
OPTIMUM_SCORE = re.compile(r"^NS (-?\d+)$")

#: The files with hand records, and their boards (SOURCES.md).
HAND_RECORD_FILES = {
    "magiccontest-ffb_open2-dn1-finale-2022_seance1.pbn": 30,
    "ruter-sbl-finland_sm-parikilpailu-2014_session1.pbn": 66,
    "ruter-svenskbridge_silver1-2011_impcross-3sections.pbn": 42,
    "ruter-norge_km-par-2022-05-08_utf8.pbn": 63,
}
#: Boards whose OptimumScore is not the par of the file's own OptimumResultTable, with the par by hand.
#: Ruter 4.3 (2011) chose the sacrificing side's worse declarer:
#: - board 4, all vulnerable: NS make 3NT (9 tricks, 600); EW's 4H outbids it and NS can't go higher
#:   (4NT and 5C need a 10th and 11th trick they lack). West takes 9 tricks in hearts, East 8: 4HX by West
#:   is one down vulnerable, 200, not the file's "4HX E 8", two down, 500.
#: - board 30, none vulnerable: EW make 4H (East 10 tricks), NS 4S (10 tricks); over 4S, 5H by East is one
#:   down doubled, 100 (NS's 5S would be one down for -100), not the file's "5HX W 9", two down, 300.
FILE_PAR_WRONG = {
    ("ruter-svenskbridge_silver1-2011_impcross-3sections.pbn", "4"): (500, 200),
    ("ruter-svenskbridge_silver1-2011_impcross-3sections.pbn", "30"): (300, 100),
}


def file_boards(name: str) -> list[dict]:
    """Each board of a PBN file with a deal: number, dealer, vulnerability, deal, par score, tricks."""
    text = DATA.joinpath(name).read_bytes().decode("latin-1").replace("\r\n", "\n")  # the tags are ASCII
    starts = [match.start() for match in BOARD.finditer(text)] + [len(text)]
    boards = []
    for start, end in itertools.pairwise(starts):
        game = text[start:end]
        tags = dict(TAG.findall(game))
        if not tags.get("Deal"):
            continue
        table = RESULT_TABLE.search(game)
        boards.append(
            {
                "board": BOARD.match(game).group(1),
                "dealer": tags["Dealer"],
                "vulnerability": tags["Vulnerable"],
                "deal": tags["Deal"],
                "score": int(OPTIMUM_SCORE.match(tags["OptimumScore"]).group(1)),
                "tricks": [(seat, strain, int(tricks)) for seat, strain, tricks in RESULT_ROW.findall(table.group(1))],
            }
        )
    return boards


@REAL_FILES
def test_the_files_with_hand_records_are_these():
    with_deals = {
        path.name for path in DATA.glob("*.pbn") if re.search(r'^\[Deal "[NESW]:', path.read_text("latin-1"), re.M)
    }
    assert with_deals == set(HAND_RECORD_FILES)


@REAL_FILES
@pytest.mark.django_db
@pytest.mark.parametrize("name", HAND_RECORD_FILES)
def test_an_imported_files_boards_carry_its_double_dummy_tables_and_par(
    name, reference_data, referee, django_capture_on_commit_callbacks
):
    """The file imported as a club would (its deals kept), its hand records analysed by the task its commit
    queues: every board's double-dummy table equals the file's OptimumResultTable, its par the file's
    OptimumScore (but for the two boards where the file's is not the par, FILE_PAR_WRONG)."""
    bridge = Game.objects.get(slug="bridge")
    plan = import_plan_read(game=bridge, format="pbn", data=DATA.joinpath(name).read_bytes())
    with django_capture_on_commit_callbacks(execute=True):
        import_apply(plan=plan, game=bridge, referee=referee)
    stored = {str(board.number): board for board in Board.objects.filter(match__game=bridge)}
    boards = file_boards(name)
    assert len(boards) == HAND_RECORD_FILES[name]
    for board in boards:
        record = stored[board["board"]]
        assert record.deal == deal_parse(board["deal"]), board["board"]
        assert len(board["tricks"]) == 20, board["board"]
        for seat, strain, tricks in board["tricks"]:
            assert record.double_dummy[seat][strain] == tricks, (board["board"], seat, strain)
        file_par, hand_par = FILE_PAR_WRONG.get((name, board["board"]), (board["score"], board["score"]))
        assert board["score"] == file_par, board["board"]
        assert record.par["score"] == hand_par, board["board"]


@REAL_FILES
@pytest.mark.parametrize(
    "name",
    [
        "usebio-compscore3_nsbc-lindfield_2022-07-28_mp-mitchell.xml",
        "usebio-compscore3_moonee-valley_2026-02-02_cross-imp-howell.xml",
    ],
)
def test_every_usebio_handset_is_a_deal(name):
    handset = xml_parse(DATA / name).getroot().find("HANDSET")
    boards = handset.findall("BOARD")
    assert len(boards) == 27
    for board in boards:
        hands = {
            hand.findtext("DIRECTION"): {
                suit: hand.findtext(suit) or "" for suit in ("SPADES", "HEARTS", "DIAMONDS", "CLUBS")
            }
            for hand in board.findall("HAND")
        }
        # Compscore writes each suit from the ace down already: the PBN text is the hands joined.
        expected = "N:" + " ".join(".".join(hands[seat].values()) for seat in ("North", "East", "South", "West"))
        assert deal_from_hands(hands) == expected, board.findtext("BOARD_NUMBER")
