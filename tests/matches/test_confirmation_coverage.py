"""What a league's two-step setting covers (PRODUCT.md "A setting covers every result it claims to").

The rule (``matches.confirmation.match_needs_confirmation``): a rated result
waits for a second referee when the league it is filed under, or any league
one of its players is in when it is entered or corrected, requires it;
players not rated in the game yet are in its amateur league. So it holds
whichever way the result arrives: the three entry pages (which always file
Slaps and Preferans under amateur), the API, an import (the command and
admin's upload), and an admin's correction,
which is re-examined like a new entry and then waits for someone other than
the admin who corrected it. A league named in the body can add the
requirement, never remove it (issue 12 item 3; and only a league every
player may play in can be named: ``test_league_membership``).

Pros are made by giving them a pro ``PlayerRating``, as the rating task leaves one.
"""

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from leagues.models import Game, League
from matches.models import AuditEntry, Match
from matches.services import match_submit
from ratings.models import PlayerRating, RatingChange
from tests.conftest import api_for
from tests.factories import AdminFactory, PlayerFactory, RefereeFactory, bridge_evening_form

pytestmark = pytest.mark.django_db

PLAYED = (timezone.now() - timedelta(days=1)).replace(microsecond=0)


def make_pro(player, game_slug: str):
    game = Game.objects.get(slug=game_slug)
    PlayerRating.objects.create(
        player=player,
        game=game,
        league=League.objects.get(game=game, tier="pro"),
        rating=1850,
        peak_rating=1850,
        rated_matches=40,
    )
    return player


def pages_for(user):
    client = Client()
    client.force_login(user)
    return client


def slaps(winner, loser, **extra):
    return {
        "game": "slaps",
        "played_at": PLAYED.isoformat(),
        "players": [winner.pk, loser.pk],
        "winner": winner.pk,
    } | extra


def preferans(first, second, **extra):
    seats = [{"player": first.pk}, {"player": second.pk}, {"bot": "normal"}]
    return {"game": "preferans", "played_at": PLAYED.isoformat(), "seats": seats, "deals": [[4, -2, -2]]} | extra


def bridge(players, **extra):
    a, b, c, d, e, f, g, h = (player.pk for player in players)
    tables = [{"ns": [a, b], "ew": [c, d], "ns_score": 420}, {"ns": [e, f], "ew": [g, h], "ns_score": -50}]
    return {"game": "bridge", "played_at": PLAYED.isoformat(), "boards": [{"number": 1, "tables": tables}]} | extra


@pytest.fixture
def pro_two_step(reference_data):
    League.objects.filter(tier="pro").update(requires_confirmation=True)


def waiting(match_id: int) -> bool:
    """Waits for confirmation, and is not rated: no ledger row names it."""
    match = Match.objects.get(pk=match_id)
    assert match.awaiting_confirmation == (match.status == "submitted" and match.awaiting_confirmation)
    return (
        match.awaiting_confirmation
        and match.status == "submitted"
        and not RatingChange.objects.filter(match=match).exists()
    )


# --- the rule, at service level --------------------------------------------------------------


def test_a_pro_league_setting_covers_results_filed_under_amateur(pro_two_step, django_capture_on_commit_callbacks):
    referee = RefereeFactory()
    pro, ann, bob = make_pro(PlayerFactory(), "slaps"), PlayerFactory(), PlayerFactory()
    with django_capture_on_commit_callbacks(execute=True):
        with_pro = match_submit(referee=referee, data=slaps(ann, pro))
        amateurs = match_submit(referee=referee, data=slaps(ann, bob))
        friendly = match_submit(referee=referee, data=slaps(ann, pro, rated=False))
    assert with_pro.league.slug == "slaps-amateur"  # filed as the pages file it, still covered
    assert waiting(with_pro.pk)
    assert not Match.objects.get(pk=amateurs.pk).awaiting_confirmation
    assert Match.objects.get(pk=amateurs.pk).status == "rated"
    assert not Match.objects.get(pk=friendly.pk).awaiting_confirmation  # never rated, nothing to confirm


