"""The walk: every page, on a 360 px phone and a 1366 px screen in English, and on the phone in Russian (whose
words are longer: issue 28), in a real Chromium, on the demo data.

A page fails the walk when it is wider than the window (``scrollWidth`` past ``innerWidth``), when any
element's right edge passes the window outside a box that scrolls it (a ``.table-scroll``), when the browser
reports a console error or a page error, when any answer is a 4xx/5xx other than the one expected (the 404
page), or when a control's border has less than 3:1 contrast against what it is drawn on (WCAG 1.4.11; the
formula is written out below, the colours read from the browser's computed style).

``PAGES`` is the one list of pages: add a new page there, with who sees it and the status it answers. Paths
name demo objects by ``{placeholder}`` (see ``walk_data``).
"""

import re
from dataclasses import dataclass, field

import pytest
from django.core.management import call_command

from games.bridge.models import BoardTable
from leagues.models import League, Player, Season
from matches.models import Match, Seat
from ratings.models import RatingList, TuningRun
from ratings.tuning_runs import tuning_run_execute
from tests.factories import RefereeFactory, reference_data_ensure

ANONYMOUS, REFEREE, ADMIN = "anonymous", "referee", "admin"

# (who, path, status). Signed-in pages are walked after the public ones, in this order.
PAGES = [
    (ANONYMOUS, "/", 200),
    (ANONYMOUS, "/leagues/slaps-amateur/", 200),
    (ANONYMOUS, "/leagues/slaps-amateur/?include_inactive=true", 200),
    (ANONYMOUS, "/leagues/preferans-amateur/", 200),
    (ANONYMOUS, "/leagues/bridge-amateur/", 200),
    (ANONYMOUS, "/players/{player}/", 200),
    (ANONYMOUS, "/players/{player}/history/", 200),
    (ANONYMOUS, "/players/{player}/history/?game=preferans", 200),
    (ANONYMOUS, "/players/{player}/records/bridge/records/", 200),
    (ANONYMOUS, "/players/{player}/head-to-head/?game=slaps", 200),
    (ANONYMOUS, "/players/{player}/head-to-head/?game=preferans", 200),
    (ANONYMOUS, "/compare/", 200),
    (ANONYMOUS, "/compare/?game=slaps&a={player}&b={slaps_opponent}", 200),
    (ANONYMOUS, "/compare/?game=bridge&a={bridge_pair_a}&b={bridge_pair_b}", 200),
    (ANONYMOUS, "/leagues/slaps-amateur/crosstable/", 200),
    (ANONYMOUS, "/leagues/preferans-amateur/crosstable/", 200),
    (ANONYMOUS, "/players/?q=a", 200),
    (ANONYMOUS, "/matches/", 200),
    (ANONYMOUS, "/matches/?game=bridge&page=2", 200),
    (ANONYMOUS, "/matches/{slaps_match}/", 200),
    (ANONYMOUS, "/matches/{preferans_match}/", 200),
    (ANONYMOUS, "/matches/{bridge_match}/", 200),
    (ANONYMOUS, "/games/slaps/lists/", 200),
    (ANONYMOUS, "/games/slaps/lists/{slaps_list}/", 200),
    (ANONYMOUS, "/games/slaps/lists/{slaps_list}/?sort=-change&page=2", 200),
    (ANONYMOUS, "/games/slaps/lists/{slaps_list}/movers/", 200),
    (ANONYMOUS, "/games/preferans/lists/{preferans_list}/", 200),
    (ANONYMOUS, "/leagues/slaps-amateur/seasons/", 200),
    (ANONYMOUS, "/leagues/slaps-amateur/seasons/{slaps_season}/", 200),
    (ANONYMOUS, "/leagues/bridge-amateur/seasons/{bridge_season}/", 200),
    (ANONYMOUS, "/calculator/", 200),
    (ANONYMOUS, "/calculator/elo/", 200),
    (ANONYMOUS, "/calculator/preferans/", 200),
    (ANONYMOUS, "/quality/", 200),
    (ANONYMOUS, "/quality/slaps/", 200),
    (ANONYMOUS, "/quality/preferans/", 200),
    (ANONYMOUS, "/quality/bridge/", 200),
    (ANONYMOUS, "/api/docs/", 200),
    (ANONYMOUS, "/no-such-page/", 404),
    (ANONYMOUS, "/accounts/login/", 200),
    (REFEREE, "/", 200),
    (REFEREE, "/results/slaps/", 200),
    (REFEREE, "/results/preferans/", 200),
    (REFEREE, "/results/bridge/", 200),
    (REFEREE, "/results/confirm/", 200),
    (REFEREE, "/matches/{slaps_match}/", 200),
    (REFEREE, "/players/{player}/", 200),
    (REFEREE, "/claims/", 200),
    (REFEREE, "/me/", 200),
    (REFEREE, "/me/notices/", 200),
    (ADMIN, "/admin/", 200),
    (ADMIN, "/admin/matches/match/", 200),
    (ADMIN, "/admin/matches/match/{slaps_match}/change/", 200),
    (ADMIN, "/admin/matches/match/{slaps_match}/correct/", 200),
    (ADMIN, "/admin/matches/match/{bridge_match}/change/", 200),
    (ADMIN, "/results/slaps/?correct={slaps_match}", 200),
    (ADMIN, "/results/preferans/?correct={preferans_match}", 200),
    (ADMIN, "/results/bridge/?correct={bridge_match}", 200),
    (ADMIN, "/admin/leagues/game/{slaps_game}/change/", 200),
    (ADMIN, "/admin/leagues/game/{slaps_game}/tuning/", 200),
    # The confirmation of the run's chosen candidate: its button names every parameter the search moved.
    (ADMIN, "/admin/leagues/game/{slaps_game}/tuning/{tuning_run}/apply/?candidate={tuning_chosen}", 200),
    (ADMIN, "/admin/leagues/player/", 200),
    (ADMIN, "/admin/leagues/player/{player}/change/", 200),
    (ADMIN, "/admin/leagues/league/", 200),
    (ADMIN, "/admin/leagues/league/{slaps_league}/change/", 200),
    (ADMIN, "/admin/hooks/webhook/", 200),
    (ADMIN, "/admin/hooks/webhook/add/", 200),
    (ADMIN, "/admin/people/playerclaim/", 200),
]

