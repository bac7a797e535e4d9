"""``manage.py import_results`` and ``export_results``: a club's Slaps and Preferans history in and out.

The ratings an import gives are checked against the same results entered one
by one through the API's service (``match_submit``, its rating task run as
on commit) into a second game with the same rules: the two ledgers must be
equal, row for row, players matched by name.
"""

from datetime import UTC, datetime, timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from games.importing import import_plan_read
from games.management.commands.import_results import PROGRESS_EVERY as IMPORT_PROGRESS_EVERY
from leagues.models import Bot, Game, League, Player
from leagues.services import player_create
from matches.models import AuditEntry, Match
from matches.services import match_record, match_submit
from ratings.models import PlayerRating, RatingChange
from ratings.services import ratings_process_game
from tests.factories import PlayerFactory, bridge_session_body

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parents[2]
START = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)


def twin_game(source_slug: str) -> Game:
    """An empty game with the rules and league shape of ``source_slug``."""
    source = Game.objects.get(slug=source_slug)
    game = Game.objects.create(
        slug=f"{source_slug}-twin",
        name=f"{source.name} twin",
        rating_system=source.rating_system,
        parameters=source.parameters,
        start_rating=source.start_rating,
    )
    for league in League.objects.filter(game=source):
        League.objects.create(
            game=game,
            slug=league.slug.replace(source_slug, game.slug),
            name=f"{league.name} twin",
            tier=league.tier,
            promotion_threshold=league.promotion_threshold,
            rating_floor=league.rating_floor,
            rating_period_days=league.rating_period_days,
        )
    return game


def ledger(game: Game) -> list[tuple]:
    return list(
        RatingChange.objects.filter(game=game)
        .order_by("played_at", "match_id", "unit", "player__name")
        .values_list("played_at", "unit", "player__name", "rating_before", "rating_after", "delta")
    )


def standings(game: Game) -> list[tuple]:
    return list(
        PlayerRating.objects.filter(game=game)
        .order_by("player__name")
        .values_list("player__name", "league__tier", "rating", "peak_rating", "rated_matches")
    )


def run_import(path, *args: str) -> str:
    out = StringIO()
    try:
        call_command("import_results", str(path), *args, stdout=out, stderr=out)
    except CommandError as error:
        raise AssertionError(out.getvalue()) from error
    return out.getvalue()


def refused(path, *args: str) -> str:
    """The command's refusal: its output (the problems) and its error; asserts nothing was stored."""
    matches, players = Match.objects.count(), Player.objects.count()
    out = StringIO()
    with pytest.raises(CommandError) as error:
        call_command("import_results", str(path), *args, stdout=out, stderr=out)
    assert Match.objects.count() == matches
    assert Player.objects.count() == players
    return out.getvalue() + str(error.value)


def write(tmp_path, name: str, text: str | bytes):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def slaps_csv(rows: list[tuple[str, str, str]]) -> str:
    lines = ["played_at,player_a,player_b,winner"]
    for index, (a, b, winner) in enumerate(rows):
        lines.append(f"{(START + timedelta(hours=index)).isoformat()},{a},{b},{winner}")
    return "\n".join(lines) + "\n"


