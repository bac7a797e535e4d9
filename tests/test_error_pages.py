"""The pages' own 404 and 500 (templates/404.html, 500.html on templates/error_frame.html), on the production
settings, while every answer under /api/ stays JSON (config.api's handlers).

The 500 page is drawn when something failed, perhaps the database: it must render with no request, no
context processors and no database at all, which the test without a database proves (pytest-django refuses
any query there).
"""

import pytest
from django.http import HttpResponse
from django.test import Client, RequestFactory, override_settings
from django.urls import path

from config import api as api_plumbing
from config.urls import urlpatterns as site_urlpatterns


def crash(request):
    raise RuntimeError("a bug")


def fine(request):
    return HttpResponse("fine")


# The site's URLconf plus two views that crash, one page and one under /api/, with the site's handlers.
urlpatterns = [path("crash/", crash), path("api/crash/", crash), path("fine/", fine), *site_urlpatterns]
handler404 = "config.api.api_page_not_found"
handler500 = "config.api.api_server_error"


@pytest.mark.django_db
def test_a_page_no_route_matches_is_the_sites_404_page(production, reference_data):
    response = Client().get("/no-such-page/<b>x</b>/")
    assert response.status_code == 404
    assert response["Content-Type"] == "text/html; charset=utf-8"
    html = response.content.decode()
    assert "<h1>Page not found</h1>" in html
    assert "There is no page at <code>/no-such-page/%3Cb%3Ex%3C/b%3E/</code>" in html  # the path, quoted
    assert '<a class="skip-link" href="#content">Skip to content</a>' in html
    assert '<main id="content"' in html
    assert 'href="/matches/"' in html
    assert "script-src 'self'" in response["Content-Security-Policy"]


@pytest.mark.django_db
def test_an_unknown_player_is_the_404_page_and_an_unknown_api_path_stays_json(production, reference_data):
    page = Client().get("/players/999999999/")
    assert page.status_code == 404
    assert "<h1>Page not found</h1>" in page.content.decode()
    api = Client().get("/api/no-such-thing/")
    assert api.status_code == 404
    assert api["Content-Type"] == "application/json"
    assert api.json() == {"detail": "Not found."}


@override_settings(ROOT_URLCONF=__name__)
@pytest.mark.django_db
def test_a_crashing_page_is_the_sites_500_page_and_a_crashing_api_answers_json(production, reference_data):
    client = Client(raise_request_exception=False)
    assert client.get("/fine/").content == b"fine"  # the test's URLconf is the one in use

    page = client.get("/crash/")
    assert page.status_code == 500
    assert page["Content-Type"] == "text/html; charset=utf-8"
    html = page.content.decode()
    assert "<h1>Something went wrong</h1>" in html
    assert '<main id="content"' in html
    assert "a bug" not in html  # nothing of the error is shown

    api = client.get("/api/crash/")
    assert api.status_code == 500
    assert api["Content-Type"] == "application/json"
    assert api.json() == {"detail": "Server error."}


def test_the_500_page_needs_no_database_and_no_request_context(settings):
    """No ``django_db`` mark: any query would fail the test. Django's server_error renders the template with
    no context at all; the page still links home and to the matches, and loads the site's stylesheet."""
    settings.DEBUG = False
    response = api_plumbing.api_server_error(RequestFactory().get("/leagues/slaps-amateur/"))
    assert response.status_code == 500
    html = response.content.decode()
    assert "<h1>Something went wrong</h1>" in html
    assert 'href="/"' in html
    assert 'href="/matches/"' in html
    assert "/static/css/cardrank.css" in html
    assert "csrf" not in html.lower()
