"""The oracle shares nothing with the code it checks: its imports are walked, not trusted."""

import ast
import sys
from pathlib import Path

ORACLE = Path(__file__).resolve().parent
# The oracle may use the standard library and its own modules, nothing else.
FORBIDDEN_ROOTS = {
    "ratings",
    "matches",
    "leagues",
    "config",
    "games",
    "web",
    "django",
    "rest_framework",
    "celery",
    "tests",
}


def _imports(path: Path) -> list[tuple[str, int]]:
    """(top-level module, level) of every import in the file; level > 0 is a relative import."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name.split(".")[0], 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append(((node.module or "").split(".")[0], node.level))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in {
            "__import__",
            "import_module",
        }:
            found.append(("<dynamic import>", 0))
    return found


def _oracle_modules() -> list[Path]:
    return sorted(path for path in ORACLE.glob("*.py") if not path.name.startswith("test_"))


def test_the_oracle_package_has_modules_to_check():
    names = {path.name for path in _oracle_modules()}
    assert {"__init__.py", "exact.py", "rules.py", "history.py"} <= names


def test_the_oracle_imports_only_the_standard_library_and_itself():
    offenders = []
    for path in _oracle_modules():
        for root, level in _imports(path):
            if level > 0:
                continue  # from . import rules
            if root in FORBIDDEN_ROOTS or root not in sys.stdlib_module_names:
                offenders.append(f"{path.name}: {root}")
    assert offenders == []


def test_the_import_walker_catches_a_forbidden_import(tmp_path):
    """The check above can fail: a file importing the engines is reported."""
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("from ratings.engines.elo import expected_score\nimport django\nfrom . import exact\n")
    roots = [(root, level) for root, level in _imports(sneaky)]
    assert ("ratings", 0) in roots
    assert ("django", 0) in roots
    assert [root for root, level in roots if level == 0 and root not in sys.stdlib_module_names] == [
        "ratings",
        "django",
    ]
