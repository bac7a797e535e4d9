"""The results version of each game (``ResultsVersion``): raised by every results write, read by caches."""

from __future__ import annotations

from django.db import connection

from matches.models import ResultsVersion


def results_version_bump(*, game_ids) -> None:
    """Raise the results version of these games (see ``ResultsVersion``); call it last in the write's transaction.

    One upsert per game, which PostgreSQL and SQLite both run; the row lock
    it takes is held until the commit, so it goes after every other write.
    """
    table = connection.ops.quote_name(ResultsVersion._meta.db_table)
    with connection.cursor() as cursor:
        for game_id in sorted(set(game_ids)):  # one order for every writer: no deadlock between two games
            cursor.execute(
                f"INSERT INTO {table} (game_id, version) VALUES (%s, 1) "  # noqa: S608 - the table name is ours
                f"ON CONFLICT (game_id) DO UPDATE SET version = {table}.version + 1",
                [game_id],
            )
