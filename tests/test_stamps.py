"""Stamps (config/stamps.py): what is kept under a stamp is used only while that stamp is current.

The hazard the renewal at commit closes: a request reads the old rows after a write renewed the stamp
but before it committed, and keeps them under the new stamp. Each test plays that request by hand inside
the writing transaction (``keep`` under the stamp current then), and checks that once the transaction
commits the old rows are no longer used. Each fails without ``transaction.on_commit(self.renew)`` in
``Stamp.changed``.
"""

import pytest

from config.stamps import MISSING, Stamp
from games.setup import SETUP_SECONDS, SETUP_STAMP, kept_games
from leagues.models import Game
from matches.selectors import TO_CONFIRM_COUNT_SECONDS, matches_to_confirm_count
from matches.versions import RESULTS_STAMP, results_version_bump
from tests.factories import RefereeFactory

pytestmark = pytest.mark.django_db


def test_a_value_kept_before_the_commit_is_not_used_after_it(production, django_capture_on_commit_callbacks):
    stamp = Stamp("tests:stamp", shared_only=True)
    with django_capture_on_commit_callbacks(execute=True):
        stamp.changed()
        stamp.keep("tests:kept", stamp.current(), "the old rows", 60)  # read in between, by another request
        assert stamp.read("tests:kept")[1] == "the old rows"  # the hazard: kept under the new stamp
    assert stamp.read("tests:kept")[1] is MISSING


def test_a_game_renamed_is_shown_after_the_commit_though_the_old_name_was_kept_in_between(
    production, reference_data, django_capture_on_commit_callbacks
):
    game = Game.objects.get(slug="slaps")
    with django_capture_on_commit_callbacks(execute=True):
        old = list(Game.objects.order_by("pk"))  # what another request read before this one's write
        game.name = "Hand slaps"
        game.save()  # post_save: SETUP_STAMP.changed
        SETUP_STAMP.keep("games:all", SETUP_STAMP.current(), old, SETUP_SECONDS)
    assert "Hand slaps" in [kept.name for kept in kept_games()]


def test_a_results_write_renews_the_results_stamp_before_it_commits(production, reference_data):
    """The results stamp is renewed once, by the write itself (matches/versions.py says why not again at the
    commit): a count kept before the write is not used after it."""
    referee = RefereeFactory()
    RESULTS_STAMP.keep(f"matches:to-confirm:{referee.pk}", RESULTS_STAMP.current(), 99, TO_CONFIRM_COUNT_SECONDS)
    assert matches_to_confirm_count(user_id=referee.pk) == 99
    results_version_bump(game_ids=[Game.objects.get(slug="slaps").pk])
    assert matches_to_confirm_count(user_id=referee.pk) == 0
