"""A result's league is validated against its players (issue 12 item 3), through HTTP on the production settings.

The rule (``matches.cleaning._check_league_players``, inside ``match_clean``,
so every path meets it): a player is in one league of a game, the one their
rating holds (promotion moves them up), or the amateur league until first
rated. A result filed under a league must be between players of that league
or a higher one: the pro league's results are between pros; the amateur
league, where everyone starts, takes anyone. A body without ``league`` is
filed under the amateur league (a correction without one keeps the match's).
A league the players are not in is a 400 naming ``league`` and stores
nothing, on the API, the entry page and a correction alike.

Two amateurs' result named "slaps-pro" used to be stored as the pro league's
(and, before the last issue, rated without the amateur league's two-step
confirmation).
"""

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from leagues.models import Game, League
from matches.models import Match
from ratings.models import PlayerRating
from tests.conftest import api_for
from tests.factories import PlayerFactory, bridge_evening_form
from tests.matches.rows import rows_changed, rows_snapshot
from tests.oracle_db import assert_ledger_is_the_oracles

pytestmark = pytest.mark.django_db

PLAYED = (timezone.now() - timedelta(days=1)).replace(microsecond=0)


def slaps(winner, loser, **extra) -> dict:
    body = {"game": "slaps", "played_at": PLAYED.isoformat(), "players": [winner.pk, loser.pk], "winner": winner.pk}
    return body | extra


def preferans(first, second, **extra) -> dict:
    seats = [{"player": first.pk}, {"player": second.pk}, {"bot": "normal"}]
    return {"game": "preferans", "played_at": PLAYED.isoformat(), "seats": seats, "deals": [[4, -2, -2]]} | extra


def bridge(players, **extra) -> dict:
    a, b, c, d, e, f, g, h = (player.pk for player in players)
    tables = [{"ns": [a, b], "ew": [c, d], "ns_score": 420}, {"ns": [e, f], "ew": [g, h], "ns_score": -50}]
    return {"game": "bridge", "played_at": PLAYED.isoformat(), "boards": [{"number": 1, "tables": tables}]} | extra


def promoted(referee, capture, *players):
    """Pros made the real way: the Slaps amateur threshold is lowered to 1010 and each player beats a
    newcomer once (1000 v 1000, E = 1/2, K = 32: 1016), which promotes them at that match."""
    League.objects.filter(slug="slaps-amateur").update(promotion_threshold=1010)
    earlier = {"played_at": (PLAYED - timedelta(hours=2)).isoformat()}
    with capture(execute=True):
        for player in players:
            body = slaps(player, PlayerFactory()) | earlier
            assert api_for(referee).post("/api/matches/", body, format="json").status_code == 201
    assert set(PlayerRating.objects.filter(player__in=players).values_list("league__slug", flat=True)) == {"slaps-pro"}
    return players


def amateurs_in_the_pro_league(first, second) -> str:
    return (
        "Slaps Pro (slaps-pro) takes results between players of that league or a higher one, but "
        f"{first.name} (id {first.pk}) and {second.name} (id {second.pk}) are in Slaps Amateur. "
        'File the result under "slaps-amateur" (the default when league is left out).'
    )


def test_two_amateurs_cannot_file_their_result_under_the_pro_league(production, reference_data, referee_client):
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    before = rows_snapshot()

    response = referee_client.post("/api/matches/", slaps(ann, bob, league="slaps-pro"), format="json")

    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"league": [amateurs_in_the_pro_league(ann, bob)]}
    assert rows_changed(before, rows_snapshot()) == {}
    # The same body with an Idempotency-Key: refused before the key is kept.
    keyed = referee_client.post(
        "/api/matches/", slaps(ann, bob, league="slaps-pro"), format="json", HTTP_IDEMPOTENCY_KEY="t9-r1"
    )
    assert keyed.status_code == 400
    assert list(keyed.json()) == ["league"]
    assert rows_changed(before, rows_snapshot()) == {}


@pytest.mark.parametrize("game", ["preferans", "bridge"])
def test_every_game_holds_its_pro_league_to_its_players(production, reference_data, referee_client, game):
    players = PlayerFactory.create_batch(8)
    body = (
        preferans(*players[:2], league="preferans-pro") if game == "preferans" else bridge(players, league="bridge-pro")
    )
    before = rows_snapshot()
    response = referee_client.post("/api/matches/", body, format="json")
    assert response.status_code == 400
    [message] = response.json()["league"]
    assert message.startswith(f"{game.title()} Pro ({game}-pro) takes results between players of that league")
    assert f'File the result under "{game}-amateur"' in message
    assert rows_changed(before, rows_snapshot()) == {}


