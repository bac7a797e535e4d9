"""What a Preferans game keeps beside its seats: its deals, each the whists of every seat."""

from django.db import models
from django.db.models import Q

from matches.models import Match


class Deal(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveIntegerField(help_text="1 for the first deal of the game.")
    whists = models.JSONField(help_text="Whists of every seat, in seat order; they sum to zero.")

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="deal_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="deal_number_positive"),
        ]

    def __str__(self) -> str:
        return f"Deal {self.number} of match {self.match_id}"
