"""Evening digests at a real SMTP server (issue 27): one mail per person and evening, whatever runs twice;
its results, rating changes (worked by hand, seed 000) and standing; the bridge scorecard and hand records;
one-click unsubscribe by the header's URL; retries when the server fails; nothing for people who did not
choose it."""

import datetime
import re
from datetime import timedelta

import pytest
from celery.exceptions import Retry
from django.test import Client
from django.utils import timezone

from leagues.models import Game, Player
from notices.digests import digests_due
from notices.models import DigestSent, NoticeChoices
from notices.services import notice_choices_set
from notices.tasks import digest_send, digests_send_due
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, UserFactory, slaps_match
from tests.notices.conftest import html_of, text_of

pytestmark = pytest.mark.django_db
MINUS = "\u2212"


def local_day_at(days_ago: int, hour: int, minute: int = 0) -> datetime.datetime:
    """A time ``days_ago`` days before today, at ``hour:minute`` in the site's time zone: always in the past."""
    zone = timezone.get_default_timezone()
    day = timezone.localtime(timezone.now(), zone).date() - timedelta(days=days_ago)
    return datetime.datetime.combine(day, datetime.time(hour, minute), tzinfo=zone)


def person(name: str, email: str = "") -> Player:
    user = UserFactory(username=name.lower(), email=email or f"{name.lower()}@example.org")
    return PlayerFactory(name=name, user=user)


def opt_in(player: Player, **choices) -> None:
    """The person chooses (by the service), their digest on since well before the evenings of the tests."""
    values = {"evening_digest": False, "new_lists": False, "referee_notices": False, **choices}
    notice_choices_set(user=player.user, **values)
    NoticeChoices.objects.filter(user=player.user).update(evening_digest_since=timezone.now() - timedelta(days=5))


@pytest.fixture
def ann(reference_data):
    return person("Ann")


@pytest.fixture
def bob(reference_data):
    return PlayerFactory(name="Bob")


def evening(ann, bob, days_ago=1):
    """Ann beats Bob at 19:00, then Bob beats Ann at 19:30, both rated."""
    slaps_match(winner=ann, loser=bob, played_at=local_day_at(days_ago, 19))
    slaps_match(winner=bob, loser=ann, played_at=local_day_at(days_ago, 19, 30))
    ratings_process_game(game_id=Game.objects.get(slug="slaps").pk)


def test_an_evening_of_two_results_is_one_mail_sent_once(smtp, ann, bob):
    opt_in(ann, evening_digest=True)
    evening(ann, bob)
    digests_send_due.delay()
    digests_send_due.delay()  # the sweep twice (a retry, a second beat): still one mail
    (mail,) = smtp.inbox.messages
    assert mail["To"] == "ann@example.org"
    assert DigestSent.objects.count() == 1
    text = text_of(mail)
    # By hand (seed 000, K = 32, rounded to whole numbers): 1000 v 1000, E = 0.5: Ann +16 to 1016, Bob 984.
    # Then Bob (984) beats Ann (1016): E(Ann) = 1 / (1 + 10^(-32/400)) = 0.5459, 32 x (0 - 0.5459) = -17.47,
    # 1016 - 17.47 = 998.53, rounded 999 (-17); Bob 1001. Her evening: 1000 -> 999, -1.
    assert "1000 -> 1016 (+16)" in text
    assert f"1016 -> 999 ({MINUS}17)" in text
    assert f"Slaps: 1000 -> 999 ({MINUS}1)" in text
    assert "K = 32" in text  # the why, as the profile says it
    assert "expected 50% against 1000" in text
    assert "expected 55% against 984" in text
    assert "against Bob" in text
    # The standing: Bob 1001 is first, Ann 999 second, and the players around her.
    assert "You are #2 in Slaps Amateur, rated 999." in text
    assert "#1 Bob 1001" in text
    assert "https://ranks.example.org/leagues/slaps-amateur/" in text
    html = html_of(mail)
    assert f"<strong>{MINUS}17</strong>" in html
    assert 'href="https://ranks.example.org/players/' in html  # every site link absolute
    assert 'href="/' not in html


def test_every_mail_carries_the_one_click_unsubscribe_and_the_choices_link(smtp, ann, bob):
    opt_in(ann, evening_digest=True)
    evening(ann, bob)
    digests_send_due.delay()
    (mail,) = smtp.inbox.messages
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = re.fullmatch(r"<(https://ranks\.example\.org/notices/unsubscribe/[^>]+/)>", mail["List-Unsubscribe"].strip())[
        1
    ]
    assert url in text_of(mail)
    assert url in html_of(mail)
    assert "https://ranks.example.org/me/notices/" in text_of(mail)


