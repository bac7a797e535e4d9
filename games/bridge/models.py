"""What a bridge session keeps beside its seats: its boards, and each board's tables (who sat where, the score)."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from matches.models import Match


class Board(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="boards")
    number = models.PositiveIntegerField(help_text=_("The board number as printed on the board."))
    position = models.PositiveIntegerField(help_text=_("Order of play inside the session, from 1."))
    dealer = models.CharField(max_length=1, choices=[(d, d) for d in "NESW"], help_text=_("Who dealt the board."))
    vulnerability = models.CharField(
        max_length=4,
        choices=[
            ("None", pgettext_lazy("bridge vulnerability", "None")),
            ("NS", "NS"),
            ("EW", "EW"),
            ("All", pgettext_lazy("bridge vulnerability", "All")),
        ],
        help_text=_(
            "Who is vulnerable: the board number's standard cycle unless the file or the evening says otherwise."
        ),
    )
    deal = models.CharField(
        max_length=80, blank=True, default="", help_text=_('The hand record as PBN deal text ("N:KQT6.AJT.T984.65 …").')
    )
    double_dummy = models.JSONField(
        null=True, blank=True, help_text=_('Tricks each declarer takes in each strain: {"N": {"C": 7, …, "NT": 8}, …}.')
    )
    par = models.JSONField(null=True, blank=True, help_text=_('The par result: {"score": NS score, "contracts": […]}.'))
    byes = models.JSONField(
        default=list,
        blank=True,
        help_text=_("Points pairs are credited without opponents (a bye, a phantom): not rated, in the standings."),
    )

    class Meta:
        ordering = ["match", "position"]
        verbose_name = _("board")
        verbose_name_plural = _("boards")
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="board_unique_position"),
            models.UniqueConstraint(fields=["match", "number"], name="board_unique_number"),
            models.CheckConstraint(condition=Q(dealer__in=list("NESW")), name="board_dealer_valid"),
            models.CheckConstraint(
                condition=Q(vulnerability__in=["None", "NS", "EW", "All"]), name="board_vulnerability_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"Board {self.number} of match {self.match_id}"


class BoardTable(models.Model):
    board = models.ForeignKey(Board, on_delete=models.CASCADE, related_name="tables")
    table = models.PositiveSmallIntegerField(help_text=_("Table number, from 1."))
    ns_1 = models.ForeignKey("leagues.Player", on_delete=models.PROTECT, related_name="+")
    ns_2 = models.ForeignKey("leagues.Player", on_delete=models.PROTECT, related_name="+")
    ew_1 = models.ForeignKey("leagues.Player", on_delete=models.PROTECT, related_name="+")
    ew_2 = models.ForeignKey("leagues.Player", on_delete=models.PROTECT, related_name="+")
    ns_score = models.IntegerField(null=True, blank=True)
    ns_imps = models.DecimalField(max_digits=5, decimal_places=2, null=True, blank=True)
    section = models.CharField(
        max_length=10, blank=True, default="", help_text=_("The section, when the evening has several.")
    )
    ns_pair = models.CharField(max_length=10, blank=True, default="", help_text=_("The NS pair's number, as text."))
    ew_pair = models.CharField(max_length=10, blank=True, default="", help_text=_("The EW pair's number, as text."))
    contract = models.CharField(max_length=6, blank=True, default="", help_text=_('"4SX", "3NT" or "Pass".'))
    declarer = models.CharField(max_length=1, blank=True, default="", choices=[(d, d) for d in "NESW"])
    tricks = models.PositiveSmallIntegerField(null=True, blank=True, help_text=_("Tricks declarer took."))
    lead = models.CharField(max_length=3, blank=True, default="", help_text=_('The opening lead, e.g. "SK".'))
    adjusted = models.JSONField(
        null=True,
        blank=True,
        help_text=_('An adjusted score instead of a played one: {"ns": "A+", "ew": "A-", "ns_points", "ew_points"}.'),
    )

    class Meta:
        ordering = ["board", "table"]
        verbose_name = _("board's table")
        verbose_name_plural = _("boards' tables")
        constraints = [
            models.UniqueConstraint(fields=["board", "table"], name="board_table_unique"),
            # A score or IMPs, never both; the second table of a team match scored in IMPs has neither.
            models.CheckConstraint(
                condition=Q(ns_score__isnull=True) | Q(ns_imps__isnull=True),
                name="board_table_score_or_imps",
            ),
            # An adjusted table was not played: no score, no IMPs (it is not rated).
            models.CheckConstraint(
                condition=Q(adjusted__isnull=True) | Q(ns_score__isnull=True, ns_imps__isnull=True),
                name="board_table_adjusted_unplayed",
            ),
            models.CheckConstraint(
                condition=Q(tricks__isnull=True) | Q(tricks__lte=13), name="board_table_tricks_valid"
            ),
            # Partners are stored lowest id first, so a pair has one spelling.
            models.CheckConstraint(condition=Q(ns_1__lt=models.F("ns_2")), name="board_table_ns_ordered"),
            models.CheckConstraint(condition=Q(ew_1__lt=models.F("ew_2")), name="board_table_ew_ordered"),
            models.CheckConstraint(
                condition=~Q(ns_1=models.F("ew_1"))
                & ~Q(ns_1=models.F("ew_2"))
                & ~Q(ns_2=models.F("ew_1"))
                & ~Q(ns_2=models.F("ew_2")),
                name="board_table_four_players",
            ),
        ]
        indexes = [
            models.Index(fields=["ns_1", "ns_2"], name="board_table_ns_pair_idx"),
            models.Index(fields=["ew_1", "ew_2"], name="board_table_ew_pair_idx"),
        ]

    def __str__(self) -> str:
        return f"Table {self.table} of {self.board}"
