"""The rating ledger and the per-game rating state.

Vocabulary:
    player rating   one rating per player per game (the rating pool): the
                    current rating, the peak, the rated matches completed and
                    the league the player is in. Maintained only by
                    the rating services (written by ``ratings.ledger``).
    last played     the played_at of the player's latest ledger row in the game
                    (``PlayerRating.last_played_at``), kept by the ledger with the
                    rating, so a leaderboard tells active players from inactive
                    ones (``League.inactive_after_days``) without reading the ledger.
    rating change   an immutable ledger row per player per rated unit (a
                    Slaps match, a Preferans deal, a bridge board):
                    rating before and after, and the formula's inputs in
                    ``details``. It also carries the player's peak, count and
                    league after the unit, so a replay can restore the state
                    at any point from the last row before it.
    promotion       a recorded move from the amateur to the pro league.
    rating state    one row per game: the lock that serialises rating work
                    for the game, how far the ledger reaches
                    (``applied_until``), and where a pending replay must
                    start (``replay_from``), both as (played_at, match id).
"""

from decimal import Decimal

from django.db import models
from django.db.models import Q
from django.utils.dateparse import parse_datetime
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _


class PlayerRating(models.Model):
    player = models.ForeignKey(
        "leagues.Player", verbose_name=_("player"), on_delete=models.CASCADE, related_name="ratings"
    )
    game = models.ForeignKey(
        "leagues.Game", verbose_name=_("game"), on_delete=models.PROTECT, related_name="player_ratings"
    )
    league = models.ForeignKey(
        "leagues.League", verbose_name=_("league"), on_delete=models.PROTECT, related_name="player_ratings"
    )
    rating = models.DecimalField(verbose_name=_("rating"), max_digits=9, decimal_places=2)
    peak_rating = models.DecimalField(verbose_name=_("peak rating"), max_digits=9, decimal_places=2)
    rated_matches = models.PositiveIntegerField(verbose_name=_("rated matches"), default=0)
    last_played_at = models.DateTimeField(
        verbose_name=_("last played at"),
        null=True,
        blank=True,
        help_text=_(
            "When the player's last rated result in this game was played (the latest played_at of their "
            "ledger rows): what a league's inactivity setting is judged by."
        ),
    )
    updated_at = models.DateTimeField(verbose_name=_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("player rating")
        verbose_name_plural = _("player ratings")
        ordering = ["-rating"]
        constraints = [
            models.UniqueConstraint(fields=["player", "game"], name="player_rating_one_per_game"),
            models.CheckConstraint(
                condition=Q(peak_rating__gte=models.F("rating")), name="player_rating_peak_gte_rating"
            ),
        ]
        indexes = [
            models.Index(fields=["league", "-rating"], name="player_rating_current_idx"),
            models.Index(fields=["league", "-peak_rating"], name="player_rating_peak_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.game}: {self.rating}"


class RatingChange(models.Model):
    # The ledger is the largest table (a row per player per deal), derived
    # from the results and rewritten in bulk by replays, so it carries only
    # the indexes its reads use (the composite ones below start with game,
    # match and player) and no database foreign keys: PostgreSQL checks each
    # one per row at commit, a large share of a replay's time (docs/performance.md). Its one
    # writer takes every id from rows it has just read under the game's
    # lock, matches are never deleted (they are voided), and the ORM still
    # refuses to delete a game, match, player or league the ledger names.
    game = models.ForeignKey(
        "leagues.Game",
        verbose_name=_("game"),
        on_delete=models.PROTECT,
        related_name="rating_changes",
        db_index=False,
        db_constraint=False,
    )
    match = models.ForeignKey(
        "matches.Match",
        verbose_name=_("match"),
        on_delete=models.PROTECT,
        related_name="rating_changes",
        db_index=False,
        db_constraint=False,
    )
    player = models.ForeignKey(
        "leagues.Player",
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="rating_changes",
        db_index=False,
        db_constraint=False,
    )
    unit = models.PositiveIntegerField(
        verbose_name=_("unit"), default=0, help_text=_("The rated unit inside the match (deal or board); 0 for Slaps.")
    )
    played_at = models.DateTimeField(
        verbose_name=_("played at"),
        help_text=_("Copied from the match: the ledger's order is (played_at, match, unit)."),
    )
    rating_before = models.DecimalField(verbose_name=_("rating before"), max_digits=9, decimal_places=2)
    rating_after = models.DecimalField(verbose_name=_("rating after"), max_digits=9, decimal_places=2)
    delta = models.DecimalField(verbose_name=_("delta"), max_digits=9, decimal_places=2)
    peak_after = models.DecimalField(verbose_name=_("peak after"), max_digits=9, decimal_places=2)
    rated_matches_after = models.PositiveIntegerField(verbose_name=_("rated matches after"))
    league_after = models.ForeignKey(
        "leagues.League",
        verbose_name=_("league after"),
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    details = models.JSONField(
        verbose_name=_("details"), default=dict, help_text=_("The formula's inputs: expected score, K, ...")
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        ordering = ["game", "played_at", "match_id", "unit"]
        constraints = [
            # Applying a match twice can never write a second row.
            models.UniqueConstraint(fields=["match", "unit", "player"], name="rating_change_once_per_unit"),
            # Within half a cent: SQLite stores decimals as floating point.
            models.CheckConstraint(
                condition=Q(delta__gte=models.F("rating_after") - models.F("rating_before") - Decimal("0.005"))
                & Q(delta__lte=models.F("rating_after") - models.F("rating_before") + Decimal("0.005")),
                name="rating_change_delta_consistent",
            ),
        ]
        indexes = [
            models.Index(fields=["game", "played_at", "match"], name="rating_change_order_idx"),
            models.Index(fields=["player", "game", "played_at", "match", "unit"], name="rating_change_player_idx"),
        ]

    def __str__(self) -> str:
        return _("%(player)s %(delta)s in match %(match)s") % {
            "player": self.player,
            "delta": ("+" if self.delta >= 0 else "\u2212") + number_format(abs(self.delta), 2),
            "match": self.match_id,
        }

    def save(self, *args, **kwargs):
        # The ledger is append-only: a replay deletes rows from its start and
        # writes new ones; no row is ever edited in place.
        if self.pk is not None and not self._state.adding:
            raise ValueError("Rating changes are immutable.")
        super().save(*args, **kwargs)


class Promotion(models.Model):
    player = models.ForeignKey(
        "leagues.Player", verbose_name=_("player"), on_delete=models.CASCADE, related_name="promotions"
    )
    game = models.ForeignKey("leagues.Game", verbose_name=_("game"), on_delete=models.PROTECT, related_name="+")
    from_league = models.ForeignKey(
        "leagues.League", verbose_name=_("from league"), on_delete=models.PROTECT, related_name="+"
    )
    to_league = models.ForeignKey(
        "leagues.League", verbose_name=_("to league"), on_delete=models.PROTECT, related_name="+"
    )
    match = models.ForeignKey(
        "matches.Match", verbose_name=_("match"), on_delete=models.PROTECT, related_name="promotions"
    )
    played_at = models.DateTimeField(verbose_name=_("played at"))
    rating = models.DecimalField(verbose_name=_("rating"), max_digits=9, decimal_places=2)

    class Meta:
        verbose_name = _("promotion")
        verbose_name_plural = _("promotions")
        ordering = ["-played_at"]
        constraints = [
            models.UniqueConstraint(fields=["player", "match", "to_league"], name="promotion_once_per_match"),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.from_league} -> {self.to_league}"


class RatingState(models.Model):
    game = models.OneToOneField(
        "leagues.Game", verbose_name=_("game"), on_delete=models.CASCADE, related_name="rating_state"
    )
    applied_until_played_at = models.DateTimeField(verbose_name=_("applied until played at"), null=True, blank=True)
    applied_until_match_id = models.BigIntegerField(verbose_name=_("applied until match id"), null=True, blank=True)
    replay_from_played_at = models.DateTimeField(verbose_name=_("replay from played at"), null=True, blank=True)
    replay_from_match_id = models.BigIntegerField(verbose_name=_("replay from match id"), null=True, blank=True)
    updated_at = models.DateTimeField(verbose_name=_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("rating state")
        verbose_name_plural = _("rating states")
        constraints = [
            models.CheckConstraint(
                condition=Q(applied_until_played_at__isnull=True, applied_until_match_id__isnull=True)
                | Q(applied_until_played_at__isnull=False, applied_until_match_id__isnull=False),
                name="rating_state_applied_pair",
            ),
            models.CheckConstraint(
                condition=Q(replay_from_played_at__isnull=True, replay_from_match_id__isnull=True)
                | Q(replay_from_played_at__isnull=False, replay_from_match_id__isnull=False),
                name="rating_state_replay_pair",
            ),
        ]

    def __str__(self) -> str:
        return _("Rating state of %(game)s") % {"game": self.game}


class TuningRun(models.Model):
    """One tuning of a game's parameters on its own history (``ratings.tuning_runs``), kept for admin to apply.

    ``fingerprint`` is what the run was computed from (``ratings.evaluation.game_fingerprint``: the results
    version, the rating system, the parameters and the start rating): a candidate of a run whose
    fingerprint is no longer the game's is refused.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    game = models.ForeignKey(
        "leagues.Game", verbose_name=_("game"), on_delete=models.CASCADE, related_name="tuning_runs"
    )
    user = models.ForeignKey(
        "auth.User", verbose_name=_("user"), null=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(verbose_name=_("status"), max_length=16, choices=Status.choices, default=Status.QUEUED)
    # The parts of the history, by count of results in time order: fit (``split``), choose, and the rest, the
    # report part (ratings.evaluation.PARTS); and the most replays the search may use (parameter_search.BUDGET).
    split = models.FloatField(verbose_name=_("fit part"), default=0.5)
    choose = models.FloatField(verbose_name=_("choosing part"), default=0.25)
    budget = models.PositiveIntegerField(verbose_name=_("replays at most"), default=200)
    # Where a running search is (ratings.parameter_search.Progress, written after each round).
    progress = models.JSONField(verbose_name=_("progress"), default=dict, blank=True)
    fingerprint = models.CharField(verbose_name=_("fingerprint"), max_length=64, blank=True)
    result = models.JSONField(verbose_name=_("result"), default=dict, blank=True)  # ratings.evaluation.Tuning.as_dict()
    error = models.TextField(verbose_name=_("error"), blank=True)
    applied = models.PositiveIntegerField(
        verbose_name=_("applied"), null=True, blank=True
    )  # the index of the candidate applied
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)
    finished_at = models.DateTimeField(verbose_name=_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("tuning run")
        verbose_name_plural = _("tuning runs")
        ordering = ["-created_at", "-id"]
        constraints = [
            # One tuning of a game at a time: a second Tune click finds the first (ratings.tuning_runs).
            models.UniqueConstraint(
                fields=["game"], condition=Q(status__in=["queued", "running"]), name="tuning_run_one_active_per_game"
            ),
            # Each part at least ratings.evaluation.PART_MIN of the results, the budget within the search's.
            models.CheckConstraint(
                condition=Q(split__gte=0.05, choose__gte=0.05, split__lte=0.950001 - models.F("choose")),
                name="tuning_run_parts_in_range",
            ),
            models.CheckConstraint(condition=Q(budget__gte=1, budget__lte=2000), name="tuning_run_budget_in_range"),
        ]

    def __str__(self) -> str:
        return _("Tuning of %(game)s (%(status)s)") % {"game": self.game, "status": self.get_status_display()}

    @property
    def split_at(self):
        """When the newer (scored) part of the history begins, as a datetime (the result keeps it as text)."""
        text = (self.result or {}).get("split_at")
        return parse_datetime(text) if text else None

    @property
    def report_at(self):
        """When the report part of the history begins (three parts), as a datetime, or None."""
        text = (self.result or {}).get("report_at")
        return parse_datetime(text) if text else None

    @property
    def in_progress(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)


class FigureState(models.Model):
    """Whether a game's kept figures (``ratings.figures``) are to be computed, and whether a run is at it.

    ``wanted``: a computation was asked for and a task sent; another request while it is set sends nothing
    (however many results or visitors ask, one task waits). ``running_since``: a run holds the game (a lease:
    one older than ``FIGURES_LEASE`` is taken to have died with its worker).
    """

    game = models.OneToOneField("leagues.Game", primary_key=True, on_delete=models.CASCADE, related_name="+")
    wanted = models.BooleanField(default=False)
    running_since = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Figures of game {self.game_id}"


class KeptFigure(models.Model):
    """One figure of a game that needs a replay or a scan of its history, as the last run computed it.

    ``name`` is one of the figures ``ratings.figures`` offers (a bounded set per game); ``value`` is its JSON
    (no names of people: ids only, named when shown), None while asked for and not yet computed.
    """

    game = models.ForeignKey("leagues.Game", on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=64)
    value = models.JSONField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "name"], name="kept_figure_one_per_name")]

    def __str__(self) -> str:
        return f"{self.name} of game {self.game_id}"


class RatingList(models.Model):
    """A game's official rating list: its ratings frozen at a closing time, published once and never changed.

    ``day`` is the list's closing day (the last day of its period, in the site's time zone); it closes at the
    end of that day (``closes_at``). A list holds every player rated by then (``RatingListRow``). Later
    results and corrections dated before the closing time move ratings (a replay, as always) and show in
    the next list's change; the list itself stays as published. An admin may republish a day explicitly:
    that is a new ``version``, the old one still readable (``ratings.lists``).
    """

    game = models.ForeignKey(
        "leagues.Game", verbose_name=_("game"), on_delete=models.PROTECT, related_name="rating_lists"
    )
    day = models.DateField(
        verbose_name=_("day"), help_text=_("The closing day: the list holds the ratings at the end of it.")
    )
    version = models.PositiveSmallIntegerField(verbose_name=_("version"), default=1)
    closes_at = models.DateTimeField(
        verbose_name=_("closes at"), help_text=_("The end of the closing day in the site's time zone.")
    )
    published_at = models.DateTimeField(verbose_name=_("published at"))
    players = models.PositiveIntegerField(verbose_name=_("players"), help_text=_("The rows of the list."))
    published_by = models.CharField(
        verbose_name=_("published by"),
        max_length=150,
        blank=True,
        help_text=_("Who published it: empty for the periodic task."),
    )

    class Meta:
        verbose_name = _("rating list")
        verbose_name_plural = _("rating lists")
        ordering = ["game", "-day", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["game", "day", "version"], name="rating_list_once_per_version"),
            models.CheckConstraint(condition=Q(version__gte=1), name="rating_list_version_from_one"),
        ]

    def __str__(self) -> str:
        if self.version > 1:
            return _("%(game)s %(day)s (version %(version)s)") % {
                "game": self.game,
                "day": self.day.isoformat(),
                "version": self.version,
            }
        return f"{self.game} {self.day.isoformat()}"


class RatingListRow(models.Model):
    """A player's line in a published list: rank, rating, peak and rated units at the closing time, the change
    since the previous list (null when new on it), and the marks of the day."""

    rating_list = models.ForeignKey(
        RatingList, verbose_name=_("rating list"), on_delete=models.CASCADE, related_name="rows"
    )
    rank = models.PositiveIntegerField(verbose_name=_("rank"))
    # No database foreign key: a merge deletes the player it drops, and the list stays as published (its
    # published name says who it was); erasing a player renames them, here too (ratings.people).
    player = models.ForeignKey(
        "leagues.Player",
        verbose_name=_("player"),
        on_delete=models.DO_NOTHING,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    name = models.CharField(
        verbose_name=_("name"), max_length=100, help_text=_("The player's name when the list was published.")
    )
    rating = models.DecimalField(verbose_name=_("rating"), max_digits=9, decimal_places=2)
    peak = models.DecimalField(verbose_name=_("peak"), max_digits=9, decimal_places=2)
    units = models.PositiveIntegerField(
        verbose_name=_("units"), help_text=_("Rated units (matches, deals, boards) by the closing time.")
    )
    change = models.DecimalField(verbose_name=_("change"), max_digits=9, decimal_places=2, null=True, blank=True)
    new = models.BooleanField(verbose_name=_("new"), default=False, help_text=_("Not on the previous list."))
    provisional = models.BooleanField(verbose_name=_("provisional"), default=False)
    inactive = models.BooleanField(verbose_name=_("inactive"), default=False)

    class Meta:
        verbose_name = _("rating list row")
        verbose_name_plural = _("rating list rows")
        ordering = ["rating_list", "rank", "name", "player_id"]
        constraints = [
            models.UniqueConstraint(fields=["rating_list", "player"], name="rating_list_row_one_per_player"),
            models.CheckConstraint(condition=Q(rank__gte=1), name="rating_list_row_rank_from_one"),
            models.CheckConstraint(
                condition=Q(new=True, change__isnull=True) | Q(new=False, change__isnull=False),
                name="rating_list_row_change_unless_new",
            ),
        ]
        indexes = [
            models.Index(fields=["rating_list", "rank"], name="rating_list_row_rank_idx"),
            models.Index(fields=["player", "rating_list"], name="rating_list_row_player_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.rank}. {self.name} {self.rating}"