WIDTHS = [(360, 800), (1366, 900)]
#: (language, its browser's locale, the windows walked). Russian's long words matter on the phone.
LANGUAGES = [("en", "en-GB", WIDTHS), ("ru", "ru-RU", [(360, 800)])]

# Elements whose right edge passes the window, outside any box that scrolls or clips them sideways.
OVERFLOWING = """() => {
  const width = window.innerWidth, found = [];
  for (const element of document.body.querySelectorAll("*")) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || box.right <= width + 0.5) continue;
    let parent = element.parentElement, contained = false;
    for (; parent && parent !== document.body; parent = parent.parentElement) {
      if (["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(parent).overflowX)) {
        contained = true;
        break;
      }
    }
    const classes = typeof element.className === "string" ? element.className.trim().split(/\\s+/) : [];
    if (!contained) found.push(`${element.tagName.toLowerCase()}${element.id ? "#" + element.id : ""}`
      + `${classes.filter(Boolean).map((name) => "." + name).join("")} right=${Math.round(box.right)}`);
  }
  return found.slice(0, 5);
}"""

# Every visible control's boundary: the colour of its first border side that is drawn (top, right, bottom,
# left), else its background; and the colour behind it (the first ancestor with an opaque background; white
# at the top).
CONTROL_EDGES = """() => {
  const controls = document.querySelectorAll(
    "input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([type=file]), select, textarea, button");
  const behind = (element) => {
    for (let node = element.parentElement; node; node = node.parentElement) {
      const colour = getComputedStyle(node).backgroundColor;
      if (!/rgba\\(.*, 0\\)$/.test(colour) && colour !== "transparent") return colour;
    }
    return "rgb(255, 255, 255)";
  };
  const found = [];
  for (const control of controls) {
    const box = control.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const style = getComputedStyle(control);
    const side = ["Top", "Right", "Bottom", "Left"].find(
      (side) => parseFloat(style[`border${side}Width`]) > 0 && style[`border${side}Style`] !== "none");
    found.push({
      name: `${control.tagName.toLowerCase()}${control.id ? "#" + control.id : ""}`
        + `${control.name ? "[name=" + control.name + "]" : ""}`,
      border: side ? style[`border${side}Color`] : null,
      background: style.backgroundColor,
      behind: behind(control),
    });
  }
  return found;
}"""

