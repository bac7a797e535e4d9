"""People: merging two records of one person, and erasing a person on their request.

Both change who a result names, so they sit here, above the results (whose
seats and parts ``matches.services.match_players_move`` moves) and beside the
ledger they replay. Admin calls them (``web.admin``); each writes one
audit entry (``matches.models.AuditEntry``, no match).

Merging (``players_merge``): a club that imported its history, or entered
the same person twice, ends with two players who are one person. Every seat
and every place in a result's parts moves to the player kept, the other is
deleted, and each affected game's ratings are replayed, now, from the first
result the deleted player played: afterwards the ledger is the one a single
player with the whole history would have. Refused, with nothing changed:
a player with themselves, two players seated in one match (one person
cannot play against themselves: correct or void the result first), two
different federation numbers, two different logins, an erased player.

Erasing (``player_erase``), for a privacy request: the name becomes "Erased
player #<id>", the federation number and the login link are cleared, and
``erased_at`` says when. Results stay, and with them every rating: the
player keeps their id, so no other player's rating changes (and neither does
theirs). The audit entry keeps who erased which id, and when, never the old
name: the log is kept for ever, so a name in it would outlive the erasure it
records. For the same reason the merge entries that named this person (the
player kept, and those merged into them earlier) lose their names and
numbers: the one edit the append-only log allows; and admin's history of
those records (Django's ``LogEntry``, which keeps the name an object had when
it was edited) names them by the erased name too, and so does every other
admin history line whose object's name carried one of the person's names
(their name now, earlier names admin's history or the merges knew); a
dispute's note that names them, on the result and in its audit entry, names
them by the erased name instead, and so do their rows in published rating
lists (which otherwise never change). Higher apps drop what they keep of the
person through ``player_erased`` (the import runs' previews and files:
``games.import_runs``). Erasing an erased player
changes nothing. Admin erases only after a confirmation page that names the
players, their results and what erasing does and keeps (``web.admin``).
"""

from __future__ import annotations

import re

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.db.models import Q
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext as _

from leagues.models import Player, SeasonStanding
from matches.models import AuditEntry, Match, Seat
from matches.services import match_players_move
from ratings.ledger import rating_replay_mark, rating_state_lock
from ratings.models import RatingChange, RatingListRow
from ratings.services import ratings_process_game

MERGE_PERMISSIONS = ("leagues.change_player", "leagues.delete_player")
ERASE_PERMISSIONS = ("leagues.change_player",)


#: Sent in the erasure's transaction once the player is erased: higher apps drop what they keep of the person.
#: Arguments: ``player`` (erased), ``ids`` (theirs and those merged into them), ``names`` (every name they
#: were known by), ``numbers`` (their federation numbers), ``pattern`` (``names_pattern(names)``), ``user_id``
#: (the account that was linked to the player, or None: its address and choices go too).
player_erased = Signal()

DISPUTE_NOTE_MAX_LENGTH = Match._meta.get_field("dispute_note").max_length


def erased_name(player_id: int) -> str:
    return f"Erased player #{player_id}"


def names_pattern(names) -> re.Pattern | None:
    """Any of ``names`` as a whole word (not inside a longer one), in any case; None for no names."""
    names = sorted({name.strip() for name in names if name and name.strip()}, key=len, reverse=True)
    if not names:
        return None
    return re.compile("|".join(rf"(?<!\w){re.escape(name)}(?!\w)" for name in names), re.IGNORECASE)


def _names_known(player: Player, ids: set[int]) -> set[str]:
    """Every name the person had: theirs now, their records' earlier names in admin's history, the merges'."""
    names = {player.name}
    names |= set(
        LogEntry.objects.filter(
            content_type=ContentType.objects.get_for_model(Player), object_id__in=[str(pk) for pk in ids]
        ).values_list("object_repr", flat=True)
    )
    for data in (
        AuditEntry.objects.filter(action=AuditEntry.Action.MERGED)
        .filter(Q(data__kept__id__in=list(ids)) | Q(data__dropped__id__in=list(ids)))
        .values_list("data", flat=True)
    ):
        names |= {data[side].get("name", "") for side in ("kept", "dropped") if data[side]["id"] in ids}
    return {name.strip() for name in names if name.strip() and not name.startswith("Erased player #")}


def _any_of(field: str, names: set[str]) -> Q:
    """Rows whose ``field`` may hold one of the names, in any case: SQLite folds only ASCII letters' case, so each
    name is also looked for lower, upper and title cased (``names_pattern`` then says which really do)."""
    found = Q()
    for name in names:
        for spelling in {name, name.lower(), name.upper(), name.title()}:
            found |= Q(**{f"{field}__icontains": spelling})
    return found


