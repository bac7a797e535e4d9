"""The cache is not a dependency of writes (PRODUCT.md, "Rules settled after the first release").

Here the cache is ``config.cache.FailOpenRedisCache`` (what ``CACHE_URL``
configures) pointed at a local port nothing listens on, so every call to
Redis is refused; no Redis server is needed. The rate limits are set to one
request a minute, so a limit that did not fail open would answer 429 to the
second request; ``test_the_low_limits_do_limit_with_a_working_cache`` shows
that the same limits bite when the cache works. The integration test
``tests/integration/test_faults.py`` does the same through gunicorn, with
Redis killed under a running site.
"""

import logging
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from benchmarks.stack import free_port
from matches.models import Match
from ratings.models import RatingChange
from tests.factories import PlayerFactory, RefereeFactory, api_token_for

pytestmark = pytest.mark.django_db

ONE_A_MINUTE = "1/min"


def _limit_everything_to_one_a_minute(settings) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"writes": ONE_A_MINUTE}}
    settings.CARDRANK_PAGE_WRITE_RATE = ONE_A_MINUTE


@pytest.fixture
def cache_down(settings, reference_data):
    """The production cache backend on a closed port; ``RETRY_SECONDS=0`` so every call tries Redis again."""
    settings.CACHES = {
        "default": {
            "BACKEND": "config.cache.FailOpenRedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5, "RETRY_SECONDS": 0},
        }
    }
    # Sessions as production keeps them with CACHE_URL: read from the cache, else from the database.
    settings.SESSION_ENGINE = "config.sessions"
    _limit_everything_to_one_a_minute(settings)


def _slaps_body(a, b, minutes_ago: int) -> dict:
    played_at = (timezone.now() - timedelta(minutes=minutes_ago)).isoformat()
    return {"game": "slaps", "played_at": played_at, "players": [a.pk, b.pk], "winner": a.pk}


def _api_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(user)}")
    return client


def test_the_cache_is_really_down(cache_down, caplog):
    """The premise: every call reaches the closed port, answers as a miss, and logs why."""
    with caplog.at_level(logging.WARNING, logger="config.cache"):
        cache.set("k", 1)
        assert cache.get("k") is None
        assert cache.get("k", "fallback") == "fallback"
        assert cache.add("k", 1) is False
        assert cache.get_many(["k"]) == {}
        with pytest.raises(ValueError, match="Cache unavailable"):
            cache.incr("k")
    warnings = [record for record in caplog.records if record.name == "config.cache"]
    assert len(warnings) == 6, [record.getMessage() for record in warnings]
    assert "rate limits fail open" in warnings[0].getMessage()
    assert "Connection refused" in warnings[0].getMessage() or "Error" in warnings[0].getMessage()


def test_api_writes_and_reads_work_with_the_cache_down(cache_down, caplog, django_capture_on_commit_callbacks):
    ann, bob = PlayerFactory(), PlayerFactory()
    client = _api_client(RefereeFactory())
    with caplog.at_level(logging.WARNING, logger="config.cache"):
        with django_capture_on_commit_callbacks(execute=True):
            first = client.post("/api/matches/", _slaps_body(ann, bob, 10), format="json")
        with django_capture_on_commit_callbacks(execute=True):
            second = client.post("/api/matches/", _slaps_body(bob, ann, 5), format="json")
        profile = client.get(f"/api/players/{ann.pk}/")
        board = client.get("/api/leagues/slaps-amateur/leaderboard/")
    assert (first.status_code, second.status_code) == (201, 201), (first.content, second.content)
    # Tests rate eagerly (no broker): both results are stored and rated from the database alone.
    assert Match.objects.filter(status=Match.Status.RATED).count() == 2
    assert RatingChange.objects.count() == 4
    assert profile.status_code == 200
    [rating] = profile.json()["ratings"]
    # Seed 000 by hand: both start at 1000, K = 32. Ann wins: E = 1/2, 1000 + 32·(1 - ½) = 1016.
    # Bob wins the second: E(Ann) = 1/(1+10^((984-1016)/400)) = 0.54592, 1016 + 32·(0 - 0.54592) = 998.53 → 999.
    assert rating["rating"] == 999
    assert rating["rated_matches"] == 2
    assert board.status_code == 200
    assert {row["player"]["id"] if isinstance(row["player"], dict) else row["player"] for row in _rows(board)} == {
        ann.pk,
        bob.pk,
    }
    assert any(record.name == "config.cache" for record in caplog.records), "the outage is logged"


