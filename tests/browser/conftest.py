"""A real Chromium driven by Playwright against pytest-django's live server.

Debian's /usr/bin/chromium is used (``playwright install`` cannot download
browsers here). Playwright's sync API runs an event loop in this thread, so
Django's async-safety check must be relaxed for these tests.

The pages run under the Content-Security-Policy, which refuses eval(): give ``wait_for_function`` a
function ("() => ..."), never a bare expression, which Playwright would poll with eval().
"""

import os

import pytest

from tests.conftest import needs

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
@needs("browser")
def chromium_path():
    """Chromium's path; the ``browser`` marker, which every test here carries, has checked it is there."""
    from tests.conftest import CHROMIUM

    return CHROMIUM


@pytest.fixture(scope="session")
@needs("browser")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
@needs("browser")
def page(browser, live_server, tmp_path):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    artifacts = os.environ.get("CARDRANK_TEST_ARTIFACTS")
    if artifacts:
        os.makedirs(artifacts, exist_ok=True)
        page.screenshot(path=os.path.join(artifacts, "last-page.png"), full_page=True)
    context.close()
