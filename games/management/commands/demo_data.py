"""``manage.py demo_data``: a club with realistic Slaps and Preferans histories, loaded once.

Players get a hidden skill. Slaps winners are drawn with the Elo probability
of their skills; Preferans deals hand out zero-sum whists tilted by skill,
at tables of three or four that sometimes seat bots, and a few strong regulars
play long enough to be promoted to the pro league. Deterministic (seeded),
and a no-op when players exist.

Every result goes through the one write path, ``matches.services.match_record``
(``match_submit`` without the request's permission check), as a body of the
API's shape entered by the ``referee`` account: validated, filed under the
game's entry league, with its audit entry and a raised results version, as a
result entered on the pages would be. No rating task is queued for each: every
game is rated once its history is in, in the same transaction, so the demo is
rated when the command ends, with or without a worker.

Two-step results are on in one league: the league of the best Preferans
player (the pro league, in the full demo), where a second referee confirms
each result before it is rated. Two of that player's games are left waiting,
entered by a second referee account, ``scorer``, so that ``referee`` finds
them on its "To confirm (2)" page.

Each game's official rating list is published for the end of every month of its history (``ratings.lists``),
as the periodic task would have, so the lists' archive, movers and profiles' lines have a few months to show.

Demo accounts: ``referee``, ``scorer`` (a second referee) and ``admin`` (a superuser). On the embedded
defaults (``DJANGO_DEBUG=true``, what ``make run`` serves) they get the
password ``cardrank-demo``. On production settings the command refuses unless
``--allow-production`` is given, and then creates them with no usable
password (``manage.py changepassword NAME`` sets one): a known password on a
public site is an open door, and a generated one printed here would end in
deploy logs. An account that already exists is never changed (password,
flags, groups), whatever the settings: the command says so and goes on; and
``scorer`` gets the demo password only beside a new ``referee`` and ``admin``.
"""

import random
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from games.bridge.scoring import plausible_result, usual_contract
from games.seasons import season_close, season_table_refresh
from leagues.models import Bot, Game, League, Player, Season
from matches.services import match_record
from ratings.list_selectors import list_closes_at
from ratings.lists import list_day_due, rating_list_publish
from ratings.models import PlayerRating, RatingChange
from ratings.selectors import activity_today
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


# The demo leagues' League.inactive_after_days (docs/ratings.md, "Inactive players").
DEMO_INACTIVE_AFTER_DAYS = 30