def _scrub_history(*, player: Player, ids: set[int], names: set[str], pattern: re.Pattern | None) -> None:
    """Admin's history lines and disputes' notes that name the person name them by the erased name."""
    placeholder = erased_name(player.pk)
    # Admin's history keeps each record's name as it was when edited: the same person's records lose it,
    LogEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(Player), object_id__in=[str(pk) for pk in ids]
    ).update(object_repr=placeholder)
    # Published rating lists keep each row's name as published; the person's rows (merged ids too) lose it,
    # the one change their trigger allows (ratings migration 0009).
    RatingListRow.objects.filter(player_id__in=ids).update(name=placeholder)
    SeasonStanding.objects.filter(player_id__in=ids).update(name=placeholder)  # seasons' tables, frozen or not
    for entry in AuditEntry.objects.filter(action=AuditEntry.Action.SEASON, data__moves__isnull=False):
        moves = entry.data.get("moves", [])
        if any(move.get("player") in ids for move in moves):
            data = {
                **entry.data,
                "moves": [{**move, "name": placeholder} if move.get("player") in ids else move for move in moves],
            }
            AuditEntry.objects.filter(pk=entry.pk).update(data=data)  # the erasure's exception (see above)
    if pattern is None:
        return
    naming = _any_of("object_repr", names)
    # and so does any other record whose name carried theirs (a rating, a pair, a seat).
    for pk, text in LogEntry.objects.filter(naming).values_list("pk", "object_repr").iterator(chunk_size=500):
        if (scrubbed := pattern.sub(placeholder, text)) != text:
            LogEntry.objects.filter(pk=pk).update(object_repr=scrubbed[:200])
    notes = _any_of("dispute_note", names)
    for pk, text in Match.objects.filter(notes).values_list("pk", "dispute_note").iterator(chunk_size=500):
        if (scrubbed := pattern.sub(placeholder, text)) != text:
            Match.objects.filter(pk=pk).update(dispute_note=scrubbed[:DISPUTE_NOTE_MAX_LENGTH])
    audit = _any_of("data__note", names)
    for entry in AuditEntry.objects.filter(action=AuditEntry.Action.DISPUTED).filter(audit).iterator(chunk_size=500):
        note = str(entry.data.get("note", ""))
        if (scrubbed := pattern.sub(placeholder, note)) != note:
            # The one edit the append-only log allows, as for the merges (matches migration 0018).
            AuditEntry.objects.filter(pk=entry.pk).update(data={**entry.data, "note": scrubbed})


def _refuse(message: str):
    return ValidationError({"players": [message]})


def _as_player(value, role: str) -> Player:
    if not isinstance(value, Player) or value.pk is None:
        raise _refuse(
            f"The player to {role} must be a stored player (given: {type(value).__name__}); bots are never merged."
        )
    return value


def _summary(player: Player) -> dict:
    return {"id": player.pk, "name": player.name, "federation_id": player.federation_id}