def test_naming_a_league_adds_the_requirement_and_never_removes_it(reference_data, django_capture_on_commit_callbacks):
    """Issue 12 item 3: two amateurs' result named "slaps-pro" used to skip the amateur league's confirmation;
    it is now refused, since the pro league's results are between pros (``test_league_membership``).
    Between pros, who may file under either league, the league named adds its requirement and never
    removes the one of the league they are in."""
    referee = RefereeFactory()
    ann, bob = make_pro(PlayerFactory(), "slaps"), make_pro(PlayerFactory(), "slaps")
    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=True)
    with django_capture_on_commit_callbacks(execute=True):
        filed_amateur = match_submit(referee=referee, data=slaps(ann, bob, league="slaps-amateur"))
    assert waiting(filed_amateur.pk)

    League.objects.filter(slug="slaps-amateur").update(requires_confirmation=False)
    League.objects.filter(slug="slaps-pro").update(requires_confirmation=True)
    with django_capture_on_commit_callbacks(execute=True):
        escaped = match_submit(referee=referee, data=slaps(ann, bob, league="slaps-amateur"))
        filed_pro = match_submit(referee=referee, data=slaps(ann, bob, league="slaps-pro"))
    assert escaped.league.slug == "slaps-amateur"
    assert waiting(escaped.pk)
    assert waiting(filed_pro.pk)


def test_a_result_waits_for_someone_other_than_its_referee(pro_two_step, django_capture_on_commit_callbacks):
    first, second = RefereeFactory(), RefereeFactory()
    pro, ann = make_pro(PlayerFactory(), "preferans"), PlayerFactory()
    created = api_for(first).post("/api/matches/", preferans(pro, ann), format="json").json()
    assert created["awaiting_confirmation"] is True
    assert api_for(first).post(f"/api/matches/{created['id']}/confirm/").status_code == 400
    with django_capture_on_commit_callbacks(execute=True):
        assert api_for(second).post(f"/api/matches/{created['id']}/confirm/").status_code == 200
    assert Match.objects.get(pk=created["id"]).status == "rated"
    assert RatingChange.objects.filter(match_id=created["id"], player=pro).exists()


# --- every entry path -------------------------------------------------------------------------


def slaps_page(client, winner, loser):
    form = {"player_a": winner.pk, "player_b": loser.pk, "winner": "a", "played_at": "2026-11-01T18:00"}
    return client.post("/results/slaps/", form, HTTP_HX_REQUEST="true")


def preferans_page(client, first, second):
    form = {"played_at": "2026-11-01T18:00", "rated": "true", "rows": "1", "seat-1": f"p:{first.pk}"}
    form |= {"seat-2": f"p:{second.pk}", "seat-3": "b:normal", "deal-1-1": "4", "deal-1-2": "-2", "deal-1-3": "-2"}
    return client.post("/results/preferans/", form, HTTP_HX_REQUEST="true")


def bridge_page(client, players):
    a, b, c, d, e, f, g, h = (player.pk for player in players)
    form = bridge_evening_form([a, b, c, d, e, f, g, h], [(420, -50)])
    return client.post("/results/bridge/", form, HTTP_HX_REQUEST="true")


ENTRY = {
    "slaps page": ("slaps", lambda referee, players: slaps_page(pages_for(referee), players[0], players[1])),
    "preferans page": ("preferans", lambda referee, players: preferans_page(pages_for(referee), *players[:2])),
    "bridge page": ("bridge", lambda referee, players: bridge_page(pages_for(referee), players)),
    "slaps API": (
        "slaps",
        lambda referee, players: api_for(referee).post("/api/matches/", slaps(*players[:2]), format="json"),
    ),
    "preferans API": (
        "preferans",
        lambda referee, players: api_for(referee).post("/api/matches/", preferans(*players[:2]), format="json"),
    ),
    "bridge API": (
        "bridge",
        lambda referee, players: api_for(referee).post("/api/matches/", bridge(players), format="json"),
    ),
}


