"""List notices and referees' notices at a real SMTP server, the services' refusals of hostile input, the
pages (choices, unsubscribe), an address shown to nobody else, and erasure forgetting the person (issue 27)."""

import datetime
from datetime import UTC, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import timezone

from leagues.models import Game, League
from notices.models import DigestSent, ListNoticeSent, NoticeChoices, RefereeNoticeSent
from notices.services import notice_choices_set, notice_email_set, unsubscribe_token
from ratings.lists import rating_list_publish
from ratings.people import player_erase
from ratings.services import ratings_process_game
from tests.conftest import api_for
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory, UserFactory, slaps_match
from tests.notices.conftest import text_of

pytestmark = pytest.mark.django_db
MINUS = "\u2212"
NOTE = "Bob won this one: the sheet says so."


def choose(user, **choices):
    notice_choices_set(user=user, **{"evening_digest": False, "new_lists": False, "referee_notices": False, **choices})


def claimed(name, **choices):
    user = UserFactory(username=name.lower(), email=f"{name.lower()}@example.org")
    player = PlayerFactory(name=name, user=user)
    if choices:
        choose(user, **choices)
    return player


# --- a new list ------------------------------------------------------------------------------------------


def test_a_new_list_tells_each_person_who_chose_it_their_line(smtp, reference_data, django_capture_on_commit_callbacks):
    ann, bob, cid = claimed("Ann", new_lists=True), claimed("Bob"), PlayerFactory(name="Cid")
    slaps = Game.objects.get(slug="slaps")
    played = datetime.datetime(2026, 11, 10, 19, tzinfo=UTC)
    slaps_match(winner=ann, loser=bob, played_at=played)
    slaps_match(winner=cid, loser=ann, played_at=played + timedelta(hours=1))
    ratings_process_game(game_id=slaps.pk)
    with django_capture_on_commit_callbacks(execute=True):
        rating_list_publish(
            game=slaps, day=datetime.date(2026, 11, 30), now=datetime.datetime(2026, 12, 1, 6, tzinfo=UTC)
        )
    # By hand (seed 000): Ann 1000 beats Bob 1000: 1016. Cid 1000 beats Ann 1016: E(Ann) = 1/(1 + 10^(-16/400))
    # = 0.5230, 32 x -0.5230 = -16.74, 999.26 -> 999. The list: Cid 1017 (1000 + 32 x 0.5230 = 1016.74), Ann
    # 999 second, Bob 984. Bob chose nothing: one mail, Ann's.
    (mail,) = smtp.inbox.messages
    assert mail["To"] == "ann@example.org"
    assert mail["Subject"] == "The Slaps rating list of 2026-11-30: you are #2"
    text = text_of(mail)
    assert "Ann: #2, rated 999 (new on the list)." in text
    assert "https://ranks.example.org/games/slaps/lists/2026-11-30/" in text
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # The task again (a retry, a second delivery): nothing more.
    from notices.tasks import list_notices_send

    list_notices_send.delay(ListNoticeSent.objects.get().rating_list_id)
    assert len(smtp.inbox.messages) == 1


# --- referees ----------------------------------------------------------------------------------------------


@pytest.fixture
def two_step(reference_data):
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)


def slaps_body(winner, loser):
    played = (timezone.now() - timedelta(days=1)).replace(microsecond=0)
    return {"game": "slaps", "played_at": played.isoformat(), "players": [winner.pk, loser.pk], "winner": winner.pk}


