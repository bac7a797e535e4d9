"""Bridge PBN and USEBIO files read into import plans (games.bridge.importing), issue 14.

The eight real files live outside the repository (their names are personal data
published by the federations and clubs), in ``shared/data/bridge-results``
beside the checkout (``tests/shared_data.py``); a test that reads them is marked
``REAL_FILES``. Their facts below come from SOURCES.md there, or were read from
the files by hand, never from the parser. Hostile inputs are made here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

import pytest

from games.bridge.importing import parse_pbn, parse_usebio
from games.bridge.travellers import IMPORT_MAX_BYTES
from games.imports import ImportPlan, PlayerRef
from leagues.kinds import kind_of
from leagues.models import Player
from matches.cleaning import match_clean
from tests.shared_data import shared_data

DATA = shared_data("bridge-results")
# Every test that reads the real files: skipped where they are missing, failed there under CARDRANK_REQUIRE_SERVICES=1.
REAL_FILES = pytest.mark.shared_data("bridge-results")


@dataclass(frozen=True)
class Facts:
    file: str
    boards: int
    rows: int  # traveller rows in the file
    adjusted: int  # rows with an adjusted score: kept as tables with their printed points
    byes: int  # rows of a pair without opponents: kept as the board's byes
    passed: int  # passed-out rows: played, score 0
    pairs: int
    day: date
    people: tuple[PlayerRef, ...]  # some of the people, as the file names them
    scoring: str  # as SOURCES.md names it
    movement: str  # "mitchell" when the file numbers each direction from 1 (Compscore's "1NS", "1EW")
    event: str  # PBN [Event], USEBIO EVENT_DESCRIPTION


FILES = [
    Facts(
        "magiccontest-ffb_open2-dn1-finale-2022_seance1.pbn",
        boards=30,
        rows=30 * 22,
        adjusted=4,
        byes=0,
        passed=0,
        pairs=44,
        day=date(2022, 1, 22),  # session 1 of 6: EventDate, not Date (the contest's last day)
        people=(PlayerRef("Mme Bénédicte CRONIER", "00026478"), PlayerRef("Nicolas DECHELETTE", "00397085")),
        scoring="matchpoints",
        movement="howell",
        event="Open /2 DN1 National Finale directe 21-22 - Séance 1",
    ),
    Facts(
        "ruter-sbl-finland_sm-parikilpailu-2014_session1.pbn",
        boards=66,
        rows=66 * 18,
        adjusted=2,
        byes=0,
        passed=4,
        pairs=36,
        day=date(2014, 10, 4),
        people=(PlayerRef("Ilkka Ala-Kivimäki", "1020"), PlayerRef("Sami Mäki", "2804")),
        scoring="matchpoints",
        movement="howell",
        event="SM-parikilpailu - Session 1",
    ),
    Facts(
        "ruter-svenskbridge_silver1-2011_impcross-3sections.pbn",
        boards=42,
        rows=1680,
        adjusted=1,
        byes=0,
        passed=7,
        pairs=80,  # sections M, N and O: one session
        day=date(2011, 7, 29),
        people=(PlayerRef("Aron Thorfinsson", ""), PlayerRef("Gumundur Snorrason", "")),  # guests "+520", "+521"
        scoring="cross_imps",
        movement="howell",
        event="Silver 1 - Best Western City Hotel",
    ),
    Facts(
        "magiccontest-h6-turku_2013-08-20_butler-bye.pbn",
        boards=28,
        rows=28 * 4,
        adjusted=0,
        byes=28,
        passed=0,
        pairs=7,  # pair 7 is the phantom: only Bye rows
        day=date(2013, 8, 20),
        people=(PlayerRef("Lea Seestelä", "1324"), PlayerRef("Maria Mylläri", "2891"), PlayerRef("Anne Juhola", "")),
        scoring="butler",
        movement="howell",
        event="H6 20.8.2013",
    ),
    Facts(
        "ruter-norge_km-par-2022-05-08_utf8.pbn",
        boards=63,
        rows=63 * 4,
        adjusted=2,
        byes=0,
        passed=2,
        pairs=8,
        day=date(2022, 5, 8),
        people=(PlayerRef("Jørn Johansen", "9659"), PlayerRef("Sofie Græsholt Sjødal", "38921")),
        scoring="matchpoints",
        movement="howell",
        event="2022-05-08-KM. par",
    ),
    Facts(
        "usebio-compscore3_nsbc-lindfield_2022-07-28_mp-mitchell.xml",
        boards=27,
        rows=567,
        adjusted=2,  # an A6060 and an A5050
        byes=0,
        passed=3,
        pairs=42,
        day=date(2022, 7, 28),
        people=(PlayerRef("GRAHAM MCMAHON", "365610"), PlayerRef("PETER JONKER", "631604")),
        scoring="matchpoints",
        movement="mitchell",
        event="EL Thu 1.00pm Open (28-Jul-22)",
    ),
    Facts(
        "usebio-compscore3_moonee-valley_2026-02-02_cross-imp-howell.xml",
        boards=27,
        rows=108,
        adjusted=0,
        byes=0,
        passed=2,
        pairs=9,
        day=date(2026, 2, 2),
        people=(PlayerRef("HANNAH O'DONNELL", "1066307"), PlayerRef("LYNDA YOUNG", "209406")),
        scoring="cross_imps",
        movement="howell",
        event="Monday Night (2-Feb-26)",
    ),
    Facts(
        "usebio-scorebridge_forest-of-dean_2025-07-30_mp-howell.xml",
        boards=28,  # BOARDS_PLAYED says 24
        rows=94,
        adjusted=0,
        byes=0,
        passed=1,
        pairs=8,
        day=date(2025, 7, 30),
        people=(PlayerRef("Harry Kear", "535958"), PlayerRef("John Plews", "")),  # no NATIONAL_ID_NUMBER
        scoring="matchpoints",
        movement="howell",
        event="",
    ),
]


def _read(facts: Facts) -> ImportPlan:
    data = (DATA / facts.file).read_bytes()
    return parse_pbn(data) if facts.file.endswith(".pbn") else parse_usebio(data)


def _tables(body: dict) -> list[dict]:
    return [table for board in body["boards"] for table in board["tables"]]


@REAL_FILES
@pytest.mark.parametrize("facts", FILES, ids=[facts.file.split("_")[0] for facts in FILES])
def test_a_real_file_reads_into_one_session_with_the_files_facts(facts):
    plan = _read(facts)

    assert plan.blocking == []
    assert len(plan.results) == 1
    body = plan.results[0]
    assert body["game"] == "bridge"
    played_at = datetime.fromisoformat(body["played_at"])
    assert (played_at.date(), played_at.hour, played_at.tzinfo is not None) == (facts.day, 12, True)
    assert len(body["boards"]) == facts.boards
    assert [board["number"] for board in body["boards"]] == sorted(board["number"] for board in body["boards"])
    tables = _tables(body)
    assert len(tables) == facts.rows - facts.byes  # every row kept: played, adjusted, or a bye
    assert sum(table.get("ns_score") == 0 for table in tables) == facts.passed  # a passed-out board is played
    assert sum("adjusted" in table for table in tables) == facts.adjusted
    assert sum("ns_score" in table for table in tables) == facts.rows - facts.byes - facts.adjusted
    assert sum(len(board.get("byes", [])) for board in body["boards"]) == facts.byes
    people = plan.people()
    assert len(people) == 2 * facts.pairs
    assert set(facts.people) <= set(people)
    assert plan.problems == []
    assert (body["scoring"], body["movement"], body.get("event", "")) == (facts.scoring, facts.movement, facts.event)
    assert plan.about == {
        "event": facts.event,
        "date": facts.day.isoformat(),
        "sections": 3 if facts.file.startswith("ruter-svenskbridge") else 1,
        "boards": facts.boards,
        "pairs": facts.pairs,
        "scoring": facts.scoring,
    }


@REAL_FILES
def test_sections_of_a_session_are_one_match_and_each_board_has_every_sections_tables():
    """File 3: sections M (12 tables), N (12) and O (16) played the same 42 boards."""
    plan = _read(FILES[2])

    boards = plan.results[0]["boards"]
    assert max(len(board["tables"]) for board in boards) == 40


@REAL_FILES
def test_the_adjusted_row_is_kept_with_the_points_the_program_printed():
    plan = _read(FILES[2])

    (board,) = [board for board in plan.results[0]["boards"] if board["number"] == 15]
    adjusted = [table for table in board["tables"] if "adjusted" in table]
    assert len(board["tables"]) == 40
    # line 1350: "O" 9 7 635 658 - - - - "A+" "A+" 58.5 58.5
    assert [(table["section"], table["ns_pair"], table["ew_pair"], table["adjusted"]) for table in adjusted] == [
        ("O", "635", "658", {"ns": "A+", "ew": "A+", "ns_points": 58.5, "ew_points": 58.5})
    ]


@REAL_FILES
def test_a_phantoms_bye_is_kept_with_its_points():
    """File 4, board 1: ``2 5 - 3 - - - - "Bye" "Bye" - 0.2 -``: pair 3 (EW) sat out against the phantom."""
    plan = _read(FILES[3])

    board = plan.results[0]["boards"][0]
    assert board["byes"] == [{"section": None, "pair": "3", "direction": None, "points": 0.2}]
    assert len(board["tables"]) == 3


@REAL_FILES
def test_a_board_keeps_its_dealer_vulnerability_and_deal_and_a_line_its_play():
    body = _read(FILES[0]).results[0]

    board = body["boards"][0]
    assert (board["dealer"], board["vulnerability"]) == ("N", "None")
    assert board["deal"] == "N:KQT6.AJT.T984.65 A2.K9876.72.9742 J543.43.AQ5.AKJ3 987.Q52.KJ63.QT8"
    # line: 3  1  3 42 4S  S 10 S9   "420"      - 28.3 13.7  67  33
    table = board["tables"][0]
    assert {
        key: table[key] for key in ("ns_pair", "ew_pair", "contract", "declarer", "tricks", "lead", "ns_score")
    } == {
        "ns_pair": "3",
        "ew_pair": "42",
        "contract": "4S",
        "declarer": "S",
        "tricks": 10,
        "lead": "S9",
        "ns_score": 420,
    }


@REAL_FILES
def test_usebio_hands_become_the_deal_and_a_compscore_lead_reads_suit_first():
    """File 7, board 1: HANDSET hands North KJT65/98742/Q/J3, East A/5/KJT875/K9542, South Q/KT63/9643/QT86,
    West 987432/AQJ/A2/A7; its first line 2 v 9, 3S by W, LEAD 9H, 9 tricks, -140."""
    board = _read(FILES[6]).results[0]["boards"][0]

    assert board["deal"] == "N:KJT65.98742.Q.J3 A.5.KJT875.K9542 Q.KT63.9643.QT86 987432.AQJ.A2.A7"
    table = board["tables"][0]
    assert (table["contract"], table["declarer"], table["tricks"], table["lead"], table["ns_score"]) == (
        "3S",
        "W",
        9,
        "H9",
        -140,
    )


@REAL_FILES
def test_a_compscore_mitchell_numbers_each_direction_from_one():
    """File 6: ``1NS`` and ``1EW`` are pair 1 of each line; board 3's ``A5050`` keeps its printed 23 and 11."""
    body = _read(FILES[5]).results[0]

    assert body["movement"] == "mitchell"
    first = body["boards"][0]["tables"][0]
    assert (first["ns_pair"], first["ew_pair"]) == ("1", "1")
    (artificial,) = [table for table in body["boards"][2]["tables"] if "adjusted" in table]
    assert artificial["adjusted"] == {"ns": "A=", "ew": "A=", "ns_points": 23, "ew_points": 11}