def test_pros_may_file_under_either_league_and_a_mixed_result_goes_to_the_amateur_league(
    production, reference_data, referee, django_capture_on_commit_callbacks
):
    client = api_for(referee)
    pia, quin = promoted(
        referee, django_capture_on_commit_callbacks, PlayerFactory(name="Pia"), PlayerFactory(name="Quin")
    )
    ann = PlayerFactory(name="Ann")
    with django_capture_on_commit_callbacks(execute=True):
        between_pros = client.post("/api/matches/", slaps(pia, quin, league="slaps-pro"), format="json")
        pros_at_the_club_night = client.post("/api/matches/", slaps(quin, pia, league="slaps-amateur"), format="json")
        mixed = client.post("/api/matches/", slaps(pia, ann), format="json")  # Ann 984: still an amateur
    assert [r.status_code for r in (between_pros, pros_at_the_club_night, mixed)] == [201, 201, 201]
    assert [r.json()["league"] for r in (between_pros, pros_at_the_club_night, mixed)] == [
        "slaps-pro",
        "slaps-amateur",
        "slaps-amateur",
    ]
    # A pro and an amateur cannot be filed as the pro league's, whoever is named first.
    refused = client.post("/api/matches/", slaps(pia, ann, league="slaps-pro"), format="json")
    assert refused.status_code == 400
    assert f"but Ann (id {ann.pk}) is in Slaps Amateur." in refused.json()["league"][0]
    assert Match.objects.count() == 5
    assert assert_ledger_is_the_oracles(game=Game.objects.get(slug="slaps")) == 10


def test_the_entry_page_refuses_a_league_its_players_are_not_in(production, reference_data, referee):
    a, b, c, d, e, f, g, h = (player.pk for player in PlayerFactory.create_batch(8))
    form = bridge_evening_form([a, b, c, d, e, f, g, h], [(420, -50)], league="bridge-pro")
    page = Client()
    page.force_login(referee)
    before = rows_snapshot()
    inline = page.post("/results/bridge/", form, HTTP_HX_REQUEST="true")
    whole = page.post("/results/bridge/", form)
    assert inline.status_code == 200  # the form partial again, with the error in it
    assert whole.status_code == 400
    for response in (inline, whole):
        assert "Bridge Pro (bridge-pro) takes results between players of that league" in response.content.decode()
    assert rows_changed(before, rows_snapshot()) == {}
    # The amateur league, chosen on the same page, takes them.
    saved = page.post("/results/bridge/", form | {"league": "bridge-amateur"})
    assert saved.status_code == 302
    assert Match.objects.get().league.slug == "bridge-amateur"


def test_a_correction_is_held_to_the_same_rule(
    production, reference_data, referee, admin_user, django_capture_on_commit_callbacks
):
    client, admin = api_for(referee), api_for(admin_user)
    pia, quin = promoted(
        referee, django_capture_on_commit_callbacks, PlayerFactory(name="Pia"), PlayerFactory(name="Quin")
    )
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    cid, dan = PlayerFactory(name="Cid"), PlayerFactory(name="Dan")  # never rated: amateurs
    with django_capture_on_commit_callbacks(execute=True):
        amateur_id = client.post("/api/matches/", slaps(ann, bob), format="json").json()["id"]
        pro_id = client.post("/api/matches/", slaps(pia, quin, league="slaps-pro"), format="json").json()["id"]
    before = rows_snapshot()

    # Naming the pro league for two amateurs.
    named = admin.post(f"/api/matches/{amateur_id}/correct/", slaps(cid, dan, league="slaps-pro"), format="json")
    assert named.status_code == 400
    assert named.json() == {"league": [amateurs_in_the_pro_league(cid, dan)]}
    # Keeping the pro league (no league in the body) while the players become amateurs.
    kept = admin.post(f"/api/matches/{pro_id}/correct/", slaps(cid, dan), format="json")
    assert kept.status_code == 400
    assert kept.json() == {
        "league": [
            "Slaps Pro (slaps-pro), where this result is filed (a correction without league keeps it), takes "
            f"results between players of that league or a higher one, but Cid (id {cid.pk}) and Dan (id {dan.pk}) "
            'are in Slaps Amateur. File the result under "slaps-amateur".'
        ]
    }
    # The admin page's correction form says the same.
    page = Client()
    page.force_login(admin_user)
    form = page.post(f"/admin/matches/match/{pro_id}/correct/", {"body": json.dumps(slaps(cid, dan))})
    assert form.status_code == 400
    assert "where this result is filed (a correction without league keeps it)" in form.content.decode()
    assert rows_changed(before, rows_snapshot()) == {}

    # Named, the amateur league takes them.
    with django_capture_on_commit_callbacks(execute=True):
        moved = admin.post(f"/api/matches/{pro_id}/correct/", slaps(cid, dan, league="slaps-amateur"), format="json")
    assert (moved.status_code, moved.json()["league"]) == (200, "slaps-amateur")
    assert assert_ledger_is_the_oracles(game=Game.objects.get(slug="slaps")) == 8
