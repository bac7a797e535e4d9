"""Reading matches with everything a page or the API shows, in a fixed number of queries."""

from django.db.models import F, IntegerField, OuterRef, Prefetch, QuerySet, Subquery, prefetch_related_objects
from django.db.models.functions import Coalesce

from matches.models import AuditEntry, Board, Deal, Match, ResultsVersion, Seat
from ratings.models import PlayerRating, RatingChange


def results_version_site() -> str:
    """The results versions of every game, in one string (one query over a row per game; see ``ResultsVersion``)."""
    rows = ResultsVersion.objects.order_by("game_id").values_list("game_id", "version")
    return ";".join(f"{game_id}:{version}" for game_id, version in rows) or "none"


def _detail_prefetches() -> dict[str, Prefetch]:
    return {
        "seats": Prefetch("seats", queryset=Seat.objects.select_related("player", "bot").order_by("position")),
        "rating_changes": Prefetch("rating_changes", queryset=RatingChange.objects.order_by("unit", "player_id")),
        "deals": Prefetch("deals", queryset=Deal.objects.order_by("number")),
        "boards": Prefetch(
            "boards",
            queryset=Board.objects.order_by("position").prefetch_related(
                "tables", "tables__ns_1", "tables__ns_2", "tables__ew_1", "tables__ew_2"
            ),
        ),
    }


# What each rating system's matches hold besides seats and ledger rows.
DETAIL_PARTS = {"elo": (), "preferans": ("deals",), "bridge": ("boards",)}


def match_detail_parts(match: Match) -> tuple[str, ...]:
    """The parts (deals, boards) a match of its game can have; an unknown system may have any."""
    return DETAIL_PARTS.get(match.game.rating_system, ("deals", "boards"))


def match_detail_queryset() -> QuerySet[Match]:
    """Matches of any game, with everything any game's match shows."""
    return Match.objects.select_related("game", "referee", "league", "confirmed_by").prefetch_related(
        *_detail_prefetches().values()
    )


def match_detail(*, match_id: int) -> Match:
    """One match with what its game shows, and nothing it cannot have (no bridge boards on a Slaps match)."""
    match = Match.objects.select_related("game", "referee", "league", "confirmed_by").get(pk=match_id)
    prefetches = _detail_prefetches()
    if match.status in UNRATED:
        # Not rated (yet), so no ledger rows: none are asked for (a fresh submission's reply).
        prefetches["rating_changes"] = Prefetch("rating_changes", queryset=RatingChange.objects.none())
    parts = match_detail_parts(match)
    prefetch_related_objects(
        [match], prefetches["seats"], prefetches["rating_changes"], *(prefetches[p] for p in parts)
    )
    return match


UNRATED = (Match.Status.SUBMITTED, Match.Status.FRIENDLY)


def match_detail_of(match: Match) -> Match:
    """``match_detail`` of a match in hand: the match itself when it holds its stored parts (the
    submission service keeps them on it as it stores them) and its status, read after the commit,
    says it is not rated, so no ledger rows can exist; otherwise read again (a retried submission,
    or one rated at once).

    A submission's reply comes from here: three queries fewer on the busiest write path.
    """
    held = getattr(match, "_prefetched_objects_cache", {})
    if match.status in UNRATED and {"seats", "deals", "boards", "rating_changes"} <= held.keys():
        return match
    return match_detail(match_id=match.pk)


def matches_recent(*, game=None, limit: int = 20) -> list[Match]:
    queryset = match_detail_queryset().order_by("-played_at", "-id")
    if game is not None:
        queryset = queryset.filter(game=game)
    return list(queryset[:limit])


def match_as_body(match: Match) -> dict:
    """A stored match as the API body that would submit it again (audit log, the admin's correction form).

    ``league`` is the league the match is filed under, for every game: a
    correction saved unchanged keeps it. ``services.match_input_as_body``
    builds the same shape from a validated body, before it is stored.
    """
    body = {"game": match.game.slug, "played_at": match.played_at.isoformat(), "rated": match.rated}
    seats = list(match.seats.all())
    system = match.game.rating_system
    if system == "elo":
        body["players"] = [seat.player_id for seat in seats]
        winner = match.winner_seat
        body["winner"] = winner.player_id if winner else None
    elif system == "preferans":
        body["seats"] = [{"player": seat.player_id} if seat.player_id else {"bot": seat.bot.slug} for seat in seats]
        body["deals"] = [deal.whists for deal in match.deals.all()]
    elif system == "bridge":
        body["boards"] = [
            {
                "number": board.number,
                "tables": [
                    {
                        "ns": [table.ns_1_id, table.ns_2_id],
                        "ew": [table.ew_1_id, table.ew_2_id],
                        **({"ns_score": table.ns_score} if table.ns_score is not None else {}),
                        **({"ns_imps": float(table.ns_imps)} if table.ns_imps is not None else {}),
                    }
                    for table in board.tables.all()
                ],
            }
            for board in match.boards.all()
        ]
    if match.league_id:
        body["league"] = match.league.slug
    return body


def _last_corrector():
    return Subquery(
        AuditEntry.objects.filter(match=OuterRef("pk"), action=AuditEntry.Action.CORRECTED)
        .order_by("-id")
        .values("actor_id")[:1]
    )


# The audit entries that write a version of a result (voiding or confirming one writes none).
VERSION_ACTIONS = (AuditEntry.Action.SUBMITTED, AuditEntry.Action.CORRECTED)


def _last_version():
    return Subquery(
        AuditEntry.objects.filter(match=OuterRef("pk"), action__in=VERSION_ACTIONS).order_by("-id").values("id")[:1]
    )


def match_version_id(match: Match) -> int | None:
    """The version of a result that is stored: the id of the audit entry that wrote it (its submission or
    its last correction); None for a result stored without one. A confirmation names the version its
    referee read (``services.match_confirm``)."""
    return (
        AuditEntry.objects.filter(match=match, action__in=VERSION_ACTIONS)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )


def match_author_id(match: Match) -> int | None:
    """Who wrote the version of a result that is stored: the admin who last corrected it, else its referee.

    Two-step confirmation needs someone else (``services.match_confirm``).
    """
    corrector = (
        AuditEntry.objects.filter(match=match, action=AuditEntry.Action.CORRECTED)
        .order_by("-id")
        .values_list("actor_id", flat=True)
        .first()
    )
    return corrector if corrector is not None else match.referee_id


def matches_awaiting_confirmation(*, limit: int = 100) -> list[Match]:
    """Results waiting for a second referee, each with ``author_id`` (see ``match_author_id``) and
    ``version`` (see ``match_version_id``)."""
    return list(
        match_detail_queryset()
        .filter(awaiting_confirmation=True, status="submitted")
        .annotate(
            author_id=Coalesce(_last_corrector(), F("referee_id"), output_field=IntegerField()),
            version=_last_version(),
        )
        .order_by("played_at")[:limit]
    )


def player_leagues_in_game(*, game, player_ids) -> dict[int, int]:
    """The league each of these players is in for ``game`` now: {player id: league id}.

    Players not rated in the game yet are absent (they are in its entry league).
    """
    return dict(
        PlayerRating.objects.filter(game=game, player_id__in=list(player_ids)).values_list("player_id", "league_id")
    )