@REAL_FILES
@pytest.mark.parametrize(
    ("facts", "options"),
    [
        # Magic Contest France totals its printed one-decimal MPs, and breaks the tie of pairs 44 and 1 (Tiebreak).
        (
            FILES[0],
            {"tiebreak": "head_to_head", "mp_points": "raw", "board_decimals": 1, "fewer_results": "neuberg"},
        ),
        (FILES[1], {"mp_points": "raw", "fewer_results": "neuberg"}),
        # Three sections ranked in one list (one rank 1), cross-IMPs summed: the lines read whole IMPs.
        (FILES[2], {"sections": "together", "total_decimals": 1, "cross_imps": "sum"}),
        # "IMP;Butler-2;Mean", Bye rows, totals printed to one decimal.
        (FILES[3], {"total_decimals": 1, "bye_points": "average", "butler_drop": 2, "butler_datum": "mean"}),
        (FILES[4], {"mp_points": "deviation"}),  # MP_NS 2.0 -2.0: deviations from the average
        (FILES[6], {"cross_imps": "average"}),  # NS_CROSS_IMP_POINTS 3.67
        (FILES[7], {"mp_points": "raw", "fewer_results": "ties"}),  # 3 scores of 4: 5, 2, 1 MPs
    ],
    ids=["ffb", "sbl", "silver", "h6", "norge", "moonee", "forest"],
)
def test_the_reader_sets_the_programs_conventions_from_the_file(facts, options):
    assert _read(facts).results[0]["scoring_options"] == options


