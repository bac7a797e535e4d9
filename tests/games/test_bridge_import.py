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
    left_out: int  # rows that are not a played score: adjusted, byes
    adjusted: int
    byes: int
    passed: int  # passed-out rows: played, score 0
    pairs: int
    day: date
    people: tuple[PlayerRef, ...]  # some of the people, as the file names them


FILES = [
    Facts(
        "magiccontest-ffb_open2-dn1-finale-2022_seance1.pbn",
        boards=30,
        rows=30 * 22,
        left_out=4,
        adjusted=4,
        byes=0,
        passed=0,
        pairs=44,
        day=date(2022, 1, 22),  # session 1 of 6: EventDate, not Date (the contest's last day)
        people=(PlayerRef("Mme Bénédicte CRONIER", "00026478"), PlayerRef("Nicolas DECHELETTE", "00397085")),
    ),
    Facts(
        "ruter-sbl-finland_sm-parikilpailu-2014_session1.pbn",
        boards=66,
        rows=66 * 18,
        left_out=2,
        adjusted=2,
        byes=0,
        passed=4,
        pairs=36,
        day=date(2014, 10, 4),
        people=(PlayerRef("Ilkka Ala-Kivimäki", "1020"), PlayerRef("Sami Mäki", "2804")),
    ),
    Facts(
        "ruter-svenskbridge_silver1-2011_impcross-3sections.pbn",
        boards=42,
        rows=1680,
        left_out=1,
        adjusted=1,
        byes=0,
        passed=7,
        pairs=80,  # sections M, N and O: one session
        day=date(2011, 7, 29),
        people=(PlayerRef("Aron Thorfinsson", ""), PlayerRef("Gumundur Snorrason", "")),  # guests "+520", "+521"
    ),
    Facts(
        "magiccontest-h6-turku_2013-08-20_butler-bye.pbn",
        boards=28,
        rows=28 * 4,
        left_out=28,
        adjusted=0,
        byes=28,
        passed=0,
        pairs=7,  # pair 7 is the phantom: only Bye rows
        day=date(2013, 8, 20),
        people=(PlayerRef("Lea Seestelä", "1324"), PlayerRef("Maria Mylläri", "2891"), PlayerRef("Anne Juhola", "")),
    ),
    Facts(
        "ruter-norge_km-par-2022-05-08_utf8.pbn",
        boards=63,
        rows=63 * 4,
        left_out=2,
        adjusted=2,
        byes=0,
        passed=2,
        pairs=8,
        day=date(2022, 5, 8),
        people=(PlayerRef("Jørn Johansen", "9659"), PlayerRef("Sofie Græsholt Sjødal", "38921")),
    ),
    Facts(
        "usebio-compscore3_nsbc-lindfield_2022-07-28_mp-mitchell.xml",
        boards=27,
        rows=567,
        left_out=2,
        adjusted=2,  # an A6060 and an A5050
        byes=0,
        passed=3,
        pairs=42,
        day=date(2022, 7, 28),
        people=(PlayerRef("GRAHAM MCMAHON", "365610"), PlayerRef("PETER JONKER", "631604")),
    ),
    Facts(
        "usebio-compscore3_moonee-valley_2026-02-02_cross-imp-howell.xml",
        boards=27,
        rows=108,
        left_out=0,
        adjusted=0,
        byes=0,
        passed=2,
        pairs=9,
        day=date(2026, 2, 2),
        people=(PlayerRef("HANNAH O'DONNELL", "1066307"), PlayerRef("LYNDA YOUNG", "209406")),
    ),
    Facts(
        "usebio-scorebridge_forest-of-dean_2025-07-30_mp-howell.xml",
        boards=28,  # BOARDS_PLAYED says 24
        rows=94,
        left_out=0,
        adjusted=0,
        byes=0,
        passed=1,
        pairs=8,
        day=date(2025, 7, 30),
        people=(PlayerRef("Harry Kear", "535958"), PlayerRef("John Plews", "")),  # no NATIONAL_ID_NUMBER
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
    assert len(tables) == facts.rows - facts.left_out
    assert sum(table["ns_score"] == 0 for table in tables) == facts.passed  # a passed-out board is played
    people = plan.people()
    assert len(people) == 2 * facts.pairs
    assert set(facts.people) <= set(people)
    notes = [problem.message for problem in plan.problems]
    assert sum("adjusted score" in note for note in notes) == facts.adjusted
    assert sum("a bye" in note for note in notes) == facts.byes
    assert len(notes) == facts.left_out


@REAL_FILES
def test_sections_of_a_session_are_one_match_and_each_board_has_every_sections_tables():
    """File 3: sections M (12 tables), N (12) and O (16) played the same 42 boards."""
    plan = _read(FILES[2])

    boards = plan.results[0]["boards"]
    assert max(len(board["tables"]) for board in boards) == 40


@REAL_FILES
def test_the_adjusted_row_is_named_by_its_line():
    plan = _read(FILES[2])

    (note,) = plan.problems
    assert note.blocking is False
    assert note.where.startswith("line 1350 ")  # "O" 9 7 635 658 ... "A+" "A+"
    assert note.message == "an adjusted score (A+ / A+) is not a rated duel."


@REAL_FILES
@pytest.mark.django_db
@pytest.mark.parametrize("facts", FILES, ids=[facts.file.split("_")[0] for facts in FILES])
def test_each_plans_body_passes_the_bridge_cleaner(facts, reference_data):
    plan = _read(facts)
    people = plan.people()
    players = Player.objects.bulk_create(Player(name=person.name) for person in people)
    ids = {person: player.pk for person, player in zip(people, players, strict=True)}

    for body in plan.results:
        data = {
            **body,
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
    }
    assert body["boards"][0]["tables"][1]["ns_score"] == -50
    assert datetime.fromisoformat(body["played_at"]).date() == date(2024, 3, 5)


def test_a_board_left_with_one_table_is_dropped_with_a_note():
    scores = PBN_SCORES.replace(b'3 4 - "50"', b'3 4 "A+" "A-"')

    plan = parse_pbn(PBN_HEAD + PBN_NAMES + scores)

    assert [problem.blocking for problem in plan.problems] == [False, False, True]
    assert "fewer than two tables" in plan.problems[1].message
    assert "nothing to rate" in plan.problems[2].message
    assert plan.results == []


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
        },
        {
            "ns": [PlayerRef("Ed Go"), PlayerRef("Fa Hu")],
            "ew": [PlayerRef("Gi Io"), PlayerRef("Ha Ju")],
            "ns_score": -50,
        },
    ]
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