def _rows(response) -> list[dict]:
    data = response.json()
    return data["results"] if isinstance(data, dict) and "results" in data else data


def test_pages_and_sign_in_work_with_the_cache_down(cache_down, django_capture_on_commit_callbacks):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    RefereeFactory(username="table7")
    browser = Client()
    # A wrong password, then the right one, both answered: the sign-in limits are kept in the database.
    wrong = browser.post("/accounts/login/", {"username": "table7", "password": "not it"})
    right = browser.post("/accounts/login/", {"username": "table7", "password": "correct horse battery"})
    assert wrong.status_code == 200
    assert right.status_code == 302, right.content[:300]
    form = {"player_a": ann.pk, "player_b": bob.pk, "played_at": "2026-11-01T18:00", "rated": "true"}
    saved = []
    for winner in ("a", "b"):
        with django_capture_on_commit_callbacks(execute=True):
            saved.append(browser.post("/results/slaps/", {**form, "winner": winner}))
    assert [response.status_code for response in saved] == [302, 302]
    assert Match.objects.filter(status=Match.Status.RATED).count() == 2
    assert browser.get(f"/players/{ann.pk}/").status_code == 200
    board = browser.get("/leagues/slaps-amateur/")
    assert board.status_code == 200
    assert "Ann" in board.content.decode()


def test_sign_in_limits_hold_with_the_cache_down(cache_down, settings):
    """The sign-in limits (config/signin.py) are counted in the database: they do not fail open with the cache."""
    RefereeFactory(username="table7")
    limit = settings.CARDRANK_SIGN_IN_LIMITS["account_and_address"]
    statuses = [
        Client().post("/accounts/login/", {"username": "table7", "password": "not it"}).status_code
        for _ in range(limit)
    ]
    assert statuses == [200] * (limit - 1) + [429]
    assert (
        Client().post("/accounts/login/", {"username": "table7", "password": "correct horse battery"}).status_code
        == 429
    )


def test_the_low_limits_do_limit_with_a_working_cache(settings, reference_data):
    """The control: with the per-process cache, the second write in the minute is refused."""
    _limit_everything_to_one_a_minute(settings)
    ann, bob = PlayerFactory(), PlayerFactory()
    client = _api_client(RefereeFactory())
    statuses = [client.post("/api/matches/", _slaps_body(ann, bob, n), format="json").status_code for n in (9, 8)]
    assert statuses == [201, 429]
    browser = Client()
    browser.force_login(RefereeFactory())
    form = {"player_a": ann.pk, "player_b": bob.pk, "played_at": "2026-11-01T18:00", "rated": "true", "winner": "a"}
    assert [browser.post("/results/slaps/", form).status_code for _ in range(2)] == [302, 429]
    assert Match.objects.count() == 2


def test_after_an_error_the_cache_is_left_alone_for_the_back_off(settings, caplog):
    """One warning per outage, not per call, and within RETRY_SECONDS no call goes to Redis.

    The "Redis" is a socket that listens and never answers (a hung server):
    the first call connects and times out; the others must not connect at all.
    """
    import socket

    hung = socket.socket()
    hung.bind(("127.0.0.1", 0))
    hung.listen(16)
    try:
        settings.CACHES = {
            "default": {
                "BACKEND": "config.cache.FailOpenRedisCache",
                "LOCATION": f"redis://127.0.0.1:{hung.getsockname()[1]}/0",
                "OPTIONS": {"socket_connect_timeout": 0.3, "socket_timeout": 0.3, "RETRY_SECONDS": 60},
            }
        }
        with caplog.at_level(logging.WARNING, logger="config.cache"):
            results = [cache.get("k", "miss"), cache.add("k", 1), cache.get_many(["k"]), cache.set("k", 1)]
        hung.setblocking(False)
        connections = 0
        while True:
            try:
                hung.accept()[0].close()
            except BlockingIOError:
                break
            connections += 1
    finally:
        hung.close()
    assert results == ["miss", False, {}, None]
    assert connections == 1
    warnings = [record.getMessage() for record in caplog.records if record.name == "config.cache"]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith("Cache unavailable (get: ")
    assert "for the next 60 s" in warnings[0]


