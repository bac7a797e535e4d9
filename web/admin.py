"""Admin of games, leagues and players: their rules feed the ratings.

Here, in the top layer, and not in ``leagues.admin``: saving a game's or a league's rules replays the game's
ratings (``ratings.services``) and refreshes the results' due dates (``matches.services``), a player's page
lists their ratings, merges and erases players (``ratings.people``), and a game's page runs tunings
(``ratings.tuning_runs``); leagues, the base layer, imports none of them. Admin groups pages by the model's
app, so they still show under "Games, leagues and players".
"""

import json
import math
from dataclasses import asdict

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods

from config.jsonbody import JSONFormField
from games.entry import entry_decimal
from leagues.admin import NameKeySearch
from leagues.models import Game, League, Player, Season
from leagues.services import player_federation_id_clean, player_name_clean
from matches.models import Seat
from matches.services import league_due_dates_refresh
from ratings.engines import REGISTRY, parameter_ranges
from ratings.evaluation import PARTS
from ratings.models import PlayerRating, TuningRun
from ratings.parameter_search import BUDGET
from ratings.parameters import range_words
from ratings.people import erased_name, player_erase, players_merge
from ratings.services import ratings_request_full_replay
from ratings.tuning_runs import (
    TuningRefused,
    tuning_candidate_label,
    tuning_estimate,
    tuning_results_count,
    tuning_run_candidate,
    tuning_run_changes,
    tuning_run_create,
    tuning_run_view,
)

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
    """A game's leagues on its page, compact: what tells them apart. A league's floor and rating period are
    on its own page (the link beside each row); all eight columns made the game's page 1,836 px wide."""

    model = League
    extra = 0
    show_change_link = True
    fields = [
        "name",
        "slug",
        "tier",
        "promotion_threshold",
        "requires_confirmation",
    ]


