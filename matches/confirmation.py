"""Two-step confirmation: which results wait for a second referee, confirming one, disputing one.

A league may require a second referee's confirmation (``League.requires_confirmation``);
a rated result waiting for it (``Match.awaiting_confirmation``) is not rated
until a referee other than its author confirms it (Tabbycat's ballot
confirmation). That referee may instead *dispute* it, with a note saying
what is wrong: a disputed result stays unrated, cannot be confirmed, and
waits for an admin, whose correction (``services.match_correct``: it then
waits for confirmation again, if its league asks) or void ends the dispute.
The note is kept in the audit log (``AuditEntry.Action.DISPUTED``).

Nobody confirms (or disputes) their own work: neither who entered or last
corrected the version waiting (``selectors.match_author_id``) nor who
imported it (``match_importer_id``: the uploader an import's audit entry
names as its ``source``), whichever referee the import recorded.
"""

from __future__ import annotations

import unicodedata

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from config.permissions import user_can_submit
from leagues.models import League
from matches.inputs import MatchInput
from matches.models import AuditEntry, Match
from matches.selectors import VERSION_ACTIONS, match_version_id
from matches.signals import result_disputed
from matches.versions import results_version_bump
from ratings.intake import player_leagues_in_game, ratings_intake


def match_needs_confirmation(*, cleaned: MatchInput) -> bool:
    """Whether a result waits for a second referee: what a league's ``requires_confirmation`` covers.

    A rated result needs confirmation when the league it is filed under, or
    any league one of its players is in when it is entered (or corrected),
    requires it. Players without a rating in the game yet are in its entry
    (amateur) league. So the setting follows the players, whichever page,
    API call or correction brings the result in, and naming another league
    in the body can add the requirement but never remove it. Friendlies are
    never rated, so never wait. Bots have no league.
    """
    if not cleaned.rated:
        return False
    leagues = cleaned.leagues or tuple(League.objects.filter(game=cleaned.game))
    two_step = {league.pk for league in leagues if league.requires_confirmation}
    if not two_step:
        return False  # the usual case: no query beyond cleaning's
    if cleaned.league is not None and cleaned.league.pk in two_step:
        return True
    entry = next((league.pk for league in leagues if league.tier == League.Tier.AMATEUR), None)
    player_ids = [seat.player.pk for seat in cleaned.seats if seat.player is not None]
    current = player_leagues_in_game(game=cleaned.game, player_ids=player_ids)
    return any(current.get(player_id, entry) in two_step for player_id in player_ids)


DISPUTED_WAITS = gettext_lazy("This result is disputed: it waits for an admin to correct or void it.")


def match_workers(match: Match) -> tuple[int | None, int | None]:
    """Whose work the stored version of a result is, in one query: its author (the admin who last corrected
    it, else its referee: ``selectors.match_author_id``) and who imported it, if an import wrote it (the
    user the version's audit entry names as ``source.by``, ``games.importing.ImportSource``; None for the
    command-line operator)."""
    action, actor, data = (
        AuditEntry.objects.filter(match=match, action__in=VERSION_ACTIONS)
        .order_by("-id")
        .values_list("action", "actor_id", "data")
        .first()
    ) or (None, None, None)
    author = actor if action == AuditEntry.Action.CORRECTED else match.referee_id
    source = data.get("source") if isinstance(data, dict) else None
    importer = source.get("by") if isinstance(source, dict) else None
    return author, importer if isinstance(importer, int) else None


def match_importer_id(match: Match) -> int | None:
    """Who imported the version of a result that is stored (``match_workers``)."""
    return match_workers(match)[1]


def _own_work(match: Match, by, *, confirm: bool) -> None:
    """Refuse ``by`` if the waiting version is their work: entered, corrected (its author) or imported."""
    author, importer = match_workers(match)
    if author == by.pk:
        if confirm:
            message = _("A second referee must confirm: you entered (or corrected) this result.")
        else:
            message = _("A second referee disputes a result: you entered (or corrected) this one.")
        raise ValidationError({"non_field_errors": [message]})
    if importer == by.pk:
        if confirm:
            message = _("A second referee must confirm: you imported this result.")
        else:
            message = _("A second referee disputes a result: you imported this one.")
        raise ValidationError({"non_field_errors": [message]})


#: A dispute's note, at most (``Match.dispute_note`` holds as much): a sentence or three, not a file.
DISPUTE_NOTE_MAX = 1000
# Control, formatting (bidirectional overrides), surrogate, private-use and unassigned characters are
# refused in a note, as in a player's name (``leagues.services``); a line break and a tab are text.
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn"}
_ALLOWED = "\n\t\u200c\u200d"  # line break, tab, zero-width non-joiner and joiner (emoji, scripts)


