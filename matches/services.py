"""Writing results: the one path shared by the HTMX pages, the API and admin.

The entry points: ``match_submit`` (and ``match_submit_idempotent``, which a
client may retry) validates a result body (``cleaning.match_clean``), stores
it with its audit entry and results version, and on commit asks ratings to
rate it; ``match_record`` does the same for an operator's command;
``match_void`` and ``match_correct`` change a stored result and ask for the
game's ratings to be replayed. Ratings are reached only through
``ratings.intake``; a game's own rows through its kind (``matches.parts``).
Confirmation is ``matches.confirmation``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from config.permissions import user_can_submit, user_can_void
from leagues.kinds import kind_of
from leagues.models import Game, League
from matches.bodies import match_body_fingerprint, match_input_as_body
from matches.cleaning import ResultBatch, match_clean
from matches.confirmation import DISPUTE_CLEARED, match_needs_confirmation
from matches.inputs import MatchInput
from matches.models import AuditEntry, Match, Seat
from matches.parts import ROWS_A_QUERY, match_store_result, matches_store_results
from matches.selectors import match_as_body, match_detail
from matches.signals import result_awaits_confirmation
from matches.versions import results_version_bump
from ratings.intake import ratings_intake

IDEMPOTENCY_KEY_MAX = 64
#: Results in one batch request at most (``match_submit_batch``; the API also caps a batch's body,
#: ``web.match_apis.BATCH_MAX_BYTES``). A full batch is answered well inside gunicorn's 30 s timeout on
#: a host three times slower than the one measured: 500 Slaps results took 23 s there, 100 take under 5 s
#: (``manage.py benchmark --only batch``, docs/api.md). An evening's results still fit, many times over.
BATCH_MAX = 100


class IdempotencyKeyReused(ValidationError):
    """The referee's ``Idempotency-Key`` already stored a different result: the API answers 422."""


def _idempotent_replay(existing: Match, *, key: str, fingerprint: str) -> Match:
    if existing.idempotency_fingerprint != fingerprint:
        raise IdempotencyKeyReused(
            {
                "Idempotency-Key": [
                    _(
                        "The key %(key)s was used for another request (match %(match)s), with a different body; "
                        "nothing was stored. Send a new key for a new result."
                    )
                    % {"key": repr(key), "match": existing.pk}
                ]
            }
        )
    return existing


def match_submit_idempotent(*, referee, data: Mapping[str, Any], key: str | None) -> tuple[Match, bool]:
    """``match_submit`` that a client may retry safely: returns (match, created).

    A submission carrying an ``Idempotency-Key`` the referee already used
    returns the match stored the first time and stores nothing (a retry after
    a lost response, a timeout or a 5xx) when its body is the same request,
    i.e. would store the same result (``match_input_as_body``). The same key
    with another body raises ``IdempotencyKeyReused`` (422) and stores
    nothing, as the IETF ``Idempotency-Key`` draft says. Without a key it is a
    plain submit.

    The body is validated before the key is looked up, so a retry is judged
    by what it would store; one consequence: a retry naming a bot an admin
    deactivated in between is refused (400) like any new result naming it.
    Two requests racing with one key meet at the unique (referee, key)
    constraint: the loser reads the winner's match and compares fingerprints.
    """
    if key is None:
        return match_submit(referee=referee, data=data), True
    _key_checked(key)
    if not user_can_submit(referee):
        raise PermissionDenied(_("Only referees can submit results."))
    cleaned = match_clean(data=data)
    fingerprint = match_body_fingerprint(match_input_as_body(cleaned))
    existing = Match.objects.filter(referee=referee, idempotency_key=key).first()
    if existing is not None:
        return _idempotent_replay(existing, key=key, fingerprint=fingerprint), False
    try:
        with transaction.atomic():
            match = _match_store(
                referee=referee, data=data, cleaned=cleaned, idempotency_key=key, fingerprint=fingerprint
            )
    except IntegrityError:
        # The same key raced in from another request: the first one won.
        existing = Match.objects.filter(referee=referee, idempotency_key=key).first()
        if existing is None:
            raise
        return _idempotent_replay(existing, key=key, fingerprint=fingerprint), False
    match.refresh_from_db(fields=["status"])  # after this outer commit, which may have rated it (eager Celery)
    return match, True


