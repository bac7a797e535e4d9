"""The README and docs/ stay true to the repository and to the served API.

- Every relative link in ``README.md`` and ``docs/*.md`` resolves to a file of
  the repository (and its ``#anchor`` to a heading of that file); none climbs
  out with ``../`` or names the specification outside the repository.
- Every repository path the pages quote (``matches/services.py``,
  ``tests/oracle/``) exists, every dotted name of the apps they quote
  (``matches.services.match_submit``) imports, and every name a code-map table
  places in a file (a column headed "cleaner in ``matches/services.py``") is
  defined there: a module split or a rename that leaves the docs behind fails
  here, not in a newcomer's first minute.
- ``docs/api.md`` names every operation of the served schema (``/api/schema/``)
  and every field, parameter and header it documents; each endpoint it lists
  as served is routed, and each it lists as planned is not (yet).
- The README stays a short entry page, and ``docs/index.md`` lists every page.
- Measured figures (``27%``, ``40 µs``, ``142 rated/s``) live in
  ``docs/performance.md``, dated, not in code comments, where nobody measures
  them again: a comment gives the reason and points there.
"""

import ast
import importlib
import io
import re
import tokenize
import unicodedata
from pathlib import Path

import pytest
from django.urls import Resolver404, resolve

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
# Written by `make mutation` and `make run`, never committed: a page may name them.
GENERATED = ("mutants/", "mutation-results/", "staticfiles/", ".venv/", "db.sqlite3")
APPS = ("config", "leagues", "matches", "ratings", "web")
README_MAX_BYTES = 8 * 1024

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
PATH = re.compile(r"^[\w.-]+(/[\w.-]+)*/?$")
DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def _prose(page: Path) -> str:
    """The page without its fenced code blocks (shell sessions, diagrams, JSON)."""
    return FENCE.sub("", _text(page))


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = CODE.sub(r"\1", heading).strip().lower()
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for line in _prose(page).splitlines():
        if match := re.match(r"^#{1,6}\s+(.*?)\s*#*$", line):
            base = _anchor(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            anchors.add(base if count == 0 else f"{base}-{count}")
    return anchors


def _links(page: Path) -> list[str]:
    return LINK.findall(_prose(page))


def test_the_pages_exist():
    names = {page.name for page in PAGES[1:]}
    assert {"index.md", "api.md", "ratings.md", "operations.md", "reliability.md", "performance.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_relative_links_resolve_inside_the_repository(page):
    problems = []
    for target in _links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not a file of ours
            continue
        path_part, _, anchor = target.partition("#")
        if "../" in path_part or path_part.startswith("/") or "shared/spec" in path_part:
            problems.append(f"{target}: points outside the repository")
            continue
        resolved = (page.parent / path_part).resolve() if path_part else page
        if not resolved.is_relative_to(REPO) or not resolved.exists():
            problems.append(f"{target}: no such file")
            continue
        if anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            problems.append(f"{target}: no heading #{anchor} in {resolved.relative_to(REPO)}")
    assert not problems, f"{page.relative_to(REPO)}: " + "; ".join(problems)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_no_reference_outside_the_repository(page):
    text = _text(page)
    assert "../shared" not in text
    assert "shared/spec" not in text


def _quoted_paths(page: Path) -> set[str]:
    """Quoted tokens that look like a file or folder of ours: a slash, and a file suffix or a final slash
    (``application/json`` and ``600/min`` are not; URLs start with a slash and are not either)."""
    paths = set()
    for token in CODE.findall(_prose(page)):
        token = token.strip()
        if "/" not in token or token.startswith(("/", "http")) or not PATH.match(token):
            continue
        if token.endswith("/") or "." in token.rsplit("/", 1)[-1]:
            paths.add(token)
    return paths


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_quoted_repository_paths_exist(page):
    """From the repository's root, or (a page in docs/ naming ``deploy/nginx.conf``) from the page's folder."""
    missing = sorted(
        path
        for path in _quoted_paths(page)
        if not path.startswith(GENERATED) and not (REPO / path).exists() and not (page.parent / path).exists()
    )
    assert not missing, f"{page.relative_to(REPO)} names paths that do not exist: {missing}"


def _module_file(dotted: str) -> Path | None:
    base = REPO.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def _resolves(dotted: str) -> bool | None:
    """Whether an app's dotted name imports; None when it is not a module path (``matches.submit_result``)."""
    parts = dotted.split(".")
    if parts[0] not in APPS:
        return None
    split = max(i for i in range(1, len(parts) + 1) if _module_file(".".join(parts[:i])))
    if split == 1 and len(parts) == 2:
        return None  # "app.codename": a permission, not a module attribute
    obj = importlib.import_module(".".join(parts[:split]))
    for name in parts[split:]:
        if not hasattr(obj, name):
            return False
        obj = getattr(obj, name)
    return True


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_quoted_dotted_names_import(page):
    names = {token for text in (_text(page),) for token in CODE.findall(text) if DOTTED.match(token)}
    # Diagrams name them too: ``matches.services (match_submit, ...)``, ``ratings.services.ratings_process_game``.
    names |= {word for block in FENCE.findall(_text(page)) for word in re.findall(r"[A-Za-z_][\w.]*\w", block)}
    # mutmut's mutant names (``ratings.engines.bridge.x_imps__mutmut_3``) exist only in its run.
    broken = sorted(
        name for name in names if DOTTED.match(name) and "__mutmut_" not in name and _resolves(name) is False
    )
    assert not broken, f"{page.relative_to(REPO)} names what does not exist: {broken}"


def _defined_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _placed_names(page: Path) -> list[tuple[str, str]]:
    """(name, file) pairs a page places: "`name` in `file.py`", "`a`, `b` in `file.py`", and table
    columns headed by a file ("cleaner in `matches/services.py`")."""
    pairs = []
    prose = _prose(page)
    for match in re.finditer(r"((?:`\w+`(?:,\s*|\s+and\s+))*`\w+`)\s+in\s+`([\w/]+\.py)`", prose):
        pairs += [(name, match.group(2)) for name in CODE.findall(match.group(1))]
    rows = [line for line in prose.splitlines() if line.startswith("|")]
    header = None
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        if set("".join(cells)) <= set("- :"):
            continue
        if header is None or len(cells) != len(header):
            header = cells
            continue
        for head, cell in zip(header, cells, strict=True):
            files = [token for token in CODE.findall(head) if token.endswith(".py")]
            if len(files) == 1:
                pairs += [(name, files[0]) for name in CODE.findall(cell) if IDENTIFIER.match(name)]
    return pairs


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_names_placed_in_a_file_are_defined_there(page):
    missing = sorted(
        f"{name} in {path}"
        for name, path in _placed_names(page)
        if (REPO / path).exists() and name not in _defined_names(REPO / path)
    )
    assert not missing, f"{page.relative_to(REPO)}: {missing}"


def test_the_readme_code_map_places_each_game():
    """The README's code map names, for every game, its engine, entry view, cleaner and loader."""
    placed = set(_placed_names(REPO / "README.md"))
    assert {
        ("slaps_clean", "games/slaps/results.py"),
        ("preferans_clean", "games/preferans/results.py"),
        ("bridge_clean", "games/bridge/results.py"),
        ("entry", "games/slaps/views.py"),
        ("bridge_inputs", "games/bridge/loading.py"),
    } <= placed
    readme = _text(REPO / "README.md")
    for engine in ("ratings/engines/elo.py", "ratings/engines/preferans.py", "ratings/engines/bridge.py"):
        assert f"`{engine}`" in readme


def test_readme_is_a_short_entry_page():
    readme = _text(REPO / "README.md")
    assert len(readme.encode()) < README_MAX_BYTES, "the README holds the commands and the code map; topics go to docs/"
    assert readme.index("make run") < readme.index("## ")  # the two commands come first
    assert "make test" in readme.split("## ")[0]
    assert "(docs/index.md)" in readme


def test_docs_index_lists_every_page():
    index = _text(DOCS / "index.md")
    listed = {target.partition("#")[0] for target in _links(DOCS / "index.md")}
    unlisted = sorted(page.name for page in DOCS.glob("*.md") if page.name != "index.md" and page.name not in listed)
    assert not unlisted, f"docs/index.md does not list {unlisted}"
    assert index.count("\n| [") == len(list(DOCS.glob("*.md"))) - 1  # one line each


# --- docs/api.md against the served schema --------------------------------------------------------

API_DOC = DOCS / "api.md"
OPERATION = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE)\s+`(/api/[^`?\s]*)")