def test_one_redis_client_serves_every_call_and_every_thread(production):
    """``ReusingRedisCacheClient`` builds one ``redis.Redis`` per pool (Django's builds one per call). Django
    keeps a cache object per thread, so each thread has its own: eight of them at once each get their own
    answers."""
    import threading

    client = cache._cache
    assert client.get_client(write=False) is client.get_client(write=True) is client.get_client("any-key")
    answers, errors = {}, []

    def work(number: int) -> None:
        try:
            for step in range(50):
                cache.set(f"reuse:{number}", (number, step), 30)
                answers[number] = cache.get(f"reuse:{number}")
        except Exception as error:  # collected and asserted below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(number,)) for number in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert answers == {number: (number, 49) for number in range(8)}


def test_the_write_and_read_services_work_with_the_cache_down(cache_down, caplog, django_capture_on_commit_callbacks):
    """The rule at service level, below HTTP: submit, a batch, correct and void through ``matches.services``
    with the cache down; each is stored and rated, and the cached selectors read every change from the
    database (a cache that kept anything would answer an older rating).

    Seed 000 by hand, everyone at 1000, K = 32, rounded half away from zero:
    1. Ann beats Bob: E = 1/2, Ann 1000 + 32·½ = 1016, Bob 1000 - 16 = 984.
    2. Bob beats Ann: E(Ann) = 1/(1+10^((984-1016)/400)) = 0.54592; Ann 1016 - 32·0.54592 = 998.53 → 999,
       Bob 984 + 32·0.54592 = 1001.47 → 1001.
    3. Corrected so that Ann wins it: Ann 1016 + 32·(1 - 0.54592) = 1030.53 → 1031, Bob 984 - 14.53 = 969.47 → 969.
    4. The first voided: the corrected second alone, at 1000 v 1000: Ann 1016, Bob 984.
    5. A batch of one where Cy beats Bob (984 v 1000): E(Cy) = 1/(1+10^(-16/400)) = 0.52301,
       Cy 1000 + 32·0.47699 = 1015.26 → 1015, Bob 984 - 15.26 = 968.74 → 969.
    """
    from leagues.models import League
    from matches.services import match_correct, match_submit, match_submit_batch, match_void
    from ratings.selectors import leaderboard_page, player_ratings
    from tests.factories import AdminFactory

    ann, bob, cy = PlayerFactory(name="Ann"), PlayerFactory(name="Bob"), PlayerFactory(name="Cy")
    referee, admin = RefereeFactory(), AdminFactory()
    league = League.objects.get(slug="slaps-amateur")

    def ratings() -> dict[str, int]:
        by_selector = {
            rating.player.name: int(rating.rating) for p in (ann, bob, cy) for rating in player_ratings(player=p)
        }
        board = leaderboard_page(league=league, page=1, page_size=10)
        assert {row.name: int(row.rating) for row in board.rows} == by_selector
        return by_selector

    with caplog.at_level(logging.WARNING, logger="config.cache"), django_capture_on_commit_callbacks(execute=True):
        first = match_submit(referee=referee, data=_slaps_body(ann, bob, 20))
    assert ratings() == {"Ann": 1016, "Bob": 984}
    with django_capture_on_commit_callbacks(execute=True):
        second = match_submit(referee=referee, data=_slaps_body(bob, ann, 10))
    assert ratings() == {"Ann": 999, "Bob": 1001}
    corrected = {**_slaps_body(ann, bob, 10), "played_at": second.played_at.isoformat()}
    with django_capture_on_commit_callbacks(execute=True):
        match_correct(match_id=second.pk, by=admin, data=corrected)
    assert ratings() == {"Ann": 1031, "Bob": 969}
    with django_capture_on_commit_callbacks(execute=True):
        match_void(match_id=first.pk, by=admin)
    assert ratings() == {"Ann": 1016, "Bob": 984}
    with django_capture_on_commit_callbacks(execute=True):
        match_submit_batch(referee=referee, items=[_slaps_body(cy, bob, 5)])
    assert ratings() == {"Ann": 1016, "Bob": 969, "Cy": 1015}
    assert sorted(Match.objects.values_list("status", flat=True)) == ["rated", "rated", "void"]
    assert any(record.name == "config.cache" for record in caplog.records), "the cache was really tried, and down"