@REAL_FILES
@pytest.mark.django_db
@pytest.mark.parametrize("facts", FILES, ids=[facts.file.split("_")[0] for facts in FILES])
def test_each_plans_body_passes_the_bridge_cleaner(facts, reference_data):
    plan = _read(facts)
    people = plan.people()
    players = Player.objects.bulk_create(Player(name=person.name) for person in people)
    ids = {person: player.pk for person, player in zip(people, players, strict=True)}

    for body in plan.results:
        # The rated part, in the fields today's cleaner takes: every board here has two played tables or more.
        data = {
            "game": body["game"],
            "played_at": body["played_at"],
            "boards": [
                {
                    "number": board["number"],
                    "tables": [
                        {
                            "ns": [ids[person] for person in table["ns"]],
                            "ew": [ids[person] for person in table["ew"]],
                            "ns_score": table["ns_score"],
                        }
                        for table in board["tables"]
                        if "ns_score" in table
                    ],
                }
                for board in body["boards"]
            ],
        }
        cleaned = match_clean(data=data)
        assert len(cleaned.parts["boards"]) == facts.boards


def test_the_bridge_kind_imports_pbn_and_usebio():
    assert kind_of("bridge").importers == {"pbn": parse_pbn, "usebio": parse_usebio}
    assert kind_of("elo").importers.get("pbn") is None