class Command(BaseCommand):
    help = (
        "Load demo players and a Slaps, Preferans and bridge history (skipped when players already exist). "
        "Refused on production settings (DJANGO_DEBUG=false) unless --allow-production is given."
    )

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=36)
        parser.add_argument("--matches", type=int, default=700)
        parser.add_argument("--preferans-games", type=int, default=160)
        parser.add_argument("--bridge-weeks", type=int, default=8)
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument(
            "--allow-production",
            action="store_true",
            help="Load the demo on production settings (DJANGO_DEBUG=false); demo accounts get no usable password.",
        )

    def handle(self, *args, players, matches, preferans_games, bridge_weeks, seed, allow_production, **options):
        if not settings.DEBUG and not allow_production:
            raise CommandError(
                "demo_data loads invented players and results, and demo accounts: it runs on the embedded "
                "defaults (DJANGO_DEBUG=true) only. To load it on these production settings anyway, give "
                "--allow-production (the demo accounts then get no usable password)."
            )
        if Player.objects.exists():
            self.stdout.write("Demo data already present; nothing to do.")
            return
        rng = random.Random(seed)
        # A known password only where the embedded defaults serve a local demo.
        password = DEMO_PASSWORD if settings.DEBUG else None
        with transaction.atomic():
            referee, referee_new = self._account("referee", password, groups=["referees"])
            _admin, admin_new = self._account("admin", password, is_staff=True, is_superuser=True)

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
                played_at = start + timedelta(minutes=int(index * 180 * 24 * 60 / matches) + rng.randint(0, 30))
                body = {"players": [a.pk, b.pk], "winner": winner.pk}
                _enter(referee, slaps, played_at, body, rated=rated)
            rated_count = ratings_process_game(game_id=slaps.pk)
            preferans = Game.objects.get(slug="preferans")
            _preferans_history(rng, preferans, roster, skill, referee, start, preferans_games)
            preferans_rated = ratings_process_game(game_id=preferans.pk)
            bridge = Game.objects.get(slug="bridge")
            sessions = _bridge_club(rng, bridge, roster, skill, referee, bridge_weeks)
            ratings_process_game(game_id=bridge.pk)
            # A known password only beside the demo's own accounts: next to an operator's, none usable.
            scorer_password = password if referee_new and admin_new else None
            scorer, scorer_new = self._account("scorer", scorer_password, groups=["referees"])
            two_step, waiting = _two_step_league(rng, preferans, scorer)
            # The demo club's leagues count a player inactive after a month without a rated result (a fresh
            # install's leagues have no such setting: nobody leaves a leaderboard until an admin sets one).
            League.objects.update(inactive_after_days=DEMO_INACTIVE_AFTER_DAYS)
            lists = _rating_lists(start, [slaps, preferans, bridge])
            seasons = _seasons(start)
        self.stdout.write(
            f"Loaded {len(roster)} players, {matches} Slaps matches ({rated_count} rated), "
            f"{preferans_games} Preferans games ({preferans_rated} rated) and {sessions} bridge sessions."
        )
        self.stdout.write(f"Published {lists} monthly rating lists (each game's months since its first result).")
        self.stdout.write(seasons)
        if two_step is not None:
            self.stdout.write(
                f"{two_step.name} requires a second referee's confirmation: {waiting} results entered by scorer "
                "wait for one (referee's To confirm page)."
            )
        accounts = (
            ("referee", referee_new, "to enter results"),
            ("scorer", scorer_new, "as a second referee"),
            ("admin", admin_new, "for Django admin"),
        )
        for name, new, role in accounts:
            if not new:
                self.stdout.write(f"User {name} already existed: left unchanged (password, flags and groups).")
            elif password and (name != "scorer" or scorer_password):
                self.stdout.write(f"Sign in as {name} / {password} {role}.")
            else:
                self.stdout.write(f"User {name} created without a usable password: manage.py changepassword {name}.")

    @staticmethod
    def _account(username: str, password: str | None, *, groups=(), **flags):
        """The demo account, created if missing (with ``password``, or none usable); an existing one is not touched."""
        User = get_user_model()
        user = User.objects.filter(username=username).first()
        if user is not None:
            return user, False
        user = User(username=username, **flags)
        if password:
            user.set_password(password)
        else:
            user.set_unusable_password()
        user.save()
        user.groups.add(*Group.objects.filter(name__in=groups))
        return user, True


def _enter(referee, game: Game, played_at, parts: dict, *, rated: bool = True) -> None:
    """Enter one result as a referee would, in the API's body shape (no league in ``parts``: the entry league)."""
    match_record(
        referee=referee,
        data={"game": game.slug, "played_at": played_at.isoformat(), "rated": rated, **parts},
        queue_rating=False,  # each game is rated once its history is in, below, in the same transaction
    )


def _rating_lists(start, games) -> int:
    """Each game's official list at the end of every month of the history, oldest first (each list's change is
    from the one before), as the periodic task would have published them (``ratings.lists``)."""
    days = []
    day = list_day_due(Game.ListPeriod.MONTHLY, activity_today())
    while list_closes_at(day) > start:
        days.append(day)
        day = day.replace(day=1) - timedelta(days=1)
    published = 0
    for game in games:
        for day in reversed(days):
            if RatingChange.objects.filter(game=game, played_at__lt=list_closes_at(day)).exists():
                published += rating_list_publish(game=game, day=day).created
    return published


