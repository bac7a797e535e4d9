"""``manage.py publish_rating_list --game SLUG [--date YYYY-MM-DD] [--republish]``: publish a rating list now.

The same service as the periodic task (``ratings.lists.rating_list_publish``). Without ``--date`` the list
is the one of the game's latest closed period (``Game.rating_list_period``: the last day of last month by
default). Publishing a day already published is a no-op that says so; ``--republish`` writes a new version
of it, the old one still readable.
"""

import datetime

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from leagues.models import Game
from ratings.lists import list_day_due, rating_list_publish
from ratings.selectors import activity_today


def _day(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"--date takes a day as YYYY-MM-DD; got {text!r}.") from None


class Command(BaseCommand):
    help = "Publish a game's official rating list (the ratings at the end of a day) now."

    def add_arguments(self, parser):
        parser.add_argument("--game", required=True, help="The game's slug.")
        parser.add_argument(
            "--date", help="The list's closing day, YYYY-MM-DD (default: the last day of the latest closed period)."
        )
        parser.add_argument(
            "--republish", action="store_true", help="Publish the day again as a new version (the old one is kept)."
        )

    def handle(self, *args, game, date, republish, **options):
        found = Game.objects.filter(slug=game).first()
        if found is None:
            raise CommandError(f"No game {game!r}.")
        if date:
            day = _day(date)
        else:
            day = list_day_due(found.rating_list_period, activity_today())
            if day is None:
                raise CommandError(f"{found.name} publishes no list by itself (rating_list_period: none): give --date.")
        try:
            published = rating_list_publish(game=found, day=day, republish=republish, by="manage.py")
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        kept = published.rating_list
        when = timezone.localtime(kept.published_at).strftime("%Y-%m-%d %H:%M")
        if not published.created:
            self.stdout.write(
                f"The {found.name} list of {day.isoformat()} is already published (version {kept.version}, "
                f"{when}, {kept.players} players): nothing was written. --republish writes a new version."
            )
            return
        version = f" (version {kept.version})" if kept.version > 1 else ""
        self.stdout.write(f"Published the {found.name} list of {day.isoformat()}{version}: {kept.players} players.")
