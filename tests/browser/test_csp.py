"""Every kind of page works under the Content-Security-Policy, in a real Chromium, on the production
settings: nothing is refused (no ``securitypolicyviolation`` event, no "Refused to ..." in the console,
no load blocked) and no script fails, while the pages do what their scripts are for (htmx swaps, the
charts draw, Swagger UI lists the API, the admin's scripts run).

A control proves the listeners hear a violation: an inline script added to a page must be refused and
reported. The HTTP half (the header on every answer) is ``tests/test_csp.py``.
"""

from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.utils import timezone

from leagues.models import Game, Player
from ratings.services import ratings_process_game
from tests.factories import AdminFactory, PlayerFactory, reference_data_ensure, slaps_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Functions, not expressions: Playwright polls an expression with eval(), which the policy refuses.
SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping, .htmx-added')"

# Runs in every page before its own scripts (Playwright injects it; the page's policy does not apply).
LISTEN = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolation({
    page: location.href, directive: event.violatedDirective, blocked: event.blockedURI,
    source: event.sourceFile, line: event.lineNumber, sample: event.sample,
  });
});
"""


@dataclass
class Problems:
    """What the browser reported while the test walked the site."""

    violations: list[dict] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    documents_without_policy: list[str] = field(default_factory=list)
    documents: int = 0

    def watch(self, page) -> None:
        page.context.expose_binding("__cspViolation", lambda source, detail: self.violations.append(detail))
        page.context.add_init_script(LISTEN)
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        page.on("requestfailed", lambda request: self.blocked.append(f"{request.url}: {request.failure}"))
        page.on("response", self._response)

    def _console(self, message) -> None:
        if message.text.startswith("Failed to load resource"):
            return  # an answer >= 400: in ``failed``, with its address
        if message.type == "error" or "Content Security Policy" in message.text or "Refused to" in message.text:
            self.console.append(f"{message.type}: {message.text}")

    def _response(self, response) -> None:
        # The admin has no icon link, so Chromium asks for /favicon.ico, which this site does not serve.
        if response.status >= 400 and not response.url.endswith("/favicon.ico"):
            self.failed.append(f"{response.status} {response.url}")
        if response.request.resource_type != "document":
            return
        self.documents += 1
        policy = response.headers.get("content-security-policy", "")
        if "script-src 'self'" not in policy or "style-src 'self'" not in policy:
            self.documents_without_policy.append(f"{response.status} {response.url}: {policy!r}")

    def clear(self) -> None:
        for found in (self.violations, self.console, self.errors, self.blocked, self.failed):
            found.clear()

    def assert_none(self) -> None:
        assert self.violations == []
        assert self.console == []
        assert self.errors == []
        assert self.blocked == []
        assert self.failed == []
        assert self.documents_without_policy == []


@pytest.fixture
def site():
    """A Slaps league with two pages of leaderboard, a match, and an admin who is also a referee."""
    reference_data_ensure()
    slaps = Game.objects.get(slug="slaps")
    players = [PlayerFactory(name=f"Csp {n:02d}") for n in range(30)]
    t0 = timezone.now() - timedelta(days=1)
    matches = [
        slaps_match(winner=players[n], loser=players[(n + 1) % 30], played_at=t0 + timedelta(minutes=n))
        for n in range(30)
    ]
    ratings_process_game(game_id=slaps.pk)
    return {"admin": AdminFactory(username="csp-admin"), "match": matches[0], "player": players[0]}


def visit(page, url: str) -> None:
    response = page.goto(url)
    assert response.status == 200, url
    page.wait_for_load_state("load")
    # Scripts that run at load (the admin's calendar and clock shortcuts) fetch more: let them finish
    # before the next page, or leaving aborts them (net::ERR_ABORTED) and they read as blocked.
    page.wait_for_load_state("networkidle")
    page.wait_for_function(SETTLED)


def test_every_kind_of_page_runs_under_the_policy(production, page, site):
    problems = Problems()
    problems.watch(page)

    # The control: a script the policy forbids is refused and heard by the listeners.
    visit(page, "/")
    page.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = 'window.__inline = 1';"
        " document.head.appendChild(s); }"
    )
    assert page.evaluate("window.__inline") is None, "an inline script ran: no policy"
    page.wait_for_timeout(200)
    assert [v["directive"] for v in problems.violations] in (["script-src-elem"], ["script-src"])
    assert any("Content Security Policy" in line for line in problems.console), problems.console
    problems.clear()

    # Public pages. The leaderboard: search and paging swap the board in place (htmx).
    visit(page, "/leagues/slaps-amateur/")
    page.evaluate("window.__stillHere = true")
    page.get_by_role("link", name="Next →").click()
    page.wait_for_function("() => document.querySelector('#board').textContent.includes('Page 2 of 2')")
    page.wait_for_function(SETTLED)
    page.get_by_label("Search players").fill("Csp 07")
    page.wait_for_function("() => document.querySelectorAll('#board tbody tr').length === 1")
    page.wait_for_function(SETTLED)
    assert page.evaluate("window.__stillHere") is True  # swapped, not reloaded
    # The header's player search: htmx fills its list as the visitor types (static/js/header-search.js).
    page.get_by_role("combobox", name="Find a player").fill("Csp 0")
    page.locator("#header-search-options [role=option]").first.wait_for()
    page.wait_for_function(SETTLED)
    assert page.evaluate("window.__stillHere") is True
    visit(page, "/players/?q=csp")

    visit(page, f"/players/{site['player'].pk}/")
    assert page.evaluate("Chart.getChart(document.getElementById('rating-chart-slaps')) !== undefined")
    visit(page, f"/matches/{site['match'].pk}/")
    visit(page, "/matches/")
    visit(page, "/calculator/elo/")
    page.evaluate("window.__stillHere = true")
    page.get_by_label("Opponent's rating").fill("1500")
    page.wait_for_function(SETTLED)
    page.wait_for_timeout(400)  # the form's 200 ms delay, then the swap
    page.wait_for_function(SETTLED)
    assert page.evaluate("window.__stillHere") is True
    visit(page, "/calculator/preferans/")
    visit(page, "/quality/")
    visit(page, "/quality/slaps/")
    assert page.evaluate("Chart.getChart(document.getElementById('calibration-chart')) !== undefined")

    # Swagger UI: its start-up script runs (from its own URL), fetches the schema and lists the API.
    visit(page, "/api/docs/")
    page.locator(".swagger-ui .opblock").first.wait_for()
    assert page.locator(".swagger-ui .opblock").count() > 10

    # Signed in: the entry pages' htmx swaps, the confirmations, the admin with its scripts.
    visit(page, "/accounts/login/")
    page.get_by_label("Username").fill("csp-admin")
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")
    visit(page, "/results/slaps/")
    page.get_by_role("button", name="Save result").click()  # nothing chosen: the errors come back inline
    page.locator("#error-player_a").wait_for()
    page.wait_for_function(SETTLED)
    visit(page, "/results/preferans/")
    rows = page.locator("table.deals tbody tr").count()
    page.get_by_role("button", name="Add deal").click()
    page.wait_for_function(f"() => document.querySelectorAll('table.deals tbody tr').length === {rows + 1}")
    page.wait_for_function(SETTLED)
    visit(page, "/results/bridge/")
    boards = page.locator("fieldset.traveller").count()
    page.get_by_role("button", name="Add board").click()
    page.wait_for_function(f"() => document.querySelectorAll('fieldset.traveller').length === {boards + 1}")
    page.wait_for_function(SETTLED)
    visit(page, "/results/confirm/")

    visit(page, "/admin/")
    visit(page, "/admin/matches/match/")
    page.locator("#action-toggle").check()  # the admin's actions.js selects every row
    assert page.locator("tr.selected").count() > 1
    visit(page, f"/admin/matches/match/{site['match'].pk}/change/")
    visit(page, f"/results/slaps/?correct={site['match'].pk}")  # a correction on the entry form
    visit(page, f"/admin/matches/match/{site['match'].pk}/correct/")
    assert page.locator("textarea.result-body").evaluate("e => getComputedStyle(e).fontFamily") == "monospace"
    visit(page, f"/admin/leagues/player/{site['player'].pk}/change/")

    assert problems.documents >= 20
    problems.assert_none()
    assert Player.objects.count() == 30  # the walk wrote nothing