def dispute_note_clean(value) -> str:
    """A dispute's note as stored: NFC, line breaks as ``\\n``, trimmed; refused when empty, longer than
    ``DISPUTE_NOTE_MAX`` or holding control or formatting characters (``ValidationError`` on ``note``)."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError({"note": [_("Say what is wrong with the result: a note is required to dispute it.")]})
    note = unicodedata.normalize("NFC", value.replace("\r\n", "\n").replace("\r", "\n")).strip()
    # As sent and as stored: the API's schema bounds the text sent, the column the text stored.
    longest = max(len(value), len(note))
    if longest > DISPUTE_NOTE_MAX:
        raise ValidationError(
            {
                "note": [
                    ngettext(
                        "At most %(max)d characters; this note has %(count)d.",
                        "At most %(max)d characters; this note has %(count)d.",
                        longest,
                    )
                    % {"max": DISPUTE_NOTE_MAX, "count": longest}
                ]
            }
        )
    if any(unicodedata.category(char) in _REFUSED_CATEGORIES and char not in _ALLOWED for char in note):
        raise ValidationError(
            {"note": [_("The note contains control, formatting (such as bidirectional) or unassigned characters.")]}
        )
    return note


def match_confirm(*, match_id: int, by, version: int | None = None) -> Match:
    """Confirm a result waiting for a second referee (``match_needs_confirmation``); it is then rated.

    The confirming referee must not be the author of the version waiting:
    the referee who entered it, or the admin who last corrected it
    (Tabbycat's ballot confirmation). Confirming twice, a result that
    needs no confirmation, or a voided one (it no longer counts, so there
    is nothing left to confirm: a void keeps the waiting flag as it was, for
    the record) is a clear error that changes nothing. ``version``, when
    given, is the version the referee read (``selectors.match_version_id``,
    the confirmation page sends it): a result an admin corrected since is
    refused, so nobody confirms a version they have not seen.
    """
    if not user_can_submit(by):
        raise PermissionDenied(_("Only referees can confirm results."))
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None:
            raise Match.DoesNotExist(f"No match {match_id}.")
        if match.status == Match.Status.VOID:
            raise ValidationError({"non_field_errors": [_("This result was voided: there is nothing to confirm.")]})
        if not match.awaiting_confirmation:
            raise ValidationError({"non_field_errors": [_("This result is not waiting for confirmation.")]})
        if match.disputed_at is not None:
            raise ValidationError({"non_field_errors": [DISPUTED_WAITS]})
        if version is not None and match_version_id(match) != version:
            raise ValidationError(
                {"non_field_errors": [_("This result was corrected after you read it: read it again, then confirm.")]}
            )
        _own_work(match, by, confirm=True)
        match.awaiting_confirmation = False
        match.confirmed_by = by
        match.save(update_fields=["awaiting_confirmation", "confirmed_by"])
        AuditEntry.objects.create(actor=by, action=AuditEntry.Action.CONFIRMED, match=match, data={})
        ratings_intake().rate_after_commit(match_id=match.pk)
        results_version_bump(game_ids=[match.game_id])
    return match


def match_dispute(*, match_id: int, by, note, version: int | None = None) -> Match:
    """Dispute a result waiting for a second referee (Tabbycat: a ballot that does not match the
    adjudicator's): it stays unrated and waits for an admin, who corrects or voids it.

    The same referees may dispute as may confirm (``match_confirm``): a
    referee who is not the author of the waiting version, which they read
    (``version``, as the page sends it). The note is required
    (``dispute_note_clean``). Disputing a result that does not wait (rated,
    void, friendly, confirmed), one already disputed, or one corrected since
    it was read is a clear error that changes nothing. The row is locked as
    ``match_confirm`` locks it, so a dispute and a confirmation racing for
    one result cannot both win. Writes the dispute, its audit entry (with
    the note) and the results version; no rating is asked for.
    """
    if not user_can_submit(by):
        raise PermissionDenied(_("Only referees can dispute results."))
    note = dispute_note_clean(note)
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None:
            raise Match.DoesNotExist(f"No match {match_id}.")
        if match.status == Match.Status.VOID:
            raise ValidationError({"non_field_errors": [_("This result was voided: there is nothing to dispute.")]})
        if match.disputed_at is not None:
            raise ValidationError({"non_field_errors": [_("This result is already disputed: it waits for an admin.")]})
        if not match.awaiting_confirmation or match.status != Match.Status.SUBMITTED:
            raise ValidationError(
                {
                    "non_field_errors": [
                        _("Only a result waiting for confirmation can be disputed; ask an admin to correct this one.")
                    ]
                }
            )
        if version is not None and match_version_id(match) != version:
            raise ValidationError(
                {"non_field_errors": [_("This result was corrected after you read it: read it again, then dispute.")]}
            )
        _own_work(match, by, confirm=False)
        match.disputed_at = timezone.now()
        match.disputed_by = by
        match.dispute_note = note
        match.save(update_fields=["disputed_at", "disputed_by", "dispute_note"])
        AuditEntry.objects.create(actor=by, action=AuditEntry.Action.DISPUTED, match=match, data={"note": note})
        results_version_bump(game_ids=[match.game_id])
        transaction.on_commit(lambda: result_disputed.send_robust(sender=Match, match_id=match.pk, by_id=by.pk))
    return match


#: The fields ``match_dispute`` sets, as a correction or a void leaves them: no dispute.
DISPUTE_CLEARED = {"disputed_at": None, "disputed_by": None, "dispute_note": ""}
