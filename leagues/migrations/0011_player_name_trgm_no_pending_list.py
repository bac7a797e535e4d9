"""The player names' trigram index without a pending list: every search reads an index that is whole.

A GIN index with ``fastupdate`` (PostgreSQL's default) puts new entries in a pending list that every
scan reads in full until a vacuum merges it: after 100,000 players were added in bulk, a search inside
names cost four times as long (``docs/performance.md``). Players are added one at a time at a table, or
in thousands by an import, and searched at every keystroke, so the index takes each name as it comes.
Merging what is pending now (``gin_clean_pending_list``) makes the change whole at once.
"""

from django.db import migrations


def no_pending_list(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('player_name_trgm_idx') IS NOT NULL")
        if not cursor.fetchone()[0]:
            return  # no pg_trgm where 0009 ran: nothing to change
        cursor.execute("ALTER INDEX player_name_trgm_idx SET (fastupdate = off)")
        cursor.execute("SELECT gin_clean_pending_list('player_name_trgm_idx')")


def pending_list(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER INDEX IF EXISTS player_name_trgm_idx RESET (fastupdate)")


class Migration(migrations.Migration):
    dependencies = [("leagues", "0010_player_erased_at")]

    operations = [migrations.RunPython(no_pending_list, pending_list, elidable=False)]