@pytest.fixture(scope="module")
def served_schema(django_db_blocker):
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/api/schema/?format=json")
    assert response.status_code == 200
    served = response.json()
    # The games the test suite adds (tests/settings.py) are not Cardrank's: docs/api.md documents its own.
    from leagues.kinds import KINDS

    for kind in KINDS.values():
        if type(kind).__module__.startswith("tests."):
            for suffix in ("Result", "MatchOut", "Game"):
                served["components"]["schemas"].pop(f"{kind.api_name}{suffix}", None)
    return served


def _doc_operations(text: str) -> set[tuple[str, str]]:
    return set(OPERATION.findall(text))


def _served_and_planned() -> tuple[str, str]:
    text = _text(API_DOC)
    served, marker, planned = text.partition("## Planned, not yet served")
    assert marker, "docs/api.md keeps the endpoints not served yet under '## Planned, not yet served'"
    return served, planned


def _doc_path(schema_path: str) -> str:
    return schema_path.replace("{id}", "ID").replace("{slug}", "SLUG").replace("{date}", "YYYY-MM-DD")


def test_api_doc_names_every_served_operation(served_schema):
    served, _ = _served_and_planned()
    documented = _doc_operations(served)
    operations = {
        (method.upper(), _doc_path(path))
        for path, item in served_schema["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    }
    missing = sorted(operations - documented)
    assert not missing, f"docs/api.md does not document {missing}"


def _concrete(doc_path: str) -> str:
    return doc_path.replace("ID", "1").replace("SLUG", "slaps")


def _routed(doc_path: str) -> bool:
    try:
        return resolve(_concrete(doc_path)).url_name != "api-not-found"
    except Resolver404:
        return False


def test_api_doc_serves_what_it_lists_as_served_and_not_what_is_planned():
    served, planned = _served_and_planned()
    not_routed = sorted(path for _, path in _doc_operations(served) if not _routed(path))
    assert not not_routed, f"docs/api.md lists as served what no route serves: {not_routed}"
    # The section may be empty (every announced endpoint served); what it lists is not routed yet.
    planned_paths = [path for _, path in _doc_operations(planned)]
    now_routed = sorted(path for path in planned_paths if _routed(path))
    assert not now_routed, f"served now: move them out of 'Planned, not yet served': {now_routed}"


def _schema_names(node, components, seen=frozenset()) -> set[str]:
    """Every property name in a schema, following references, arrays, combinations and maps."""
    names: set[str] = set()
    if isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name not in seen and name in components:  # not a test-only game's member (served_schema)
                names |= _schema_names(components[name], components, seen | {name})
        for key in ("properties",):
            for prop, sub in node.get(key, {}).items():
                names.add(prop)
                names |= _schema_names(sub, components, seen)
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                names |= _schema_names(node[key], components, seen)
        for key in ("allOf", "oneOf", "anyOf"):
            for sub in node.get(key, []):
                names |= _schema_names(sub, components, seen)
    return names


def test_api_doc_names_every_field_parameter_and_header(served_schema):
    served, _ = _served_and_planned()
    components = served_schema["components"]["schemas"]
    names: set[str] = set()
    for item in served_schema["paths"].values():
        for operation in item.values():
            names |= {parameter["name"] for parameter in operation.get("parameters", [])}
            for body in operation.get("requestBody", {}).get("content", {}).values():
                names |= _schema_names(body["schema"], components)
            for response in operation["responses"].values():
                for body in response.get("content", {}).values():
                    names |= _schema_names(body["schema"], components)
    assert {"rating_changes", "awaiting_confirmation", "Idempotency-Key", "detail"} <= names  # the walk works
    missing = sorted(
        name for name in names if not re.search(rf'[`"]{re.escape(name)}[`"]|\b{re.escape(name)}=', served)
    )
    assert not missing, f"docs/api.md does not name {missing}"


# --- measured figures belong to docs/performance.md -----------------------------------------------

FIGURE = re.compile(
    r"\d\s?%|\d\s?(ms|µs)\b|\d[\d,.]*\s?(req|rated|updates|rows)/s\b|\d\s?\u00d7|\b\d+(\.\d+)?x (faster|slower)", re.I
)
NOT_SHIPPED = {"tests", "mutants", "staticfiles", "node_modules"}


def _code_files() -> list[Path]:
    return [
        path
        for path in REPO.rglob("*.py")
        if not (set(path.relative_to(REPO).parts[:-1]) & NOT_SHIPPED)
        and not any(part.startswith(".") for part in path.relative_to(REPO).parts)
    ]


def _comments_and_docstrings(source: str) -> list[tuple[int, str]]:
    texts = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                texts.append((node.body[0].lineno, docstring))
    return texts


def test_no_measured_figures_in_code_comments():
    files = _code_files()
    assert any(path.name == "services.py" for path in files)  # the walk finds the code
    found = [
        f"{path.relative_to(REPO)}:{line}: {match.group(0)!r}"
        for path in files
        for line, text in _comments_and_docstrings(path.read_text(encoding="utf-8"))
        if (match := FIGURE.search(text))
    ]
    assert not found, f"measured figures in comments (move them to docs/performance.md, dated): {found}"


def test_the_documented_gunicorn_command_is_the_one_the_stack_runs():
    """docs/operations.md's production gunicorn (gthread workers, their threads and timeout) is the command
    ``benchmarks.stack`` starts: the integration tests and the benchmark run what a deployment is told to."""
    from benchmarks.stack import gunicorn_argv

    argv = gunicorn_argv("127.0.0.1:8000", workers=3)
    assert " ".join(["gunicorn", *argv[1:]]) in (DOCS / "operations.md").read_text()
    assert "-k gthread" in " ".join(argv)


def test_the_documented_heavy_reads_gunicorn_is_the_one_the_stack_runs():
    """The heavy reads' gunicorn (docs/operations.md, its niceness and one worker) is ``Stack.start_heavy_reads``'s,
    on the port docs/deploy/nginx.conf sends them to."""
    from benchmarks.proxy import HEAVY_UPSTREAM
    from benchmarks.stack import HEAVY_READS_NICE, HEAVY_READS_WORKERS, gunicorn_argv

    argv = gunicorn_argv("127.0.0.1:8001", workers=HEAVY_READS_WORKERS)
    line = f"nice -n {HEAVY_READS_NICE} .venv/bin/gunicorn {' '.join(argv[1:])}"
    assert line in (DOCS / "operations.md").read_text()
    assert "127.0.0.1:8001" in HEAVY_UPSTREAM