RGB = re.compile(r"rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)")


def parse_colour(text: str) -> tuple[tuple[int, int, int], float] | None:
    """``rgb(r, g, b)`` or ``rgba(r, g, b, a)`` as the browser computes it: the colour and its alpha."""
    match = RGB.fullmatch(text)
    if not match:
        return None
    r, g, b, alpha = match.groups()
    return (int(r), int(g), int(b)), float(alpha) if alpha is not None else 1.0


def relative_luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2.2's relative luminance: each sRGB channel linearised, then weighted 0.2126, 0.7152, 0.0722."""

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)


def contrast_ratio(first: tuple[int, int, int], second: tuple[int, int, int]) -> float:
    """WCAG's contrast ratio (L1 + 0.05) / (L2 + 0.05), the lighter colour's luminance over the darker's."""
    lighter, darker = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


@pytest.mark.parametrize(
    ("first", "second", "ratio"),
    [
        ((0, 0, 0), (255, 255, 255), 21.0),  # the extremes
        ((255, 255, 255), (255, 255, 255), 1.0),
        ((0xD1, 0xD9, 0xE0), (255, 255, 255), 1.43),  # the old border, the 1.43:1
        ((0x76, 0x76, 0x76), (255, 255, 255), 4.54),  # #767676, the lightest grey with 4.5:1 on white
    ],
)
def test_the_contrast_formula_gives_wcags_known_ratios(first, second, ratio):
    assert contrast_ratio(first, second) == pytest.approx(ratio, abs=0.01)


def low_contrast_controls(edges: list[dict]) -> list[str]:
    """The controls whose boundary has less than 3:1 against what is behind them. A control with neither a
    border nor a background (a button drawn as a link) has no boundary to measure: its text is the control."""
    low = []
    for edge in edges:
        behind, _ = parse_colour(edge["behind"])
        for key in ("border", "background"):
            colour = parse_colour(edge[key]) if edge[key] else None
            if colour is None or colour[1] == 0:
                continue
            ratio = contrast_ratio(colour[0], behind)
            if ratio < 3:
                low.append(f"{edge['name']}: {key} {edge[key]} on {edge['behind']} is {ratio:.2f}:1")
            break  # the border is the boundary when there is one; else the background
    return low


@dataclass
class Walk:
    """What the browser reported on the page being walked."""

    errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    in_flight: set = field(default_factory=set)

    def watch(self, page) -> None:
        page.on("request", lambda request: self.in_flight.add(request))
        page.on("requestfinished", lambda request: self.in_flight.discard(request))
        page.on("requestfailed", lambda request: self.in_flight.discard(request))
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        page.on("response", self._response)

    def _console(self, message) -> None:
        # "Failed to load resource" is an answer >= 400: counted in ``failed`` with its address and status.
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            self.errors.append(f"console: {message.text}")

    def _response(self, response) -> None:
        if response.status >= 400:
            self.failed.append(f"{response.status} {response.url}")


def settle(page, walk: Walk, *, quiet_ms: int = 100, at_most_ms: int = 10_000) -> None:
    """Wait, after the page's load, until no request of the page has been in flight for ``quiet_ms`` (the
    requests its scripts make as it starts, htmx's loads: their answers are checked too). Playwright's
    "networkidle" waits a fixed 500 ms of quiet, which over ~250 pages was most of the walk's time."""
    quiet = waited = 0
    while quiet < quiet_ms and waited < at_most_ms:
        page.wait_for_timeout(25)  # lets the browser's events reach ``walk``
        waited += 25
        quiet = 0 if walk.in_flight else quiet + 25


