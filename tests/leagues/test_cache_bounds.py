"""Anonymous requests cannot fill the cache: only keys the site names are stored (issue 12, item 10).

Through HTTP on the production settings (the Redis cache on the test Redis
database), counting the keys Redis holds before and after.
"""

import pytest
import redis
from django.test import Client
from rest_framework.test import APIClient

from matches.versions import RESULTS_STAMP_KEY
from tests.ratings.test_selectors import seed_league
from web.league_apis import LeaderboardPagination
from web.pages import LEADERBOARD_PAGE_SIZE

pytestmark = pytest.mark.django_db

PAGE = "/leagues/slaps-amateur/"
API = "/api/leagues/slaps-amateur/leaderboard/"
# The page sizes the site serves itself: the pages' and the API's default and maximum.
SITE_SIZES = {LEADERBOARD_PAGE_SIZE, LeaderboardPagination.page_size, LeaderboardPagination.max_page_size}


# The site's stamps, one key each whatever is asked: renewed when results change, so the fixtures' own
# writes (a result) may have stored one before the test asks anything.
SITE_STAMPS = {RESULTS_STAMP_KEY}


@pytest.fixture
def keys(production, require_redis):
    """How many keys the cache's Redis database holds now, the site's stamps aside."""
    from django.core.cache import cache

    connection = redis.Redis.from_url(require_redis)
    stamps = {cache.make_key(key).encode() for key in SITE_STAMPS}
    yield lambda: sum(1 for key in connection.scan_iter() if key not in stamps)
    connection.close()


def test_unique_searches_store_nothing(production, keys, slaps):
    seed_league(slaps, 60)
    page, api = Client(), APIClient()
    # What any leaderboard request stores once per league and ratings version: the league's histogram
    # for each sort and its tabs. Bounded by the site's leagues, whatever is searched.
    page.get(PAGE, {"q": "first"})
    api.get(API, {"search": "first", "sort": "peak"})
    shared = keys()
    assert shared == 3

    for n in range(40):
        assert page.get(PAGE, {"q": f"p00{n} one-off"}).status_code == 200
        assert page.get(PAGE, {"q": f"p{n:03d}"}, HTTP_HX_REQUEST="true").status_code == 200
        assert api.get(API, {"search": f"search {n}"}).status_code == 200
        assert api.get(API, {"search": f"p{n:03d}", "sort": "peak"}).status_code == 200
    assert keys() == shared

    # A search still finds players, with their true ranks: computed, just not kept.
    found = api.get(API, {"search": "p0000"}).json()
    assert [row["player"]["name"] for row in found["results"]] == ["p0000"]
    assert "p0000" in page.get(PAGE, {"q": "p0000"}).content.decode()
    assert keys() == shared

    # The unsearched leaderboard is cached, and served from the cache the second time.
    assert page.get(PAGE).status_code == 200
    assert api.get(API).status_code == 200
    stored = keys()
    assert stored > shared
    assert page.get(PAGE).status_code == 200
    assert api.get(API).status_code == 200
    assert keys() == stored


def test_page_sizes_and_page_numbers_cannot_multiply_keys(production, keys, slaps, django_assert_max_num_queries):
    seed_league(slaps, 60)
    page, api = Client(), APIClient()
    # Every page size a client may ask for: only the ones the site serves itself are kept.
    assert api.get(API, {"page_size": 7}).status_code == 200
    shared = keys()
    assert shared == 1  # the league's histogram
    for size in range(1, 201):
        if size not in SITE_SIZES:
            assert api.get(API, {"page_size": size, "page": "last"}).status_code == 200
    assert keys() == shared

    # Page numbers name a page that exists (the pages clamp, the API refuses): one entry per real page.
    assert page.get(PAGE, {"page": 3}).status_code == 200  # 60 players, 25 a page: the last page
    warm = keys()
    assert warm > 0
    for number in ("999999999", "4", "0003", "last", "-1", "1e9", "x" * 50):
        response = page.get(PAGE, {"page": number})
        assert response.status_code == 200
    # Past the end, "last" and "-1" are page 3 again; the unreadable ones page 1 (its rows and its HTML).
    assert keys() == warm + 2
    for number in ("999999999", "4", "0", "x"):
        assert api.get(API, {"page": number, "page_size": 50}).status_code == 404
    assert api.get(API, {"page": 2, "page_size": 50}).status_code == 200
    api.get(API, {"page_size": 200})
    with django_assert_max_num_queries(1):  # the maximum page size is cached too: the league and its version
        assert len(api.get(API, {"page_size": 200}).json()["results"]) == 60


def test_the_cached_page_sizes_are_the_ones_the_site_serves():
    from ratings.selectors import CACHED_PAGE_SIZES

    assert set(CACHED_PAGE_SIZES) == SITE_SIZES
