"""Simulated clubs whose players' true skills are known, for tests of tuning (issue 29).

Each generator draws everything from ``random.Random(seed)`` and stores nothing: the same seed gives the same
history on every machine. Players' skills never change, so a rating system's job is only to find them; a
test can then hold the ratings a tuning chose against the skills they should have found. Every history is
pure engine data (``ratings.evaluation.history_of``: no league, floor, promotion or rating period), starts
everyone at ``START_RATING`` and plays one result an hour from ``START``, in the order drawn.

Players are numbered 0, 1, 2 ...; each generator returns the skills as a list indexed by that number.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from ratings.engines import bridge, elo, preferans
from ratings.evaluation import History, history_of, plain_unit

#: Where every player's rating starts (the histories' ``start_rating``): tests measure drift from it.
START_RATING = 1500
START = datetime(2024, 1, 1, tzinfo=UTC)


def preferans_club(
    *,
    seed: int = 29,
    players: int = 45,
    games: int = 750,
    deals: int = 20,
    skill_spread: float = 1.5,
    noise: float = 8.0,
) -> tuple[list[float], History]:
    """A Preferans club: ``games`` games of ``deals`` deals, each at a table of three players drawn at random.

    A player's skill is drawn from a normal distribution around 0 with standard deviation ``skill_spread``,
    in whists per deal. In each deal every seat's raw whists are its skill plus normal noise of standard
    deviation ``noise``; the table's mean is taken off every seat (a deal is zero-sum, as the engine wants)
    and each is kept to one decimal. With a spread of 1.5 against a noise of 8, one deal says little about who
    is better: the ratings have to learn it over many games.
    """
    rng = random.Random(seed)
    skills = [rng.gauss(0, skill_spread) for _ in range(players)]
    units = []
    for number in range(1, games + 1):
        seats = tuple(rng.sample(range(players), 3))
        drawn = []
        for _ in range(deals):
            raw = [skills[seat] + rng.gauss(0, noise) for seat in seats]
            mean = sum(raw) / len(raw)
            drawn.append(tuple(round(whists - mean, 1) for whists in raw))
        game = preferans.PreferansGame(seats, tuple(drawn))
        units.append(plain_unit(number, START + timedelta(hours=number), seats, game))
    return skills, history_of(preferans.SYSTEM, units, start_rating=START_RATING)


def slaps_league(
    *,
    seed: int = 1,
    players: int = 40,
    matches: int = 3000,
    skill_spread: float = 200.0,
) -> tuple[list[float], History]:
    """A Slaps league of 1-v-1 matches between two players drawn at random, whose skills never change.

    A player's skill is drawn from a normal distribution around 0 with standard deviation ``skill_spread``,
    in Elo points. The first player drawn wins with the chance ``1 / (1 + 10^((skill_b - skill_a) / 400))``:
    the logistic of the skill gap on the seed's own scale, so the seed's formula is the true model and only
    its K (how fast ratings move) is wrong for players who never change.
    """
    rng = random.Random(seed)
    skills = [rng.gauss(0, skill_spread) for _ in range(players)]
    units = []
    for number in range(1, matches + 1):
        first, second = rng.sample(range(players), 2)
        chance = 1 / (1 + 10 ** ((skills[second] - skills[first]) / 400))
        winner = first if rng.random() < chance else second
        match = elo.EloMatch((first, second), winner)
        units.append(plain_unit(number, START + timedelta(hours=number), (first, second), match))
    return skills, history_of(elo.SYSTEM, units, start_rating=START_RATING)


def bridge_club(
    *,
    seed: int = 3,
    players: int = 24,
    sessions: int = 200,
    tables: int = 3,
    boards: int = 8,
    skill_spread: float = 1.0,
    points_per_skill: float = 60.0,
    noise: float = 150.0,
) -> tuple[list[float], History]:
    """A duplicate bridge club: ``sessions`` evenings of ``boards`` boards at ``tables`` tables.

    A player's skill is drawn from a normal distribution around 0 with standard deviation ``skill_spread``.
    Each evening ``4 * tables`` of the players come, drawn at random, and are paired at random; the pairs are
    seated at random, half North-South and half East-West, and keep their seats all evening (boards are not
    moved between tables, which the engine does not need). On each board every table's North-South score is
    the board's own par (a normal draw of standard deviation 400: the cards, the same at every table, so it
    cancels between tables) plus ``points_per_skill`` times the NS pair's summed skill minus the EW pair's,
    plus normal noise of standard deviation ``noise`` (the play at that table), rounded to 10 points. A pair's
    deals together before an evening are counted from the boards they played together in earlier ones (what
    a kind's partnership history hands the engine).
    """
    rng = random.Random(seed)
    skills = [rng.gauss(0, skill_spread) for _ in range(players)]
    together: dict[frozenset, int] = {}
    units = []
    for number in range(1, sessions + 1):
        present = rng.sample(range(players), 4 * tables)
        pairs = [(present[i], present[i + 1]) for i in range(0, len(present), 2)]
        seated = [(pairs[2 * t], pairs[2 * t + 1]) for t in range(tables)]  # (NS, EW) at each table
        played = []
        for _ in range(boards):
            par = rng.gauss(0, 400)
            played_tables = []
            for ns, ew in seated:
                score = par + points_per_skill * _gap(skills, ns, ew) + rng.gauss(0, noise)
                played_tables.append(bridge.BridgeTable(ns=ns, ew=ew, ns_score=10 * round(score / 10)))
            played.append(bridge.BridgeBoard(tuple(played_tables)))
        before = {frozenset(pair): together.get(frozenset(pair), 0) for pair in pairs}
        session = bridge.BridgeSession(boards=tuple(played), deals_together=before)
        for pair in pairs:
            together[frozenset(pair)] = before[frozenset(pair)] + boards
        units.append(plain_unit(number, START + timedelta(hours=number), tuple(present), session))
    return skills, history_of(bridge.SYSTEM, units, start_rating=START_RATING)


def _gap(skills: list[float], ns: tuple[int, int], ew: tuple[int, int]) -> float:
    return skills[ns[0]] + skills[ns[1]] - skills[ew[0]] - skills[ew[1]]