def test_an_adjusted_usebio_line_is_a_note_not_a_duel():
    data = USEBIO.replace(b"<SCORE>-50</SCORE>", b"<SCORE>A5050</SCORE>")

    plan = parse_usebio(data)

    assert [problem.blocking for problem in plan.problems] == [False, False, True]
    assert plan.problems[0].message == "an adjusted score (A5050) is not a rated duel."
    assert "SECTION 2/BOARD 1/TRAVELLER_LINE 1" in plan.problems[0].where


def test_more_boards_than_a_session_takes_is_refused_while_reading():
    data = USEBIO
    for score in (b"420", b"-50"):  # both sections play boards 1 to 101
        start = data.index(b"<BOARD>", data.index(b"<SCORE>" + score) - 200)
        board = data[start : data.index(b"</BOARD>", start) + len(b"</BOARD>")]
        boards = b"".join(board.replace(b">1</BOARD_NUMBER>", b">%d</BOARD_NUMBER>" % n) for n in range(1, 102))
        data = data.replace(board, boards)

    assert "101 boards: a session has at most 100" in _blocking(parse_usebio(data))


def test_a_file_of_many_bad_rows_lists_a_readable_number_of_problems():
    rows = b"".join(b'1 2 "A+" "A+"\n' for _ in range(300))
    data = PBN_HEAD + PBN_NAMES + PBN_SCORES.replace(b'1 2 "420" -\n', rows)

    plan = parse_pbn(data)

    assert len(plan.problems) == 102  # 100 notes, the blocking "nothing to rate", the count of the rest
    assert plan.problems[-1].message == "and 201 more problems like these."  # 300 adjusted, a lone table
    assert "nothing to rate" in _blocking(plan)


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
