"""The player history page's filters (``web.pages.player_history``), read from its query string.

Every field is optional; what is given must make sense (a known game and
league, real dates in order, an opponent's name of at most ``SEARCH_MAX``
characters), or the page answers 400 with the form saying why.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from leagues.models import Game, League
from ratings.selectors import SEARCH_MAX, HistoryFilter


class HistoryFilterForm(forms.Form):
    game = forms.ModelChoiceField(
        queryset=Game.objects.order_by("name"),
        to_field_name="slug",
        required=False,
        empty_label=_("Every game"),
        label=_("Game"),
    )
    league = forms.ModelChoiceField(
        queryset=League.objects.select_related("game").order_by("game__name", "tier", "name"),
        to_field_name="slug",
        required=False,
        empty_label=_("Every league"),
        label=_("League"),
    )
    since = forms.DateField(
        required=False, label=pgettext_lazy("first day", "From"), widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        required=False, label=pgettext_lazy("last day", "To"), widget=forms.DateInput(attrs={"type": "date"})
    )
    opponent = forms.CharField(required=False, max_length=SEARCH_MAX, label=_("Opponent's name"))
    # The pager's own parameter: read by the paginator (which shows the nearest page for any value).
    page = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean(self):
        cleaned = super().clean()
        since, until = cleaned.get("since"), cleaned.get("until")
        if since and until and since > until:
            raise forms.ValidationError(gettext("The first day comes after the last: swap them."))
        game, league = cleaned.get("game"), cleaned.get("league")
        if game and league and league.game_id != game.pk:
            self.add_error(
                "league",
                gettext("%(league)s is a league of %(its_game)s, not of %(game)s.")
                % {"league": league.name, "its_game": league.game.name, "game": game.name},
            )
        return cleaned

    def filters(self) -> HistoryFilter:
        data = self.cleaned_data
        return HistoryFilter(
            game=data.get("game"),
            league=data.get("league"),
            since=data.get("since"),
            until=data.get("until"),
            opponent=(data.get("opponent") or "").strip(),
        )
