"""Hand records analysed: each board's double-dummy table and par, computed after its session is stored.

Solving a deal takes a fraction of a second of CPU (``games.bridge.deals``): an evening of 30 boards is
seconds, too much for a request. A session stored with deals (an import, the entry page, the API) queues
``games.tasks.bridge_hand_records`` once it is committed; the task fills ``Board.double_dummy`` and
``Board.par`` for the session's boards that have a deal and no analysis yet, and pages show "being
analysed" until then. A task delivered twice finds nothing left to do; a deal the solver cannot take
(it never should: the cleaner checked it) is logged and left unanalysed.
"""

from __future__ import annotations

import logging

from celery import current_app
from django.db import transaction

from games.bridge.deals import DealError, analyse
from games.bridge.models import Board

logger = logging.getLogger(__name__)

TASK = "games.tasks.bridge_hand_records"


def hand_records_queue(match_id: int) -> None:
    """Queue the analysis of the session's deals once the transaction storing them commits (never, if it
    rolls back: a dry run). A queue out of reach is logged: the deals stay, unanalysed, and
    ``hand_records_analyse`` can be run again at any time."""

    def queue() -> None:
        try:
            current_app.tasks[TASK].delay(match_id)
        except Exception:
            logger.exception("Session %s: the analysis of its hand records could not be queued.", match_id)

    transaction.on_commit(queue)


def hand_records_analyse(match_id: int) -> int:
    """Fill the double-dummy table and par of each board of the session with a deal and none yet; how many."""
    boards = list(
        Board.objects.filter(match_id=match_id, double_dummy__isnull=True)
        .exclude(deal="")
        .only("pk", "deal", "dealer", "vulnerability")
        .order_by("position")
    )
    if not boards:
        return 0
    try:
        records = analyse([(board.deal, board.dealer, board.vulnerability) for board in boards])
    except DealError:
        logger.exception("Session %s: its hand records could not be analysed.", match_id)
        return 0
    for board, record in zip(boards, records, strict=True):
        board.double_dummy, board.par = record["double_dummy"], record["par"]
    # Only boards still unanalysed: a second delivery racing this one writes the same values anyway.
    Board.objects.bulk_update(boards, ["double_dummy", "par"])
    return len(boards)