def _seasons(start) -> str:
    """Seasons of the Slaps amateur league (points per result; its top two move up to the pro league at a
    season's end): the first half of the history, closed, and the rest, running; and a bridge season of the
    best four sessions, closed a week ago. Returns what to tell the operator."""
    slaps = League.objects.get(game__slug="slaps", tier=League.Tier.AMATEUR)
    slaps.season_up, slaps.season_up_count = League.objects.get(game__slug="slaps", tier=League.Tier.PRO), 2
    slaps.full_clean()
    slaps.save()
    first = timezone.localdate(start)
    today = timezone.localdate()
    middle = first + (today - first) / 2
    closed = Season.objects.create(league=slaps, name="Spring and summer", first_day=first, last_day=middle)
    running = Season.objects.create(
        league=slaps,
        name="Autumn and winter",
        first_day=middle + timedelta(days=1),
        last_day=today + timedelta(days=30),
    )
    bridge = League.objects.get(game__slug="bridge", tier=League.Tier.AMATEUR)
    bridge.season_rule, bridge.season_best_of = League.SeasonRule.BEST, 4
    bridge.full_clean()
    bridge.save()
    club = Season.objects.create(
        league=bridge, name="Club ladder", first_day=today - timedelta(days=90), last_day=today - timedelta(days=7)
    )
    moved = len(season_close(season_id=closed.pk).moves)
    season_close(season_id=club.pk)
    season_table_refresh(season_id=running.pk)
    return (
        f"Closed the seasons {closed.name} of {slaps.name} (its top {moved} promoted) and {club.name} of "
        f"{bridge.name} (best four sessions); {running.name} runs: see each league's Seasons and honours."
    )


def _weighted_pair(rng: random.Random, weights: list[int]) -> tuple[int, int]:
    first = rng.choices(range(len(weights)), weights=weights)[0]
    second = first
    while second == first:
        second = rng.choices(range(len(weights)), weights=weights)[0]
    return first, second