# --- hostile and wrong inputs: a blocking problem, no results, never a crash or a hang ---------

PBN_HEAD = b'% PBN 2.1\n[Event "Club"]\n[Date "2024.03.05"]\n[Board "1"]\n'
PBN_NAMES = (
    b'[TotalScoreTable "PairId\\1R;Names\\30L;MemberID1\\6R;MemberID2\\6R"]\n'
    b'1 "Ann Lee - Bo Ek" "007" "8"\n2 "Cy Do - Di Fo" - -\n3 "Ed Go - Fa Hu" - -\n4 "Gi Io - Ha Ju" - -\n'
)
PBN_SCORES = b'[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Score_NS\\6R;Score_EW\\6R"]\n1 2 "420" -\n3 4 - "50"\n'


def _blocking(plan: ImportPlan) -> str:
    assert plan.results == []
    assert plan.blocking, plan.problems
    return " ".join(problem.message for problem in plan.blocking)


def test_a_small_pbn_file_reads_by_column_name():
    plan = parse_pbn(PBN_HEAD + PBN_NAMES + PBN_SCORES)

    assert plan.problems == []
    (body,) = plan.results
    ann, bo = PlayerRef("Ann Lee", "007"), PlayerRef("Bo Ek", "8")
    assert body["boards"][0]["tables"][0] == {
        "ns": [ann, bo],
        "ew": [PlayerRef("Cy Do"), PlayerRef("Di Fo")],
        "ns_score": 420,
        "section": None,
        "ns_pair": "1",
        "ew_pair": "2",
    }
    assert (body["movement"], "scoring" in body) == ("howell", False)  # no [Scoring] tag
    assert body["boards"][0]["tables"][1]["ns_score"] == -50
    assert datetime.fromisoformat(body["played_at"]).date() == date(2024, 3, 5)


def test_a_board_with_one_played_table_is_kept_beside_its_adjusted_one():
    scores = PBN_SCORES.replace(b'3 4 - "50"', b'3 4 "A+" "A-"')

    plan = parse_pbn(PBN_HEAD + PBN_NAMES + scores)

    assert plan.problems == []
    (board,) = plan.results[0]["boards"]
    assert [table.get("ns_score") for table in board["tables"]] == [420, None]
    assert board["tables"][1]["adjusted"] == {"ns": "A+", "ew": "A-", "ns_points": None, "ew_points": None}


