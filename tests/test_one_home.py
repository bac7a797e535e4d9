"""Values and rules with one home: each layer imports it instead of keeping its own copy."""

import re

from config.decimals import CENT

#: Cardrank's own code: the plumbing and the apps (the games' apps are under games/).
APPS = ("config", "games", "hooks", "leagues", "matches", "notices", "people", "ratings", "web")


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
        for app in APPS
        for path in (root / app).rglob("*.py")
        if "migrations" not in path.parts and written.search(path.read_text())
    ]
    assert copies == ["config/decimals.py"]


# Where a game may be named besides its own app's folder: the engines, migrations, the demo data and the
# benchmark command (a harness over synthetic games).
SHARED_HOMES = re.compile(
    r"^(ratings/engines/|.*/migrations/|games/management/commands/demo_data\.py$"
    r"|ratings/management/commands/benchmark\.py$)"
)


def registered_games() -> tuple[list[str], set[str]]:
    """Read from the registry: each registered kind's app folder, and the names that would tell its game
    apart (its app's label, its kind's slug, its parts' relation names)."""
    from pathlib import Path

    from django.apps import apps

    from leagues.kinds import KINDS

    root = Path(__file__).resolve().parent.parent
    folders, names = [], set()
    for kind in KINDS.values():
        app = apps.get_containing_app_config(type(kind).__module__)
        folders.append(Path(app.path).relative_to(root).as_posix() + "/")
        names |= {app.label, kind.slug, *kind.parts}
    return folders, names


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
    folders, names = registered_games()
    # Every built-in game is found so (and any other registered: the test suite adds one by settings).
    assert {"games/slaps/", "games/preferans/", "games/bridge/"} <= set(folders)
    assert {"slaps", "preferans", "bridge", "elo", "deals", "boards"} <= names
    spelled = "|".join(re.escape(name) for name in sorted(names))
    script_name = re.compile(rf"""["'`]({spelled})["'`]""")
    template_branch = re.compile(rf"{{%-?\s*(if|elif)\b[^%]*\b({spelled}|isf|rating_system)\b")

    def home(where: str) -> bool:
        return where.startswith(tuple(folders)) or bool(SHARED_HOMES.match(where))

    named = []
    for app in APPS:
        for path in (root / app).rglob("*.py"):
            where = path.relative_to(root).as_posix()
            if home(where):
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                    named.append(f"{where}:{node.lineno} {node.value!r}")
    for path in [*(root / "templates").rglob("*.html"), *(root / "games").rglob("templates/**/*.html")]:
        where = path.relative_to(root).as_posix()
        if not home(where):
            named += [f"{where}: {hit.group(0)}" for hit in template_branch.finditer(path.read_text())]
    for path in [*(root / "static" / "js").glob("*.js"), *(root / "games").rglob("static/**/*.js")]:
        where = path.relative_to(root).as_posix()
        if not home(where):
            named += [f"{where}: {hit.group(0)}" for hit in script_name.finditer(path.read_text())]
    assert named == []


def test_every_page_and_api_is_served_from_web_or_from_its_games_app():
    """Issue 26: a module's folder says what it is. What a person or a client reaches by URL is ``web``'s
    (pages, the REST API), or a game's own (its calculator: the game's app), or the plumbing's (``config``:
    the API's 404) and the libraries' (sign-in, the schema). Admin screens live with their model's app
    (``<app>/admin.py``), or in ``web/admin.py`` when they need apps above the model's. No other module of
    a domain app (leagues, matches, ratings) or of the shared games code serves a URL."""
    from pathlib import Path

    from django.urls import get_resolver

    root = Path(__file__).resolve().parent.parent
    folders, _ = registered_games()
    game_modules = tuple(folder.rstrip("/").replace("/", ".") + "." for folder in folders)

    def views(patterns, prefix=""):
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):
                yield from views(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                callback = pattern.callback
                view = getattr(callback, "view_class", None) or getattr(callback, "cls", None) or callback
                while hasattr(view, "__wrapped__"):
                    view = view.__wrapped__
                yield prefix + str(pattern.pattern), view.__module__

    served = list(views(get_resolver().url_patterns))
    ours = [(route, module) for route, module in served if module.split(".")[0] in APPS]
    assert any(module == "web.match_apis" for _, module in ours)  # the walk reaches our views
    astray = [
        f"{route} {module}"
        for route, module in ours
        if not module.startswith(("web.", "config.", *game_modules))
        and not (route.startswith("admin/") and module.endswith(".admin"))
    ]
    assert astray == [], astray
    assert (root / "web" / "apps.py").is_file()