def _key_checked(key: str | None) -> None:
    if key is not None and not (0 < len(key) <= IDEMPOTENCY_KEY_MAX and key.isascii() and key.isprintable()):
        raise ValidationError(
            {"Idempotency-Key": [_("1 to %(max)d printable ASCII characters.") % {"max": IDEMPOTENCY_KEY_MAX}]}
        )


class BatchRefused(Exception):
    """A batch stores nothing: ``errors`` maps each refused item's index (as text, from 0) to its field
    errors, as a single submission's 400 gives them for its body."""

    def __init__(self, errors: dict[str, dict[str, list[str]]]):
        super().__init__(f"{len(errors)} result(s) refused")
        self.errors = errors


def _field_errors(error: ValidationError) -> dict[str, list[str]]:
    return error.message_dict if hasattr(error, "error_dict") else {"non_field_errors": error.messages}


def match_submit_batch(*, referee, items: Any, key: str | None = None) -> tuple[list[Match], bool]:
    """Store many results in one transaction, all or none: returns (matches in the items' order, created).

    Each item is a body as ``match_submit`` takes it and goes the same way
    (``match_clean``, then ``_match_store``: parts, audit entry, results
    version); any refused item raises ``BatchRefused`` with every item's
    errors by index, and nothing is stored. ``items`` is checked to be a list
    of 1 to ``BATCH_MAX`` before any item is read. The results are rated
    once the transaction commits, with one rating task per game rather than
    one per result (a game's run rates every result due, in ledger order).

    ``key`` (an ``Idempotency-Key``) covers the whole batch as it covers one
    submission: the first match carries it with the fingerprint of every
    item's validated body, in order, and the others point to it
    (``batch_head``). A retry with the same items returns the stored matches
    (created False); the same key with other items, or a key a single
    submission used, raises ``IdempotencyKeyReused``. Keys share one index
    with single submissions, so two racing requests meet there.
    """
    if not user_can_submit(referee):
        raise PermissionDenied(_("Only referees can submit results."))
    _key_checked(key)
    if not isinstance(items, list):
        raise ValidationError({"matches": [_("A list of result bodies, as POST /api/matches/ takes each.")]})
    if not items:
        raise ValidationError({"matches": [_("At least one result.")]})
    if len(items) > BATCH_MAX:
        too_many = ngettext(
            "At most %(max)d results in one request; this one has %(count)d.",
            "At most %(max)d results in one request; this one has %(count)d.",
            len(items),
        )
        raise ValidationError({"matches": [too_many % {"max": BATCH_MAX, "count": len(items)}]})
    cleaned: list[MatchInput] = []
    errors: dict[str, dict[str, list[str]]] = {}
    for index, item in enumerate(items):
        try:
            cleaned.append(match_clean(data=item))
        except ValidationError as error:
            errors[str(index)] = _field_errors(error)
    if errors:
        raise BatchRefused(errors)
    fingerprint = None
    if key is not None:
        fingerprint = match_body_fingerprint({"batch": [match_input_as_body(one) for one in cleaned]})
        existing = Match.objects.filter(referee=referee, idempotency_key=key).first()
        if existing is not None:
            return _batch_replay(existing, key=key, fingerprint=fingerprint), False
    try:
        matches = _batch_store(referee=referee, items=items, cleaned=cleaned, key=key, fingerprint=fingerprint)
    except IntegrityError:
        existing = Match.objects.filter(referee=referee, idempotency_key=key).first() if key else None
        if existing is None:
            raise
        return _batch_replay(existing, key=key, fingerprint=fingerprint), False
    return matches, True


