"""What a Durak game keeps beside its seats: each deal's loser, by seat."""

from django.db import models
from django.db.models import Q

from matches.models import Match


class Round(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="durak_rounds")
    number = models.PositiveSmallIntegerField(help_text="1 for the first deal of the game.")
    loser = models.PositiveSmallIntegerField(help_text="The seat left holding cards (1 for the first player).")

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="durak_round_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="durak_round_number_positive"),
            models.CheckConstraint(condition=Q(loser__gte=1, loser__lte=6), name="durak_round_loser_seat"),
        ]

    def __str__(self) -> str:
        return f"Deal {self.number} of match {self.match_id}"
