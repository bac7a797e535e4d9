"""The import contracts of ``make lint`` (``[tool.importlinter]`` in pyproject.toml) hold, and can fail.

Dependencies go one way (issue 13, docs/architecture.md): the apps are layered web (pages,
APIs) > games (the kinds) > ratings > matches > leagues, matches reaching ratings only through ratings.intake;
the engines import nothing from Django or the apps, models import no services, selectors and
permissions read without calling services, the rating services run tasks -> services ->
replay -> loaders, periods, ledger -> history, config's shared plumbing imports no app, and
no app's modules import each other in a cycle.
"""

import json
import tomllib
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
    assert "Apps one way: web (pages, APIs) > people | notices | hooks > games (the kinds) >" in report
    assert "Engines are pure Python" in report
    assert "Models import no services" in report
    assert "Selectors and permissions read" in report
    assert "Rating services one way" in report
    assert "The shared plumbing in config imports no app" in report
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


def test_the_layers_stop_an_upward_import(in_repository, tmp_path, capsys):
    """The apps' layers contract, as written, without one of its exceptions: that import is reported.

    The one door from results to ratings (``matches`` asking ``ratings.intake``) is the one import
    of a lower app from a higher one; without its ``ignore_imports`` line the layers refuse it. So
    the layers are checked over the real code, and the exception is what lets its own import through.
    """
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(contract for contract in contracts if contract["name"].startswith("Apps one way"))
    exception = "matches.** -> ratings.intake"
    assert layers["ignore_imports"] == [exception]  # issue 26: the only one left
    ignored = [line for line in layers["ignore_imports"] if line != exception]
    config = tmp_path / "contracts.toml"
    root_packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
    config.write_text(
        f"[tool.importlinter]\nroot_packages = {json.dumps(root_packages)}\n"
        "include_external_packages = true\n\n"
        f'[[tool.importlinter.contracts]]\nname = "Layers"\ntype = "layers"\nlayers = {json.dumps(layers["layers"])}\n'
        f'ignore_imports = {json.dumps(ignored)}\nunmatched_ignore_imports_alerting = "none"\n'
    )
    assert lint_imports(config_filename=str(config), no_cache=True) == EXIT_STATUS_ERROR
    report = capsys.readouterr().out
    assert "matches is not allowed to import ratings" in report
    assert "matches.services -> ratings.intake" in report