@pytest.fixture
def walk_data(settings):
    """The demo club, smaller (``manage.py demo_data``), with its referee and admin accounts' demo password
    (given on the embedded defaults only, so DEBUG is on while it loads), and the objects the paths name."""
    reference_data_ensure()
    settings.DEBUG = True
    call_command("demo_data", "--players", "16", "--matches", "60", "--preferans-games", "6", "--bridge-weeks", "2")
    settings.DEBUG = False
    matches = {
        f"{slug}_match": Match.objects.filter(game__slug=slug, status=Match.Status.RATED).order_by("-pk").first().pk
        for slug in ("slaps", "preferans", "bridge")
    }
    # A player rated in every game: the fullest profile.
    player = Player.objects.filter(ratings__game__slug="bridge").filter(ratings__game__slug="preferans").first()
    assert League.objects.filter(slug="slaps-amateur").exists()
    slaps_game = Match.objects.get(pk=matches["slaps_match"]).game_id
    # A finished tuning run, so the tuning page shows its candidates, calibration and chart.
    tuning_run = TuningRun.objects.create(game_id=slaps_game)
    tuning_run_execute(run_id=tuning_run.pk)
    tuning_run.refresh_from_db()
    # The compare page's sides: the player's latest Slaps opponent, and the two pairs of a bridge table.
    slaps_opponent = (
        Seat.objects.filter(match__game__slug="slaps", match__seats__player=player).exclude(player=player).first()
    )
    table = BoardTable.objects.order_by("pk").first()
    # The latest rating list of each game the walk reads (the demo publishes one at every month's end).
    lists = {
        f"{slug}_list": RatingList.objects.filter(game__slug=slug).latest("day").day.isoformat()
        for slug in ("slaps", "preferans")
    }
    # The demo's closed seasons: the Slaps amateur league's first (two promoted) and the bridge ladder.
    seasons = {
        f"{slug}_season": Season.objects.filter(league__slug=f"{slug}-amateur", closed_at__isnull=False).get().pk
        for slug in ("slaps", "bridge")
    }
    return {
        **matches,
        **lists,
        **seasons,
        "slaps_league": League.objects.get(slug="slaps-amateur").pk,
        "player": player.pk,
        "slaps_game": slaps_game,
        "tuning_run": tuning_run.pk,
        # The chosen candidate, or the search's first move when the current parameters stayed best.
        "tuning_chosen": tuning_run.result["chosen"] or 1,
        "slaps_opponent": slaps_opponent.player_id if slaps_opponent else player.pk + 1,
        "bridge_pair_a": f"{table.ns_1_id},{table.ns_2_id}",
        "bridge_pair_b": f"{table.ew_1_id},{table.ew_2_id}",
    }