def players_merge(*, keep: Player, drop: Player, by) -> Player:
    """Merge ``drop`` into ``keep`` (one person entered twice): see the module. Returns ``keep``, reloaded.

    Everything happens in one transaction: the games' rating locks (in game id
    order, as the rating task takes them), the two players' rows, the moves,
    the replays, the delete and the audit entry; a refusal changes nothing.
    """
    if not (by and by.is_authenticated and by.is_active and by.has_perms(MERGE_PERMISSIONS)):
        raise PermissionDenied(_("Only admins who may change and delete players can merge them."))
    keep, drop = _as_player(keep, "keep"), _as_player(drop, "merge")
    if keep.pk == drop.pk:
        raise _refuse(_("A player cannot be merged with themselves."))
    with transaction.atomic():
        game_ids = sorted(set(Seat.objects.filter(player=drop).values_list("match__game_id", flat=True)))
        states = {game_id: rating_state_lock(game_id=game_id) for game_id in game_ids}
        rows = {player.pk: player for player in Player.objects.select_for_update().filter(pk__in=[keep.pk, drop.pk])}
        if len(rows) != 2:
            raise _refuse(_("One of the players no longer exists (merged or deleted meanwhile); nothing was merged."))
        keep, drop = rows[keep.pk], rows[drop.pk]
        if now_in := set(Seat.objects.filter(player=drop).values_list("match__game_id", flat=True)) - set(states):
            raise _refuse(
                _("A result naming %(name)s was entered meanwhile (games %(games)s); try again.")
                % {"name": drop.name, "games": sorted(now_in)}
            )
        for player in (keep, drop):
            if player.erased_at is not None:
                raise _refuse(
                    _("%(name)s was erased: nothing identifies them any more, so they are not merged.")
                    % {"name": player.name}
                )
        if keep.federation_id and drop.federation_id and keep.federation_id != drop.federation_id:
            raise _refuse(
                _(
                    "%(keep)s has federation number %(keep_number)s and %(drop)s %(drop_number)s: "
                    "two numbers are two people, or one number is wrong. Correct it first; nothing was merged."
                )
                % {
                    "keep": keep.name,
                    "keep_number": keep.federation_id,
                    "drop": drop.name,
                    "drop_number": drop.federation_id,
                }
            )
        if keep.user_id and drop.user_id and keep.user_id != drop.user_id:
            raise _refuse(
                _("%(keep)s and %(drop)s each have a login: unlink one first (a person has one login).")
                % {"keep": keep.name, "drop": drop.name}
            )
        kept, dropped = _summary(keep), _summary(drop)
        firsts = match_players_move(drop_id=drop.pk, keep_id=keep.pk)
        for game_id, (played_at, match_id) in firsts.items():
            rating_replay_mark(state=states[game_id], played_at=played_at, match_id=match_id)
        for game_id in game_ids:
            ratings_process_game(game_id=game_id)
        # A replay from the dropped player's first result removed every ledger row naming them.
        if RatingChange.objects.filter(player_id=drop.pk).exists():
            raise RuntimeError(f"Player {drop.pk} still has ledger rows after the replay; nothing was merged.")
        federation_id, user_id = keep.federation_id or drop.federation_id, keep.user_id or drop.user_id
        drop.delete()  # their ratings and promotions went with the replay; nothing else names them
        keep.federation_id, keep.user_id = federation_id, user_id
        keep.save(update_fields=["federation_id", "user"])  # bumps the cached pages' versions (ratings.receivers)
        AuditEntry.objects.create(
            actor=by,
            action=AuditEntry.Action.MERGED,
            match=None,
            data={
                "kept": kept,
                "dropped": dropped,
                "games": game_ids,
                "replayed_from_matches": {str(game_id): first[1] for game_id, first in firsts.items()},
            },
        )
    keep.refresh_from_db()
    return keep


def _merged_into(player_id: int) -> set[int]:
    """This player's id and the ids of every player merged into them, and into those, recursively."""
    ids, frontier = {player_id}, {player_id}
    while frontier:
        found = set(
            AuditEntry.objects.filter(action=AuditEntry.Action.MERGED, data__kept__id__in=list(frontier)).values_list(
                "data__dropped__id", flat=True
            )
        )
        frontier = found - ids
        ids |= frontier
    return ids


def _audit_erasing(on: bool) -> None:
    """Let this transaction edit merge entries' data (PostgreSQL's append-only trigger allows that only then,
    migration matches 0014), or stop letting it."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('cardrank.erasing', %s, true)", ["on" if on else "off"])


def player_erase(*, player: Player, by) -> Player:
    """Erase a person's details on their request: see the module. Returns the player, reloaded."""
    if not (by and by.is_authenticated and by.is_active and by.has_perms(ERASE_PERMISSIONS)):
        raise PermissionDenied(_("Only admins who may change players can erase one."))
    player = _as_player(player, "erase")
    with transaction.atomic():
        player = Player.objects.select_for_update().filter(pk=player.pk).first()
        if player is None:
            raise _refuse(_("That player no longer exists; nothing was erased."))
        if player.erased_at is not None:
            return player
        ids = _merged_into(player.pk)
        names, numbers = _names_known(player, ids), {player.federation_id} - {""}
        pattern = names_pattern(names)
        player.name = erased_name(player.pk)
        player.federation_id = ""
        user_id, player.user = player.user_id, None
        player.erased_at = timezone.now()
        player.save()  # bumps the cached pages' versions (ratings.receivers): the old name leaves them
        _audit_erasing(True)
        for entry in AuditEntry.objects.filter(action=AuditEntry.Action.MERGED).filter(
            Q(data__kept__id__in=list(ids)) | Q(data__dropped__id__in=list(ids))
        ):
            data = dict(entry.data)
            for side in ("kept", "dropped"):
                if data[side]["id"] in ids:
                    data[side] = {**data[side], "name": erased_name(player.pk), "federation_id": ""}
            # The log is append-only (AuditEntry.save refuses edits); an erasure is the one exception.
            AuditEntry.objects.filter(pk=entry.pk).update(data=data)
        _scrub_history(player=player, ids=ids, names=names, pattern=pattern)
        _audit_erasing(False)
        player_erased.send(
            sender=Player, player=player, ids=ids, names=names, numbers=numbers, pattern=pattern, user_id=user_id
        )
        AuditEntry.objects.create(
            actor=by,
            action=AuditEntry.Action.ERASED,
            match=None,
            data={"player": player.pk, "merged_into_them": sorted(ids - {player.pk})},
        )
    return player
