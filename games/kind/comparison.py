"""The comparison part of a kind: a player's head-to-head, the compare page's record and odds, the crosstable.

Who calls it: ``ratings.compare`` (the records, meetings and expected score
the compare page and its API show), the web app's compare and profile pages
and their templates (the flags: a side's size, the nouns, the points' label,
draws, the expected score's note).

What a game overrides: a game of seats keeps the defaults (records read from
seats, Elo's expected score) and sets the flags its game shows differently
(no draws, points); a game with another rating system writes
``compare_expected`` and its note; a game of pairs (bridge) writes every
method, ``compare_side_size`` 2.
"""

from __future__ import annotations

from typing import ClassVar

from django.utils.translation import gettext_lazy, pgettext_lazy

from leagues.models import Game, Player
from matches.models import Match
from ratings.engines import elo
from ratings.headtohead import HeadToHeadRow, seats_crosstable, seats_head_to_head, seats_meetings


class ComparisonPart:
    """What the head-to-head and compare pages ask of a game: records between players, and their odds."""

    #: Players on one side of a compare: one, or two for a game of pairs (bridge compares pairs, ``a=12,13``).
    compare_side_size: ClassVar[int] = 1

    #: What a meeting is, one and many: the head-to-head tables' column ("match", "matches").
    meeting_nouns: ClassVar[tuple[str, str]] = (
        pgettext_lazy("one meeting", "match"),
        pgettext_lazy("many meetings", "matches"),
    )

    #: What the seats' results add up to in a record ("" when they are only won and lost, as in Slaps).
    points_label: ClassVar[str] = ""

    #: Whether a record has draws to show (a Slaps match always has a winner).
    shows_draws: ClassVar[bool] = True

    def head_to_head(self, *, player: Player, game: Game) -> list[HeadToHeadRow]:
        """The player's record against every opponent of ``game`` (``ratings.headtohead``), most meetings
        first: one row per opponent, read with one or two queries whatever their number. A game of seats: a
        result shared is won against a seat whose result is lower."""
        return seats_head_to_head(player_id=player.pk, game=game)

    def compare_record(self, *, game: Game, a: tuple[int, ...], b: tuple[int, ...]) -> HeadToHeadRow | None:
        """Side ``a``'s record against side ``b`` (each ``compare_side_size`` player ids), None if they never
        met in a rated result."""
        rows = seats_head_to_head(player_id=a[0], game=game, opponent_ids=[b[0]])
        return rows[0] if rows else None

    def compare_meetings(self, *, game: Game, a: tuple[int, ...], b: tuple[int, ...], limit: int) -> list[Match]:
        """The latest rated results where the two sides met, newest first, with their seats."""
        return seats_meetings(a_id=a[0], b_id=b[0], game=game, limit=limit)

    def compare_expected(self, *, game: Game, a: tuple[int, ...], b: tuple[int, ...], ratings: dict) -> float:
        """The expected score of side ``a`` against side ``b`` by the game's rating system, ``ratings`` being
        every player's current rating (a float, the game's start rating for one not yet rated). A game of
        seats: Elo's logistic curve, E = 1 / (1 + 10^((Rb - Ra) / 400))."""
        return elo.expected_score(ratings[a[0]], ratings[b[0]])

    def crosstable(self, *, game: Game, player_ids: list[int]) -> dict[tuple[int, int], HeadToHeadRow] | None:
        """Every record among ``player_ids`` (a league's top players), keyed (player, opponent); None for a
        game whose opponents are not single players (bridge's are pairs)."""
        return seats_crosstable(game=game, player_ids=player_ids)

    #: What the compare page says the expected score is.
    compare_expected_note: ClassVar[str] = gettext_lazy(
        "Elo's expected score of A against B, a win counting 1 and a draw 1/2: E = 1 / (1 + 10^((Rb - Ra) / 400))."
    )

    #: Whether the profile shows the game's head-to-head rows (a kind with its own section for them says no).
    profile_head_to_head: ClassVar[bool] = True