def _batch_store(*, referee, items: list, cleaned: list[MatchInput], key, fingerprint) -> list[Match]:
    matches: list[Match] = []
    errors: dict[str, dict[str, list[str]]] = {}
    with transaction.atomic():
        for index, (item, one) in enumerate(zip(items, cleaned, strict=True)):
            head = matches[0] if matches else None
            try:
                with transaction.atomic():  # a savepoint: the other items' errors are still read
                    match = _match_store(
                        referee=referee,
                        data=item,
                        cleaned=one,
                        idempotency_key=None if head else key,
                        fingerprint=None if head else fingerprint,
                        queue_rating=False,
                        batch_head=head,
                    )
            except ValidationError as error:
                errors[str(index)] = _field_errors(error)
                continue
            matches.append(match)
        if errors:
            raise BatchRefused(errors)  # leaving the transaction: nothing stored
        first_rated: dict[int, int] = {}
        for match in matches:
            if match.rated:
                first_rated.setdefault(match.game_id, match.pk)
        for match_id in first_rated.values():
            # One task per game: its run rates every result of the game that is due, in ledger order.
            ratings_intake().rate_after_commit(match_id=match_id)
    statuses = dict(Match.objects.filter(pk__in=[m.pk for m in matches]).values_list("pk", "status"))
    for match in matches:
        match.status = statuses[match.pk]  # after the commit, which may have rated them (eager Celery)
    return matches


def _batch_replay(existing: Match, *, key: str, fingerprint: str) -> list[Match]:
    _idempotent_replay(existing, key=key, fingerprint=fingerprint)
    return [existing, *existing.batch_members.order_by("id")]


def match_submit(*, referee, data: Mapping[str, Any]) -> Match:
    """Store a validated result and queue its rating once the transaction commits."""
    if not user_can_submit(referee):
        raise PermissionDenied(_("Only referees can submit results."))
    return match_record(referee=referee, data=data)


def match_record(
    *,
    referee,
    data: Mapping[str, Any],
    queue_rating: bool = True,
    batch: ResultBatch | None = None,
    source: Mapping[str, Any] | None = None,
) -> Match:
    """``match_submit`` for a caller with no request to check: an operator's command (``demo_data``).

    The same validation, stored parts, audit entry and results version; only
    the permission check is left to the caller, so ``referee`` is recorded as
    the result's referee and the audit entry's actor whatever its groups (an
    existing account the command must not change). ``queue_rating=False``
    leaves the rating task out, for a caller that stores many results and
    then rates their game itself (``ratings_process_game``) in the same
    transaction; a rated result it leaves unrated is the sweeper's.

    A ``batch`` (``matches.cleaning.ResultBatch``, with ``queue_rating=False``)
    is for such a caller whose transaction is all or nothing
    (``games.importing.import_apply``): the same validation and rows, without
    the round trips a lone result needs and a batch does not. Its game and
    leagues are read once for the batch; no savepoint per result (any error
    ends the caller's transaction anyway); no results version per result (the
    caller bumps its game's once, last, before it commits:
    ``matches.versions``); no status read back (nothing can rate the result
    before the caller commits). Measured in ``manage.py benchmark``
    (docs/performance.md).

    ``source`` says where the result came from when not from a person at a
    page (an import: its file and who imported it); the audit entry keeps it
    beside the result as ``source``. ``referee`` may be None: an operator at
    the command line, with no account.
    """
    if batch is not None and queue_rating:
        raise ValueError("A batch rates its results itself: a batch needs queue_rating=False.")
    cleaned = match_clean(data=data, batch=batch)
    return _match_store(
        referee=referee,
        data=data,
        cleaned=cleaned,
        queue_rating=queue_rating,
        in_batch=batch is not None,
        source=source,
    )