PBN_PLAYED = (
    b'[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\3L;Declarer\\1R;Result\\2R;Score_NS\\6R;Score_EW\\6R;'
    b'IMP_NS\\5R;IMP_EW\\5R"]\n'
    b'1 2 4S N 10 "420" - 3.0 -3.0\n3 4 Pass - - "0" - -3.0 3.0\n- 2 - - - "Bye" "Bye" - 1.5\n'
)


def test_a_contract_is_checked_against_the_printed_score():
    """4S by N taking 10 tricks, board 1 (nobody vulnerable), is +420; +450 is not its score."""
    plan = parse_pbn(PBN_HEAD + PBN_NAMES + PBN_PLAYED.replace(b'"420"', b'"450"'))

    (problem,) = _blocking_problems(plan)
    assert problem.where == "line 11 (board 1)"
    assert problem.message == "4S by N taking 10 tricks scores +420 for NS, not the printed +450."


def test_a_contracts_score_follows_the_files_vulnerability():
    """[Vulnerable "NS"] on board 1 (None by the cycle): 4S by N making 10 is +620."""
    data = PBN_HEAD + b'[Vulnerable "NS"]\n' + PBN_NAMES + PBN_PLAYED.replace(b'"420"', b'"620"')

    plan = parse_pbn(data)

    assert plan.problems == []
    (board,) = plan.results[0]["boards"]
    assert (board["vulnerability"], board["tables"][0]["ns_score"]) == ("NS", 620)


def test_a_bye_row_is_the_boards_bye_with_its_points():
    plan = parse_pbn(PBN_HEAD + PBN_NAMES + PBN_PLAYED)

    (board,) = plan.results[0]["boards"]
    assert board["byes"] == [{"section": None, "pair": "2", "direction": None, "points": 1.5}]
    assert [table.get("contract") for table in board["tables"]] == ["4S", "Pass"]
    assert "tricks" not in board["tables"][1]


def _blocking_problems(plan: ImportPlan) -> list:
    assert plan.results == []
    return plan.blocking


def test_windows_1252_and_utf8_pbn_read_the_same_names():
    text = (PBN_HEAD + PBN_NAMES + PBN_SCORES).decode().replace("Ann Lee", "Bénédicte Lée")

    for data in (text.encode("utf-8"), text.encode("cp1252"), b"\xef\xbb\xbf" + text.encode("utf-8")):
        assert PlayerRef("Bénédicte Lée", "007") in parse_pbn(data).people()


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"", "no ScoreTable"),
        (b"Hello, this is a letter, not a results file.\n", "no ScoreTable"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "NUL bytes"),
        ("% PBN\n".encode("utf-16-le"), "NUL bytes"),
        (PBN_HEAD + PBN_NAMES + b'\x81\x8d [ScoreTable "PairId_NS"]', "neither UTF-8 nor Windows-1252"),
        ((PBN_HEAD + PBN_NAMES + PBN_SCORES)[:-9], "table row with 4 values"),  # truncated mid-row
        (PBN_HEAD + PBN_NAMES.replace(b"Names", b"Name") + PBN_SCORES, "individual event"),
        (PBN_HEAD + b'[Competition "Teams"]\n' + PBN_NAMES + PBN_SCORES, "Teams event"),
        (PBN_HEAD + PBN_NAMES + PBN_SCORES.replace(b"PairId_NS", b"TeamId_Home"), "team event"),
        (PBN_HEAD.replace(b"2024.03.05", b"") + PBN_NAMES + PBN_SCORES, "no session date"),
        (PBN_HEAD + PBN_NAMES + PBN_SCORES.replace(b'"420"', b'"425"'), "not a bridge score"),
        (PBN_HEAD + PBN_NAMES + PBN_SCORES.replace(b"1 2", b"1 9"), "pair 9 is not in the TotalScoreTable"),
        (b"x" * (IMPORT_MAX_BYTES + 1), "at most"),
    ],
    ids=[
        "empty",
        "prose",
        "binary",
        "utf16-no-bom",
        "undecodable",
        "truncated",
        "individuals",
        "teams-competition",
        "teams-columns",
        "no-date",
        "odd-score",
        "unknown-pair",
        "too-big",
    ],
)
def test_a_wrong_pbn_file_is_refused_with_a_clear_problem(data, says):
    assert says in _blocking(parse_pbn(data))


