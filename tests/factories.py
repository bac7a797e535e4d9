"""factory-boy factories for the project's models."""

from datetime import timedelta

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone

from config.tokens import api_token_create
from games.bridge.scoring import board_vulnerability_name, possible_ns_scores
from leagues.models import Bot, Game, League, Player
from matches.models import Match, Seat


def reference_data_ensure() -> None:
    """The rows the data migrations create; transactional tests flush them, so re-create."""
    for slug, name, system in [
        ("slaps", "Slaps", "elo"),
        ("preferans", "Preferans", "preferans"),
        ("bridge", "Bridge", "bridge"),
    ]:
        game, _ = Game.objects.get_or_create(slug=slug, defaults={"name": name, "rating_system": system})
        League.objects.get_or_create(
            game=game,
            tier="amateur",
            defaults={"slug": f"{slug}-amateur", "name": f"{name} Amateur", "promotion_threshold": 1800},
        )
        League.objects.get_or_create(
            game=game, tier="pro", defaults={"slug": f"{slug}-pro", "name": f"{name} Pro", "rating_floor": 1800}
        )
    preferans = Game.objects.get(slug="preferans")
    for slug, name, rating, max_rating in [
        ("easy", "Easy bot", 1200, 1600),
        ("normal", "Normal bot", 1800, 2400),
        ("hard", "Hard bot", 2400, 3200),
    ]:
        Bot.objects.get_or_create(
            game=preferans, slug=slug, defaults={"name": name, "rating": rating, "max_rating": max_rating}
        )
    from django.contrib.auth.models import Permission

    group, _ = Group.objects.get_or_create(name="referees")
    group.permissions.add(Permission.objects.get(codename="submit_result", content_type__app_label="matches"))


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    name = factory.Sequence(lambda n: f"Player {n:04d}")


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("correct horse battery")


class RefereeFactory(UserFactory):
    username = factory.Sequence(lambda n: f"referee{n}")

    @factory.post_generation
    def referee_group(self, create, extracted, **kwargs):
        if create:
            self.groups.add(Group.objects.get(name="referees"))


class AdminFactory(UserFactory):
    username = factory.Sequence(lambda n: f"admin{n}")
    is_staff = True
    is_superuser = True


def api_token_for(user) -> str:
    """A new API token's secret for ``user``, issued as admin and ``createreferee`` issue one."""
    return api_token_create(user=user).secret


def slaps_match(*, winner: Player, loser: Player, played_at=None, rated=True, referee=None) -> Match:
    """A stored Slaps result, as ``match_submit`` would store it, not yet rated."""
    match = Match.objects.create(
        game=Game.objects.get(slug="slaps"),
        played_at=played_at or timezone.now() - timedelta(hours=1),
        rated=rated,
        status=Match.Status.SUBMITTED if rated else Match.Status.FRIENDLY,
        referee=referee,
    )
    Seat.objects.create(match=match, position=1, player=winner, result=1)
    Seat.objects.create(match=match, position=2, player=loser, result=0)
    return match


def bridge_evening_form(ids, scores, **extra) -> dict:
    """The bridge entry page's form for a two-table Mitchell evening: NS pair 1 (a, b) against EW pair 1
    (c, d) at table 1, NS pair 2 (e, f) against EW pair 2 (g, h) at table 2, one board per score pair."""
    a, b, c, d, e, f, g, h = ids
    form = {
        "movement": "mitchell", "tables": "2", "boards": str(len(scores)), "entry": "score", "scoring": "scores",
        "setup": f"mitchell-2-{len(scores)}", "played_at": "2026-11-01T19:00", "rated": "true",
        "pair-ns1-1": a, "pair-ns1-2": b, "pair-ew1-1": c, "pair-ew1-2": d,
        "pair-ns2-1": e, "pair-ns2-2": f, "pair-ew2-1": g, "pair-ew2-2": h,
    }  # fmt: skip
    for number, (first, second) in enumerate(scores, start=1):
        form |= {f"b{number}-t1-ns": "1", f"b{number}-t1-ew": "1", f"b{number}-t1-score": str(first)}
        form |= {f"b{number}-t2-ns": "2", f"b{number}-t2-ew": "2", f"b{number}-t2-score": str(second)}
    return form | extra


VULNERABILITIES = ("None", "NS", "EW", "All")


def board_vulnerable_for(number: int, scores) -> dict:
    """A board's ``vulnerability`` field where its number's would refuse the scores a test chose for their
    IMPs: the first vulnerability at which every score can happen (a test's arithmetic is about IMPs,
    which vulnerability does not change); nothing when the number's already fits, or when none does
    (the test means the scores to be refused)."""
    own = board_vulnerability_name(number)
    if all(score in possible_ns_scores(own) for score in scores):
        return {}
    fits = [v for v in VULNERABILITIES if all(score in possible_ns_scores(v) for score in scores)]
    return {"vulnerability": fits[0]} if fits else {}


def bridge_session_body(ids, played_at, scores, league=None) -> dict:
    """An API body for a two-table bridge session: pairs (a,b)-(c,d) and (e,f)-(g,h), one board per score pair."""
    a, b, c, d, e, f, g, h = ids
    body = {
        "game": "bridge",
        "played_at": played_at.isoformat(),
        "boards": [
            {
                "number": number,
                **board_vulnerable_for(number, (first, second)),
                "tables": [
                    {"ns": [a, b], "ew": [c, d], "ns_score": first},
                    {"ns": [e, f], "ew": [g, h], "ns_score": second},
                ],
            }
            for number, (first, second) in enumerate(scores, start=1)
        ],
    }
    if league:
        body["league"] = league
    return body


def figures_now(*games) -> None:
    """Run the kept figures' task (``ratings.figures``) for each game now, as the admin worker would once
    asked: inside a test's transaction the ask's on-commit task never runs by itself."""
    from ratings.figure_runs import figures_run
    from ratings.figures import figures_request

    for game in games:
        figures_request(game_id=game.pk)
        figures_run(game_id=game.pk)


#: A league's season settings as its admin page posts them untouched (the model's defaults).
LEAGUE_SEASON_FORM = {
    "season_rule": "points",
    "season_win_points": "2",
    "season_draw_points": "1",
    "season_loss_points": "0",
    "season_best_of": "",
    "season_min_results": "1",
    "season_up": "",
    "season_up_count": "0",
    "season_down": "",
    "season_down_count": "0",
}
