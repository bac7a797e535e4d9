"""Evening digests built and sent (``--only digests``, issue 27): ``digests`` claimed players, each with an
evening of Preferans yesterday (games of four, a few deals each), each person opted in, and every digest
due built (``notices.digests``: the profile's rows and "why", the standing around them) and sent once with
its sent record (``notices.sending.digest_send_now``), as the hourly sweep's tasks do one by one.

Mail goes to an SMTP server the benchmark starts (aiosmtpd, a dev dependency, on 127.0.0.1), or, where
aiosmtpd is not importable, to Django's in-memory backend; the result says which. Reported: the time and
the process's memory growth, and the ratio to a replay of the same game's results (what the lists' section
compares with too). The synthetic game, players, accounts and records are deleted afterwards.
"""

from __future__ import annotations

import datetime
import logging
import random
import resource
import time

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.test.utils import override_settings
from django.utils import timezone

from benchmarks.replay import audit_in_bulk, benchmark_game, cleanup, submitted_body, vacuum
from benchmarks.stack import free_port
from games.preferans.models import Deal
from leagues.models import Game, Player
from matches.models import Match, Seat
from matches.versions import results_version_bump
from notices.digests import digests_due
from notices.models import DigestSent, NoticeChoices
from notices.sending import digest_send_now
from ratings.services import ratings_replay_all

PREFIX = "bench digest "
USER_PREFIX = "bench-digest-"
DEALS_PER_GAME = 6
GAMES_EACH = 2  # each player's evening: two games of six deals


class _Counter:
    """The SMTP server's handler: counts what it accepted."""

    def __init__(self) -> None:
        self.messages = 0
        self.bytes = 0

    async def handle_DATA(self, server, session, envelope):
        self.messages += 1
        self.bytes += len(envelope.content)
        return "250 OK"


def _evenings(game: Game, players: list[Player], rng: random.Random) -> None:
    """Each player sits in ``GAMES_EACH`` games of four yesterday evening, rated later by the replay."""
    zone = timezone.get_default_timezone()
    yesterday = timezone.localtime(timezone.now(), zone).date() - datetime.timedelta(days=1)
    start = datetime.datetime.combine(yesterday, datetime.time(19), tzinfo=zone)
    tables = []
    for round_number in range(GAMES_EACH):
        order = players[:]
        rng.shuffle(order)
        tables += [(round_number, order[i : i + 4]) for i in range(0, len(order) - len(order) % 4, 4)]
    matches = Match.objects.bulk_create(
        Match(
            game=game,
            played_at=start + datetime.timedelta(minutes=45 * round_number, seconds=index),
            rated=True,
            status=Match.Status.RATED,  # as stored and rated; the replay writes their ledger
        )
        for index, (round_number, _seated) in enumerate(tables)
    )
    seats, deals, bodies = [], [], []
    for match, (_round, seated) in zip(matches, tables, strict=True):
        plays = []
        for _ in range(DEALS_PER_GAME):
            a, b, c = rng.randint(-8, 8), rng.randint(-8, 8), rng.randint(-8, 8)
            plays.append((a, b, c, -a - b - c))
        totals = [sum(deal[i] for deal in plays) for i in range(4)]
        seats += [Seat(match=match, position=i + 1, player=seated[i], result=totals[i]) for i in range(4)]
        deals += [Deal(match=match, number=n + 1, whists=list(deal)) for n, deal in enumerate(plays)]
        body = submitted_body(
            match, game, seats=[{"player": p.pk} for p in seated], deals=[list(deal) for deal in plays]
        )
        bodies.append((match, body))
    Seat.objects.bulk_create(seats, batch_size=5000)
    Deal.objects.bulk_create(deals, batch_size=5000)
    audit_in_bulk(bodies)
    results_version_bump(game_ids=[game.pk])


def _people(players: list[Player]) -> list:
    """An account a player, with an address and the evening digest chosen (since two days ago)."""
    User = get_user_model()
    unusable = make_password(None)  # no sign-in: these accounts only receive mail
    users = User.objects.bulk_create(
        User(username=f"{USER_PREFIX}{index:06d}", email=f"digest{index}@bench.example.org", password=unusable)
        for index in range(len(players))
    )
    for player, user in zip(players, users, strict=True):
        player.user = user
    Player.objects.bulk_update(players, ["user"], batch_size=5000)
    since = timezone.now() - datetime.timedelta(days=2)
    NoticeChoices.objects.bulk_create(
        NoticeChoices(user=user, evening_digest=True, evening_digest_since=since) for user in users
    )
    return users


def _forget_people() -> None:
    users = get_user_model().objects.filter(username__startswith=USER_PREFIX)
    DigestSent.objects.filter(user__in=users).delete()
    NoticeChoices.objects.filter(user__in=users).delete()
    Player.objects.filter(name__startswith=PREFIX).update(user=None)
    users.delete()


def digest_speed(*, digests: int, keep: bool = False) -> dict:
    leftover = Game.objects.filter(slug="benchmark-preferans").first()
    if leftover is not None:
        _forget_people()
        cleanup(leftover, player_prefix=PREFIX)
    game = benchmark_game()
    server = None
    try:
        players = Player.objects.bulk_create(Player(name=f"{PREFIX}{n:06d}") for n in range(digests))
        _evenings(game, players, random.Random(27))
        started = time.perf_counter()
        ratings_replay_all(game_id=game.pk)
        replay_time = time.perf_counter() - started
        _people(players)
        try:
            from aiosmtpd.controller import Controller
        except ModuleNotFoundError:
            mail = {"EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend"}
            backend = "locmem (aiosmtpd is not installed)"
            handler = None
        else:
            logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd logs each SMTP line at INFO
            handler = _Counter()
            port = free_port()
            server = Controller(handler, hostname="127.0.0.1", port=port)
            server.start()
            mail = {
                "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
                "EMAIL_HOST": "127.0.0.1",
                "EMAIL_PORT": port,
                "EMAIL_USE_TLS": False,
                "EMAIL_USE_SSL": False,
            }
            backend = f"SMTP (aiosmtpd on 127.0.0.1:{port})"
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with override_settings(**mail):
            started = time.perf_counter()
            due = digests_due()
            find_time = time.perf_counter() - started
            sent = sum(
                digest_send_now(user_id=user_id, day=day)
                for user_id, day in sorted({(evening.user_id, evening.day) for evening in due})
            )
            send_time = time.perf_counter() - started
            if handler is None:
                from django.core import mail as outbox

                received = len(outbox.outbox)
            else:
                received = handler.messages
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        assert sent == digests == received, f"{digests} digests: {sent} sent, {received} received"
        return {
            "digests": sent,
            "results": Match.objects.filter(game=game).count(),
            "backend": backend,
            "due_s": round(find_time, 2),
            "send_s": round(send_time, 2),
            "per_digest_ms": round(send_time / sent * 1000, 1),
            "replay_s": round(replay_time, 2),
            "ratio_to_replay": round(send_time / replay_time, 2),
            "rss_peak_mb": round(rss_after / 1024, 1),
            "rss_growth_mb": round((rss_after - rss_before) / 1024, 1),
        }
    finally:
        if server is not None:
            server.stop()
        if not keep:
            _forget_people()
            cleanup(game, player_prefix=PREFIX)
            vacuum()