def test_a_50_mb_file_is_refused_before_it_is_read():
    data = b"<" * (50 * 1024 * 1024)

    assert "at most" in _blocking(parse_pbn(data))
    assert "at most" in _blocking(parse_usebio(data))


USEBIO = b"""<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE USEBIO SYSTEM "http://www.ebu.co.uk/usebio/usebio_v1_2.dtd">
<USEBIO Version="1.2"><EVENT EVENT_TYPE="MP_PAIRS"><SESSION><DATE>05/03/2024</DATE>
<SECTION><PARTICIPANTS>
<PAIR><PAIR_NUMBER>1</PAIR_NUMBER><DIRECTION>NS</DIRECTION>
<PLAYER><PLAYER_NAME>Ann Lee</PLAYER_NAME><NATIONAL_ID_NUMBER>007</NATIONAL_ID_NUMBER></PLAYER>
<PLAYER><PLAYER_NAME>Bo Ek</PLAYER_NAME></PLAYER></PAIR>
<PAIR><PAIR_NUMBER>1</PAIR_NUMBER><DIRECTION>EW</DIRECTION>
<PLAYER><PLAYER_NAME>Cy Do</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>Di Fo</PLAYER_NAME></PLAYER></PAIR>
</PARTICIPANTS>
<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER><SCORE>420</SCORE></TRAVELLER_LINE>
</BOARD></SECTION>
<SECTION><PARTICIPANTS>
<PAIR><PAIR_NUMBER>1</PAIR_NUMBER><DIRECTION>NS</DIRECTION>
<PLAYER><PLAYER_NAME>Ed Go</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>Fa Hu</PLAYER_NAME></PLAYER></PAIR>
<PAIR><PAIR_NUMBER>1</PAIR_NUMBER><DIRECTION>EW</DIRECTION>
<PLAYER><PLAYER_NAME>Gi Io</PLAYER_NAME></PLAYER><PLAYER><PLAYER_NAME>Ha Ju</PLAYER_NAME></PLAYER></PAIR>
</PARTICIPANTS>
<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>
<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>1</EW_PAIR_NUMBER><SCORE>-50</SCORE></TRAVELLER_LINE>
</BOARD></SECTION></SESSION></EVENT></USEBIO>
"""


