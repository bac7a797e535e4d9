"""Reading matches with everything a page or the API shows, in a fixed number of queries.

A match's game-specific rows are its kind's ``parts`` and its body fields its kind's
(``kind_of(game)``); its ledger rows are read by ``ratings.selectors`` (``match_detail_rated``).
"""

from collections.abc import Iterable
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import F, IntegerField, OuterRef, Prefetch, QuerySet, Subquery, prefetch_related_objects
from django.db.models.functions import Coalesce

from leagues.kinds import kind_of
from matches.models import AuditEntry, Match, ResultsVersion, Seat
from matches.versions import RESULTS_STAMP


def results_version_site() -> str:
    """The results versions of every game, in one string (one query over a row per game; see ``ResultsVersion``)."""
    rows = ResultsVersion.objects.order_by("game_id").values_list("game_id", "version")
    return ";".join(f"{game_id}:{version}" for game_id, version in rows) or "none"


def _seats_prefetch() -> Prefetch:
    return Prefetch("seats", queryset=Seat.objects.select_related("player", "bot").order_by("position"))


def matches_parts_read(matches: Iterable[Match]) -> None:
    """Read the parts of these matches, each as its own game's kind reads them (``part_prefetches``): a query
    per part of each kind among them, none for the kinds not among them (a page of Slaps reads no deals),
    however many games are registered. The matches hold their game (``select_related``)."""
    by_kind: dict[int, tuple[Any, list[Match]]] = {}
    for match in matches:
        kind = kind_of(match.game)
        if kind is not None and kind.parts:
            by_kind.setdefault(id(kind), (kind, []))[1].append(match)
    for kind, group in by_kind.values():
        prefetch_related_objects(group, *kind.part_prefetches().values())


def match_detail_queryset() -> QuerySet[Match]:
    """Matches of any game with their seats, but neither their parts (``matches_parts_read`` them once read)
    nor their ledger rows (``ratings.selectors.match_detail_rated_queryset`` adds them)."""
    return Match.objects.select_related("game", "referee", "league", "confirmed_by", "disputed_by").prefetch_related(
        _seats_prefetch()
    )


def match_detail(*, match_id: int) -> Match:
    """One match with what its game shows, and nothing it cannot have (no bridge boards on a Slaps match).

    Its ledger rows are ratings' (``ratings.selectors.match_detail_rated``).
    """
    match = match_detail_queryset().get(pk=match_id)
    matches_parts_read([match])
    return match


def matches_recent(*, game=None, limit: int = 20) -> list[Match]:
    queryset = match_detail_queryset().order_by("-played_at", "-id")
    if game is not None:
        queryset = queryset.filter(game=game)
    matches = list(queryset[:limit])
    matches_parts_read(matches)
    return matches


def matches_list_page(*, game=None, number=None, page_size: int = 25) -> Page:
    """One page of matches, newest first, of one game or every game, with what a match list shows (its kind's
    ``seats_line``). ``number`` as the visitor typed it: not a number reads as the first page, past the end as
    the last. A fixed number of queries whatever the page holds: the count, the page, and its prefetches."""
    queryset = match_detail_queryset().order_by("-played_at", "-id")
    if game is not None:
        queryset = queryset.filter(game=game)
    page = Paginator(queryset, page_size).get_page(number)
    page.object_list = list(page.object_list)
    matches_parts_read(page.object_list)
    return page


def match_as_body(match: Match) -> dict:
    """A stored match as the API body that would submit it again (audit log, the admin's correction form).

    ``league`` is the league the match is filed under, for every game: a
    correction saved unchanged keeps it. ``bodies.match_input_as_body``
    builds the same shape from a validated body, before it is stored.
    """
    body = {"game": match.game.slug, "played_at": match.played_at.isoformat(), "rated": match.rated}
    kind = kind_of(match.game)
    if kind is not None:
        body.update(kind.stored_body(match))
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
    referee read (``confirmation.match_confirm``)."""
    return (
        AuditEntry.objects.filter(match=match, action__in=VERSION_ACTIONS)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )


def match_author_id(match: Match) -> int | None:
    """Who wrote the version of a result that is stored: the admin who last corrected it, else its referee.

    Two-step confirmation needs someone else (``confirmation.match_confirm``).
    """
    corrector = (
        AuditEntry.objects.filter(match=match, action=AuditEntry.Action.CORRECTED)
        .order_by("-id")
        .values_list("actor_id", flat=True)
        .first()
    )
    return corrector if corrector is not None else match.referee_id


def _author():
    return Coalesce(_last_corrector(), F("referee_id"), output_field=IntegerField())


def matches_awaiting_confirmation(*, limit: int = 100) -> list[Match]:
    """Results waiting for a second referee, disputed ones included (``disputed_at``), oldest played first,
    each with ``author_id`` (see ``match_author_id``), ``corrected_by_name`` (the username of the admin
    who last corrected it, or None) and ``version`` (see ``match_version_id``)."""
    corrector_name = Subquery(
        AuditEntry.objects.filter(match=OuterRef("pk"), action=AuditEntry.Action.CORRECTED)
        .order_by("-id")
        .values("actor__username")[:1]
    )
    matches = list(
        match_detail_queryset()
        .filter(awaiting_confirmation=True, status="submitted")
        .annotate(author_id=_author(), corrected_by_name=corrector_name, version=_last_version())
        .order_by("played_at", "id")[:limit]
    )
    matches_parts_read(matches)
    return matches


def matches_to_confirm(*, user_id: int) -> QuerySet[Match]:
    """The results this referee may confirm: waiting, not disputed, and not of their own version
    (``match_author_id``). Its filter is the partial index ``match_to_confirm_idx``'s condition."""
    return (
        Match.objects.filter(awaiting_confirmation=True, status="submitted", disputed_at__isnull=True)
        .annotate(author_id=_author())
        .exclude(author_id=user_id)
    )


#: Seconds a referee's count of results to confirm is kept: the results stamp makes it right after every
#: write in this deployment's cache; the timeout bounds what a write the stamp missed could leave.
TO_CONFIRM_COUNT_SECONDS = 60


def matches_to_confirm_count(*, user_id: int) -> int:
    """How many results this referee may confirm (``matches_to_confirm``), for the menu's "To confirm (N)"
    on every page a referee reads: one query over the waiting rows, kept in the cache with the results
    stamp (``matches.versions.RESULTS_STAMP``) it was counted under, which every results write renews.
    The stamp and the kept count are read in one round trip. Building that query
    cost a fifth of an entry page's CPU (``docs/performance.md``)."""
    return RESULTS_STAMP.kept(
        f"matches:to-confirm:{user_id}", lambda: matches_to_confirm(user_id=user_id).count(), TO_CONFIRM_COUNT_SECONDS
    )
