"""Indexes for the player search (``games.pickers``): fast at 100,000 players on PostgreSQL.

- ``player_name_prefix_idx``, ``UPPER(name) COLLATE "C"``: a name's case-insensitive prefix is a
  range of this btree in any database locale (byte order), and the search reads its first 15 names
  in that order without sorting the rest.
- ``player_name_trgm_idx``, a pg_trgm GIN index on ``UPPER(name)``: a search of three characters or
  more also finds them inside names (``UPPER(name) LIKE '%ANN%'``) without reading every player.
  pg_trgm is a trusted extension (PostgreSQL 13+): a database owner may create it. Where it cannot
  be created the migration goes on without it, and such a search reads the table (slower, still right).

Only PostgreSQL gets them (SQLite, used by ``make run``, has neither the collation nor pg_trgm), so they
are raw SQL here, not ``Meta.indexes``: the model's state does not change.
"""

import logging

from django.db import DatabaseError, migrations, transaction

log = logging.getLogger(__name__)

PREFIX = 'CREATE INDEX IF NOT EXISTS player_name_prefix_idx ON leagues_player ((UPPER(name) COLLATE "C"))'
TRIGRAM = "CREATE INDEX IF NOT EXISTS player_name_trgm_idx ON leagues_player USING gin ((UPPER(name)) gin_trgm_ops)"


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(PREFIX)
    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            schema_editor.execute(TRIGRAM)
    except DatabaseError as error:
        log.warning("No pg_trgm index on player names (%s): searches inside names will read the table.", error)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("DROP INDEX IF EXISTS player_name_trgm_idx")
    schema_editor.execute("DROP INDEX IF EXISTS player_name_prefix_idx")


class Migration(migrations.Migration):
    dependencies = [("leagues", "0008_player_federation_id")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
