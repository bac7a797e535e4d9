"""Bridge results from a club's scoring program: PBN and USEBIO files read into import plans.

Each session of the file (a PBN file; a USEBIO SESSION, or the EVENT when it has
none) is one bridge result body, ``{"game": "bridge", "played_at", "boards"}``
and what the scorer knows besides (scoring and its conventions, movement,
event; each board's dealer, vulnerability, deal and byes; each table's pair
numbers, section, contract, or adjusted score), as ``POST /api/matches/``
takes it, players as ``PlayerRef`` people (``games.bridge.travellers``).
Every row is kept: played, adjusted (with the points the program printed) or
a bye; only a row with no score at all is left out with a note. Anything the
importer cannot take (a team or individual event, an unreadable row, a
contract whose score is not the printed one, a hostile file) is a blocking
problem, and such a plan has no results. ``plan.about`` says what the file is,
for the preview. Nothing is stored here.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.bridge.pbn import pbn_decode, pbn_plan
from games.bridge.travellers import plan_about, problems_capped, size_problem
from games.bridge.usebio import usebio_plan, usebio_root
from games.imports import ImportPlan, Problem


def parse_pbn(data: bytes) -> ImportPlan:
    """A PBN results file (``ScoreTable``, ``TotalScoreTable``) as one session's plan."""
    if problem := size_problem(data):
        return ImportPlan(problems=[problem])
    try:
        text = pbn_decode(data)
    except ValueError as error:
        return ImportPlan(problems=[Problem(_("file"), str(error))])
    return _whole(pbn_plan(text))


def parse_usebio(data: bytes) -> ImportPlan:
    """A USEBIO 1.2 XML file as one plan, a result per session."""
    if problem := size_problem(data):
        return ImportPlan(problems=[problem])
    try:
        root = usebio_root(data)
    except ValueError as error:
        return ImportPlan(problems=[Problem(_("file"), str(error))])
    return _whole(usebio_plan(root))


def _whole(plan: ImportPlan) -> ImportPlan:
    """A plan with a blocking problem imports nothing: its results are dropped, its problems kept
    (``problems_capped``); one without says what it would import (``plan_about``)."""
    if plan.blocking:
        plan.results.clear()
    plan.problems = problems_capped(plan.problems)
    plan.about = plan_about(plan)
    return plan
