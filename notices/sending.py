"""Sending the notices: each mail is built, its sent record written, and the mail sent, in one transaction.

The order is what makes every task safe to retry and to run twice: the record is inserted first (its
unique constraint is the lock: a second run, or a concurrent one, cannot insert it again and sends
nothing), then the mail is sent; a send that fails raises, the transaction rolls the record back, and the
task's retry sends again. A mail whose send succeeded but whose commit then failed would be sent twice: the
one case left, far rarer than a lost mail. Called by ``notices.tasks`` only, never in a request.

Who gets what is read here too: a person with an address, active, who chose the notice; a referee notice
only to someone who may still confirm results (``config.permissions.user_can_submit``).
"""

from __future__ import annotations

import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext as _

from config.permissions import user_can_submit
from leagues.models import Player
from matches.confirmation import match_workers
from matches.models import Match
from matches.selectors import match_version_id
from notices.digests import digest_context, digest_sections, digests_due
from notices.mail import in_language_of, mail_day, notice_message, site_url
from notices.models import DigestSent, ListNoticeSent, RefereeNoticeSent
from ratings.models import RatingList, RatingListRow

#: List notices sent by one task; a longer list queues the task again for the rest.
LIST_BATCH = 200
#: The most referees told that one result waits for confirmation: a league with hundreds of referees
#: tells the first ones (by id) who chose it, never all of them from one task.
REFEREES_MAX = 50


def _send_once(records: list, message) -> bool:
    """Insert ``records`` and send ``message`` in one transaction; False (nothing sent) when a record exists."""
    with transaction.atomic():
        try:
            with transaction.atomic():
                type(records[0]).objects.bulk_create(records)
        except IntegrityError:
            return False
        message.send(fail_silently=False)
    return True


def digest_send_now(*, user_id: int, day: datetime.date, now: datetime.datetime | None = None) -> bool:
    """Send ``user_id``'s digest of ``day`` if any of its evenings is due and not sent: one mail with a section
    per game due. True when a mail went out."""
    evenings = [evening for evening in digests_due(now=now, user_id=user_id) if evening.day == day]
    if not evenings:
        return False
    user = get_user_model().objects.select_related("language_choice").get(pk=user_id)
    player = Player.objects.get(pk=evenings[0].player_id)
    with in_language_of(user):
        sections = digest_sections(player=player, day=day, game_ids=[evening.game_id for evening in evenings])
        if not sections:
            return False
        games = ", ".join(section.game.name for section in sections)
        subject = _("Your evening of %(day)s: %(games)s") % {"day": mail_day(day), "games": games}
        message = notice_message(
            user=user,
            notice="evening_digest",
            subject=subject,
            template="digest",
            context=digest_context(player=player, day=day, sections=sections),
        )
    records = [DigestSent(user=user, player=player, game=section.game, day=day) for section in sections]
    return _send_once(records, message)


def list_notices_send_now(*, rating_list_id: int, limit: int = LIST_BATCH) -> tuple[int, bool]:
    """Tell each person who chose it their line of the list (up to ``limit`` of them). Returns (mails sent,
    whether people may be left for another run)."""
    rating_list = RatingList.objects.select_related("game").filter(pk=rating_list_id).first()
    if rating_list is None:
        return 0, False
    told = ListNoticeSent.objects.filter(rating_list=rating_list).values("user_id")
    rows = list(
        RatingListRow.objects.filter(
            rating_list=rating_list,
            player__user__is_active=True,
            player__user__notice_choices__new_lists=True,
        )
        .exclude(player__user__email="")
        .exclude(player__user_id__in=told)
        .select_related("player__user__language_choice")
        .order_by("rank", "pk")[:limit]
    )
    day = rating_list.day.isoformat()
    links = {
        "list_url": site_url(reverse("rating-list", args=[rating_list.game.slug, day])),
        "movers_url": site_url(reverse("rating-list-movers", args=[rating_list.game.slug, day])),
    }
    sent = 0
    for row in rows:
        user = row.player.user
        with in_language_of(user):
            subject = _("The %(game)s rating list of %(day)s: you are #%(rank)d") % {
                "game": rating_list.game.name,
                "day": mail_day(rating_list.day),
                "rank": row.rank,
            }
            message = notice_message(
                user=user,
                notice="new_lists",
                subject=subject,
                template="list",
                context={"rating_list": rating_list, "row": row, **links},
            )
        sent += _send_once([ListNoticeSent(user=user, rating_list=rating_list)], message)
    return sent, len(rows) == limit


def _referees_chosen():
    """The people who chose referee notices and may receive them: active, with an address."""
    return (
        get_user_model()
        .objects.filter(is_active=True, notice_choices__referee_notices=True)
        .exclude(email="")
        .select_related("language_choice")
        .order_by("pk")
    )


def _referee_mail(*, user, match: Match, kind: str, version: int) -> bool:
    title = match.game.kind.match_title(match) if match.game.kind is not None else str(match.pk)
    players = ", ".join(seat.occupant.name for seat in match.seats.all())
    with in_language_of(user):
        if kind == RefereeNoticeSent.Kind.DISPUTED:
            subject = _("A result you entered was disputed: %(title)s") % {"title": title}
        else:
            subject = _("A result waits for your confirmation: %(title)s") % {"title": title}
        message = notice_message(
            user=user,
            notice="referee_notices",
            subject=subject,
            template="referee",
            context={
                "match": match,
                "title": title,
                "players": players,
                "disputed": kind == RefereeNoticeSent.Kind.DISPUTED,
                "confirm_url": site_url(reverse("confirmations")),
                "match_url": site_url(match.get_absolute_url()),
            },
        )
    return _send_once([RefereeNoticeSent(user=user, match=match, kind=kind, version=version)], message)


def _match(match_id: int) -> Match | None:
    return (
        Match.objects.select_related("game", "referee")
        .prefetch_related("seats__player", "seats__bot")
        .filter(pk=match_id)
        .first()
    )


def dispute_notice_send_now(*, match_id: int) -> bool:
    """Tell the referee who entered a disputed result (``Match.referee``), if they chose referee notices."""
    match = _match(match_id)
    if match is None or match.disputed_at is None or match.referee_id is None:
        return False
    user = _referees_chosen().filter(pk=match.referee_id).first()
    if user is None:
        return False
    return _referee_mail(
        user=user, match=match, kind=RefereeNoticeSent.Kind.DISPUTED, version=match_version_id(match) or 0
    )


def awaiting_notices_send_now(*, match_id: int) -> int:
    """Tell the referees who may confirm a waiting result (anyone who may submit results, but not its author
    nor its importer: ``matches.confirmation``), who chose referee notices: at most ``REFEREES_MAX``."""
    match = _match(match_id)
    if match is None or not match.awaiting_confirmation or match.disputed_at is not None:
        return 0
    if match.status != Match.Status.SUBMITTED:
        return 0
    submit = Permission.objects.filter(codename="submit_result", content_type__app_label="matches")
    may_submit = Q(is_superuser=True) | Q(user_permissions__in=submit) | Q(groups__permissions__in=submit)
    not_theirs = {pk for pk in match_workers(match) if pk is not None}
    version = match_version_id(match) or 0
    candidates = _referees_chosen().filter(may_submit).exclude(pk__in=not_theirs).distinct()[:REFEREES_MAX]
    return sum(
        _referee_mail(user=user, match=match, kind=RefereeNoticeSent.Kind.AWAITS, version=version)
        for user in candidates
        if user_can_submit(user)
    )
