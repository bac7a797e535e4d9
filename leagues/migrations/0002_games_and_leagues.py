"""The three games of PRODUCT.md, each with an amateur and a pro league.

Amateur leagues promote at 1800 (seed 001); pro leagues have their floor at
the same 1800, so a promoted player is never relegated. Both are editable in
admin.
"""

from decimal import Decimal

from django.db import migrations

GAMES = [
    ("slaps", "Slaps", "elo"),
    ("preferans", "Preferans", "preferans"),
    ("bridge", "Bridge", "bridge"),
]
THRESHOLD = Decimal("1800")


def create_games(apps, schema_editor):
    Game = apps.get_model("leagues", "Game")
    League = apps.get_model("leagues", "League")
    for slug, name, system in GAMES:
        game, _ = Game.objects.get_or_create(slug=slug, defaults={"name": name, "rating_system": system})
        League.objects.get_or_create(
            game=game,
            tier="amateur",
            defaults={"slug": f"{slug}-amateur", "name": f"{name} Amateur", "promotion_threshold": THRESHOLD},
        )
        League.objects.get_or_create(
            game=game,
            tier="pro",
            defaults={"slug": f"{slug}-pro", "name": f"{name} Pro", "rating_floor": THRESHOLD},
        )


class Migration(migrations.Migration):
    dependencies = [("leagues", "0001_initial")]

    operations = [migrations.RunPython(create_games, migrations.RunPython.noop)]
