"""A kind stays split by who calls it (issue 26): ``games.kind``'s parts are small and apart, ``BaseKind`` is
only their sum, and the results layer asks a game's kind for the results part alone.

A member added to ``BaseKind`` itself, or to no part, or to two; a part grown past ``MOST``; a part listed out
of ``BaseKind``'s bases or after ``GameKind`` (whose defaults it would no longer replace); a module of
``matches`` asking a kind for a page's or a file's member: each fails here.
"""

import ast
import re
from itertools import combinations
from pathlib import Path

import pytest

import games.kind
from games.base import BaseKind
from games.kind import PARTS, PagesPart, ResultsPart
from leagues.kinds import GameKind

REPO = Path(__file__).resolve().parents[2]

#: The most public members a part may have: more, and it is two parts.
MOST = 15
#: What ``BaseKind`` may define itself, beside its parts: nothing is cross-cutting so far.
BASE_OWN: frozenset[str] = frozenset()


def public(cls: type) -> set[str]:
    """The public members a class defines itself (an annotation alone defines none)."""
    return {name for name in vars(cls) if not name.startswith("_")}


PART_MEMBERS = {part: public(part) for part in PARTS}
IN_PARTS = set().union(*PART_MEMBERS.values())
#: ``GameKind``'s own: the capability flags (slug, parts, bots, ...) that no part replaces.
FLAGS = public(GameKind) - IN_PARTS


@pytest.mark.parametrize("part", PARTS, ids=lambda part: part.__name__)
def test_each_part_is_small(part):
    assert 1 <= len(PART_MEMBERS[part]) <= MOST, sorted(PART_MEMBERS[part])


def test_the_parts_share_no_member():
    shared = {
        (a.__name__, b.__name__): PART_MEMBERS[a] & PART_MEMBERS[b]
        for a, b in combinations(PARTS, 2)
        if PART_MEMBERS[a] & PART_MEMBERS[b]
    }
    assert shared == {}


def test_the_parts_stand_alone():
    """A part is a plain mixin in its own module of ``games.kind``: not a ``GameKind``, not another part."""
    for part in PARTS:
        assert part.__bases__ == (object,), part
        assert part.__module__.startswith("games.kind."), part
    assert len({part.__module__ for part in PARTS}) == len(PARTS)


def test_base_kind_is_the_parts_before_game_kind_and_adds_nothing():
    assert BaseKind.__bases__ == (*PARTS, GameKind)
    assert public(BaseKind) - BASE_OWN == set()


def test_every_member_of_base_kind_is_one_parts_or_a_flag():
    """Every public member of ``BaseKind`` is a ``GameKind`` flag or one part's, and is found there first: a
    part replaces ``GameKind``'s default (``templates``, ``system_label``, ``parameters_problem``)."""
    members = {name for name in dir(BaseKind) if not name.startswith("_")}
    assert members - FLAGS - BASE_OWN == IN_PARTS
    assert {"slug", "result_noun", "rating_periods", "bots", "parts", "engine"} <= FLAGS
    for part, names in PART_MEMBERS.items():
        for name in names:
            home = next(cls for cls in BaseKind.__mro__ if name in vars(cls))
            assert home is part, f"BaseKind.{name} is {home.__name__}'s, not {part.__name__}'s"


def test_the_package_docstring_lists_each_parts_members():
    """``games.kind``'s docstring (its table, and a line a part) names each part's members, all of them."""
    doc = games.kind.__doc__
    for part, names in PART_MEMBERS.items():
        module = part.__module__.removeprefix("games.kind.")
        assert re.search(rf"^\| {part.__name__} +\| {module} +\|", doc, re.M), part
        listed = re.search(rf"^- ``{part.__name__}``: (.*?)\.$", doc, re.M | re.S)
        assert listed, part
        assert set(re.findall(r"``(\w+)``", listed.group(1))) == names, part


# --- the results layer asks for the results part ----------------------------------------------------------

#: Modules of ``matches`` that are pages, not the results layer: admin's match list may ask a page's members.
PAGES_IN_MATCHES = {"matches/admin.py": PagesPart}


def kind_attributes(source: str) -> list[tuple[int, str]]:
    """(line, name) of each member read from a kind: ``kind.x``, ``<anything>.kind.x``, ``kind_of(...).x``,
    ``getattr(kind, "x")``."""

    def is_kind(node: ast.AST) -> bool:
        return (
            (isinstance(node, ast.Name) and node.id == "kind")
            or (isinstance(node, ast.Attribute) and node.attr == "kind")
            or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "kind_of")
        )

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and is_kind(node.value):
            found.append((node.lineno, node.attr))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and len(node.args) >= 2
            and is_kind(node.args[0])
            and isinstance(node.args[1], ast.Constant)
        ):
            found.append((node.lineno, node.args[1].value))
    return sorted(found)


def test_the_scan_finds_what_a_kind_is_asked():
    source = (
        "kind.clean(data)\n"
        "match.game.kind.templates\n"
        "kind_of(game).csv_cells(rows)\n"
        'getattr(kind, "api_name", "")\n'
        "by_kind.values()\n"
        "kindness.x\n"
    )
    assert kind_attributes(source) == [(1, "clean"), (2, "templates"), (3, "csv_cells"), (4, "api_name")]


def test_the_results_layer_asks_a_kind_for_the_results_part_only():
    asked, strays = set(), []
    for path in sorted((REPO / "matches").rglob("*.py")):
        where = path.relative_to(REPO).as_posix()
        if "/migrations/" in where:
            continue
        allowed = PART_MEMBERS[ResultsPart] | FLAGS
        if where in PAGES_IN_MATCHES:
            allowed = allowed | PART_MEMBERS[PAGES_IN_MATCHES[where]]
        for line, name in kind_attributes(path.read_text()):
            asked.add(name)
            if name not in allowed:
                strays.append(f"{where}:{line} kind.{name}")
    assert strays == []
    assert {"clean", "stored_body"} <= asked  # the scan sees matches asking: it is not passing on nothing
