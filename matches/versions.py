"""The results version of each game (``ResultsVersion``): raised by every results write, read by caches."""

from __future__ import annotations

from django.db import connection

from config.stamps import Stamp
from matches.models import ResultsVersion

#: The cache key of a stamp that every results write renews, once, before it commits (not again at the commit,
#: unlike ``Stamp.changed``: see ``results_version_bump``): what is kept under it (the menu's count of results
#: to confirm, ``matches.selectors.matches_to_confirm_count``) is at most ``TO_CONFIRM_COUNT_SECONDS`` older
#: than the last write, and older only if it was read in the instant before that write committed.
RESULTS_STAMP_KEY = "matches:results-stamp"
RESULTS_STAMP = Stamp(RESULTS_STAMP_KEY)


def results_version_bump(*, game_ids) -> None:
    """Raise the results version of these games (see ``ResultsVersion``); call it last in the write's transaction.

    One upsert per game, which PostgreSQL and SQLite both run; the row lock
    it takes is held until the commit, so it goes after every other write.
    The results stamp is renewed with it. A count read in the instant
    between this and the commit would miss the write and be kept under the
    new stamp: the menu's count has a short timeout for that
    (``TO_CONFIRM_COUNT_SECONDS``), and the stamp is not renewed again after
    the commit, which would queue a callback on every write.
    """
    RESULTS_STAMP.renew()
    table = connection.ops.quote_name(ResultsVersion._meta.db_table)
    with connection.cursor() as cursor:
        for game_id in sorted(set(game_ids)):  # one order for every writer: no deadlock between two games
            cursor.execute(
                f"INSERT INTO {table} (game_id, version) VALUES (%s, 1) "  # noqa: S608 - the table name is ours
                f"ON CONFLICT (game_id) DO UPDATE SET version = {table}.version + 1",
                [game_id],
            )