def _preferans_history(rng, game, roster, skill, referee, start, games) -> None:
    """Tables of 3-4 seats; about a third seat a bot. Three "sharks" play often and well."""
    bots = list(Bot.objects.filter(game=game, active=True).order_by("rating"))
    club = roster[: max(12, len(roster) * 2 // 3)]
    sharks = club[:3]
    pref_skill = {player.pk: skill[player.pk] for player in club}
    for shark in sharks:
        pref_skill[shark.pk] = 2300 + rng.gauss(0, 80)
    for index in range(games):
        size = rng.choice([3, 3, 4])
        with_bot = bots and rng.random() < 0.35
        humans = size - 1 if with_bot else size
        pool = [shark for shark in sharks if rng.random() < 0.5] + rng.sample(club, k=len(club))
        seated = list(dict.fromkeys(pool))[:humans]
        seats = [("player", player) for player in seated]
        if with_bot:
            seats.insert(rng.randrange(len(seats) + 1), ("bot", rng.choice(bots[:2])))
        strengths = [
            pref_skill[occupant.pk] if kind == "player" else float(occupant.rating) for kind, occupant in seats
        ]
        deals = [_deal(rng, strengths) for _ in range(rng.randint(8, 20))]
        played_at = start + timedelta(minutes=int(index * 180 * 24 * 60 / games) + 7)
        body = {
            "seats": [{kind: occupant.pk if kind == "player" else occupant.slug} for kind, occupant in seats],
            "deals": deals,
        }
        _enter(referee, game, played_at, body)


def _deal(rng, strengths: list[float]) -> list[int]:
    """Whole whists for one deal, zero-sum, tilted toward the stronger seats."""
    mean = sum(strengths) / len(strengths)
    raw = [(strength - mean) / 120 + rng.gauss(0, 4) for strength in strengths]
    centre = sum(raw) / len(raw)
    whists = [round(value - centre) for value in raw]
    whists[-1] -= sum(whists)
    return whists


def _bridge_club(rng, game, roster, skill, referee, weeks) -> int:
    """Two evenings a week: four regular partnerships and a few occasional ones, Mitchell-style rounds."""
    members = roster[:20]
    regulars = [(members[i], members[i + 1]) for i in range(0, 8, 2)]
    casuals = members[8:]
    start = timezone.now().replace(hour=19, minute=0, second=0, microsecond=0) - timedelta(weeks=weeks)
    sessions = 0
    for evening in range(weeks * 2):
        played_at = start + timedelta(days=evening * 3 + evening // 2)
        if played_at > timezone.now() - timedelta(hours=1):
            break
        tables = rng.choice([3, 4])
        pool = rng.sample(casuals, k=len(casuals))
        pairs = [pair for pair in regulars if rng.random() < 0.9]
        while len(pairs) < tables * 2 and len(pool) >= 2:
            pairs.append((pool.pop(), pool.pop()))
        pairs = pairs[: tables * 2]
        tables = len(pairs) // 2
        if tables < 2:
            continue
        ns_pairs, ew_pairs = pairs[:tables], pairs[tables:]
        boards = []
        number = 0
        for round_index in range(tables):
            for _ in range(3):
                number += 1
                rows = []
                usual = usual_contract(rng)  # most tables reach the board's usual contract, some another
                for table in range(tables):
                    ns, ew = ns_pairs[table], ew_pairs[(table + round_index) % tables]
                    edge = (skill[ns[0].pk] + skill[ns[1].pk] - skill[ew[0].pk] - skill[ew[1].pk]) / 2
                    regular_edge = 0.4 * ((ns in regulars) - (ew in regulars))
                    # A result the board can have (its vulnerability), the stronger pair taking more tricks.
                    reached = usual if rng.random() < 0.75 else usual_contract(rng)
                    contract, declarer, tricks, _score = plausible_result(
                        rng, number, edge=edge / 250 + regular_edge, contract=reached[0], declarer=reached[1]
                    )
                    row = {
                        "ns": [p.pk for p in ns],
                        "ew": [p.pk for p in ew],
                        # A Mitchell: NS pair N stays at table N, EW pairs move up a table a round.
                        "ns_pair": str(table + 1),
                        "ew_pair": str((table + round_index) % tables + 1),
                        "contract": str(contract),
                    }
                    if not contract.passed_out:
                        row |= {"declarer": declarer, "tricks": tricks}
                    rows.append(row)
                boards.append({"number": number, "tables": rows})
        # Scored as most club pairs evenings are, by matchpoints; rated, as every session, by IMP duels.
        _enter(referee, game, played_at, {"scoring": "matchpoints", "movement": "mitchell", "boards": boards})
        sessions += 1
    return sessions


def _two_step_league(rng, game, scorer) -> tuple[League | None, int]:
    """Two-step results in the league of the game's best player, and two of their games left waiting.

    The games are entered by ``scorer`` after the history (an hour ago and half an hour ago), filed
    under that league, so another referee may confirm or dispute them. None and 0 when nobody is
    rated in the game yet.
    """
    top = PlayerRating.objects.filter(game=game).select_related("league").order_by("-rating", "player_id").first()
    if top is None:
        return None, 0
    League.objects.filter(pk=top.league_id).update(requires_confirmation=True)
    # The next two by rating (the other pros, in the full demo): every player may be filed under the league.
    others = list(
        PlayerRating.objects.filter(game=game, league_id=top.league_id)
        .exclude(player_id=top.player_id)
        .order_by("-rating", "player_id")
        .values_list("player_id", flat=True)[:2]
    )
    bot = Bot.objects.filter(game=game, active=True).order_by("rating").first()
    if len(others) < 2 or bot is None:
        return top.league, 0
    tables = [
        [{"player": top.player_id}, {"player": others[0]}, {"player": others[1]}],
        [{"player": others[1]}, {"bot": bot.slug}, {"player": top.player_id}],
    ]
    now = timezone.now().replace(second=0, microsecond=0)
    for minutes, seats in zip((60, 30), tables, strict=True):
        deals = [_deal(rng, [2300.0, 1500.0, 1400.0]) for _ in range(rng.randint(6, 10))]
        body = {"seats": seats, "deals": deals, "league": top.league.slug}
        _enter(scorer, game, now - timedelta(minutes=minutes), body)
    return top.league, len(tables)
