"""Imports at a club history's scale (issue 25): a results file is read as a stream, its problems are
capped (a 20 MB file of junk lines once gave 10.5 million problems and 3.3 GB of memory), and its results
are written in chunks.

The reader keeps the first ``PROBLEMS_KEPT`` problems and counts the rest; the preview, the command's
output and admin's run page say how many more there are. The expected counts come from how each file
here is built (one problem a junk line), never from the reader.
"""

from __future__ import annotations

import io
import tracemalloc
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.importing import import_apply, import_people_match, import_plan_read, import_preview
from games.imports import PROBLEMS_KEPT, ImportPlan, Problem, ProblemList
from games.models import ImportRun
from leagues.models import Game, Player
from matches.models import Match
from tests.games.test_admin_import import upload
from tests.games.test_import_results import slaps_csv

pytestmark = pytest.mark.django_db

HEADER = b"played_at,player_a,player_b,winner\n"
JUNK_LINES = 50_000


def junk(lines: int) -> bytes:
    """A Slaps CSV whose every line after the header is one cell for four columns: one problem a line."""
    return HEADER + b"x\n" * lines


class OneLineAtATime(io.BytesIO):
    """A file that refuses to be read whole: a reader must take it a line (or a block) at a time."""

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            raise AssertionError("the file was read whole")
        return super().read(size)


def slaps() -> Game:
    return Game.objects.get(slug="slaps")


def test_fifty_thousand_junk_lines_keep_the_first_thousand_problems_and_count_the_rest(reference_data):
    plan = import_plan_read(game=slaps(), format="csv", data=OneLineAtATime(junk(JUNK_LINES)))

    assert PROBLEMS_KEPT == 1000
    assert len(plan.problems) == 1000
    assert plan.problems.more == JUNK_LINES - 1000
    assert plan.problems.more_blocking == JUNK_LINES - 1000
    assert plan.problems.total == JUNK_LINES
    # The kept ones are the file's first, in order: lines 2 to 1001.
    assert [problem.where for problem in plan.problems[:2]] == ["line 2", "line 3"]
    assert plan.problems[-1].where == "line 1001"
    assert plan.problems[0].message == "1 cells for 4 columns (the file may be cut short)."
    assert plan.results == []
    assert plan.blocking


def test_a_streamed_file_reads_as_its_bytes_do(reference_data):
    data = slaps_csv([("Ada Novak", "Ben Berg", "a"), ("Ben Berg", "Cleo Costa", "b")]).encode()
    data = data.replace(b"\n", b"\r\n")  # a spreadsheet's line ends

    from_stream = import_plan_read(game=slaps(), format="csv", data=OneLineAtATime(data))
    from_bytes = import_plan_read(game=slaps(), format="csv", data=data)

    assert from_stream.results == from_bytes.results
    assert len(from_stream.results) == 2
    assert from_stream.sources == ["line 2", "line 3"]
    assert from_stream.problems == []


@pytest.mark.parametrize(
    ("data", "where", "message"),
    [
        (HEADER + b"2026-03-01T18:00Z,A,B,a\n" * 3 + b"2026-03-01T18:00Z,Zo\xeb,B,a\n", "line 5", "not UTF-8"),
        (HEADER + b"x\n" * 3 + b"2026-03-01T18:00Z,A\x00,B,a\n", "line 5", "NUL byte"),
        (
            b"\xef\xbb\xbf" + HEADER + b"2026-03-01T18:00Z,A,B,a\r\r2026-03-01T19:00Z,A,B,q\r",
            "line 4",
            "neither a nor b",
        ),
    ],
    ids=["latin-1 after good lines", "NUL after junk lines", "BOM and carriage returns alone"],
)
def test_a_problem_found_partway_through_the_stream_names_its_line(reference_data, data, where, message):
    plan = import_plan_read(game=slaps(), format="csv", data=OneLineAtATime(data))

    assert [problem.where for problem in plan.problems if message in problem.message] == [where]
    if message != "neither a nor b":
        # A file that cannot be read at all is refused whole: that one problem, nothing else, no results.
        assert len(plan.problems) == 1
        assert plan.results == []


