"""What a Preferans game keeps beside its seats: its deals, each the whists of every seat."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from matches.models import Match


class Deal(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="deals", verbose_name=_("match"))
    number = models.PositiveIntegerField(help_text=_("1 for the first deal of the game."), verbose_name=_("number"))
    whists = models.JSONField(
        help_text=_("Whists of every seat, in seat order; they sum to zero."), verbose_name=_("whists")
    )

    class Meta:
        verbose_name = _("deal")
        verbose_name_plural = _("deals")
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="deal_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="deal_number_positive"),
        ]

    def __str__(self) -> str:
        return _("Deal %(number)s of match %(match)s") % {"number": self.number, "match": self.match_id}