@pytest.mark.parametrize("with_a_pro", [True, False], ids=["a pro seated", "amateurs only"])
@pytest.mark.parametrize("path", ENTRY.values(), ids=ENTRY.keys())
def test_every_entry_path_applies_the_rule(pro_two_step, path, with_a_pro, django_capture_on_commit_callbacks):
    game, enter = path
    players = PlayerFactory.create_batch(8)
    if with_a_pro:
        make_pro(players[1], game)  # the loser, or a bridge player at table 1
    with django_capture_on_commit_callbacks(execute=True):
        response = enter(RefereeFactory(), players)
    assert response.status_code in (200, 201), response.content[:500]
    match = Match.objects.get()
    assert match.awaiting_confirmation is with_a_pro
    assert match.status == ("submitted" if with_a_pro else "rated")
    assert RatingChange.objects.filter(match=match).exists() is not with_a_pro


# --- admin correction -------------------------------------------------------------------------


def test_a_correction_through_the_api_is_re_examined(pro_two_step, django_capture_on_commit_callbacks):
    referee, admin = RefereeFactory(), AdminFactory()
    ann, bob, pro = PlayerFactory(), PlayerFactory(), make_pro(PlayerFactory(), "slaps")
    with django_capture_on_commit_callbacks(execute=True):
        match_id = api_for(referee).post("/api/matches/", slaps(ann, bob), format="json").json()["id"]
    assert Match.objects.get(pk=match_id).status == "rated"
    assert PlayerRating.objects.get(player=ann).rating == 1016  # 1000 + 32 * (1 - 1/2)

    with django_capture_on_commit_callbacks(execute=True):
        corrected = api_for(admin).post(f"/api/matches/{match_id}/correct/", slaps(ann, pro), format="json")
    assert corrected.status_code == 200
    assert corrected.json()["awaiting_confirmation"] is True
    assert waiting(match_id)
    # Replayed without it: Ann's win over Bob no longer counts, and the corrected result not until confirmed.
    assert not RatingChange.objects.filter(player=ann).exists()
    assert not PlayerRating.objects.filter(player=ann).exists()

    refused = api_for(admin).post(f"/api/matches/{match_id}/confirm/")
    assert refused.status_code == 400
    assert "corrected" in refused.json()["non_field_errors"][0]
    with django_capture_on_commit_callbacks(execute=True):  # the referee who entered the first version may
        assert api_for(referee).post(f"/api/matches/{match_id}/confirm/").status_code == 200
    assert Match.objects.get(pk=match_id).status == "rated"
    actions = list(AuditEntry.objects.filter(match_id=match_id).order_by("id").values_list("action", "actor"))
    assert actions == [("submitted", referee.pk), ("corrected", admin.pk), ("confirmed", referee.pk)]

    # A confirmed result corrected again waits again: the confirmation was of the old version.
    with django_capture_on_commit_callbacks(execute=True):
        api_for(admin).post(f"/api/matches/{match_id}/correct/", slaps(pro, ann), format="json")
    match = Match.objects.get(pk=match_id)
    assert (match.awaiting_confirmation, match.confirmed_by) == (True, None)
    # And one corrected to amateurs only needs nobody: it is rated at once.
    with django_capture_on_commit_callbacks(execute=True):
        api_for(admin).post(f"/api/matches/{match_id}/correct/", slaps(bob, ann), format="json")
    match = Match.objects.get(pk=match_id)
    assert (match.awaiting_confirmation, match.status) == (False, "rated")