class GameForm(forms.ModelForm):
    """A game as admin edits it: parameters its engine would not understand are refused before they are saved,
    by the model's own check (``Game.parameters_validate``, run by the form's ``full_clean`` of the game)."""

    class Meta:
        model = Game
        fields = ["name", "slug", "rating_system", "start_rating", "parameters", "rating_list_period"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Added after the form's first clients (scripts posting the form, the tuning page's apply): left out, a
        # game keeps its period (a new one: monthly) rather than the form failing on a field it never sent.
        if "rating_list_period" in self.fields:  # not for a user who may only view the game (read-only fields)
            self.fields["rating_list_period"].required = False

    def clean_rating_list_period(self) -> str:
        chosen = self.cleaned_data.get("rating_list_period")
        return chosen or (self.instance.rating_list_period if self.instance.pk else Game.ListPeriod.MONTHLY)


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    form = GameForm
    list_display = ["name", "slug", "rating_system", "start_rating"]
    inlines = [LeagueInline]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["engine_defaults"]
    fields = ["name", "slug", "rating_system", "start_rating", "parameters", "engine_defaults", "rating_list_period"]
    # Parameters are read as API bodies are (depth-capped): Django's field raised RecursionError on deep nesting.
    formfield_overrides = {models.JSONField: {"form_class": JSONFormField}}

    class Media:
        css = {"all": ["css/admin.css"]}

    @admin.display(description=gettext_lazy("Engine parameters, their defaults and what they may be set to"))
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
                (name, value, f" ({range_words(ranges[name])})" if name in ranges else "")
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
            self.message_user(request, _("The rules changed: this game's ratings are being replayed."))

    # --- tuning on the game's own history (ratings.tuning_runs) ---

    def get_urls(self):
        view = self.admin_site.admin_view
        own = [
            path("<int:pk>/tuning/", view(self.tuning_view), name="leagues_game_tuning"),
            path(
                "<int:pk>/tuning/<int:run_id>/status/", view(self.tuning_status_view), name="leagues_game_tuning_status"
            ),
            path(
                "<int:pk>/tuning/<int:run_id>/apply/",
                view(require_http_methods(["GET", "POST"])(self.tuning_apply_view)),
                name="leagues_game_tuning_apply",
            ),
        ]
        return own + super().get_urls()

    def _tuning_game(self, request, pk) -> Game:
        game = get_object_or_404(Game, pk=pk)
        if not self.has_change_permission(request, game):
            raise PermissionDenied
        return game

    def _tuning_context(self, request, game, run, **extra):
        return {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": game,
            "game": game,
            "run": run,
            "title": _("Tune %(game)s's rating parameters") % {"game": game.name},
            **tuning_run_view(run),
            **extra,
        }

    def tuning_view(self, request, pk):
        """The game's latest tuning run, and a form to start one (POST: queue a run on the game's history)."""
        game = self._tuning_game(request, pk)
        if request.method == "POST":
            try:
                split = _posted_number(request, "split", PARTS[0])
                choose = _posted_number(request, "choose", PARTS[1])
                budget = _posted_number(request, "budget", BUDGET)
                if budget is not None and float(budget).is_integer():
                    budget = int(budget)
                if None in (split, choose, budget):
                    raise ValueError(_("The parts and the budget must be numbers."))
                run, new = tuning_run_create(game=game, user=request.user, split=split, choose=choose, budget=budget)
            except ValueError as error:
                self.message_user(request, str(error), messages.ERROR)
            else:
                if new:
                    self.message_user(request, _("Tuning queued: the page follows it."), messages.SUCCESS)
                else:
                    self.message_user(
                        request,
                        _("A tuning of %(game)s is already under way: the page follows it; nothing more was queued.")
                        % {"game": game.name},
                        messages.WARNING,
                    )
                return redirect(f"{reverse('admin:leagues_game_tuning', args=[game.pk])}?run={run.pk}")
        runs = TuningRun.objects.filter(game=game)
        run_id = request.GET.get("run", "")
        run = runs.filter(pk=run_id).first() if run_id.isdigit() else runs.first()
        extra = {"defaults": {"split": PARTS[0], "choose": PARTS[1], "budget": BUDGET}, **tuning_estimate(game=game)}
        return render(request, "admin/leagues/game/tuning.html", self._tuning_context(request, game, run, **extra))

    def tuning_status_view(self, request, pk, run_id):
        """The run's block alone, polled while the run is in progress; a finished run reloads the page (its chart)."""
        game = self._tuning_game(request, pk)
        run = get_object_or_404(TuningRun, pk=run_id, game=game)
        response = render(request, "admin/leagues/game/_tuning_run.html", self._tuning_context(request, game, run))
        if not run.in_progress:
            response["HX-Refresh"] = "true"
        return response

    def tuning_apply_view(self, request, pk, run_id):
        """Apply a candidate, after a confirmation, as admin's delete does: a GET (the Apply button), or a POST
        without ``confirm=apply``, only shows what applying would change (each parameter's current and candidate
        value, the replay) with Confirm and Cancel, and changes nothing. The confirmation's POST sets the game's
        parameters as the game's form would: a rule change, so the game replays."""
        game = self._tuning_game(request, pk)
        run = get_object_or_404(TuningRun, pk=run_id, game=game)
        back = f"{reverse('admin:leagues_game_tuning', args=[game.pk])}?run={run.pk}"
        confirmed = request.method == "POST" and request.POST.get("confirm") == "apply"
        index = _candidate_index((request.POST if request.method == "POST" else request.GET).get("candidate", ""))
        try:
            overrides = tuning_run_candidate(run=run, index=index)
        except TuningRefused as error:
            self.message_user(request, _("Nothing was changed: %(reason)s") % {"reason": error}, messages.ERROR)
            return redirect(back)
        changes = tuning_run_changes(game=game, overrides=overrides)
        if not changes:
            self.message_user(
                request,
                _("Nothing was changed: candidate %(index)s has the parameters %(game)s uses now.")
                % {"index": index, "game": game.name},
                messages.WARNING,
            )
            return redirect(back)
        if not confirmed:
            return self._tuning_confirmation(request, game=game, run=run, index=index, changes=changes)
        data = {
            "name": game.name,
            "slug": game.slug,
            "rating_system": game.rating_system,
            "start_rating": game.start_rating,
            "parameters": json.dumps(overrides),
        }
        form = GameForm(data, instance=game)
        if not form.is_valid():
            self.message_user(
                request, _("Nothing was changed: %(reason)s") % {"reason": form.errors.as_text()}, messages.ERROR
            )
            return redirect(back)
        with transaction.atomic():
            form.save()
            run.applied = index
            run.save(update_fields=["applied"])
            self.log_change(
                request, game, [{"changed": {"fields": ["parameters"]}}, f"Tuning run {run.pk}, candidate {index}"]
            )
            replaying = ratings_request_full_replay(game_id=game.pk)
        described = ", ".join(f"{change.name} {change.current} → {change.candidate}" for change in changes)
        message = (
            _("Candidate %(index)s applied (%(changes)s); %(game)s's ratings are being replayed.")
            if replaying
            else _("Candidate %(index)s applied (%(changes)s).")
        )
        self.message_user(
            request, message % {"index": index, "changes": described, "game": game.name}, messages.SUCCESS
        )
        return redirect(back)

    def _tuning_confirmation(self, request, *, game, run, index, changes):
        """The page that asks before a candidate is applied: what changes, what the replay does, Confirm, Cancel."""
        candidates = run.result["candidates"]
        candidate = candidates[index]
        current_index = run.result.get("current")
        current = candidates[current_index] if current_index is not None else candidates[0]
        label = tuning_candidate_label(
            rating_system=game.rating_system, parameters=candidate["parameters"], current=current["parameters"]
        )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": game,
            "game": game,
            "run": run,
            "index": index,
            "label": label,
            "changes": changes,
            "candidate": candidate,
            "current": current,
            "results": tuning_results_count(game=game),
            "title": _("Apply %(candidate)s to %(game)s?") % {"candidate": label, "game": game.name},
        }
        return TemplateResponse(request, "admin/leagues/game/tuning_apply.html", context)


