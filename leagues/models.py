"""Games, their leagues, and the people who play them.

Vocabulary:
    game         a card game and the rating system that rates it (``slaps``
                 uses ISF Elo, ``preferans`` SmartPref's per-deal rating,
                 ``bridge`` a pairs Elo); ``parameters`` overrides the
                 engine's defaults for this game.
    league       a tier inside a game. Every game has an amateur and a pro
                 league; players start in amateur and are promoted at the
                 rated unit that takes them to the amateur league's
                 threshold. The pro league's floor applies from the next unit
                 on and only stops a fall: a pro cannot fall below it (or,
                 if already below it, any further), and it never lifts one.
                 A result filed under a league is between players of that
                 league or a higher tier: the pro league's results are
                 between pros, the amateur league takes anyone.
    player       a person, optionally linked to a login.
    bot          a computer opponent of a difficulty (Preferans, seed 001): a
                 fixed rating, never rated itself, and a maximum rating that
                 no deal played with it can lift a player above. A seat keeps
                 both as played: editing a bot changes future games only.
"""

import datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils.functional import lazy
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from leagues.kinds import KINDS, kind_of
from leagues.names import name_key

# The longest inactivity setting a league takes (ten years): beyond it a date would leave the calendar's range.
INACTIVE_AFTER_DAYS_MAX = 3660


def rating_system_choices() -> list[tuple[str, str]]:
    """The rating systems a game can use, and their labels: the registered kinds' (``leagues.kinds``), as they
    are when asked.

    A callable, not a list made at import: a club's own game registers its kind at start-up, after this
    module is imported, and admin refused it as "not one of the available choices" (issue 26). A rating
    system without a kind could store a game that nothing could enter, show or rate."""
    return [(kind.slug, kind.system_label()) for kind in KINDS.values()]


