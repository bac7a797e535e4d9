"""Matches: what was played, by whom, and the result.

Vocabulary:
    match     one played unit of a game with a ``played_at`` time. Rated
              matches count for ratings; friendlies (``rated=False``) are
              stored and shown but never rated (seed 000).
    seat      a participant of a match, in seat order: a player or (Preferans)
              a bot, with the points the seat scored (Slaps: 1 for the
              winner, 0 for the loser; Preferans: the game's total whists).
              A bot seat keeps the bot's rating and maximum *as played*
              (``bot_rating``, ``bot_max_rating``): ratings are computed
              from them, so editing a bot changes future games only.
    deal      a Preferans deal: the whists of every seat, in seat order,
              summing to zero. Each deal is a rated unit.
    board     a bridge board of a session, played at one or more tables;
              each board is a rated unit.
    table     one table of a board: the NS and EW pairs (partners stored
              lowest id first) and the NS score; a single table, or the
              first of a two-table team match, may carry the NS IMPs instead.
    status    ``submitted`` until the rating task has applied the match,
              then ``rated``; ``friendly`` for unrated matches; ``void`` once
              an admin voided it.
    dispute   a second referee's "this result is wrong", with a note, on a
              result waiting for confirmation (``matches.confirmation``): it
              stays unrated until an admin corrects or voids it.

Results are only written by ``matches.services``; admin and views call it.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _


class Match(models.Model):
    class Status(models.TextChoices):
        SUBMITTED = "submitted", _("Submitted")
        RATED = "rated", _("Rated")
        FRIENDLY = "friendly", _("Friendly")
        VOID = "void", _("Void")

    game = models.ForeignKey("leagues.Game", verbose_name=_("game"), on_delete=models.PROTECT, related_name="matches")
    played_at = models.DateTimeField(verbose_name=_("played at"))
    rated = models.BooleanField(verbose_name=_("rated"), default=True)
    status = models.CharField(verbose_name=_("status"), max_length=10, choices=Status.choices, default=Status.SUBMITTED)
    referee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("referee"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="refereed_matches",
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), auto_now_add=True)
    voided_at = models.DateTimeField(verbose_name=_("voided at"), null=True, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("voided by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="voided_matches",
    )
    league = models.ForeignKey(
        "leagues.League",
        verbose_name=_("league"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="matches",
        help_text=_("The league the match was played in, when it matters (its rating period)."),
    )
    idempotency_key = models.CharField(  # noqa: DJ001 - NULL is "no key" for the partial unique constraint
        verbose_name=_("idempotency key"),
        max_length=64,
        null=True,
        blank=True,
        help_text=_("The client's Idempotency-Key: a retried submission with the same key returns this match."),
    )
    idempotency_fingerprint = models.CharField(  # noqa: DJ001 - NULL exactly when there is no key
        verbose_name=_("idempotency fingerprint"),
        max_length=64,
        null=True,
        blank=True,
        help_text=_(
            "SHA-256 of the result the keyed request stored (its body as stored, canonical JSON): "
            "the same key with a body that would store anything else is refused (422)."
        ),
    )
    batch_head = models.ForeignKey(
        "self",
        verbose_name=_("batch head"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="batch_members",
        help_text=_(
            "Stored by one batch request (POST /api/matches/batch/): the batch's first match, which "
            "carries the batch's Idempotency-Key; empty for the first match itself and for a single submission."
        ),
    )
    awaiting_confirmation = models.BooleanField(
        verbose_name=_("awaiting confirmation"),
        default=False,
        help_text=_("Entered in a two-step league: not rated until a second referee confirms it."),
    )
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("confirmed by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="confirmed_matches",
    )
    due_at = models.DateTimeField(
        verbose_name=_("due at"),
        null=True,
        blank=True,
        help_text=_("When the result may be rated: the close of its league's rating period (empty: at once)."),
    )
    # A dispute (matches.confirmation.match_dispute): set together, cleared together by a correction or a void.
    disputed_at = models.DateTimeField(
        verbose_name=_("disputed at"), null=True, blank=True, help_text=_("When a second referee disputed the result.")
    )
    disputed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("disputed by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="disputed_matches",
    )
    dispute_note = models.CharField(
        verbose_name=_("dispute note"),
        max_length=1000,
        blank=True,
        default="",
        help_text=_("What the disputing referee says is wrong."),
    )
    facts = models.JSONField(
        verbose_name=_("facts"),
        default=dict,
        blank=True,
        help_text=_(
            "What the game's kind keeps about the result as a whole, beside its parts (bridge: the "
            "session's scoring, movement and event); its cleaner validates it."
        ),
    )

    class Meta:
        ordering = ["-played_at", "-id"]
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        permissions = [
            ("submit_result", "Can submit match results (referee)"),
            ("void_match", "Can void matches (admin)"),
        ]
        indexes = [
            models.Index(fields=["game", "played_at", "id"], name="match_game_order_idx"),
            models.Index(fields=["status", "created_at"], name="match_status_idx"),
            models.Index(fields=["status", "due_at"], name="match_due_idx"),
            # The menu's "To confirm (N)" on every page a referee reads: only the waiting rows are indexed.
            models.Index(
                fields=["referee"],
                condition=Q(awaiting_confirmation=True, status="submitted", disputed_at__isnull=True),
                name="match_to_confirm_idx",
            ),
        ]
        constraints = [
            # A friendly is never rated, and only friendlies carry that status.
            models.CheckConstraint(
                condition=(Q(rated=True) & ~Q(status="friendly"))
                | (Q(rated=False) & Q(status__in=["friendly", "void"])),
                name="match_status_matches_rated",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["submitted", "rated", "friendly", "void"]), name="match_status_valid"
            ),
            # One match per referee and key, whatever the races between retries.
            models.UniqueConstraint(
                fields=["referee", "idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="match_idempotency_key_once_per_referee",
            ),
            # A key without its fingerprint could not tell a retry from another request.
            models.CheckConstraint(
                condition=Q(idempotency_key__isnull=True) | Q(idempotency_fingerprint__isnull=False),
                name="match_idempotency_key_fingerprinted",
            ),
            # A dispute is whole (when, who, a note) and only on a result waiting for confirmation, unrated.
            models.CheckConstraint(
                condition=Q(disputed_at__isnull=True, disputed_by__isnull=True, dispute_note="")
                | (
                    Q(disputed_at__isnull=False, disputed_by__isnull=False, awaiting_confirmation=True)
                    & Q(status="submitted")
                    & ~Q(dispute_note="")
                ),
                name="match_dispute_whole_and_waiting",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} #{self.pk} ({self.played_at:%Y-%m-%d})"

    def get_absolute_url(self) -> str:
        return reverse("match-detail", args=[self.pk])

    @property
    def winner_seat(self):
        seats = sorted(self.seats.all(), key=lambda seat: seat.result, reverse=True)
        return seats[0] if seats and seats[0].result > 0 else None


def due_condition(now) -> Q:
    """Which submitted results may be rated at ``now``: confirmed where a league asks for it, and
    with no rating period (``due_at`` empty) or one closed by then.

    The rule's one statement: the rating code filters on it and selects it with each row it reads.
    """
    return Q(awaiting_confirmation=False) & (Q(due_at__isnull=True) | Q(due_at__lte=now))


class Seat(models.Model):
    match = models.ForeignKey(Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField(verbose_name=_("position"))
    player = models.ForeignKey(
        "leagues.Player",
        verbose_name=_("player"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
    )
    bot = models.ForeignKey(
        "leagues.Bot", verbose_name=_("bot"), null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    result = models.DecimalField(
        verbose_name=_("result"),
        max_digits=12,
        decimal_places=2,
        help_text=_("Points the seat scored (Slaps: 1 win, 0 loss; Preferans: whists)."),
    )
    bot_rating = models.DecimalField(
        verbose_name=_("bot rating"),
        max_digits=9,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("A bot seat: the bot's rating as played."),
    )
    bot_max_rating = models.DecimalField(
        verbose_name=_("bot max rating"),
        max_digits=9,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("A bot seat: the bot's maximum as played."),
    )

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["match", "position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="seat_unique_position"),
            models.UniqueConstraint(fields=["match", "player"], name="seat_player_once_per_match"),
            models.CheckConstraint(
                condition=Q(player__isnull=False, bot__isnull=True) | Q(player__isnull=True, bot__isnull=False),
                name="seat_player_xor_bot",
            ),
            # The bot as played: a bot seat has its rating and maximum, a player seat neither.
            models.CheckConstraint(
                condition=Q(bot__isnull=True, bot_rating__isnull=True, bot_max_rating__isnull=True)
                # NULL > 0 is not false, so the bot branch names NOT NULL explicitly.
                | Q(
                    bot__isnull=False,
                    bot_rating__isnull=False,
                    bot_max_rating__isnull=False,
                    bot_rating__gt=0,
                    bot_max_rating__gte=models.F("bot_rating"),
                ),
                name="seat_bot_as_played",
            ),
        ]
        indexes = [models.Index(fields=["player", "match"], name="seat_player_idx")]

    def __str__(self) -> str:
        return _("%(occupant)s in %(match)s") % {"occupant": self.occupant, "match": self.match_id}

    @property
    def occupant(self):
        return self.player if self.player_id else self.bot


class AuditEntry(models.Model):
    """Who submitted, corrected, confirmed, disputed or voided which result, and when; who merged two players or
    erased one (``ratings.people``). Append-only: the one exception is erasing a person, which takes
    their name out of the merge entries that named them (the log must not keep what was erased)."""

    class Action(models.TextChoices):
        SUBMITTED = "submitted", _("Submitted")
        CORRECTED = "corrected", _("Corrected")
        CONFIRMED = "confirmed", _("Confirmed")
        DISPUTED = "disputed", _("Disputed")
        VOIDED = "voided", _("Voided")
        MERGED = "merged", _("Players merged")
        ERASED = "erased", _("Player erased")
        SEASON = "season", _("Season closed")

    at = models.DateTimeField(verbose_name=_("at"), auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("actor"), null=True, on_delete=models.PROTECT, related_name="+"
    )
    action = models.CharField(verbose_name=_("action"), max_length=10, choices=Action.choices)
    match = models.ForeignKey(
        Match,
        verbose_name=_("match"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="audit_entries",
        help_text=_("The result the entry is about; none for an entry about people (a merge, an erasure)."),
    )
    data = models.JSONField(
        verbose_name=_("data"),
        default=dict,
        help_text=_(
            "The result as submitted, or before and after a correction; a dispute's note; the players merged or erased."
        ),
    )

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit entries")
        constraints = [
            # A result's entry names its match; an entry about people or a season's end names none.
            models.CheckConstraint(
                condition=Q(action__in=["merged", "erased", "season"], match__isnull=True)
                | (~Q(action__in=["merged", "erased", "season"]) & Q(match__isnull=False)),
                name="audit_entry_match_unless_people",
            ),
        ]

    def __str__(self) -> str:
        values = {
            "action": self.get_action_display(),
            "match": self.match_id,
            "actor": self.actor,
            "at": f"{self.at:%Y-%m-%d %H:%M}",
        }
        if self.match_id:
            return _("%(action)s match %(match)s by %(actor)s at %(at)s") % values
        if self.action == self.Action.SEASON:
            return _("%(action)s a season by %(actor)s at %(at)s") % values
        return _("%(action)s players by %(actor)s at %(at)s") % values

    def save(self, *args, **kwargs):
        if self.pk is not None and not self._state.adding:
            raise ValueError("Audit entries are never edited.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("Audit entries are never deleted.")


class ResultsVersion(models.Model):
    """A counter per game, raised (``matches.versions``) in the same transaction as every result write.

    Submitting (rated or friendly), confirming, correcting and voiding a result,
    and moving waiting results to a new rating period, each raise it. Cached
    pages that show results which can change without any rating change (a
    profile's recent matches: friendly, waiting or voided results) include it
    in their key. The row is updated last in each write, so its lock is held
    only until the commit; two writers of one game commit in counter order, and
    a reader that reads the counter before the results never caches results
    older than its key.
    """

    game = models.OneToOneField(
        "leagues.Game", primary_key=True, on_delete=models.CASCADE, related_name="results_version"
    )
    version = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"results of game {self.game_id}: version {self.version}"
