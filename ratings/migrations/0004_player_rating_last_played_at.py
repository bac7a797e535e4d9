from django.db import migrations, models
from django.db.models import Max, OuterRef, Subquery


def last_played_fill(apps, schema_editor):
    """Each rating's last rated result, from the ledger: one seek down the ledger's player index per rating."""
    PlayerRating = apps.get_model("ratings", "PlayerRating")
    RatingChange = apps.get_model("ratings", "RatingChange")
    latest = (
        RatingChange.objects.filter(player_id=OuterRef("player_id"), game_id=OuterRef("game_id"))
        .order_by()
        .values("player_id")
        .annotate(latest=Max("played_at"))
        .values("latest")
    )
    PlayerRating.objects.update(last_played_at=Subquery(latest))


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0003_ledger_without_foreign_keys"),
    ]

    operations = [
        migrations.AddField(
            model_name="playerrating",
            name="last_played_at",
            field=models.DateTimeField(
                blank=True,
                help_text="When the player's last rated result in this game was played (the latest played_at of "
                "their ledger rows): what a league's inactivity setting is judged by.",
                null=True,
            ),
        ),
        migrations.RunPython(last_played_fill, migrations.RunPython.noop),
    ]