def test_a_correction_in_admin_is_re_examined(pro_two_step, django_capture_on_commit_callbacks):
    referee, admin = RefereeFactory(), AdminFactory()
    ann, bob, pro = (
        PlayerFactory(name="Ann"),
        PlayerFactory(name="Bob"),
        make_pro(PlayerFactory(name="Pia"), "preferans"),
    )
    with django_capture_on_commit_callbacks(execute=True):
        match = match_submit(referee=referee, data=preferans(ann, bob))
    assert Match.objects.get(pk=match.pk).status == "rated"
    url = f"/admin/matches/match/{match.pk}/correct/"
    with django_capture_on_commit_callbacks(execute=True):
        saved = pages_for(admin).post(url, {"body": json.dumps(preferans(ann, pro))})
    assert saved.status_code == 302
    assert waiting(match.pk)
    mine = pages_for(admin).get("/results/confirm/").content.decode()
    assert f'data-match="{match.pk}"' in mine
    assert "yours" in mine  # the admin wrote this version: no Confirm button for them
    theirs = pages_for(referee).get("/results/confirm/").content.decode()
    assert 'name="match"' in theirs


# --- the import, the fourth way in ------------------------------------------------------------


def _slaps_file(rows: list[tuple[str, str, str]]) -> bytes:
    """A Slaps CSV of import.md: one result an hour from a day ago, ``winner`` ``a`` or ``b``."""
    lines = ["played_at,player_a,player_b,winner"]
    lines += [f"{(PLAYED + timedelta(hours=i)).isoformat()},{a},{b},{w}" for i, (a, b, w) in enumerate(rows)]
    return ("\n".join(lines) + "\n").encode()


IMPORTED = [("Ada Pro", "Ben Amateur", "a"), ("Cleo New", "Dan New", "b")]


def _imported_waiting() -> dict[str, bool]:
    """For each imported result, by its first player's name: does it wait for a second referee?"""
    return {
        match.seats.order_by("position")[0].player.name: waiting(match.pk)
        for match in Match.objects.filter(game__slug="slaps").prefetch_related("seats__player")
    }


def test_an_import_by_the_command_applies_the_rule(pro_two_step, tmp_path, django_capture_on_commit_callbacks):
    """``manage.py import_results`` stores through the one write path: a result with a pro waits (the pro
    league asks for two steps), one between two new players (amateurs) is rated at once."""
    from django.core.management import call_command

    make_pro(PlayerFactory(name="Ada Pro"), "slaps")
    PlayerFactory(name="Ben Amateur")
    referee = RefereeFactory()
    path = tmp_path / "slaps.csv"
    path.write_bytes(_slaps_file(IMPORTED))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_results", str(path), "--game", "slaps", "--referee", referee.username, stdout=None)
    assert _imported_waiting() == {"Ada Pro": True, "Cleo New": False}
    assert RatingChange.objects.filter(match__awaiting_confirmation=False).count() == 2


def test_an_import_in_admin_applies_the_rule(pro_two_step, django_capture_on_commit_callbacks):
    """The same file through admin's upload, preview and confirmation (HTTP), by a staff referee."""
    from django.contrib.auth.models import Permission
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    from games.models import ImportRun

    make_pro(PlayerFactory(name="Ada Pro"), "slaps")
    PlayerFactory(name="Ben Amateur")
    importer = RefereeFactory(is_staff=True)
    importer.user_permissions.add(Permission.objects.get(codename="import_results", content_type__app_label="games"))
    client = pages_for(importer)
    form = {"game": Game.objects.get(slug="slaps").pk, "referee": importer.pk}
    with django_capture_on_commit_callbacks(execute=True):
        added = client.post(
            reverse("admin:games_importrun_add"), {**form, "file": SimpleUploadedFile("s.csv", _slaps_file(IMPORTED))}
        )
    assert added.status_code == 302, added.content.decode()[:1000]
    run = ImportRun.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        confirmed = client.post(reverse("admin:games_importrun_confirm", args=[run.pk]), {"sha256": run.sha256})
    assert confirmed.status_code == 302
    assert _imported_waiting() == {"Ada Pro": True, "Cleo New": False}
    run.refresh_from_db()
    assert (run.status, run.summary["results"]) == ("done", 2), run.summary