def test_a_waiting_result_tells_the_referees_who_may_confirm_it_and_a_dispute_its_author(
    smtp, two_step, django_capture_on_commit_callbacks
):
    first = RefereeFactory(username="first", email="first@example.org")
    second = RefereeFactory(username="second", email="second@example.org")
    quiet = RefereeFactory(username="quiet", email="quiet@example.org")  # a referee who chose nothing
    fan = UserFactory(username="fan", email="fan@example.org")  # not a referee: may not confirm
    for user in (first, second, fan):
        choose(user, referee_notices=True)
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    with django_capture_on_commit_callbacks(execute=True):
        match_id = api_for(first).post("/api/matches/", slaps_body(ann, bob), format="json").json()["id"]
    # Only the second referee: not its author, not one who chose nothing, not someone who may not confirm.
    (waits,) = smtp.inbox.messages
    assert waits["To"] == "second@example.org"
    assert waits["Subject"] == f"A result waits for your confirmation: Slaps match #{match_id}"
    assert "https://ranks.example.org/results/confirm/" in text_of(waits)
    assert quiet.email not in [message["To"] for message in smtp.inbox.messages]

    with django_capture_on_commit_callbacks(execute=True):
        answer = api_for(second).post(f"/api/matches/{match_id}/dispute/", {"note": NOTE}, format="json")
    assert answer.status_code == 200
    disputed = smtp.inbox.messages[1]
    assert disputed["To"] == "first@example.org"
    assert disputed["Subject"] == f"A result you entered was disputed: Slaps match #{match_id}"
    assert NOTE in text_of(disputed)
    assert "https://ranks.example.org/results/confirm/" in text_of(disputed)
    assert len(smtp.inbox.messages) == 2
    # The tasks again: each notice was sent once for this version of the result.
    from notices.tasks import awaiting_notices_send, dispute_notice_send

    dispute_notice_send.delay(match_id)
    awaiting_notices_send.delay(match_id)
    assert len(smtp.inbox.messages) == 2
    assert RefereeNoticeSent.objects.count() == 2


# --- services: hostile input refused, nothing changed ---------------------------------------------------


@pytest.mark.parametrize(
    "choices",
    [
        {"evening_digest": "yes"},
        {"new_lists": 1},
        {"referee_notices": None},
        {"evening_digest": "on", "new_lists": "true"},
    ],
)
def test_choices_that_are_not_yes_or_no_are_refused_by_field(reference_data, choices):
    user = UserFactory()
    values = {"evening_digest": True, "new_lists": False, "referee_notices": False, **choices}
    with pytest.raises(ValidationError) as refused:
        notice_choices_set(user=user, **values)
    assert set(refused.value.message_dict) == {name for name, value in values.items() if not isinstance(value, bool)}
    assert not NoticeChoices.objects.exists()


def test_choosing_the_same_twice_stores_one_row(reference_data):
    user = UserFactory()
    choose(user, new_lists=True)
    choose(user, new_lists=True)
    assert NoticeChoices.objects.filter(user=user, new_lists=True).count() == 1


def test_a_signed_out_person_cannot_choose(reference_data):
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(ValidationError) as refused:
        notice_choices_set(user=AnonymousUser(), evening_digest=True, new_lists=False, referee_notices=False)
    assert "user" in refused.value.message_dict


@pytest.mark.parametrize(
    "email",
    [
        "not-an-address",
        "ann@example.org\nBcc: everyone@example.org",
        "ann@example.org\r\nSubject: hi",
        "a" * 250 + "@example.org",
        "ann@@example.org",
        "<ann@example.org>",
        42,
        None,
    ],
)
def test_a_bad_address_is_refused_and_the_old_one_kept(reference_data, email):
    user = UserFactory(email="ann@example.org")
    with pytest.raises(ValidationError) as refused:
        notice_email_set(user=user, email=email)
    assert list(refused.value.message_dict) == ["email"]
    assert get_user_model().objects.get(pk=user.pk).email == "ann@example.org"


def test_an_address_is_trimmed_and_its_domain_lower_cased(reference_data):
    user = UserFactory(email="")
    assert notice_email_set(user=user, email="  Ann.Smith@Example.ORG ") == "Ann.Smith@example.org"
    assert get_user_model().objects.get(pk=user.pk).email == "Ann.Smith@example.org"


# --- pages ------------------------------------------------------------------------------------------------


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_choices_page_needs_a_sign_in_and_saves_the_three_choices(reference_data):
    assert Client().get("/me/notices/").status_code == 302
    user = UserFactory(email="ann@example.org")
    client = signed_in(user)
    page = client.get("/me/notices/")
    assert page.status_code == 200
    assert "ann@example.org" in page.content.decode()
    answer = client.post("/me/notices/", {"action": "choices", "evening_digest": "on", "referee_notices": "on"})
    assert answer.status_code == 200
    choices = NoticeChoices.objects.get(user=user)
    assert (choices.evening_digest, choices.new_lists, choices.referee_notices) == (True, False, True)
    answer = client.post("/me/notices/", {"action": "email", "email": "bad\naddress@example.org"})
    assert answer.status_code == 400
    assert "Enter a valid email address." in answer.content.decode()
    assert get_user_model().objects.get(pk=user.pk).email == "ann@example.org"
    answer = client.post("/me/notices/", {"action": "email", "email": "ann@new.example.org"})
    assert answer.status_code == 200
    assert get_user_model().objects.get(pk=user.pk).email == "ann@new.example.org"


