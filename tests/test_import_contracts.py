"""The import contracts of ``make lint`` (``[tool.importlinter]`` in pyproject.toml) hold, and can fail.

Dependencies go one way (issue 13): the engines import nothing from Django or the apps,
models import no services, selectors and permissions read without calling services, the
rating services run tasks -> services -> replay -> loaders, periods, ledger -> history, and
no app's modules import each other in a cycle.
"""

from pathlib import Path

import pytest
from importlinter.cli import EXIT_STATUS_ERROR, EXIT_STATUS_SUCCESS, lint_imports

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def in_repository(monkeypatch):
    monkeypatch.chdir(ROOT)  # import-linter reads the packages from the working directory


def test_the_import_contracts_hold(in_repository, capsys):
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == EXIT_STATUS_SUCCESS
    report = capsys.readouterr().out
    assert "Engines are pure Python" in report
    assert "Models import no services" in report
    assert "Selectors and permissions read" in report
    assert "Rating services one way" in report
    assert "No import cycles among the modules of each app" in report
    assert " broken" not in report.replace("0 broken", "")


def test_a_broken_contract_fails_the_check(in_repository, tmp_path, capsys):
    """The check can fail: a contract the code breaks (a model importing Django) is reported."""
    config = tmp_path / "contracts.toml"
    config.write_text(
        '[tool.importlinter]\nroot_packages = ["leagues"]\ninclude_external_packages = true\n\n'
        '[[tool.importlinter.contracts]]\nname = "Models without Django"\ntype = "forbidden"\n'
        'source_modules = ["leagues.models"]\nforbidden_modules = ["django"]\n'
    )
    assert lint_imports(config_filename=str(config), no_cache=True) == EXIT_STATUS_ERROR
    assert "leagues.models is not allowed to import django" in capsys.readouterr().out
