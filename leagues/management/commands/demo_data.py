"""``manage.py demo_data``: a club with a realistic Slaps history, loaded once.

Players get a hidden skill; each match's winner is drawn with the Elo
probability of their skills, so the ratings the engine computes spread out as
in a real club. Deterministic (seeded), and a no-op when players exist.
"""

import random
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from leagues.models import Game, Player
from matches.models import Match, Seat
from ratings.services import ratings_process_game

FIRST = [
    "Ada",
    "Ben",
    "Cleo",
    "Dmitri",
    "Elif",
    "Farah",
    "Goran",
    "Hana",
    "Ivo",
    "Jonas",
    "Kaja",
    "Lev",
    "Mira",
    "Nils",
    "Olga",
    "Pavel",
    "Quinn",
    "Rosa",
    "Sven",
    "Tara",
    "Ugo",
    "Vera",
    "Wen",
    "Xenia",
    "Yusuf",
    "Zora",
    "Anton",
    "Bea",
    "Cyril",
    "Dana",
    "Emil",
    "Freya",
]
LAST = [
    "Novak",
    "Ivanova",
    "Berg",
    "Costa",
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Petrov",
    "Sato",
    "Walsh",
    "Kovac",
    "Haddad",
]
DEMO_PASSWORD = "cardrank-demo"  # noqa: S105 - demo accounts on a local SQLite file only


class Command(BaseCommand):
    help = "Load demo players and a Slaps history (skipped when players already exist)."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=36)
        parser.add_argument("--matches", type=int, default=700)
        parser.add_argument("--seed", type=int, default=7)

    def handle(self, *args, players, matches, seed, **options):
        if Player.objects.exists():
            self.stdout.write("Demo data already present; nothing to do.")
            return
        rng = random.Random(seed)
        User = get_user_model()
        with transaction.atomic():
            referee, _ = User.objects.get_or_create(username="referee")
            referee.set_password(DEMO_PASSWORD)
            referee.save()
            referee.groups.add(Group.objects.get(name="referees"))
            admin, _ = User.objects.get_or_create(username="admin", defaults={"is_staff": True, "is_superuser": True})
            admin.is_staff = admin.is_superuser = True
            admin.set_password(DEMO_PASSWORD)
            admin.save()

            pool = [f"{first} {last}" for first in FIRST for last in LAST]
            names = rng.sample(pool, k=players) if players <= len(pool) else [f"Player {n + 1}" for n in range(players)]
            roster = Player.objects.bulk_create(Player(name=name) for name in names)
            skill = {player.pk: rng.gauss(1000, 220) for player in roster}
            # Regulars play far more often than occasional visitors.
            weights = [rng.choice([1, 1, 2, 4, 8]) for _ in roster]

            slaps = Game.objects.get(slug="slaps")
            start = timezone.now().replace(second=0, microsecond=0) - timedelta(days=180)
            for index in range(matches):
                first, second = rng.sample(range(len(roster)), 2) if index % 3 else _weighted_pair(rng, weights)
                a, b = roster[first], roster[second]
                chance = 1 / (1 + 10 ** ((skill[b.pk] - skill[a.pk]) / 400))
                winner = a if rng.random() < chance else b
                rated = rng.random() > 0.06
                match = Match.objects.create(
                    game=slaps,
                    played_at=start + timedelta(minutes=int(index * 180 * 24 * 60 / matches) + rng.randint(0, 30)),
                    rated=rated,
                    status=Match.Status.SUBMITTED if rated else Match.Status.FRIENDLY,
                    referee=referee,
                )
                Seat.objects.bulk_create(
                    [
                        Seat(match=match, position=1, player=a, result=1 if winner == a else 0),
                        Seat(match=match, position=2, player=b, result=1 if winner == b else 0),
                    ]
                )
            rated_count = ratings_process_game(game_id=slaps.pk)
        self.stdout.write(
            f"Loaded {len(roster)} players and {matches} Slaps matches ({rated_count} rated).\n"
            f"Sign in as referee / {DEMO_PASSWORD} to enter results, admin / {DEMO_PASSWORD} for Django admin."
        )


def _weighted_pair(rng: random.Random, weights: list[int]) -> tuple[int, int]:
    first = rng.choices(range(len(weights)), weights=weights)[0]
    second = first
    while second == first:
        second = rng.choices(range(len(weights)), weights=weights)[0]
    return first, second