def test_the_unsubscribe_get_shows_a_button_and_changes_nothing(reference_data):
    user = UserFactory()
    choose(user, evening_digest=True)
    token = unsubscribe_token(user_id=user.pk, notice="evening_digest")
    page = Client().get(f"/notices/unsubscribe/{token}/")
    assert page.status_code == 200
    assert "Unsubscribe</button>" in page.content.decode()
    assert NoticeChoices.objects.get(user=user).evening_digest is True
    assert Client(enforce_csrf_checks=True).post(f"/notices/unsubscribe/{token}/").status_code == 200  # the button
    assert NoticeChoices.objects.get(user=user).evening_digest is False
    assert Client().post(f"/notices/unsubscribe/{token}/").status_code == 200  # twice: still off, still fine


@pytest.mark.parametrize(
    "tamper",
    [
        lambda token: token[:-2] + ("AA" if not token.endswith("AA") else "BB"),  # the signature changed
        lambda token: signing.dumps({"u": 1, "n": "new_lists"}, salt="another.purpose"),  # another salt
        lambda token: signing.dumps({"u": "1", "n": "evening_digest"}, salt="notices.unsubscribe"),  # not an id
        lambda token: signing.dumps({"u": 1, "n": "is_superuser"}, salt="notices.unsubscribe"),  # no such notice
        lambda token: "x" * 600,
    ],
)
def test_a_bad_or_tampered_token_is_a_400_that_changes_nothing(reference_data, tamper):
    user = UserFactory()
    choose(user, evening_digest=True, new_lists=True)
    token = tamper(unsubscribe_token(user_id=user.pk, notice="evening_digest"))
    for method in ("get", "post"):
        answer = getattr(Client(), method)(f"/notices/unsubscribe/{token}/")
        assert answer.status_code == 400
        assert "This unsubscribe link is not valid" in answer.content.decode()
    choices = NoticeChoices.objects.get(user=user)
    assert (choices.evening_digest, choices.new_lists) == (True, True)


def test_an_address_is_shown_to_nobody_else(reference_data, slaps):
    ann = claimed("Ann", evening_digest=True)
    other = UserFactory(username="other", email="other@example.org")
    slaps_match(winner=ann, loser=PlayerFactory(name="Bob"))
    ratings_process_game(game_id=slaps.pk)
    for client in (Client(), signed_in(other), signed_in(AdminFactory(email="boss@example.org"))):
        for path in (
            f"/players/{ann.pk}/",
            f"/api/players/{ann.pk}/",
            "/leagues/slaps-amateur/",
            "/api/leagues/slaps-amateur/leaderboard/",
            f"/players/{ann.pk}/feed.atom",
            "/me/notices/",
        ):
            answer = client.get(path)
            assert "ann@example.org" not in answer.content.decode(), path


# --- erasure ----------------------------------------------------------------------------------------------


def test_erasing_a_person_removes_their_address_choices_and_sent_records(reference_data, slaps):
    ann = claimed("Ann", evening_digest=True, new_lists=True)
    DigestSent.objects.create(user=ann.user, player=ann, game=slaps, day=datetime.date(2026, 11, 10))
    keep = claimed("Kim", evening_digest=True)
    player_erase(player=ann, by=AdminFactory())
    user = get_user_model().objects.get(pk=ann.user_id)
    assert user.email == ""
    assert not NoticeChoices.objects.filter(user=user).exists()
    assert not DigestSent.objects.filter(user=user).exists()
    assert NoticeChoices.objects.filter(user=keep.user, evening_digest=True).exists()  # nobody else's
    assert get_user_model().objects.get(pk=keep.user_id).email == "kim@example.org"


def test_the_profile_of_ones_own_player_links_the_choices_and_no_one_elses_does(reference_data):
    ann = claimed("Ann")
    link = 'href="/me/notices/"'
    assert link in signed_in(ann.user).get(f"/players/{ann.pk}/").content.decode()
    assert link not in Client().get(f"/players/{ann.pk}/").content.decode()
    assert link not in signed_in(UserFactory(username="other")).get(f"/players/{ann.pk}/").content.decode()
    # The profile's cached parts do not carry it to the next viewer.
    assert link not in Client().get(f"/players/{ann.pk}/").content.decode()