def _posted_number(request, name: str, default: float) -> float | None:
    """A number the tuning form posted (a decimal comma read as the entry pages read it, ``entry_decimal``), its
    default if left out, None if it is not a finite number."""
    text = entry_decimal(request.POST.get(name, "")).strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _candidate_index(raw: str) -> int | None:
    """A candidate's index as posted, or None: ASCII digits only, and few (int() refuses 4,300 digits)."""
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 6 else None


class SeasonFormSet(forms.BaseInlineFormSet):
    """Seasons saved together must not overlap each other either (``Season.clean`` checks those stored)."""

    def clean(self):
        super().clean()
        for form in self.forms:
            season = form.instance
            if form.cleaned_data.get("DELETE") and season.pk and season.closed_at is not None:
                raise ValidationError(
                    _("The season %(name)s is over and its table frozen: it stays on the honours board.")
                    % {"name": season.name}
                )
        kept = [
            form.cleaned_data
            for form in self.forms
            if form.cleaned_data and not form.cleaned_data.get("DELETE") and form.cleaned_data.get("first_day")
        ]
        kept.sort(key=lambda season: season["first_day"])
        reaching = None  # the season, of those before, that ends last
        for season in kept:
            if reaching is not None and season["first_day"] <= reaching["last_day"]:
                raise ValidationError(
                    _("The seasons %(a)s and %(b)s overlap.") % {"a": reaching.get("name"), "b": season.get("name")}
                )
            if season.get("last_day") and (reaching is None or season["last_day"] > reaching["last_day"]):
                reaching = season


class SeasonInline(admin.TabularInline):
    """A league's seasons on its page (name, first and last day); they never overlap."""

    model = Season
    formset = SeasonFormSet
    extra = 0
    fields = ["name", "first_day", "last_day", "closed_at"]
    readonly_fields = ["closed_at"]


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
        "inactive_after_days",
    ]
    list_filter = ["game", "tier"]
    list_select_related = ["game"]
    inlines = [SeasonInline]

    class Media:
        css = {"all": ["css/admin.css"]}

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and set(form.changed_data) & PERIOD_FIELDS:
            league_due_dates_refresh(league=obj)
        if change and set(form.changed_data) & RULE_FIELDS and ratings_request_full_replay(game_id=obj.game_id):
            self.message_user(request, _("The league's rules changed: this game's ratings are being replayed."))


