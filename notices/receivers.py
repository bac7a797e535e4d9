"""What the notices hear from the apps below (connected in ``NoticesConfig.ready``).

The results' and lists' signals come after their commit; each receiver only queues a task (on commit, in
case a caller sends one inside a transaction), so no mail is built or sent in a request. The erasure's
signal comes inside the erasure's transaction: the person's choices, sent records and address go with it.
"""

from __future__ import annotations

from django.db import transaction


def on_rating_list_published(sender, rating_list_id, **kwargs) -> None:
    from notices.tasks import list_notices_send

    transaction.on_commit(lambda: list_notices_send.delay(rating_list_id))


def on_result_disputed(sender, match_id, **kwargs) -> None:
    from notices.tasks import dispute_notice_send

    transaction.on_commit(lambda: dispute_notice_send.delay(match_id))


def on_result_awaits_confirmation(sender, match_id, **kwargs) -> None:
    from notices.tasks import awaiting_notices_send

    transaction.on_commit(lambda: awaiting_notices_send.delay(match_id))


def on_player_erased(sender, user_id=None, **kwargs) -> None:
    from notices.services import notice_person_forget

    if user_id is not None:
        notice_person_forget(user_id=user_id)
