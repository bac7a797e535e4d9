"""Writing a person's notice choices and address, one-click unsubscribing, and forgetting an erased person.

Each write validates here, and only here (the choices page, the unsubscribe page and the erasure receiver
call these): bad input is a ``ValidationError`` by field and changes nothing; doing the same thing twice
stores it once.

An *unsubscribe token* names a person (their user id) and one notice (``NOTICES``), signed with
``django.core.signing`` under its own salt, so a token made for anything else on the site is refused here,
and one made here is refused elsewhere. It does not expire: a link in last year's mail still unsubscribes.
"""

from __future__ import annotations

import unicodedata

from django.contrib.auth import get_user_model
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from notices.models import DigestSent, ListNoticeSent, NoticeChoices, RefereeNoticeSent

#: The choices a person has, by their field's name; an unsubscribe token names one of them.
NOTICES = ("evening_digest", "new_lists", "referee_notices")
TOKEN_SALT = "notices.unsubscribe"  # noqa: S105 - a salt that names the purpose, not a secret
#: The longest address stored (``AbstractUser.email``'s column).
EMAIL_MAX = 254


def _person(user):
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        raise ValidationError({"user": [_("Sign in to choose your notices.")]})
    return user


def notice_choices_set(*, user, evening_digest: bool, new_lists: bool, referee_notices: bool) -> NoticeChoices:
    """Store ``user``'s three choices (each a bool; anything else is refused by field). Turning the evening
    digest on starts it from now: earlier evenings are not sent."""
    _person(user)
    values = {"evening_digest": evening_digest, "new_lists": new_lists, "referee_notices": referee_notices}
    errors = {name: [_("Choose yes or no.")] for name, value in values.items() if not isinstance(value, bool)}
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        choices, _created = NoticeChoices.objects.select_for_update().get_or_create(user=user)
        if evening_digest and not choices.evening_digest:
            choices.evening_digest_since = timezone.now()
        if all(getattr(choices, name) == value for name, value in values.items()) and not _created:
            return choices  # nothing changed: nothing written
        for name, value in values.items():
            setattr(choices, name, value)
        choices.save()
    return choices


def notice_choices_of(user) -> NoticeChoices:
    """``user``'s choices, unsaved and all off when they never chose."""
    return NoticeChoices.objects.filter(user=user).first() or NoticeChoices(user=user)


def notice_email_set(*, user, email) -> str:
    """Change ``user``'s address (where their notices go): trimmed, its domain lower-cased, checked by
    Django's email validator, at most ``EMAIL_MAX`` characters; empty removes it (then nothing is sent).
    Returns the address stored."""
    _person(user)
    if not isinstance(email, str):
        raise ValidationError({"email": [_("Enter an email address.")]})
    email = unicodedata.normalize("NFC", email).strip()
    if len(email) > EMAIL_MAX:
        raise ValidationError({"email": [_("At most %(most)d characters.") % {"most": EMAIL_MAX}]})
    if email:
        try:
            validate_email(email)  # refuses line breaks too: no header can be smuggled into a mail
        except ValidationError:
            raise ValidationError({"email": [_("Enter a valid email address.")]}) from None
        local, _at, domain = email.rpartition("@")
        email = f"{local}@{domain.lower()}"
    if email != user.email:
        get_user_model().objects.filter(pk=user.pk).update(email=email)
        user.email = email
    return email


def unsubscribe_token(*, user_id: int, notice: str) -> str:
    """The signed token of the one-click unsubscribe link from ``notice`` for the user ``user_id``."""
    if notice not in NOTICES:
        raise ValueError(f"No notice {notice!r}.")
    return signing.dumps({"u": user_id, "n": notice}, salt=TOKEN_SALT)


def unsubscribe_read(token) -> tuple[int, str]:
    """The (user id, notice) a token names; ``ValidationError`` on ``token`` for a bad or tampered one."""
    refused = ValidationError({"token": [_("This unsubscribe link is not valid: it may have been cut short.")]})
    if not isinstance(token, str) or len(token) > 500:
        raise refused
    try:
        data = signing.loads(token, salt=TOKEN_SALT)
    except signing.BadSignature:
        raise refused from None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int) or data.get("n") not in NOTICES:
        raise refused
    return data["u"], data["n"]


def notice_unsubscribe(*, token) -> tuple[int, str]:
    """Turn off the notice a valid token names, for the person it names (a person who no longer exists, or
    has it off already: nothing to do). Returns what the token named."""
    user_id, notice = unsubscribe_read(token)
    NoticeChoices.objects.filter(user_id=user_id, **{notice: True}).update(**{notice: False}, updated_at=timezone.now())
    return user_id, notice


def notice_person_forget(*, user_id: int) -> None:
    """Erasure (``ratings.people.player_erased``): the person's choices and every sent record go, and their
    address is blanked. Inside the erasure's transaction, so both happen or neither."""
    NoticeChoices.objects.filter(user_id=user_id).delete()
    for model in (DigestSent, ListNoticeSent, RefereeNoticeSent):
        model.objects.filter(user_id=user_id).delete()
    get_user_model().objects.filter(pk=user_id).update(email="")