def _match_store(
    *,
    referee,
    data: Mapping[str, Any],
    cleaned: MatchInput,
    idempotency_key: str | None = None,
    fingerprint: str | None = None,
    queue_rating: bool = True,
    batch_head: Match | None = None,
    in_batch: bool = False,
    source: Mapping[str, Any] | None = None,
) -> Match:
    with transaction.atomic(savepoint=not in_batch):
        match = _new_match(
            referee=referee,
            cleaned=cleaned,
            idempotency_key=idempotency_key,
            idempotency_fingerprint=fingerprint,
            batch_head=batch_head,
        )
        match.save(force_insert=True)
        match_store_result(match, cleaned)
        _submitted_entry(referee=referee, match=match, cleaned=cleaned, source=source).save(force_insert=True)
        _tell_if_awaiting([match])
        if cleaned.rated and queue_rating:
            ratings_intake().rate_after_commit(match_id=match.pk)
        if not in_batch:
            results_version_bump(game_ids=[match.game_id])
    if not in_batch:
        match.refresh_from_db(fields=["status"])  # the outer commit, if this was it, may have rated it (eager Celery)
    return match


def _new_match(*, referee, cleaned: MatchInput, **fields: Any) -> Match:
    """A new result's match, unsaved: its filing, status and when it may be rated, from the cleaned result."""
    due_at = match_due_at(game=cleaned.game, league=cleaned.league, played_at=cleaned.played_at)
    return Match(
        game=cleaned.game,
        # In UTC, as the database gives them back: the reply is built from this object.
        played_at=cleaned.played_at.astimezone(UTC),
        rated=cleaned.rated,
        status=Match.Status.SUBMITTED if cleaned.rated else Match.Status.FRIENDLY,
        referee=referee,
        league=cleaned.league,
        due_at=due_at.astimezone(UTC) if due_at else None,
        awaiting_confirmation=match_needs_confirmation(cleaned=cleaned),
        **fields,
    )


def _submitted_entry(*, referee, match: Match, cleaned: MatchInput, source: Mapping[str, Any] | None) -> AuditEntry:
    """A new result's audit entry, unsaved (``_submitted_body``, and where it came from)."""
    return AuditEntry(
        actor=referee,
        action=AuditEntry.Action.SUBMITTED,
        match=match,
        data={**_submitted_body(cleaned), **({"source": dict(source)} if source else {})},
    )


#: Results cleaned before their rows are written together (``match_record_many``): each table's rows of
#: a chunk in one INSERT (``matches.parts.ROWS_A_QUERY``), a few round trips a thousand results.
RECORD_CHUNK = 1000


class BatchItemRefused(Exception):
    """A result of ``match_record_many`` the checks refuse: the caller's ``key`` for it (a file's line) and
    the ``ValidationError``, as ``match_record`` raises it for that body."""

    def __init__(self, key: Any, error: ValidationError):
        super().__init__(f"{key}: {error}")
        self.key = key
        self.error = error


