"""Players' search key (``Player.search_name``, ``leagues.names.name_key``): search in any script, name order.

- The column, filled for every player from their name.
- On PostgreSQL, the column in the "C" collation: names sort by code point as on SQLite (the same order on
  both), and a LIKE prefix reads the btree ``player_search_name_idx``. Django does not know the collation
  (the model's state has none, as SQLite has no "C"): a later migration that alters this column must say
  ``COLLATE "C"`` again.
- On PostgreSQL, a pg_trgm GIN index on the key (``player_search_name_trgm_idx``, no pending list, as
  migration 0011 made the names' one) for a text inside names, where pg_trgm can be created; and without the
  indexes of migration 0009 on ``UPPER(name)``, which no search reads any more.
"""

import logging

from django.db import DatabaseError, migrations, models, transaction

from leagues.names import name_key

log = logging.getLogger(__name__)

BATCH = 2000
COLLATE = 'ALTER TABLE leagues_player ALTER COLUMN search_name TYPE varchar(400) COLLATE "C"'
UNCOLLATE = 'ALTER TABLE leagues_player ALTER COLUMN search_name TYPE varchar(400) COLLATE "default"'
TRIGRAM = (
    "CREATE INDEX IF NOT EXISTS player_search_name_trgm_idx ON leagues_player USING gin "
    "(search_name gin_trgm_ops) WITH (fastupdate = off)"
)
OLD_PREFIX = 'CREATE INDEX IF NOT EXISTS player_name_prefix_idx ON leagues_player ((UPPER(name) COLLATE "C"))'
OLD_TRIGRAM = (
    "CREATE INDEX IF NOT EXISTS player_name_trgm_idx ON leagues_player USING gin ((UPPER(name)) gin_trgm_ops) "
    "WITH (fastupdate = off)"
)


def fill(apps, schema_editor):
    Player = apps.get_model("leagues", "Player")
    players = Player.objects.only("id", "name").order_by("id")
    batch = []
    for player in players.iterator(chunk_size=BATCH):
        player.search_name = name_key(player.name)
        batch.append(player)
        if len(batch) == BATCH:
            Player.objects.bulk_update(batch, ["search_name"])
            batch = []
    if batch:
        Player.objects.bulk_update(batch, ["search_name"])


def collate(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(COLLATE)


def uncollate(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(UNCOLLATE)


def trigram(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("DROP INDEX IF EXISTS player_name_trgm_idx")
    schema_editor.execute("DROP INDEX IF EXISTS player_name_prefix_idx")
    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            schema_editor.execute(TRIGRAM)
    except DatabaseError as error:
        log.warning("No pg_trgm index on players' search keys (%s): searches inside names will read the table.", error)


def untrigram(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("DROP INDEX IF EXISTS player_search_name_trgm_idx")
    schema_editor.execute(OLD_PREFIX)
    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute(OLD_TRIGRAM)
    except DatabaseError as error:
        log.warning("No pg_trgm index on player names (%s).", error)


class Migration(migrations.Migration):
    dependencies = [("leagues", "0018_translatable_labels")]

    operations = [
        migrations.AddField(
            model_name="player",
            name="search_name",
            field=models.CharField(default="", editable=False, max_length=400, verbose_name="search name"),
        ),
        migrations.RunPython(collate, uncollate, elidable=False),
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=False),
        migrations.AlterModelOptions(
            name="player",
            options={"ordering": ["search_name", "id"], "verbose_name": "player", "verbose_name_plural": "players"},
        ),
        migrations.AddIndex(
            model_name="player",
            index=models.Index(fields=["search_name", "id"], name="player_search_name_idx"),
        ),
        migrations.RunPython(trigram, untrigram, elidable=False),
    ]