def test_usebio_with_session_and_section_nesting_is_one_session_keyed_by_section():
    plan = parse_usebio(USEBIO)

    assert plan.problems == []
    (body,) = plan.results
    (board,) = body["boards"]
    assert board["tables"] == [
        {
            "ns": [PlayerRef("Ann Lee", "007"), PlayerRef("Bo Ek")],
            "ew": [PlayerRef("Cy Do"), PlayerRef("Di Fo")],
            "ns_score": 420,
            "section": "1",
            "ns_pair": "1",
            "ew_pair": "1",
        },
        {
            "ns": [PlayerRef("Ed Go"), PlayerRef("Fa Hu")],
            "ew": [PlayerRef("Gi Io"), PlayerRef("Ha Ju")],
            "ns_score": -50,
            "section": "2",
            "ns_pair": "1",
            "ew_pair": "1",
        },
    ]
    assert (body["scoring"], body["movement"]) == ("matchpoints", "mitchell")
    assert datetime.fromisoformat(body["played_at"]).date() == date(2024, 3, 5)


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE USEBIO [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
<!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
<!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">
<!ENTITY i "&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;">]>
<USEBIO><EVENT><DATE>&i;</DATE></EVENT></USEBIO>
"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE USEBIO [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<USEBIO><EVENT><DATE>&secret;</DATE></EVENT></USEBIO>
"""


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (BILLION_LAUGHS, "entities or external references"),
        (EXTERNAL, "entities or external references"),
        (USEBIO[:700], "Not readable XML"),
        (USEBIO.replace(b"Ann Lee", "Ann Lée".encode("cp1252")), "Not readable XML"),
        (b'% PBN 2.1\n[Event "x"]\n', "Not readable XML"),
        (b"<html><body>results</body></html>", "not <USEBIO>"),
        (USEBIO.replace(b"MP_PAIRS", b"TEAMS_OF_FOUR"), "only pairs events"),
        (USEBIO.replace(b"MP_PAIRS", b"INDIVIDUAL"), "only pairs events"),
        (USEBIO.replace(b"<SCORE>420</SCORE>", b"<SCORE>4x0</SCORE>"), "is not a number"),
        (USEBIO.replace(b"<DATE>05/03/2024</DATE>", b"<DATE>31/02/2024</DATE>"), "no session date"),
        (
            USEBIO.replace(
                b"<EW_PAIR_NUMBER>1</EW_PAIR_NUMBER><SCORE>420", b"<EW_PAIR_NUMBER>9</EW_PAIR_NUMBER><SCORE>420"
            ),
            "pair 9",
        ),
    ],
    ids=[
        "billion-laughs",
        "external-entity",
        "truncated",
        "wrong-encoding",
        "pbn",
        "html",
        "teams",
        "individual",
        "score",
        "date",
        "unknown-pair",
    ],
)
def test_a_hostile_or_wrong_usebio_file_is_refused_with_a_clear_problem(data, says):
    assert says in _blocking(parse_usebio(data))


def test_an_adjusted_usebio_line_is_kept_with_its_codes():
    data = USEBIO.replace(b"<SCORE>-50</SCORE>", b"<SCORE>A6040</SCORE>")

    plan = parse_usebio(data)

    assert plan.problems == []
    table = plan.results[0]["boards"][0]["tables"][1]
    assert table["adjusted"] == {"ns": "A+", "ew": "A-", "ns_points": None, "ew_points": None}
    assert "ns_score" not in table


def test_a_usebio_contract_is_checked_against_its_score():
    play = b"<CONTRACT>4H</CONTRACT><PLAYED_BY>E</PLAYED_BY><TRICKS>10</TRICKS><SCORE>-50</SCORE>"
    data = USEBIO.replace(b"<SCORE>-50</SCORE>", play)

    problems = _blocking_problems(parse_usebio(data))

    assert [problem.message for problem in problems] == [
        "4H by E taking 10 tricks scores -420 for NS, not the printed -50."
    ]
    assert "SECTION 2/BOARD 1/TRAVELLER_LINE 1" in problems[0].where


def test_more_boards_than_a_session_takes_is_refused_while_reading():
    data = USEBIO
    for score in (b"420", b"-50"):  # both sections play boards 1 to 101
        start = data.index(b"<BOARD>", data.index(b"<SCORE>" + score) - 200)
        board = data[start : data.index(b"</BOARD>", start) + len(b"</BOARD>")]
        boards = b"".join(board.replace(b">1</BOARD_NUMBER>", b">%d</BOARD_NUMBER>" % n) for n in range(1, 102))
        data = data.replace(board, boards)

    assert "101 boards: a session has at most 100" in _blocking(parse_usebio(data))


def test_a_file_of_many_bad_rows_lists_a_readable_number_of_problems():
    rows = b"".join(b'1 9 "420" -\n' for _ in range(300))
    data = PBN_HEAD + PBN_NAMES + PBN_SCORES.replace(b'1 2 "420" -\n', rows)

    plan = parse_pbn(data)

    assert len(plan.problems) == 101  # 100 blocking, the count of the rest
    assert plan.problems[-1].message == "and 200 more problems like these."
    assert "pair 9 is not in the TotalScoreTable" in _blocking(plan)


def test_tables_the_importer_does_not_read_do_not_stop_it():
    other = b'[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]\nN NT\nS S 8 extra\n'

    plan = parse_pbn(PBN_HEAD + other + PBN_NAMES + PBN_SCORES)

    assert plan.problems == []
    assert len(plan.results) == 1


def test_sectioned_rows_find_pairs_named_without_a_section_when_ids_are_unique():
    scores = b'[ScoreTable "Section\\1R;PairId_NS\\2R;PairId_EW\\2R;Score_NS\\6R;Score_EW\\6R"]\n'
    scores += b'"A" 1 2 "420" -\n"B" 3 4 - "50"\n'

    plan = parse_pbn(PBN_HEAD + PBN_NAMES + scores)

    assert plan.problems == []
    assert len(plan.people()) == 8
