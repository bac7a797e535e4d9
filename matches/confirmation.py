"""Two-step confirmation: which results wait for a second referee, and confirming one.

A league may require a second referee's confirmation (``League.requires_confirmation``);
a rated result waiting for it (``Match.awaiting_confirmation``) is not rated
until a referee other than its author confirms it (Tabbycat's ballot
confirmation).
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from config.permissions import user_can_submit
from leagues.models import League
from matches.inputs import MatchInput
from matches.models import AuditEntry, Match
from matches.selectors import match_author_id, match_version_id
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
        raise PermissionDenied("Only referees can confirm results.")
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None:
            raise Match.DoesNotExist(f"No match {match_id}.")
        if match.status == Match.Status.VOID:
            raise ValidationError({"non_field_errors": ["This result was voided: there is nothing to confirm."]})
        if not match.awaiting_confirmation:
            raise ValidationError({"non_field_errors": ["This result is not waiting for confirmation."]})
        if version is not None and match_version_id(match) != version:
            raise ValidationError(
                {"non_field_errors": ["This result was corrected after you read it: read it again, then confirm."]}
            )
        if match_author_id(match) == by.pk:
            raise ValidationError(
                {"non_field_errors": ["A second referee must confirm: you entered (or corrected) this result."]}
            )
        match.awaiting_confirmation = False
        match.confirmed_by = by
        match.save(update_fields=["awaiting_confirmation", "confirmed_by"])
        AuditEntry.objects.create(actor=by, action=AuditEntry.Action.CONFIRMED, match=match, data={})
        ratings_intake().rate_after_commit(match_id=match.pk)
        results_version_bump(game_ids=[match.game_id])
    return match
