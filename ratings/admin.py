"""Ratings are derived data: admin shows them, only the rating services write them.

Games, leagues and players are registered here too (below the ledger's
pages), not in ``leagues.admin``: a change to a game's or a league's rules
replays the game's ratings and refreshes the results' due dates, and a
player's page lists their ratings; leagues, the base layer, imports neither
ratings nor matches.
"""

from dataclasses import asdict

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.html import format_html_join

from config.admin import ReadOnlyAdmin
from config.jsonbody import JSONFormField
from leagues.models import Game, League, Player
from leagues.services import player_federation_id_clean, player_name_clean
from matches.services import league_due_dates_refresh
from ratings.engines import REGISTRY, parameter_ranges
from ratings.models import PlayerRating, Promotion, RatingChange, RatingState
from ratings.parameters import rating_parameters_validate
from ratings.services import ratings_request_full_replay


@admin.register(PlayerRating)
class PlayerRatingAdmin(ReadOnlyAdmin):
    list_display = ["player", "game", "league", "rating", "peak_rating", "rated_matches"]
    list_filter = ["game", "league"]
    search_fields = ["player__name"]
    list_select_related = ["player", "game", "league"]


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ["played_at", "match", "unit", "player", "rating_before", "rating_after", "delta"]
    list_filter = ["game"]
    search_fields = ["player__name"]
    list_select_related = ["player", "match", "match__game"]
    date_hierarchy = "played_at"


@admin.register(Promotion)
class PromotionAdmin(ReadOnlyAdmin):
    list_display = ["played_at", "player", "from_league", "to_league", "rating"]
    list_select_related = ["player", "from_league", "to_league"]


@admin.register(RatingState)
class RatingStateAdmin(ReadOnlyAdmin):
    list_display = ["game", "applied_until_played_at", "replay_from_played_at", "updated_at"]


# --- games, leagues and players: their rules feed the ratings ---------------------------------

# Changing any of these changes every rating computed from them: replay the game.
RULE_FIELDS = {
    "parameters",
    "start_rating",
    "rating_system",
    "promotion_threshold",
    "rating_floor",
    "rating_period_days",
    "rating_period_anchor",
}
PERIOD_FIELDS = {"rating_period_days", "rating_period_anchor"}


class LeagueInline(admin.TabularInline):
    model = League
    extra = 0
    fields = [
        "slug",
        "name",
        "tier",
        "promotion_threshold",
        "rating_floor",
        "rating_period_days",
        "rating_period_anchor",
        "requires_confirmation",
    ]


class GameForm(forms.ModelForm):
    """A game as admin edits it: parameters its engine would not understand are refused before they are saved."""

    class Meta:
        model = Game
        fields = ["name", "slug", "rating_system", "start_rating", "parameters"]

    def clean(self):
        cleaned = super().clean()
        if "rating_system" in cleaned and "parameters" in cleaned:
            try:
                rating_parameters_validate(
                    game=Game(rating_system=cleaned["rating_system"], parameters=cleaned["parameters"])
                )
            except ValidationError as error:
                self.add_error(None, error)
        return cleaned


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    form = GameForm
    list_display = ["name", "slug", "rating_system", "start_rating"]
    inlines = [LeagueInline]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["engine_defaults"]
    fields = ["name", "slug", "rating_system", "start_rating", "parameters", "engine_defaults"]
    # Parameters are read as API bodies are (depth-capped): Django's field raised RecursionError on deep nesting.
    formfield_overrides = {models.JSONField: {"form_class": JSONFormField}}

    @admin.display(description="Engine parameters, their defaults and what they may be set to")
    def engine_defaults(self, obj):
        system = REGISTRY.get(obj.rating_system) if obj else None
        if system is None:
            return "—"
        defaults = asdict(system.parameters_class())
        ranges = parameter_ranges(system.parameters_class)
        return format_html_join(
            ", ",
            "<code>{}</code> = {}{}",
            (
                (name, value, f" ({ranges[name].describe()})" if name in ranges else "")
                for name, value in sorted(defaults.items())
            ),
        )

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        changed = set(form.changed_data)
        for formset in formsets:
            for inline_form in formset.forms:
                changed |= set(inline_form.changed_data)
                if PERIOD_FIELDS & set(inline_form.changed_data) and inline_form.instance.pk:
                    league_due_dates_refresh(league=inline_form.instance)
        if change and changed & RULE_FIELDS and ratings_request_full_replay(game_id=form.instance.pk):
            self.message_user(request, "The rules changed: this game's ratings are being replayed.")


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "game",
        "tier",
        "promotion_threshold",
        "rating_floor",
        "rating_period_days",
        "requires_confirmation",
    ]
    list_filter = ["game", "tier"]
    list_select_related = ["game"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and set(form.changed_data) & PERIOD_FIELDS:
            league_due_dates_refresh(league=obj)
        if change and set(form.changed_data) & RULE_FIELDS and ratings_request_full_replay(game_id=obj.game_id):
            self.message_user(request, "The league's rules changed: this game's ratings are being replayed.")


class PlayerRatingInline(admin.TabularInline):
    model = PlayerRating
    extra = 0
    can_delete = False
    fields = ["game", "league", "rating", "peak_rating", "rated_matches"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


class PlayerAdminForm(forms.ModelForm):
    def clean_name(self):
        # The rules of names (leagues.services), as the API and the pages apply them.
        try:
            return player_name_clean(self.cleaned_data.get("name"))
        except ValidationError as error:
            raise ValidationError(error.message_dict["name"]) from error

    def clean_federation_id(self):
        try:
            return player_federation_id_clean(self.cleaned_data.get("federation_id"), player_id=self.instance.pk)
        except ValidationError as error:
            raise ValidationError(error.message_dict["federation_id"]) from error


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    form = PlayerAdminForm
    list_display = ["name", "federation_id", "user", "created_at"]
    search_fields = ["name", "=federation_id"]
    raw_id_fields = ["user"]
    inlines = [PlayerRatingInline]
