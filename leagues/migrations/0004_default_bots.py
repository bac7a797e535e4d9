"""Preferans bots of three difficulties (seed 001 names the "normal" bot at 1800).

Each has a fixed rating and a maximum rating a player can reach by playing
with it; admins edit both. The maxima are the project's choice: high enough
to be worth playing, low enough that farming a bot stops well short of the
top of the leaderboard.
"""

from decimal import Decimal

from django.db import migrations

BOTS = [
    ("easy", "Easy bot", Decimal("1200"), Decimal("1600")),
    ("normal", "Normal bot", Decimal("1800"), Decimal("2400")),
    ("hard", "Hard bot", Decimal("2400"), Decimal("3200")),
]


def create_bots(apps, schema_editor):
    Game = apps.get_model("leagues", "Game")
    Bot = apps.get_model("leagues", "Bot")
    game = Game.objects.filter(slug="preferans").first()
    if game is None:
        return
    for slug, name, rating, max_rating in BOTS:
        Bot.objects.get_or_create(
            game=game, slug=slug, defaults={"name": name, "rating": rating, "max_rating": max_rating}
        )


class Migration(migrations.Migration):
    dependencies = [("leagues", "0003_bot")]

    operations = [migrations.RunPython(create_bots, migrations.RunPython.noop)]