class Game(models.Model):
    slug = models.SlugField(_("slug"), unique=True)
    name = models.CharField(pgettext_lazy("what a thing is called", "name"), max_length=100)
    rating_system = models.CharField(_("rating system"), max_length=20, choices=rating_system_choices)
    parameters = models.JSONField(
        _("parameters"),
        default=dict,
        blank=True,
        help_text=_('Overrides of the rating engine\'s defaults, e.g. {"k_provisional": 32}.'),
    )
    start_rating = models.DecimalField(_("start rating"), max_digits=9, decimal_places=2, default=1000)

    class ListPeriod(models.TextChoices):
        """How often the game's official rating list is published (``ratings.lists``), each closing at the end
        of the period's last day in the site's time zone."""

        MONTHLY = "monthly", _("Monthly")
        QUARTERLY = "quarterly", _("Quarterly")
        WEEKLY = "weekly", _("Weekly (closing on Sunday)")
        NONE = "none", _("Never (published by hand only)")

    rating_list_period = models.CharField(
        _("rating list period"),
        max_length=12,
        choices=ListPeriod.choices,
        default=ListPeriod.MONTHLY,
        help_text=_(
            "How often the periodic task publishes the official rating list; an admin may publish one for "
            "any past day with manage.py publish_rating_list."
        ),
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("game")
        verbose_name_plural = _("games")

    def __str__(self) -> str:
        return self.name

    def clean(self):
        super().clean()
        self.parameters_validate()

    def parameters_validate(self) -> None:
        """Raise a ValidationError on ``parameters`` the game's engine would reject, naming the parameter.

        The one statement of the rule: ``full_clean`` runs it, and so admin's
        game form (a ModelForm, with no rule of its own) refuses what the model
        refuses. The engine's own ``parameters_from_mapping`` decides: unknown
        names, values outside a parameter's range, values of the wrong type,
        pairs out of order.
        """
        kind = kind_of(self)
        if kind is None:
            return  # An unknown rating system is the rating_system field's error, not this one's.
        if not isinstance(self.parameters, dict):
            raise ValidationError({"parameters": [gettext("Parameters must be a JSON object.")]})
        problem = kind.parameters_problem(self.parameters)
        if problem is not None:
            raise ValidationError({"parameters": [problem]})

    @property
    def kind(self):
        """The game's kind (``leagues.kinds``): its cleaning, parts, pages and capabilities."""
        return kind_of(self)


class League(models.Model):
    class Tier(models.TextChoices):
        AMATEUR = "amateur", _("Amateur")
        PRO = "pro", _("Pro")

    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.PROTECT, related_name="leagues")
    slug = models.SlugField(_("slug"), unique=True)
    name = models.CharField(pgettext_lazy("what a thing is called", "name"), max_length=100)
    tier = models.CharField(_("tier"), max_length=10, choices=Tier.choices)
    promotion_threshold = models.DecimalField(
        _("promotion threshold"),
        max_digits=9,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("Reaching this rating moves a player up to the game's pro league (amateur leagues)."),
    )
    rating_floor = models.DecimalField(
        _("rating floor"),
        max_digits=9,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("The lowest rating a player in this league can fall to; empty for none."),
    )
    rating_period_days = models.PositiveSmallIntegerField(
        _("rating period days"),
        default=0,
        help_text=_(
            "0: results are rated as they arrive. N: results of matches filed under this league wait, "
            "and each N-day period is rated at its close, all from the ratings at its start (seed 003 used 3)."
        ),
    )
    requires_confirmation = models.BooleanField(
        _("requires confirmation"),
        default=False,
        help_text=_(
            "Two-step results: a rated result waits until a second referee confirms it. It covers every "
            "result filed under this league and every result with a player in this league when the result is "
            "entered or corrected, whichever page, API call or admin correction brings it in. Results entered "
            "before the setting was turned on are not recalled."
        ),
    )
    rating_period_anchor = models.DateField(
        _("rating period anchor"),
        default=datetime.date(2026, 1, 5),
        help_text=_("Periods run from this date in steps of the period length (midnight in the site's time zone)."),
    )
    inactive_after_days = models.PositiveSmallIntegerField(
        _("inactive after days"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(INACTIVE_AFTER_DAYS_MAX)],
        help_text=lazy(
            lambda: (
                _(
                    "Empty: nobody is ever inactive. N: a player of this league whose last rated result is N full "
                    "days old (days in the site's time zone) leaves the default leaderboard, keeps their rating and "
                    "comes back with their next rated result. From 1 to %(most)s."
                )
                % {"most": INACTIVE_AFTER_DAYS_MAX}
            ),
            str,
        )(),
    )

    class SeasonRule(models.TextChoices):
        POINTS = "points", _("Points per result")
        BEST = "best", _("Best results")
        RATING = "rating", _("Rating gained")

    season_rule = models.CharField(
        _("season table's rule"),
        max_length=10,
        choices=SeasonRule.choices,
        default=SeasonRule.POINTS,
        help_text=_(
            "How a season's table ranks the league's players: points per result (a win, a draw, a loss; at a "
            "table of more, each opponent counts as a result shared out; a bridge session by its placing), the "
            "best N results' points, or the rating gained in the season's results."
        ),
    )
    season_win_points = models.DecimalField(_("points for a win"), max_digits=5, decimal_places=2, default=2)
    season_draw_points = models.DecimalField(_("points for a draw"), max_digits=5, decimal_places=2, default=1)
    season_loss_points = models.DecimalField(_("points for a loss"), max_digits=5, decimal_places=2, default=0)
    season_best_of = models.PositiveSmallIntegerField(
        _("best N results"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("With the best-results rule: how many of a player's results count."),
    )
    season_min_results = models.PositiveSmallIntegerField(
        _("results to be listed"),
        default=1,
        validators=[MinValueValidator(1)],
        help_text=_("A player appears in a season's table with at least this many results in it."),
    )
    season_up = models.ForeignKey(
        "self",
        verbose_name=_("promotes to"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text=_("At a season's end its top players move to this league of the same game."),
    )
    season_up_count = models.PositiveSmallIntegerField(_("promoted players"), default=0)
    season_down = models.ForeignKey(
        "self",
        verbose_name=_("relegates to"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text=_("At a season's end its bottom players move to this league of the same game."),
    )
    season_down_count = models.PositiveSmallIntegerField(_("relegated players"), default=0)

    class Meta:
        ordering = ["game__name", "tier"]
        verbose_name = _("league")
        verbose_name_plural = _("leagues")
        constraints = [
            models.UniqueConstraint(fields=["game", "tier"], name="league_one_per_tier"),
            models.CheckConstraint(
                condition=Q(season_win_points__gte=F("season_draw_points"))
                & Q(season_draw_points__gte=F("season_loss_points"))
                & Q(season_loss_points__gte=0),
                name="league_season_points_ordered",
            ),
            models.CheckConstraint(
                condition=~Q(season_rule="best") | Q(season_best_of__isnull=False, season_best_of__gte=1),
                name="league_season_best_of_set",
            ),
            models.CheckConstraint(condition=Q(season_min_results__gte=1), name="league_season_min_results"),
            models.CheckConstraint(
                condition=(Q(season_up__isnull=True) & Q(season_up_count=0))
                | (Q(season_up__isnull=False) & Q(season_up_count__gte=1) & ~Q(season_up=F("pk"))),
                name="league_season_up_set",
            ),
            models.CheckConstraint(
                condition=(Q(season_down__isnull=True) & Q(season_down_count=0))
                | (Q(season_down__isnull=False) & Q(season_down_count__gte=1) & ~Q(season_down=F("pk"))),
                name="league_season_down_set",
            ),
            models.CheckConstraint(
                condition=Q(promotion_threshold__isnull=True) | Q(promotion_threshold__gt=0),
                name="league_threshold_positive",
            ),
            models.CheckConstraint(
                condition=Q(inactive_after_days__isnull=True)
                | Q(inactive_after_days__gte=1, inactive_after_days__lte=INACTIVE_AFTER_DAYS_MAX),
                name="league_inactive_after_days_range",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("league-leaderboard", args=[self.slug])

    def clean(self):
        super().clean()
        errors: dict[str, list[str]] = {}
        win, draw, loss = self.season_win_points, self.season_draw_points, self.season_loss_points
        if None not in (win, draw, loss) and not (win >= draw >= loss >= 0):
            errors["season_draw_points"] = [gettext("Points run win ≥ draw ≥ loss ≥ 0.")]
        if self.season_rule == self.SeasonRule.BEST and not self.season_best_of:
            errors["season_best_of"] = [gettext("The best-results rule needs how many results count.")]
        for field, count in (("season_up", "season_up_count"), ("season_down", "season_down_count")):
            target, moved = getattr(self, field), getattr(self, count)
            if target is None and moved:
                errors[field] = [gettext("Say which league the players move to, or move none.")]
            elif target is not None and not moved:
                errors[count] = [gettext("Say how many players move (at least 1), or choose no league.")]
            elif target is not None and (target.pk == self.pk and self.pk is not None):
                errors[field] = [gettext("Players move to another league, not this one.")]
            elif target is not None and self.game_id is not None and target.game_id != self.game_id:
                errors[field] = [gettext("Players move between leagues of the same game.")]
        if errors:
            raise ValidationError(errors)

    def period_bounds(self, moment: datetime.datetime) -> tuple[datetime.datetime, datetime.datetime] | None:
        """The rating period containing ``moment``: [start, end) in UTC, or None when results are rated at once.

        Periods are counted on the calendar of the site's time zone
        (``settings.TIME_ZONE``, not a request's active zone, so that every
        process agrees): period k starts at local midnight of
        ``rating_period_anchor + k * rating_period_days`` days. Across a
        daylight-saving change a period is an hour shorter or longer than
        ``rating_period_days * 24`` hours; adding fixed hours to an aware
        anchor would shift every later bound by that hour and put results
        just after local midnight into the previous period.
        """
        if not self.rating_period_days:
            return None
        from django.utils import timezone

        zone = timezone.get_default_timezone()
        days = self.rating_period_days
        local_day = moment.astimezone(zone).date()
        index = (local_day - self.rating_period_anchor).days // days
        first_day = self.rating_period_anchor + datetime.timedelta(days=index * days)
        return local_midnight(first_day, zone), local_midnight(first_day + datetime.timedelta(days=days), zone)

    def active_from(self, today: datetime.date) -> datetime.datetime | None:
        """The earliest moment a player's last rated result may have been played for them to be active on
        ``today`` (a day in the site's time zone), or None when nobody in this league is ever inactive.

        Inactive after ``inactive_after_days`` full days: a result played on day D keeps its player active
        through day D + N and inactive from day D + N + 1 (local midnight, as rating periods count days).
        """
        if self.inactive_after_days is None:
            return None
        from django.utils import timezone

        day = today - datetime.timedelta(days=self.inactive_after_days)
        return local_midnight(day, timezone.get_default_timezone())


class Season(models.Model):
    """A named stretch of a league's calendar (autumn, spring): from its first day to its last, both whole days
    in the site's time zone. A league's seasons never overlap, and a season ends on or after its first day:
    ``clean`` says so by field, and the database refuses a season that ends before it begins.

    Seasons' tables, honours and promotion at season end build on this (issue 27); the league's calendar of
    seasons is served as iCalendar (``web.feeds``).
    """

    league = models.ForeignKey(League, verbose_name=_("league"), on_delete=models.CASCADE, related_name="seasons")
    name = models.CharField(pgettext_lazy("what a thing is called", "name"), max_length=100)
    first_day = models.DateField(_("first day"))
    last_day = models.DateField(_("last day"))
    table_at = models.DateTimeField(
        _("table at"),
        null=True,
        blank=True,
        editable=False,
        help_text=_("When the season's table was last worked out."),
    )
    closed_at = models.DateTimeField(
        _("closed at"),
        null=True,
        blank=True,
        editable=False,
        help_text=_("When the season ended and its table was frozen (games.seasons.season_close); never again."),
    )

    class Meta:
        ordering = ["league", "first_day"]
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        constraints = [
            models.CheckConstraint(condition=Q(last_day__gte=F("first_day")), name="season_ends_after_it_begins"),
            models.UniqueConstraint(fields=["league", "first_day"], name="season_one_start_per_day"),
            models.UniqueConstraint(fields=["league", "name"], name="season_name_once_per_league"),
        ]

    def __str__(self) -> str:
        return f"{self.league} {self.name}"

    def clean(self):
        super().clean()
        if self.first_day is None or self.last_day is None:
            return
        if self.last_day < self.first_day:
            raise ValidationError({"last_day": gettext("A season ends on or after its first day.")})
        stored = Season.objects.filter(pk=self.pk).values("first_day", "last_day", "closed_at").first()
        if (
            stored
            and stored["closed_at"] is not None
            and (stored["first_day"], stored["last_day"])
            != (
                self.first_day,
                self.last_day,
            )
        ):
            raise ValidationError({"last_day": gettext("The season is over and its table frozen: its days stay.")})
        if self.league_id is None:
            return
        overlapping = (
            Season.objects.filter(league_id=self.league_id, first_day__lte=self.last_day, last_day__gte=self.first_day)
            .exclude(pk=self.pk)
            .order_by("first_day")
            .first()
        )
        if overlapping is not None:
            raise ValidationError(
                {
                    "first_day": gettext("%(league)s's season %(name)s (%(first)s to %(last)s) overlaps these days.")
                    % {
                        "league": self.league.name,
                        "name": overlapping.name,
                        "first": overlapping.first_day.isoformat(),
                        "last": overlapping.last_day.isoformat(),
                    }
                }
            )


class NamedQuerySet(models.QuerySet):
    """Writes that skip ``save`` keep a model's ``search_name`` in step with its ``name`` as well
    (``leagues.names.name_key``): ``bulk_create``, ``bulk_update`` and ``update``."""

    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        for row in objs:
            row.search_name = name_key(row.name)
        return super().bulk_create(objs, *args, **kwargs)

    bulk_create.alters_data = True

    def bulk_update(self, objs, fields, *args, **kwargs):
        objs, fields = list(objs), list(fields)
        if "name" in fields:
            for row in objs:
                row.search_name = name_key(row.name)
            if "search_name" not in fields:
                fields.append("search_name")
        return super().bulk_update(objs, fields, *args, **kwargs)

    bulk_update.alters_data = True

    def update(self, **kwargs):
        if "name" in kwargs and "search_name" not in kwargs:
            if not isinstance(kwargs["name"], str):
                raise TypeError("A name is updated with text, so that its search key can follow it.")
            kwargs["search_name"] = name_key(kwargs["name"])
        return super().update(**kwargs)

    update.alters_data = True


class NamedModel(models.Model):
    """A row named for a person whose ``search_name`` follows its ``name`` on ``save`` (``NamedQuerySet``
    for the other writes)."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        self.search_name = name_key(self.name)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "name" in update_fields and "search_name" not in update_fields:
            kwargs["update_fields"] = [*update_fields, "search_name"]
        super().save(*args, **kwargs)


class SeasonStanding(NamedModel):
    """A line of a season's table (``games.seasons``): worked out again while the season runs, frozen with it.

    The player is named as the table was made (``name``; an erasure renames it) and by id without a foreign
    key, like a rating list's rows: a frozen table outlives merges.
    """

    season = models.ForeignKey(Season, verbose_name=_("season"), on_delete=models.CASCADE, related_name="standings")
    rank = models.PositiveIntegerField(_("rank"))
    player_id = models.PositiveBigIntegerField(_("player id"))
    name = models.CharField(pgettext_lazy("of a person", "name"), max_length=100)
    #: ``name`` as search and name order read it (``leagues.names.name_key``; ``Player.search_name``).
    search_name = models.CharField(_("search name"), max_length=400, editable=False, default="")
    points = models.DecimalField(
        _("points"),
        max_digits=12,
        decimal_places=2,
        help_text=_("Points, best results' points, or rating gained, by the rule."),
    )
    results = models.PositiveIntegerField(
        _("results"), help_text=_("The player's results in the season that the table counts.")
    )
    won = models.PositiveIntegerField(_("won"), default=0)
    drawn = models.PositiveIntegerField(_("drawn"), default=0)
    lost = models.PositiveIntegerField(_("lost"), default=0)
    tied = models.BooleanField(_("tied"), default=False, help_text=_("Shares its rank with another line."))

    objects = NamedQuerySet.as_manager()

    class Meta:
        ordering = ["season", "rank", "search_name", "player_id"]
        verbose_name = _("season standing")
        verbose_name_plural = _("season standings")
        constraints = [
            models.UniqueConstraint(fields=["season", "player_id"], name="season_standing_once_per_player"),
            models.CheckConstraint(condition=Q(rank__gte=1), name="season_standing_rank_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.season}: {self.rank}. {self.name}"


class SeasonMove(models.Model):
    """A player promoted or relegated at a season's end (``games.seasons.season_close``): from that moment
    their league in the game is ``to_league``, and every replay of the game's ratings moves them again at
    ``at`` (``ratings.replay``), until a rating threshold of the game's leagues moves them on."""

    class Direction(models.TextChoices):
        UP = "up", pgettext_lazy("a season move", "Promoted")
        DOWN = "down", pgettext_lazy("a season move", "Relegated")

    season = models.ForeignKey(Season, verbose_name=_("season"), on_delete=models.CASCADE, related_name="moves")
    player = models.ForeignKey(
        "leagues.Player", verbose_name=_("player"), on_delete=models.CASCADE, related_name="season_moves"
    )
    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="+")
    from_league = models.ForeignKey(League, verbose_name=_("from league"), on_delete=models.CASCADE, related_name="+")
    to_league = models.ForeignKey(League, verbose_name=_("to league"), on_delete=models.CASCADE, related_name="+")
    direction = models.CharField(_("direction"), max_length=4, choices=Direction.choices)
    at = models.DateTimeField(_("at"), help_text=_("The season's end: local midnight after its last day, in UTC."))

    class Meta:
        ordering = ["at", "id"]
        verbose_name = _("season move")
        verbose_name_plural = _("season moves")
        indexes = [models.Index(fields=["game", "at"], name="season_move_game_at_idx")]
        constraints = [
            models.UniqueConstraint(fields=["season", "player"], name="season_move_once_per_player"),
            models.CheckConstraint(condition=~Q(from_league=F("to_league")), name="season_move_changes_league"),
        ]

    def __str__(self) -> str:
        values = {"player": self.player, "league": self.to_league, "season": self.season}
        if self.direction == self.Direction.UP:
            return gettext("%(player)s up to %(league)s (%(season)s)") % values
        if self.direction == self.Direction.DOWN:
            return gettext("%(player)s down to %(league)s (%(season)s)") % values
        return f"{self.player} {self.direction} to {self.to_league} ({self.season})"


def local_midnight(day: datetime.date, zone: datetime.tzinfo) -> datetime.datetime:
    """The instant ``day`` begins in ``zone``, in UTC.

    Where a zone skips midnight (its clocks jump from 23:59 to 01:00), the
    earlier offset (``fold=0``) names the instant of the jump, which is when
    the day begins; where midnight repeats, ``fold=0`` is its first passing.
    UTC results compare by instant whatever zone the other side is in.
    """
    return datetime.datetime.combine(day, datetime.time(), tzinfo=zone).astimezone(datetime.UTC)


class Player(NamedModel):
    name = models.CharField(pgettext_lazy("of a person", "name"), max_length=100)
    #: The name as search and name order read it (``leagues.names.name_key``): case folded, ё undotted, a
    #: Latin look-alike inside a Cyrillic word made Cyrillic (and the reverse), spaces collapsed. Every
    #: write of a name keeps it: ``save``, and the queryset's ``bulk_create``, ``bulk_update`` and ``update``.
    search_name = models.CharField(_("search name"), max_length=400, editable=False, default="")
    federation_id = models.CharField(
        _("federation id"),
        max_length=40,
        blank=True,
        default="",
        db_default="",  # rows written by code that predates the column (a migration's historical model) get none
        db_index=True,
        help_text=_("The player's federation or club number, as text (leading zeros matter); imports match by it."),
    )
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="player",
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    erased_at = models.DateTimeField(
        _("erased at"),
        null=True,
        blank=True,
        editable=False,
        help_text=_("When the person's details were erased on their request (ratings.people.player_erase)."),
    )

    objects = NamedQuerySet.as_manager()

    class Meta:
        ordering = ["search_name", "id"]
        verbose_name = _("player")
        verbose_name_plural = _("players")
        indexes = [
            models.Index(fields=["name"], name="player_name_idx"),
            # Name order and a search's beginnings (``games.pickers``); on PostgreSQL the column is in the "C"
            # collation (leagues migration 0019), so the order is SQLite's and a LIKE prefix reads this index.
            models.Index(fields=["search_name", "id"], name="player_search_name_idx"),
        ]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="player_name_not_empty"),
            # Two people may share a name, never a number: an import matching by it must find one.
            models.UniqueConstraint(
                fields=["federation_id"], condition=~Q(federation_id=""), name="player_federation_id_unique"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("player-profile", args=[self.pk])


class Bot(models.Model):
    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.PROTECT, related_name="bots")
    slug = models.SlugField(_("slug"), help_text=_("The difficulty, e.g. normal; API bodies name bots by it."))
    name = models.CharField(pgettext_lazy("what a thing is called", "name"), max_length=100)
    rating = models.DecimalField(_("rating"), max_digits=9, decimal_places=2, help_text=_("The bot's fixed rating."))
    max_rating = models.DecimalField(
        _("max rating"),
        max_digits=9,
        decimal_places=2,
        help_text=_("No deal played with this bot lifts a player above this rating (anti-farming)."),
    )
    active = models.BooleanField(_("active"), default=True, help_text=_("Inactive bots cannot be seated in new games."))

    class Meta:
        ordering = ["game", "rating"]
        verbose_name = _("bot")
        verbose_name_plural = _("bots")
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="bot_unique_slug_per_game"),
            models.CheckConstraint(condition=Q(rating__gt=0), name="bot_rating_positive"),
            models.CheckConstraint(condition=Q(max_rating__gte=models.F("rating")), name="bot_max_gte_rating"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.rating:.0f})"