NAMES = ["Ada Novak", "Ben Berg", "Cleo Costa", "Dmitri Sato"]
SLAPS_ROWS = [(NAMES[i % 4], NAMES[(i + 1 + (i // 4) % 3) % 4], "a" if i % 3 else "b") for i in range(24)]


def test_slaps_history_rates_as_the_same_results_entered_through_the_api(
    tmp_path, referee, django_capture_on_commit_callbacks
):
    path = write(tmp_path, "slaps.csv", slaps_csv(SLAPS_ROWS))
    out = run_import(path, "--game", "slaps", "--referee", referee.username)
    assert "24 results; players: 0 matched, 4 new, 0 ambiguous." in out
    assert "Imported 24 results (4 new players); 24 rated." in out
    assert Player.objects.count() == 4  # each created once, though named in many rows
    assert AuditEntry.objects.filter(match__game__slug="slaps").count() == 24

    twin = twin_game("slaps")
    ids = dict(Player.objects.values_list("name", "id"))
    for index, (a, b, winner) in enumerate(SLAPS_ROWS):
        body = {
            "game": twin.slug,
            "played_at": (START + timedelta(hours=index)).isoformat(),
            "players": [ids[a], ids[b]],
            "winner": ids[a] if winner == "a" else ids[b],
        }
        with django_capture_on_commit_callbacks(execute=True):
            match_submit(referee=referee, data=body)
    slaps = Game.objects.get(slug="slaps")
    assert len(ledger(slaps)) == 48
    assert ledger(slaps) == ledger(twin)
    assert standings(slaps) == standings(twin)


PREFERANS_CSV = """game,played_at,seat_1,seat_2,seat_3,seat_4,whists_1,whists_2,whists_3,whists_4
1,2026-03-01 18:00,Ada Novak,Ben Berg,bot:normal,,4,-2,-2,
1,,,,,,-6,3,3,
1,,,,,,1.5,-0.5,-1,
2,2026-03-02 18:00,Ben Berg,Cleo Costa,Ada Novak,Dmitri Sato,10,-4,-4,-2
2,,,,,,-3,1,1,1
"""
PREFERANS_BODIES = [
    ("2026-03-01T18:00:00+01:00", ["Ada Novak", "Ben Berg", "bot:normal"], [[4, -2, -2], [-6, 3, 3], [1.5, -0.5, -1]]),
    (
        "2026-03-02T18:00:00+01:00",
        ["Ben Berg", "Cleo Costa", "Ada Novak", "Dmitri Sato"],
        [[10, -4, -4, -2], [-3, 1, 1, 1]],
    ),
]


def test_preferans_history_with_bots_rates_as_the_api(tmp_path, referee, django_capture_on_commit_callbacks):
    path = write(tmp_path, "pref.csv", PREFERANS_CSV)
    out = run_import(path, "--game", "preferans", "--timezone", "Europe/Ljubljana", "--referee", referee.username)
    assert "Imported 2 results (4 new players); 2 rated." in out
    preferans = Game.objects.get(slug="preferans")
    first = Match.objects.filter(game=preferans).earliest("played_at")
    assert first.played_at == datetime(2026, 3, 1, 17, 0, tzinfo=UTC)  # 18:00 in Ljubljana (CET)
    assert [seat.bot.slug if seat.bot else seat.player.name for seat in first.seats.all()] == [
        "Ada Novak",
        "Ben Berg",
        "normal",
    ]

    twin = twin_game("preferans")
    Bot.objects.create(game=twin, slug="normal", name="Normal bot", rating=1800, max_rating=2400)
    ids = dict(Player.objects.values_list("name", "id"))
    for played_at, seats, deals in PREFERANS_BODIES:
        body = {
            "game": twin.slug,
            "played_at": played_at,
            "seats": [{"bot": "normal"} if seat.startswith("bot:") else {"player": ids[seat]} for seat in seats],
            "deals": deals,
        }
        with django_capture_on_commit_callbacks(execute=True):
            match_submit(referee=referee, data=body)
    assert len(ledger(preferans)) == 3 * 2 + 2 * 4
    assert ledger(preferans) == ledger(twin)
    assert standings(preferans) == standings(twin)


def test_people_matched_by_federation_number_then_by_name(tmp_path, referee):
    numbered = PlayerFactory(name="NOVAK Ada", federation_id="00123")  # the family name first: one name
    named = PlayerFactory(name="Ben  Berg".replace("  ", " "))
    text = (
        "played_at,player_a,player_a_id,player_b,player_b_id,winner\n"
        "2026-03-01T18:00Z,Ada Novak,00123,BEN   berg,,a\n"
        "2026-03-01T19:00Z,Cleo Costa,777,ben berg,,b\n"
        "2026-03-01T20:00Z,Cleo Costa,777,Ada Novak,00123,a\n"
    )
    out = run_import(write(tmp_path, "s.csv", text), "--game", "slaps", "--referee", referee.username)
    assert "players: 2 matched, 1 new, 0 ambiguous." in out
    assert f"matched: Ada Novak (00123) = #{numbered.pk} NOVAK Ada, by number" in out
    assert f"matched: BEN berg = #{named.pk} Ben Berg, by name" in out
    assert "new: Cleo Costa (777)" in out
    assert Player.objects.count() == 3
    cleo = Player.objects.get(federation_id="777")
    assert cleo.name == "Cleo Costa"
    played = {tuple(m.seats.values_list("player_id", flat=True)) for m in Match.objects.all()}
    assert played == {(numbered.pk, named.pk), (cleo.pk, named.pk), (cleo.pk, numbered.pk)}


def test_a_matched_player_keeps_the_files_federation_number(tmp_path, referee):
    ada = PlayerFactory(name="Ada Novak")
    text = "played_at,player_a,player_a_id,player_b,winner\n2026-03-01T18:00Z,Ada Novak,0042,Ben Berg,a\n"
    run_import(write(tmp_path, "s.csv", text), "--game", "slaps", "--referee", referee.username)
    ada.refresh_from_db()
    assert ada.federation_id == "0042"  # text: the leading zeros stay


def test_a_player_with_another_number_is_another_person(tmp_path, referee):
    PlayerFactory(name="Ada Novak", federation_id="1")
    text = "played_at,player_a,player_a_id,player_b,winner\n2026-03-01T18:00Z,Ada Novak,2,Ben Berg,a\n"
    out = run_import(write(tmp_path, "s.csv", text), "--game", "slaps", "--referee", referee.username)
    assert "new: Ada Novak (2)" in out
    assert Player.objects.filter(name="Ada Novak").count() == 2


def test_ambiguous_names_are_refused(tmp_path, referee):
    PlayerFactory(name="Ada Novak")
    PlayerFactory(name="Ada Novak")
    text = "played_at,player_a,player_b,winner\n2026-03-01T18:00Z,ada novak,Ben Berg,a\n"
    output = refused(write(tmp_path, "s.csv", text), "--game", "slaps", "--referee", referee.username)
    assert "players: 0 matched, 1 new, 1 ambiguous." in output
    assert "2 players have this name" in output
    assert "Nothing was imported." in output


def test_dry_run_stores_nothing(tmp_path, referee):
    path = write(tmp_path, "slaps.csv", slaps_csv(SLAPS_ROWS))
    out = run_import(path, "--game", "slaps", "--dry-run", "--referee", referee.username)
    assert "Dry run: 24 results would be imported; nothing was stored." in out
    assert not Match.objects.exists()
    assert not Player.objects.exists()
    assert not RatingChange.objects.exists()


def test_a_result_refused_when_stored_rolls_everything_back_and_names_its_line(tmp_path, referee):
    text = (
        "played_at,player_a,player_b,winner,league\n"
        "2026-03-01T18:00Z,Ada Novak,Ben Berg,a,\n"
        "2026-03-01T19:00Z,Ada Novak,Ben Berg,a,slaps-pro\n"  # newcomers are not pros
    )
    output = refused(write(tmp_path, "s.csv", text), "--game", "slaps", "--referee", referee.username)
    assert "line 3: league:" in output


def test_unknown_format_lists_the_games_formats(tmp_path, referee):
    path = write(tmp_path, "s.pbn", "% PBN 2.1\n")
    output = refused(path, "--game", "slaps", "--referee", referee.username)
    assert "cannot be read as 'pbn': the formats are csv, json" in output


HOSTILE = [
    (
        "latin1.csv",
        "played_at,player_a,player_b,winner\n2026-03-01T18:00Z,Zo\xeb,Ben,a\n".encode("latin-1"),
        "line 2",
        "not UTF-8",
    ),
    ("cut.csv", 'played_at,player_a,player_b,winner\n2026-03-01T18:00Z,Ada,"Ben', "line 2", "cannot be read"),
    ("short.csv", "played_at,player_a,player_b,winner\n2026-03-01T18:00Z,Ada,Ben\n", "line 2", "3 cells for 4 columns"),
    ("header.csv", "played_at,player_a,player_b\n2026-03-01T18:00Z,Ada,Ben\n", "line 1", "Missing column(s): winner"),
    ("typo.csv", "played_at,player_a,player_b,winer\n", "line 1", "Unknown column(s): winer"),
    (
        "date.csv",
        "played_at,player_a,player_b,winner\n2026-03-01T18:00Z,A,B,a\n31/02/2026,A,B,a\n",
        "line 3",
        "not a time",
    ),
    ("zone.csv", "played_at,player_a,player_b,winner\n2026-03-01 18:00,A,B,a\n", "line 2", "has no zone"),
    ("winner.csv", "played_at,player_a,player_b,winner\n2026-03-01T18:00Z,A,B,c\n", "line 2", "neither a nor b"),
    ("nul.csv", b"played_at,player_a,player_b,winner\n\x00\x00\n", "line 2", "NUL"),
    ("empty.csv", b"", "line 1", "empty"),
    (
        "deal.csv",
        "game,played_at,seat_1,seat_2,seat_3,whists_1,whists_2,whists_3\n1,2026-03-01T18:00Z,A,B,C,4,-2,-1\n",
        "line 2",
        "sum to +1",
    ),
    (
        "seats.csv",
        "game,played_at,seat_1,seat_2,seat_3,whists_1,whists_2,whists_3\n"
        "1,2026-03-01T18:00Z,A,B,C,4,-2,-2\n1,,A,C,B,1,-1,0\n",
        "line 3",
        "differs from line 2",
    ),
    (
        "whists.csv",
        "game,played_at,seat_1,seat_2,whists_1,whists_2\n1,2026-03-01T18:00Z,A,B,=1+1,-2\n",
        "line 2",
        "whists are numbers",
    ),
]


@pytest.mark.parametrize(("name", "data", "where", "message"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_hostile_files_store_nothing_and_say_where(tmp_path, referee, name, data, where, message):
    game = "preferans" if name in ("deal.csv", "seats.csv", "whists.csv") else "slaps"
    output = refused(write(tmp_path, name, data), "--game", game, "--referee", referee.username)
    assert f"{where}: " in output
    assert message in output


def test_files_over_the_limit_are_refused_before_reading(tmp_path, referee):
    path = tmp_path / "big.csv"
    with path.open("wb") as file:
        file.truncate(50 * 1024 * 1024)
    output = refused(path, "--game", "slaps", "--referee", referee.username)
    assert "imports take at most 20,971,520" in output


def test_a_formula_cell_stays_text_and_is_written_defused(tmp_path, referee):
    text = 'played_at,player_a,player_b,winner\n2026-03-01T18:00Z,=cmd(),"@SUM(A1)",a\n'
    run_import(write(tmp_path, "s.csv", text), "--game", "slaps", "--referee", referee.username)
    assert set(Player.objects.values_list("name", flat=True)) == {"=cmd()", "@SUM(A1)"}
    exported = tmp_path / "out.csv"
    call_command("export_results", "--game", "slaps", "--format", "csv", "--output", str(exported), stdout=StringIO())
    written = exported.read_text()
    assert "'=cmd()" in written
    assert "'@SUM(A1)" in written


SLAPS_WITH_FRIENDLY = (
    slaps_csv(SLAPS_ROWS).replace("winner\n", "winner,rated\n", 1).replace(",a\n", ",a,\n").replace(",b\n", ",b,\n")
    + "2026-04-01T18:00:00+00:00,Ada Novak,Ben Berg,b,false\n"
)


@pytest.mark.parametrize("format", ["csv", "json"])
@pytest.mark.parametrize("source", ["slaps", "preferans"])
def test_round_trip_gives_identical_ratings(tmp_path, referee, source, format):
    """Export a game's history, import it into an empty game with the same rules: the same ledger."""
    game = Game.objects.get(slug=source)
    history = SLAPS_WITH_FRIENDLY if source == "slaps" else PREFERANS_CSV
    run_import(write(tmp_path, "in.csv", history), "--game", source, "--timezone", "UTC", "--referee", referee.username)
    exported = tmp_path / f"out.{format}"
    call_command("export_results", "--game", source, "--format", format, "--output", str(exported), stdout=StringIO())

    twin = twin_game(source)
    if source == "preferans":
        Bot.objects.create(game=twin, slug="normal", name="Normal bot", rating=1800, max_rating=2400)
    out = run_import(exported, "--game", twin.slug, "--referee", referee.username)
    assert ", 0 new, 0 ambiguous." in out  # everyone matched by name
    assert Match.objects.filter(game=twin).count() == Match.objects.filter(game=game).count()
    assert Match.objects.filter(game=twin, rated=False).count() == (1 if source == "slaps" else 0)
    assert len(ledger(game)) == (48 if source == "slaps" else 14)
    assert ledger(twin) == ledger(game)
    assert standings(twin) == standings(game)


def test_bridge_round_trips_through_the_json_dump(tmp_path, referee):
    players = [PlayerFactory(name=f"Bridge {n}") for n in range(8)]
    ids = [player.pk for player in players]
    for week, scores in enumerate([[(420, -50), (110, 140)], [(-100, 620), (50, 50)]]):
        body = bridge_session_body(ids if week == 0 else ids[4:] + ids[:4], START + timedelta(days=7 * week), scores)
        match_record(referee=referee, data=body, queue_rating=False)
    bridge = Game.objects.get(slug="bridge")
    ratings_process_game(game_id=bridge.pk)
    exported = tmp_path / "bridge.json"
    call_command("export_results", "--game", "bridge", "--format", "json", "--output", str(exported), stdout=StringIO())

    twin = twin_game("bridge")
    out = run_import(exported, "--game", twin.slug, "--referee", referee.username)
    assert "2 results; players: 8 matched, 0 new, 0 ambiguous." in out
    assert ledger(bridge)
    assert ledger(twin) == ledger(bridge)


def test_bridge_has_no_csv_yet(referee):
    with pytest.raises(CommandError, match="Bridge has no CSV: export it as json"):
        call_command("export_results", "--game", "bridge", "--format", "csv", stdout=StringIO())


@pytest.mark.parametrize("game", ["slaps", "preferans"])
def test_the_downloadable_templates_import(referee, game):
    """The templates docs/import.md offers are files the import takes as they are."""
    template = REPO / "games" / game / "static" / "import" / f"{game}.csv"
    out = run_import(template, "--game", game, "--dry-run", "--referee", referee.username)
    assert "results would be imported; nothing was stored." in out
    assert "problem" not in out
    assert "new: Ada Novak (00123)" in out


def test_long_imports_show_progress(tmp_path, referee):
    rows = [(NAMES[i % 4], NAMES[(i + 1) % 4], "a") for i in range(IMPORT_PROGRESS_EVERY + 1)]
    out = run_import(write(tmp_path, "long.csv", slaps_csv(rows)), "--game", "slaps", "--referee", referee.username)
    lines = [line.strip() for line in out.splitlines() if line.strip().startswith("[")]
    assert lines == [
        f"[{'#' * 19} ] {IMPORT_PROGRESS_EVERY}/{len(rows)}",
        f"[{'#' * 20}] {len(rows)}/{len(rows)}",
    ]


def test_a_dry_run_finds_what_the_import_would_refuse(tmp_path, referee):
    text = "played_at,player_a,player_b,winner,league\n2026-03-01T18:00Z,Ada Novak,Ben Berg,a,nowhere\n"
    output = refused(write(tmp_path, "s.csv", text), "--game", "slaps", "--dry-run", "--referee", referee.username)
    assert "line 2: league: Unknown league for Slaps." in output


def test_a_json_dump_of_another_game_is_refused(tmp_path, referee):
    exported = tmp_path / "slaps.json"
    call_command("export_results", "--game", "slaps", "--format", "json", "--output", str(exported), stdout=StringIO())
    output = refused(exported, "--game", "preferans", "--referee", referee.username)
    assert "game: A dump of a 'elo' game, not of Preferans." in output


def test_federation_numbers_are_text_and_unique_when_given(reference_data):
    first = player_create(name="Ada", federation_id=" 00123 ")
    assert first.federation_id == "00123"
    assert player_create(name="Ben").federation_id == ""
    assert player_create(name="Cleo").federation_id == ""  # many players without one
    with pytest.raises(ValidationError, match="Another player has federation number 00123"):
        player_create(name="Dana", federation_id="00123")
    with pytest.raises(ValidationError, match="printable text without spaces"):
        player_create(name="Dana", federation_id="12 34")
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(name="Eve", federation_id="00123")


def test_admin_finds_a_player_by_federation_number(admin_user, client):
    PlayerFactory(name="Ada Novak", federation_id="00123")
    PlayerFactory(name="Ben Berg", federation_id="100123")
    client.force_login(admin_user)
    response = client.get("/admin/leagues/player/", {"q": "00123"}, secure=True)
    assert response.status_code == 200
    assert "Ada Novak" in response.content.decode()
    assert "Ben Berg" not in response.content.decode()  # the number exactly, not a part of it


def test_admin_edits_a_players_federation_number_by_the_same_rules(admin_user, client):
    ada = PlayerFactory(name="Ada Novak", federation_id="00123")
    PlayerFactory(name="Ben Berg", federation_id="777")
    client.force_login(admin_user)
    url = f"/admin/leagues/player/{ada.pk}/change/"
    form = {"name": "Ada Novak", "ratings-TOTAL_FORMS": 0, "ratings-INITIAL_FORMS": 0}
    kept = client.post(url, {**form, "federation_id": "00123"}, secure=True)
    assert kept.status_code == 302  # its own number is no clash
    taken = client.post(url, {**form, "federation_id": "777"}, secure=True)
    assert "Another player has federation number 777" in taken.content.decode()
    ada.refresh_from_db()
    assert ada.federation_id == "00123"


def test_quoted_cells_keep_commas_and_quotes(tmp_path, referee):
    text = 'played_at,player_a,player_b,winner\n2026-03-01T18:00Z,"Novak, ""Ada""","Berg\nBen",a\n'
    run_import(write(tmp_path, "s.csv", text), "--game", "slaps", "--referee", referee.username)
    assert set(Player.objects.values_list("name", flat=True)) == {'Novak, "Ada"', "Berg Ben"}


def test_a_dump_naming_two_people_alike_is_refused(tmp_path, referee):
    PlayerFactory(name="Ada Novak")
    PlayerFactory(name="Ada Novak")
    (first, second), ben = Player.objects.filter(name="Ada Novak"), PlayerFactory(name="Ben Berg")
    match_record(
        referee=referee,
        data={"game": "slaps", "played_at": START.isoformat(), "players": [first.pk, ben.pk], "winner": ben.pk},
        queue_rating=False,
    )
    match_record(
        referee=referee,
        data={"game": "slaps", "played_at": START.isoformat(), "players": [second.pk, ben.pk], "winner": ben.pk},
        queue_rating=False,
    )
    exported = tmp_path / "slaps.json"
    call_command("export_results", "--game", "slaps", "--format", "json", "--output", str(exported), stdout=StringIO())
    twin_game("slaps")
    output = refused(exported, "--game", "slaps-twin", "--referee", referee.username)
    assert "player 'Ada Novak': The dump has two players of this name and number" in output


def test_an_older_history_imported_later_replays_the_game(tmp_path, referee):
    """A club imports its recent season, then finds an older one: the game replays from the earliest result."""
    lines = slaps_csv(SLAPS_ROWS).splitlines(keepends=True)
    header, rows = lines[0], lines[1:]
    run_import(
        write(tmp_path, "recent.csv", header + "".join(rows[12:])), "--game", "slaps", "--referee", referee.username
    )
    run_import(
        write(tmp_path, "older.csv", header + "".join(rows[:12])), "--game", "slaps", "--referee", referee.username
    )
    twin = twin_game("slaps")
    run_import(write(tmp_path, "all.csv", "".join(lines)), "--game", twin.slug, "--referee", referee.username)
    assert ledger(Game.objects.get(slug="slaps")) == ledger(twin)


def test_league_option_files_every_result_there(tmp_path, referee):
    path = write(tmp_path, "slaps.csv", slaps_csv(SLAPS_ROWS[:3]))
    output = refused(path, "--game", "slaps", "--league", "slaps-pro", "--referee", referee.username)
    assert "line 2: league:" in output  # newcomers are not pros
    with pytest.raises(CommandError, match="Slaps has no league 'nowhere'"):
        call_command("import_results", str(path), "--game", "slaps", "--league", "nowhere")
    run_import(path, "--game", "slaps", "--league", "slaps-amateur", "--referee", referee.username)
    assert set(Match.objects.values_list("league__slug", flat=True)) == {"slaps-amateur"}


def test_the_service_refuses_a_file_over_the_limit(reference_data, settings):
    settings.CARDRANK_IMPORT_MAX_BYTES = 10
    with pytest.raises(ValueError, match="imports take at most 10"):
        import_plan_read(game=Game.objects.get(slug="slaps"), format="csv", data=b"x" * 11)