def test_the_preview_counts_every_problem_and_says_how_many_are_not_listed(reference_data):
    plan = import_plan_read(game=slaps(), format="csv", data=junk(JUNK_LINES))

    preview = import_preview(plan, import_people_match(plan), problems=list(plan.problems))

    assert preview["problems_count"] == JUNK_LINES
    assert preview["blocking"] == JUNK_LINES
    assert preview["problems_more"] == JUNK_LINES - 1000
    assert [(group["count"], group["more"]) for group in preview["problems"]] == [(1000, 995)]


def test_the_command_prints_the_first_problems_and_the_count_of_the_rest(reference_data, tmp_path):
    path = tmp_path / "junk.csv"
    path.write_bytes(junk(JUNK_LINES))
    out = StringIO()

    with pytest.raises(CommandError, match="Nothing was imported"):
        call_command("import_results", str(path), "--game", "slaps", stdout=out, stderr=out)

    printed = out.getvalue()
    assert "problem (1000): 1 cells for 4 columns (the file may be cut short). (line 2, line 3," in printed
    assert "… and 49,000 more problems in the file, not listed." in printed
    assert len(printed.splitlines()) < 20
    assert not Match.objects.exists()
    assert not Player.objects.exists()


def test_admins_preview_says_how_many_problems_are_not_listed(reference_data, django_capture_on_commit_callbacks):
    from tests.factories import RefereeFactory

    user = RefereeFactory(is_superuser=True, is_staff=True)
    web = Client()
    web.force_login(user)
    upload(web, django_capture_on_commit_callbacks, name="junk.csv", data=junk(3000))

    run = ImportRun.objects.get()
    assert run.status == ImportRun.Status.REFUSED
    assert (run.preview["problems_count"], run.preview["problems_more"]) == (3000, 2000)
    page = web.get(reverse("admin:games_importrun_change", args=[run.pk])).content.decode()
    assert "Problems and notes (3000, 3000 blocking)" in page
    assert "… and 2,000 more problems in the file, not listed." in page


def test_reading_junk_lines_holds_a_bounded_number_of_problems(reference_data, tmp_path):
    """A hundred thousand junk lines (a problem each) are read in the memory of the first thousand problems."""
    path = tmp_path / "junk.csv"
    lines = 100_000
    path.write_bytes(junk(lines))
    with path.open("rb") as file:
        tracemalloc.start()
        try:
            plan = import_plan_read(game=slaps(), format="csv", data=file)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert plan.problems.total == lines
    # A hundred thousand problems kept would take tens of MB; a thousand, and a line at a time, well under one.
    assert peak < 8 * 2**20, f"{peak / 2**20:.1f} MB"


def test_a_problem_list_keeps_the_first_and_counts_the_rest_however_they_are_added():
    notes = [Problem(f"line {n}", "a note", blocking=False) for n in range(3)]
    problems = ProblemList(notes, keep=4)
    problems += [Problem("line 9", "blocks")]
    problems.append(Problem("line 10", "blocks"))
    problems.insert(0, Problem("file", "blocks too"))

    assert [problem.where for problem in problems] == ["file", "line 0", "line 1", "line 2"]
    assert (problems.more, problems.more_blocking, problems.total) == (2, 2, 6)
    assert problems.rest() == Problem("file", "and 2 more problems", blocking=True)
    # Only counted problems block: the plan's blocking list says so with the count.
    plan = ImportPlan(problems=ProblemList(notes, keep=3))
    plan.problems.append(Problem("line 4", "blocks"))
    assert plan.blocking == [Problem("file", "and 1 more problem", blocking=True)]
    assert ImportPlan(problems=notes).problems == notes


def test_an_import_of_fifty_results_makes_the_queries_of_ten(reference_data, referee):
    """Every result is cleaned by the write path, and the rows are written a thousand at a time: the
    round trips do not grow with the file (they were four a result). Fifty: SQLite splits an INSERT of
    more than 999 parameters (52 matches)."""
    names = ["Ada Novak", "Ben Berg", "Cleo Costa", "Dmitri Sato"]

    def queries(results: int) -> int:
        rows = [(names[n % 4], names[(n + 1 + n // 4 % 3) % 4], "ab"[n % 2]) for n in range(results)]
        plan = import_plan_read(game=slaps(), format="csv", data=slaps_csv(rows).encode())
        with CaptureQueriesContext(connection) as captured:
            summary = import_apply(plan=plan, game=slaps(), referee=referee, dry_run=True)
        assert summary.stored == results
        return len(captured)

    assert queries(50) == queries(10)