def sign_in(page, username: str, language: str = "en") -> None:
    """Sign in on the sign-in page, finding its fields and button by their names in ``language``."""
    from django.contrib.auth import get_user_model
    from django.utils import translation
    from django.utils.text import capfirst

    with translation.override(language):
        username_label = str(capfirst(get_user_model()._meta.get_field("username").verbose_name))
        password_label, button = translation.gettext("Password"), translation.gettext("Sign in")
    page.goto("/accounts/login/")
    page.get_by_label(username_label).fill(username)
    page.get_by_label(password_label, exact=True).fill("cardrank-demo")
    page.locator("main").get_by_role("button", name=button).click()
    page.wait_for_url("**/")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_every_page_fits_a_phone_and_a_screen_with_no_error(browser, live_server, walk_data):
    problems = {}
    walked = 0
    windows = [(language, locale, width, height) for language, locale, sizes in LANGUAGES for width, height in sizes]
    for language, locale, width, height in windows:
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": width, "height": height}, locale=locale
        )
        page = context.new_page()
        page.set_default_timeout(15_000)
        walk = Walk()
        walk.watch(page)
        signed_in_as = ANONYMOUS
        for who, path_template, status in PAGES:
            if who != signed_in_as:
                context.clear_cookies()
                if who != ANONYMOUS:
                    sign_in(page, who, language)
                signed_in_as = who
            path = path_template.format(**walk_data)
            walk.errors.clear()
            walk.failed.clear()
            response = page.goto(path)
            settle(page, walk)
            found = []
            if response.status != status:
                found.append(f"answered {response.status}")
            expected_failure = [f"{status} {live_server.url}{path}"] if status >= 400 else []
            if walk.failed != expected_failure:
                found.append(f"answers: {walk.failed}")
            found += walk.errors
            scroll_width = page.evaluate("() => document.documentElement.scrollWidth")
            if scroll_width > width:
                found.append(f"the page is {scroll_width} px wide")
            found += [f"passes the window: {element}" for element in page.evaluate(OVERFLOWING)]
            found += low_contrast_controls(page.evaluate(CONTROL_EDGES))
            shown_in = page.evaluate("() => document.documentElement.lang")
            if shown_in.split("-")[0] != language:
                found.append(f'<html lang="{shown_in}">, not {language}')
            if found:
                problems[f"{language} {width} px {who} {path}"] = found
            walked += 1
        context.close()
    assert walked == len(windows) * len(PAGES)
    assert problems == {}, "\n".join(f"{page}: {found}" for page, found in problems.items())


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_menu_folds_on_a_phone_and_the_skip_link_comes_first(browser, live_server, transactional_db):
    reference_data_ensure()
    RefereeFactory(username="walk-referee")
    context = browser.new_context(base_url=live_server.url, viewport={"width": 360, "height": 800})
    page = context.new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("walk-referee")
    page.get_by_label("Password").fill("correct horse battery")
    page.locator("main").get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")

    # The first Tab reaches the skip link, shown on the screen; Enter moves to the content.
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    assert skip.evaluate("element => element === document.activeElement")
    box = skip.bounding_box()
    assert box["y"] >= 0
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 360
    page.keyboard.press("Enter")
    # The link's navigation runs after the key's events: wait for it (read at once, the URL may be the old one).
    page.wait_for_url(re.compile(r"/#content$"), timeout=5000)

    # Folded: the button says so, and the menu's links are hidden until it is pressed.
    toggle = page.get_by_role("button", name="Menu")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert toggle.get_attribute("aria-controls") == "site-menu"
    enter_slaps = page.get_by_role("link", name="Enter Slaps")
    assert not enter_slaps.is_visible()
    toggle.focus()
    page.keyboard.press("Enter")
    assert toggle.get_attribute("aria-expanded") == "true"
    for name in ("Matches", "Calculators", "Rating quality", "API", "Enter Slaps", "To confirm"):
        assert page.locator("#site-menu").get_by_role("link", name=name).is_visible(), name
    assert page.get_by_role("button", name="Sign out walk-referee").is_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") == 360
    # Escape in the menu closes it and gives the focus back to the button.
    page.locator("#site-menu").get_by_role("link", name="Matches").focus()
    page.keyboard.press("Escape")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert not enter_slaps.is_visible()
    assert toggle.evaluate("element => element === document.activeElement")

    # On a screen the menu is open and the button is not shown.
    page.set_viewport_size({"width": 1366, "height": 900})
    assert not toggle.is_visible()
    assert enter_slaps.is_visible()
    context.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_without_javascript_the_menu_is_open(browser, live_server, transactional_db):
    reference_data_ensure()
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 360, "height": 800}, java_script_enabled=False
    )
    page = context.new_page()
    page.goto("/")
    assert not page.locator(".menu-toggle").is_visible()
    for name in ("Matches", "Calculators", "Rating quality", "API", "Referee sign-in"):
        assert page.locator("#site-menu").get_by_role("link", name=name).is_visible(), name
    assert page.evaluate("() => document.documentElement.scrollWidth") == 360
    context.close()
