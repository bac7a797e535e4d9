"""Preferans' deals move here from ``matches`` (its migration 0019 lets go of them), every row and id kept.

The models are taken over as they stand (state only: their tables, columns,
constraints and indexes exist), then their tables are renamed to this app's
names, and their content types follow them.
"""

import django.db.models.deletion
from django.db import migrations, models

APP = "preferans"
MODELS = ["deal"]


def content_types_move(apps, source, target, models):
    """The models' content types follow them, so that permissions and admin's log keep pointing at them."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in models:
        if not ContentType.objects.filter(app_label=target, model=model).exists():
            ContentType.objects.filter(app_label=source, model=model).update(app_label=target)


def forwards(apps, schema_editor):
    content_types_move(apps, "matches", APP, MODELS)


def backwards(apps, schema_editor):
    content_types_move(apps, APP, "matches", MODELS)


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("matches", "0019_parts_to_their_games"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Deal",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("number", models.PositiveIntegerField(help_text="1 for the first deal of the game.")),
                        (
                            "whists",
                            models.JSONField(help_text="Whists of every seat, in seat order; they sum to zero."),
                        ),
                        (
                            "match",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="deals", to="matches.match"
                            ),
                        ),
                    ],
                    options={
                        "db_table": "matches_deal",
                        "ordering": ["match", "number"],
                        "constraints": [
                            models.UniqueConstraint(fields=("match", "number"), name="deal_unique_number"),
                            models.CheckConstraint(condition=models.Q(("number__gte", 1)), name="deal_number_positive"),
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.AlterModelTable(name="deal", table=None),
        migrations.RunPython(forwards, backwards),
    ]