class PlayerRatingInline(admin.TabularInline):
    model = PlayerRating
    extra = 0
    can_delete = False
    fields = ["game", "league", "rating", "peak_rating", "rated_matches", "last_played_at"]
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
class PlayerAdmin(NameKeySearch, admin.ModelAdmin):
    """Players: rename, federation number (validated as the API does), merge two, erase one (``ratings.people``)."""

    form = PlayerAdminForm
    list_display = ["name", "federation_id", "user", "created_at", "erased_at"]
    search_fields = ["name", "=federation_id"]
    name_key_fields = ("search_name",)  # any case and script, ё undotted (leagues.admin.NameKeySearch)
    raw_id_fields = ["user"]
    readonly_fields = ["erased_at"]
    inlines = [PlayerRatingInline]
    actions = ["merge_players", "erase_players"]

    def has_merge_permission(self, request):
        # Merging changes one player and deletes the other: both rights (an action's own list needs only one).
        return self.has_change_permission(request) and self.has_delete_permission(request)

    @admin.action(
        description=gettext_lazy("Merge two selected players (one person entered twice)"), permissions=["merge"]
    )
    def merge_players(self, request, queryset):
        players = list(queryset.order_by("pk")[:3])
        if len(players) != 2:
            self.message_user(request, _("Select exactly two players to merge."), messages.ERROR)
            return None
        errors = []
        if request.POST.get("confirm") == "merge":
            keep_id = request.POST.get("keep")
            chosen = [player for player in players if str(player.pk) == keep_id]
            if not chosen:
                errors = [_("Choose the player to keep.")]
            else:
                keep = chosen[0]
                drop = players[1] if keep is players[0] else players[0]
                dropped_name = drop.name
                try:
                    players_merge(keep=keep, drop=drop, by=request.user)
                except ValidationError as error:
                    errors = [message for messages_ in error.message_dict.values() for message in messages_]
                else:
                    self.message_user(
                        request,
                        _("%(dropped)s was merged into %(kept)s; their games' ratings were replayed.")
                        % {"dropped": dropped_name, "kept": keep.name},
                        messages.SUCCESS,
                    )
                    return None
        counts = dict(
            Seat.objects.filter(player__in=players).values_list("player_id").annotate(n=Count("id")).order_by()
        )
        games = {
            player.pk: list(PlayerRating.objects.filter(player=player).select_related("game").order_by("game__name"))
            for player in players
        }
        context = {
            **self.admin_site.each_context(request),
            "title": _("Merge two players"),
            "opts": self.model._meta,
            "players": [(player, counts.get(player.pk, 0), games[player.pk]) for player in players],
            "errors": errors,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/leagues/player/merge.html", context, status=400 if errors else 200)

    @admin.action(
        description=gettext_lazy("Erase selected players (privacy request: results and ratings stay)"),
        permissions=["change"],
    )
    def erase_players(self, request, queryset):
        """Erase after a confirmation, as merging does: the action shows each player, their results and what
        erasing does and keeps; only the confirmation's POST (``confirm=erase``) erases (``ratings.people``)."""
        players = list(queryset.order_by("pk"))
        errors = []
        if request.POST.get("confirm") == "erase":
            erased = already = 0
            for player in players:
                if player.erased_at is not None:
                    already += 1
                    continue
                try:
                    player_erase(player=player, by=request.user)
                except ValidationError as error:
                    errors += [message for messages_ in error.message_dict.values() for message in messages_]
                else:
                    erased += 1
            if not errors:
                message = ngettext(
                    "Erased %(count)d player: their name and numbers are gone, their results and ratings stay.",
                    "Erased %(count)d players: their names and numbers are gone, their results and ratings stay.",
                    erased,
                ) % {"count": erased}
                if already:
                    message += " " + ngettext(
                        "%(count)d was erased already: unchanged.", "%(count)d were erased already: unchanged.", already
                    ) % {"count": already}
                self.message_user(request, message, messages.SUCCESS)
                return None
            players = list(queryset.order_by("pk"))  # as they are now: some may have been erased before the error
        counts = dict(
            Seat.objects.filter(player__in=players).values_list("player_id").annotate(n=Count("id")).order_by()
        )
        ratings: dict[int, list] = {}
        for rating in PlayerRating.objects.filter(player__in=players).select_related("game").order_by("game__name"):
            ratings.setdefault(rating.player_id, []).append(rating)
        context = {
            **self.admin_site.each_context(request),
            "title": ngettext("Erase %(count)d player?", "Erase %(count)d players?", len(players))
            % {"count": len(players)},
            "opts": self.model._meta,
            "players": [
                (player, counts.get(player.pk, 0), ratings.get(player.pk, []), erased_name(player.pk))
                for player in players
            ],
            "to_erase": sum(player.erased_at is None for player in players),
            "errors": errors,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/leagues/player/erase.html", context, status=400 if errors else 200)
