"""Seasons' table lines get the search key of their name (``SeasonStanding.search_name``, as players have
theirs, migration 0019): a season's table is searched and its shared ranks ordered by it. Filled for every
line; a closed season's frozen lines allow it (migration 0017's trigger watches the other columns)."""

from django.db import migrations, models

from leagues.names import name_key

BATCH = 2000


def fill(apps, schema_editor):
    SeasonStanding = apps.get_model("leagues", "SeasonStanding")
    batch = []
    for line in SeasonStanding.objects.only("id", "name").order_by("id").iterator(chunk_size=BATCH):
        line.search_name = name_key(line.name)
        batch.append(line)
        if len(batch) == BATCH:
            SeasonStanding.objects.bulk_update(batch, ["search_name"])
            batch = []
    if batch:
        SeasonStanding.objects.bulk_update(batch, ["search_name"])


class Migration(migrations.Migration):
    dependencies = [("leagues", "0019_player_search_name")]

    operations = [
        migrations.AddField(
            model_name="seasonstanding",
            name="search_name",
            field=models.CharField(default="", editable=False, max_length=400, verbose_name="search name"),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=False),
        migrations.AlterModelOptions(
            name="seasonstanding",
            options={
                "ordering": ["season", "rank", "search_name", "player_id"],
                "verbose_name": "season standing",
                "verbose_name_plural": "season standings",
            },
        ),
    ]
