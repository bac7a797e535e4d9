"""Idempotency fingerprints: a keyed match remembers what its request stored.

Rows stored before this migration with an ``Idempotency-Key`` get the
fingerprint of what they hold now, computed by a frozen copy of
``matches.services.match_input_as_body`` + ``match_body_fingerprint`` (a
migration must not import code that will change): the body as stored, as
canonical JSON, SHA-256. A retry of such a request that would store the same
result is still answered with the match; one with another body is refused.
New fingerprints are of the request (a later correction leaves them); for
these old rows only what is stored now is known, so a retry of the original
body of a match corrected since then is refused. Retries come within
minutes, corrections later: accepted.
"""

import hashlib
import json
from datetime import UTC

from django.db import migrations, models


def _plain(value):
    if isinstance(value, float) and value == 0:
        return 0.0
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _stored_body(match, Seat, Deal, Board, BoardTable) -> dict:
    body = {
        "game": match.game.slug,
        "played_at": match.played_at.astimezone(UTC).isoformat(),
        "rated": match.rated,
    }
    seats = list(Seat.objects.filter(match=match).select_related("bot").order_by("position"))
    system = match.game.rating_system
    if system == "elo":
        body["players"] = [seat.player_id for seat in seats]
        ranked = sorted(seats, key=lambda seat: seat.result, reverse=True)
        body["winner"] = ranked[0].player_id if ranked and ranked[0].result > 0 else None
    elif system == "preferans":
        body["seats"] = [{"player": seat.player_id} if seat.player_id else {"bot": seat.bot.slug} for seat in seats]
        body["deals"] = [
            [float(whist) for whist in deal.whists] for deal in Deal.objects.filter(match=match).order_by("number")
        ]
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
                    for table in BoardTable.objects.filter(board=board).order_by("table")
                ],
            }
            for board in Board.objects.filter(match=match).order_by("position")
        ]
    if match.league_id:
        body["league"] = match.league.slug
    return body


def fingerprints_fill(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    Seat, Deal = apps.get_model("matches", "Seat"), apps.get_model("matches", "Deal")
    Board, BoardTable = apps.get_model("matches", "Board"), apps.get_model("matches", "BoardTable")
    keyed = Match.objects.filter(idempotency_key__isnull=False, idempotency_fingerprint__isnull=True)
    for match in keyed.select_related("game", "league").iterator(chunk_size=500):
        text = json.dumps(
            _plain(_stored_body(match, Seat, Deal, Board, BoardTable)),
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=True,
        )
        Match.objects.filter(pk=match.pk).update(idempotency_fingerprint=hashlib.sha256(text.encode()).hexdigest())


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0011_seat_bot_as_played"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="idempotency_fingerprint",
            field=models.CharField(
                blank=True,
                help_text="SHA-256 of the result the keyed request stored (its body as stored, canonical JSON): "
                "the same key with a body that would store anything else is refused (422).",
                max_length=64,
                null=True,
            ),
        ),
        migrations.RunPython(fingerprints_fill, migrations.RunPython.noop),
    ]