def test_the_one_click_post_to_the_headers_url_stops_the_next_digest(smtp, ann, bob):
    opt_in(ann, evening_digest=True, new_lists=True)
    evening(ann, bob, days_ago=2)
    digests_send_due.delay()
    (mail,) = smtp.inbox.messages
    path = mail["List-Unsubscribe"].strip().strip("<>").removeprefix("https://ranks.example.org")
    client = Client(enforce_csrf_checks=True)  # a mail reader: no session, no CSRF token
    answer = client.post(path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 200
    choices = NoticeChoices.objects.get(user=ann.user)
    assert (choices.evening_digest, choices.new_lists) == (False, True)  # that notice only
    evening(ann, bob, days_ago=1)
    digests_send_due.delay()
    assert len(smtp.inbox.messages) == 1


def test_people_who_did_not_choose_the_digest_get_nothing(smtp, ann, bob):
    cid = person("Cid")
    opt_in(cid, new_lists=True, referee_notices=True)  # other notices only
    evening(ann, cid)  # Ann is claimed but never chose anything
    digests_send_due.delay()
    assert smtp.inbox.messages == []
    assert not DigestSent.objects.exists()


def test_a_failing_server_is_retried_and_a_failed_send_marks_nothing(smtp, ann, bob):
    """The send task retries on SMTP and socket errors (eagerly, a retry is raised as ``Retry``: a worker
    would run it again after the back-off); a failed send leaves no sent record, so the retry sends."""
    assert digest_send.max_retries >= 3
    assert OSError in digest_send.autoretry_for
    opt_in(ann, evening_digest=True)
    evening(ann, bob)
    day = local_day_at(1, 19).date().isoformat()
    smtp.stop()
    with pytest.raises(Retry):
        digest_send.delay(ann.user_id, day)
    assert not DigestSent.objects.exists()  # a failed send does not mark the evening sent
    smtp.start()
    smtp.inbox.refuse = 1  # a busy server: 451 once
    with pytest.raises(Retry):
        digest_send.delay(ann.user_id, day)
    assert (smtp.inbox.refused, smtp.inbox.messages, DigestSent.objects.count()) == (1, [], 0)
    digest_send.delay(ann.user_id, day)  # the retry goes through
    assert len(smtp.inbox.messages) == 1
    assert DigestSent.objects.count() == 1
    digest_send.delay(ann.user_id, day)  # delivered twice by the broker: still one mail
    digests_send_due.delay()
    assert len(smtp.inbox.messages) == 1


def test_an_evening_is_due_when_the_club_has_gone_home_and_nothing_waits(reference_data, ann, bob, settings):
    settings.CARDRANK_DIGEST_QUIET_MINUTES = 120
    opt_in(ann, evening_digest=True)
    zone = timezone.get_default_timezone()
    nine = datetime.datetime(2026, 11, 10, 21, tzinfo=zone)
    NoticeChoices.objects.filter(user=ann.user).update(evening_digest_since=nine - timedelta(days=3))
    slaps_match(winner=ann, loser=bob, played_at=nine)
    ratings_process_game(game_id=Game.objects.get(slug="slaps").pk)
    slaps = Game.objects.get(slug="slaps")
    assert digests_due(now=nine + timedelta(minutes=119)) == []  # still playing, perhaps
    (due,) = digests_due(now=nine + timedelta(minutes=120))
    assert (due.user_id, due.player_id, due.game_id, due.day) == (ann.user_id, ann.pk, slaps.pk, nine.date())
    # A later result of the evening still waiting to be rated holds the digest back, even after midnight.
    slaps_match(winner=bob, loser=ann, played_at=nine + timedelta(minutes=30))
    assert digests_due(now=nine + timedelta(hours=4)) == []
    ratings_process_game(game_id=slaps.pk)
    assert len(digests_due(now=nine + timedelta(hours=4))) == 1
    # Evenings before the day the person turned the digest on are not sent.
    NoticeChoices.objects.filter(user=ann.user).update(evening_digest_since=nine + timedelta(days=1))
    assert digests_due(now=nine + timedelta(days=1, hours=4)) == []


def test_a_bridge_digest_carries_the_scorecard_and_the_hand_records(
    smtp, referee_client, django_capture_on_commit_callbacks
):
    ann = person("Ann")
    others = PlayerFactory.create_batch(7)
    ids = [ann.pk, *[player.pk for player in others]]
    opt_in(ann, evening_digest=True)
    # Each hand one whole suit: North clubs, East spades, South hearts, West diamonds.
    deal = "N:...AKQJT98765432 AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432."
    body = {
        "game": "bridge",
        "played_at": local_day_at(1, 19).isoformat(),
        "boards": [
            {
                "number": 1,
                "deal": deal,
                "tables": [
                    {"ns": ids[0:2], "ew": ids[2:4], "ns_pair": "1", "ew_pair": "2", "contract": "4S",
                     "declarer": "N", "tricks": 10},
                    {"ns": ids[4:6], "ew": ids[6:8], "ns_pair": "3", "ew_pair": "4", "ns_score": -50},
                ],
            }
        ],
    }  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        answer = referee_client.post("/api/matches/", body, format="json")
    assert answer.status_code == 201, answer.json()
    digests_send_due.delay()
    (mail,) = smtp.inbox.messages
    text, html = text_of(mail), html_of(mail)
    assert "Your scorecard, board by board" in text
    # Board 1, NS, against pair 2, 4S by North making 10 tricks: +420 (nobody vulnerable).
    assert re.search(r"1: NS, Player \d+ & Player \d+, 4♠", text)
    assert "+420" in text
    assert "Hand records" in text
    assert "North: ♠ — " in text
    assert "♣ AKQJ1098765432" in text
    assert "Board 1" in html
    assert "AKQJ1098765432" in html
    assert "+1510" in text  # the par, as analysed once the session was stored
    assert 'href="https://ranks.example.org/matches/' in html