def match_record_many(
    *,
    referee,
    items: Iterable[tuple[Any, Mapping[str, Any]]],
    batch: ResultBatch,
    source: Mapping[str, Any] | None = None,
) -> Iterator[tuple[Any, int]]:
    """``match_record`` with a ``batch`` for many results at once (an import): the same checks, the same
    rows, written a chunk at a time.

    ``items`` are (key, body) pairs, the key the caller's (a file's line). Every body is cleaned as
    ``match_record`` cleans it (``match_clean`` with the batch: every check, the batch's game, leagues
    and players read once); ``RECORD_CHUNK`` cleaned results are then written together, each table in
    one INSERT a ``ROWS_A_QUERY`` rows (matches, seats, the game's parts, audit entries) instead of
    four a result. Yields (key, match id) in the items' order as each chunk is written. A body the
    checks refuse raises ``BatchItemRefused`` naming its key.

    The caller's transaction holds the whole batch, all or nothing (``games.importing.import_apply``):
    as with ``match_record``'s batch, no rating is queued (the caller rates the game once), no results
    version bumped (the caller bumps it once, last) and nothing is read back. Measured in ``manage.py
    benchmark --only import`` (docs/performance.md).
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("match_record_many writes a batch all or nothing: call it inside a transaction.")
    chunk: list[tuple[Any, MatchInput]] = []
    for key, data in items:
        try:
            chunk.append((key, match_clean(data=data, batch=batch)))
        except ValidationError as error:
            raise BatchItemRefused(key, error) from error
        if len(chunk) == RECORD_CHUNK:
            yield from _matches_store(referee=referee, chunk=chunk, source=source)
            chunk = []
    if chunk:
        yield from _matches_store(referee=referee, chunk=chunk, source=source)


def _matches_store(*, referee, chunk: list[tuple[Any, MatchInput]], source) -> list[tuple[Any, int]]:
    matches = Match.objects.bulk_create(
        [_new_match(referee=referee, cleaned=cleaned) for _key, cleaned in chunk], batch_size=ROWS_A_QUERY
    )
    stored = [(match, cleaned) for match, (_key, cleaned) in zip(matches, chunk, strict=True)]
    matches_store_results(stored)
    AuditEntry.objects.bulk_create(
        (_submitted_entry(referee=referee, match=match, cleaned=cleaned, source=source) for match, cleaned in stored),
        batch_size=ROWS_A_QUERY,
    )
    _tell_if_awaiting(matches)
    return [(key, match.pk) for match, (key, _cleaned) in zip(matches, chunk, strict=True)]


def match_void(*, match_id: int, by) -> Match:
    """Void a match: it stops counting and the game's ratings are replayed from it.

    Takes the game's rating lock first (the same order as the rating task),
    so a void never races a rating run. Voiding twice changes nothing. A
    void ends a dispute (``matches.confirmation.match_dispute``).
    """
    if not user_can_void(by):
        raise PermissionDenied(_("Only admins can void matches."))
    game_id = Match.objects.filter(pk=match_id).values_list("game_id", flat=True).first()
    if game_id is None:
        raise Match.DoesNotExist(f"No match {match_id}.")
    with transaction.atomic():
        intake = ratings_intake(game_id=game_id)
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status == Match.Status.VOID:
            return match
        was_rated = match.status == Match.Status.RATED
        match.status = Match.Status.VOID
        match.voided_at = timezone.now()
        match.voided_by = by
        for field, value in DISPUTE_CLEARED.items():  # a void ends a dispute; its note stays in the audit log
            setattr(match, field, value)
        match.save(update_fields=["status", "voided_at", "voided_by", *DISPUTE_CLEARED])
        AuditEntry.objects.create(
            actor=by, action=AuditEntry.Action.VOIDED, match=match, data={"was": "rated" if was_rated else "not rated"}
        )
        if was_rated:
            intake.replay_from(played_at=match.played_at, match_id=match.pk)
            intake.rate_after_commit(match_id=match.pk)
        results_version_bump(game_ids=[game_id])
    return match


def match_correct(*, match_id: int, by, data: Mapping[str, Any]) -> Match:
    """Replace a match's result (players, winner, time, rated, league) with a corrected one.

    The body has the same shape and the same validation as a submission, and
    the game cannot change. A body without ``league`` keeps the league the
    match is filed under (a submission without one is filed under the
    amateur league; a correction is not a new filing). Ratings are replayed
    from the earlier of the old and the new place of the match in the
    history. Takes the game's rating lock first, like ``match_void``.

    A correction that would store exactly what is stored (``match_as_body``
    of the match equals ``match_input_as_body`` of the body) changes
    nothing: no field, no replay, no audit entry, no results version; the
    match is returned as it is. Any other correction is re-examined for
    two-step confirmation (``match_needs_confirmation``) as a new entry
    would be: if it needs one, it waits for a referee other than the admin
    who corrected it, even if the earlier version was confirmed. A stored
    correction ends a dispute (``matches.confirmation.match_dispute``); one
    that changes nothing leaves it as it is.
    """
    if not user_can_void(by):
        raise PermissionDenied(_("Only admins can correct results."))
    return match_correct_record(match_id=match_id, by=by, data=data)


def match_correct_record(
    *, match_id: int, by, data: Mapping[str, Any], source: Mapping[str, Any] | None = None
) -> Match:
    """``match_correct`` for a caller with no request to check (``match_record``'s counterpart): an import
    that replaces the results its file corrects (``games.importing.import_apply``), whose caller checked who
    may. ``by`` may be None (the command-line operator); ``source`` goes into the audit entry as in
    ``match_record``."""
    match = Match.objects.select_related("game", "league").filter(pk=match_id).first()
    if match is None:
        raise Match.DoesNotExist(f"No match {match_id}.")
    if not isinstance(data, Mapping) or data.get("game") != match.game.slug:
        match_clean(data=data)  # the body's own errors first, if it has any
        moved = _("A correction cannot move the match to another game (%(game)s).") % {"game": match.game.slug}
        raise ValidationError({"game": [moved]})
    cleaned = match_clean(data=data, unnamed_league=match.league)
    awaiting_confirmation = match_needs_confirmation(cleaned=cleaned)
    with transaction.atomic():
        intake = ratings_intake(game_id=match.game_id)
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status == Match.Status.VOID:
            raise ValidationError({"non_field_errors": [_("A voided match cannot be corrected.")]})
        before = match_as_body(match_detail(match_id=match.pk))
        if match_input_as_body(cleaned) == before:
            return match  # nothing to correct: nothing changes
        if match.status == Match.Status.RATED:
            intake.replay_from(played_at=match.played_at, match_id=match.pk)
        match.played_at = cleaned.played_at
        match.rated = cleaned.rated
        match.status = Match.Status.SUBMITTED if cleaned.rated else Match.Status.FRIENDLY
        match.league = cleaned.league
        match.due_at = match_due_at(game=cleaned.game, league=cleaned.league, played_at=cleaned.played_at)
        match.awaiting_confirmation = awaiting_confirmation
        if awaiting_confirmation:
            match.confirmed_by = None  # a confirmation was of the old version
        for field, value in DISPUTE_CLEARED.items():  # a correction answers a dispute: the new version waits anew
            setattr(match, field, value)
        match.save(
            update_fields=[
                "played_at",
                "rated",
                "status",
                "league",
                "due_at",
                "awaiting_confirmation",
                "confirmed_by",
                *DISPUTE_CLEARED,
            ]
        )
        bots_as_played = {
            bot_id: (rating, max_rating)
            for bot_id, rating, max_rating in match.seats.filter(bot__isnull=False).values_list(
                "bot_id", "bot_rating", "bot_max_rating"
            )
        }
        match.seats.all().delete()
        for part in kind_of(cleaned.game).parts:  # the game's own parts only: no delete of what it cannot have
            getattr(match, part).all().delete()
        match_store_result(match, cleaned, bots_as_played=bots_as_played)
        after = match_as_body(match_detail(match_id=match.pk))
        AuditEntry.objects.create(
            actor=by,
            action=AuditEntry.Action.CORRECTED,
            match=match,
            data={"before": before, "after": after, **({"source": dict(source)} if source else {})},
        )
        intake.rate_after_commit(match_id=match.pk)
        results_version_bump(game_ids=[match.game_id])
        _tell_if_awaiting([match])
    return match


def _tell_if_awaiting(matches: Iterable[Match]) -> None:
    """After the commit, tell the apps above (``matches.signals``) of each result that waits for a second
    referee's confirmation: its referees may want to hear of it."""
    for match_id in [match.pk for match in matches if match.awaiting_confirmation]:
        transaction.on_commit(
            lambda match_id=match_id: result_awaits_confirmation.send_robust(sender=Match, match_id=match_id)
        )


def match_players_move(*, drop_id: int, keep_id: int) -> dict[int, tuple[datetime, int]]:
    """Seat ``keep_id`` wherever ``drop_id`` sat, in every match of every game, void ones included, and
    name them in the matches' parts (the game's kind moves those): half of merging two players.

    Refuses (``ValidationError``, nothing changed) when one match seats both: one person cannot have
    played against, or beside, themselves. Returns each affected game's first match, (played_at, id),
    from which its ratings must be replayed. The caller (``ratings.people.players_merge``) holds the
    games' rating locks and the two players' rows, and replays.
    """
    seats = Seat.objects.filter(player_id=drop_id)
    shared = sorted(
        Seat.objects.filter(player_id=keep_id, match_id__in=seats.values("match_id")).values_list("match_id", flat=True)
    )
    if shared:
        listed = ", ".join(f"#{match_id}" for match_id in shared[:20]) + (" …" if len(shared) > 20 else "")
        raise ValidationError(
            {
                "players": [
                    ngettext(
                        "Both players sit in %(count)d match (%(listed)s): they are two people, or that result "
                        "is wrong. Correct or void it first; nothing was merged.",
                        "Both players sit in %(count)d matches (%(listed)s): they are two people, or those results "
                        "are wrong. Correct or void them first; nothing was merged.",
                        len(shared),
                    )
                    % {"count": len(shared), "listed": listed}
                ]
            }
        )
    matches = list(
        Match.objects.filter(seats__player_id=drop_id)
        .order_by("played_at", "id")
        .values_list("game_id", "played_at", "id")
    )
    first: dict[int, tuple[datetime, int]] = {}
    by_game: dict[int, list[int]] = {}
    for game_id, played_at, match_id in matches:
        first.setdefault(game_id, (played_at, match_id))
        by_game.setdefault(game_id, []).append(match_id)
    games = list(Game.objects.filter(pk__in=by_game))
    for game in games:
        if kind_of(game) is None:  # its parts are unknown here: moving only the seats would split a result
            raise ValidationError(
                {"players": [_("The game %(game)s has no registered kind; nothing was merged.") % {"game": game.slug}]}
            )
    seats.update(player_id=keep_id)
    for game in games:
        kind_of(game).parts_player_move(by_game[game.pk], drop_id=drop_id, keep_id=keep_id)
    if by_game:
        results_version_bump(game_ids=sorted(by_game))
    return first


def match_due_at(*, game: Game, league: League | None, played_at: datetime) -> datetime | None:
    """When a result may be rated: at once (None), or at the close of its league's rating period.

    Rating periods are the bridge thesis's: a game's kind says whether it has them (``rating_periods``);
    other games rate every result at once.
    """
    kind = kind_of(game)
    if league is None or kind is None or not kind.rating_periods:
        return None
    bounds = league.period_bounds(played_at)
    return bounds[1] if bounds else None


def league_due_dates_refresh(*, league: League) -> int:
    """Recompute when each waiting result of a league may be rated, after its rating period changed.

    Rated results are replayed by the caller (a rule change replays the game);
    this only moves the ``due_at`` of every match filed under the league.
    """
    matches = list(Match.objects.filter(league=league).select_related("game").only("pk", "played_at", "game", "league"))
    for match in matches:
        match.due_at = match_due_at(game=match.game, league=league, played_at=match.played_at)
    with transaction.atomic():
        Match.objects.bulk_update(matches, ["due_at"], batch_size=1000)
        if matches:
            results_version_bump(game_ids=[league.game_id])
    return len(matches)


def _submitted_body(cleaned: MatchInput) -> dict:
    """The result as the audit log keeps it: the validated result (``match_input_as_body``), never the raw body.

    The log is append-only, so nothing the service did not validate goes in:
    fields the body's game does not use (a Preferans body's ``players``) and
    fields no game knows are ignored by validation, and not stored either. It
    is the shape a correction's before and after take. No query: everything
    was read while cleaning.
    """
    return match_input_as_body(cleaned)
