"""The rating input through the game kinds: a replay asks ``kind.load``; a game of seats needs only ``engine_input``.

A fourth game (a kind and an engine, defined outside Cardrank) must be
loadable without a loader of its own: the default reads each match's seats
in order, one query a chunk, and hands them to the kind's ``engine_input``.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.base import BaseKind
from leagues.kinds import kind_of
from matches.models import Match
from ratings.engines.elo import EloMatch
from ratings.history import LedgerKey, match_chunks
from ratings.loaders import ReplayContext, SeatRow
from ratings.replay import REPLAY_CHUNK
from tests.factories import PlayerFactory, slaps_match

pytestmark = pytest.mark.django_db


class SeatsKind(BaseKind):
    """A game of seats only, as a club might add one: its input is the seats themselves."""

    slug = "seats-only"

    def engine_input(self, seats):
        return tuple(seats)


def _chunk(game):
    start = LedgerKey(timezone.now() - timedelta(days=365), 0)
    [chunk] = match_chunks(Match.objects.filter(game=game), REPLAY_CHUNK, now=timezone.now())
    return chunk, ReplayContext(game=game, start=start)


def test_slaps_loads_through_the_seats_default_with_its_engine_input(slaps, django_assert_num_queries):
    ann, bob, cid = PlayerFactory(), PlayerFactory(), PlayerFactory()
    slaps_match(winner=ann, loser=bob, played_at=timezone.now() - timedelta(hours=2))
    slaps_match(winner=cid, loser=ann)
    chunk, context = _chunk(slaps)
    with django_assert_num_queries(1):  # the seats of the whole chunk
        inputs = kind_of(slaps).load(chunk, context)
    assert inputs == [
        ((ann.pk, bob.pk), EloMatch(players=(ann.pk, bob.pk), winner=ann.pk)),
        ((cid.pk, ann.pk), EloMatch(players=(cid.pk, ann.pk), winner=cid.pk)),
    ]


def test_a_seats_only_kind_needs_only_engine_input(slaps):
    ann, bob = PlayerFactory(), PlayerFactory()
    slaps_match(winner=ann, loser=bob)
    chunk, context = _chunk(slaps)
    [(players, seats)] = SeatsKind().load(chunk, context)
    assert players == (ann.pk, bob.pk)
    assert seats == (SeatRow(ann.pk, None, 1), SeatRow(bob.pk, None, 0))
    assert SeatsKind().replay_state() is None


def test_a_kind_without_engine_input_says_what_it_lacks(slaps):
    slaps_match(winner=PlayerFactory(), loser=PlayerFactory())
    chunk, context = _chunk(slaps)
    with pytest.raises(NotImplementedError, match="define engine_input or load"):
        BaseKind().load(chunk, context)


def test_bridge_keeps_its_pair_deals_in_the_replay_state(reference_data):
    assert kind_of("bridge").replay_state() == {}
    assert kind_of("bridge").replay_state() is not kind_of("bridge").replay_state()  # one per replay
