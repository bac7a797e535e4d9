"""Values and rules with one home: each layer imports it instead of keeping its own copy."""

import re

from config.decimals import CENT


def test_the_two_decimal_quantum_is_one_value_for_results_and_ratings():
    import matches.inputs
    import ratings.cents

    assert matches.inputs.CENT is CENT
    assert ratings.cents.CENT is CENT


def test_the_two_decimal_quantum_is_written_once():
    """``Decimal("0.01")`` is written in ``config/decimals.py`` only: every other module imports ``CENT``."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    written = re.compile(r"""Decimal\(\s*["']0?\.01["']\s*\)""")
    copies = [
        path.relative_to(root).as_posix()
        for app in ("config", "games", "leagues", "matches", "ratings")
        for path in (root / app).rglob("*.py")
        if "migrations" not in path.parts and written.search(path.read_text())
    ]
    assert copies == ["config/decimals.py"]


# Where a game may be named: its own package and templates, the engines, the demo data, the benchmark
# command (a harness over synthetic games), and the parts' models (matches/models.py names their relations).
GAME_HOMES = re.compile(
    r"^(games/(slaps|preferans|bridge)/|templates/games/(slaps|preferans|bridge)/|ratings/engines/"
    r"|.*/migrations/|games/management/commands/demo_data\.py$|ratings/management/commands/benchmark\.py$"
    r"|matches/models\.py$)"
)
GAME_NAMES = {"slaps", "preferans", "bridge", "elo", "pairs-elo", "deals", "boards"}
SCRIPT_NAME = re.compile(r"""["'`](slaps|preferans|bridge|elo|pairs-elo)["'`]""")
TEMPLATE_BRANCH = re.compile(r"{%-?\s*(if|elif)\b[^%]*\b(slaps|preferans|bridge|elo|isf|rating_system|deals|boards)\b")


def test_no_module_or_template_outside_the_kinds_names_a_game():
    """Issue 13: no game or rating-system conditionals outside the kinds and engines, templates included.

    Read from the source: no string in the code of the apps and ``config`` is a game's slug, its rating
    system's or one of its parts' (code that needs one asks the game's kind), no shared template
    branches on them (it includes the partial its kind names), and no script names one in a string.
    Docstrings and comments may name games.
    """
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    named = []
    for app in ("config", "games", "leagues", "matches", "ratings"):
        for path in (root / app).rglob("*.py"):
            where = path.relative_to(root).as_posix()
            if GAME_HOMES.match(where):
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in GAME_NAMES:
                    named.append(f"{where}:{node.lineno} {node.value!r}")
    for path in (root / "templates").rglob("*.html"):
        where = path.relative_to(root).as_posix()
        if not GAME_HOMES.match(where):
            named += [f"{where}: {hit.group(0)}" for hit in TEMPLATE_BRANCH.finditer(path.read_text())]
    for path in (root / "static" / "js").glob("*.js"):
        named += [f"{path.name}: {hit.group(0)}" for hit in SCRIPT_NAME.finditer(path.read_text())]
    assert named == []
