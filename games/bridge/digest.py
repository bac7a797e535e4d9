"""A bridge evening in the player's email digest (``BridgeKind.digest_extra``, ``notices.digests``): the
scorecard of the pair they played in and the boards' hand records, read as the scorecard and traveller pages
read them (``games.bridge.session.SessionReading``), rendered as HTML and as plain text.

Seven queries a session (its boards, tables and players, as ``games.bridge.pages`` reads one).
"""

from __future__ import annotations

from django.db.models import Prefetch
from django.template.loader import render_to_string

from games.bridge.models import Board
from games.bridge.session import SessionReading, hand_record, session_title
from matches.models import Match


def session_digest(matches, player) -> tuple[str, str] | None:
    """For each session of ``matches`` the player played, the scorecard of the pair they played most boards
    in and every board's hand record that the club published; None when there is nothing to add."""
    boards = Prefetch(
        "boards",
        queryset=Board.objects.order_by("position").prefetch_related(
            "tables", "tables__ns_1", "tables__ns_2", "tables__ew_1", "tables__ew_2"
        ),
    )
    read = Match.objects.select_related("game", "league").prefetch_related(boards)
    sessions = []
    for match in read.filter(pk__in=[match.pk for match in matches]).order_by("played_at", "id"):
        reading = SessionReading(match, ratings=False)
        pairs = reading.pairs_of_player(player.pk)
        if not pairs:
            continue
        hands = [(board, hand_record(board)) for board in reading.boards]
        sessions.append(
            {
                "match": match,
                "session": reading,
                "title": session_title(match),
                "pair": pairs[0],
                "card": reading.scorecard(pairs[0]),
                "hands": [(board, hand) for board, hand in hands if hand],
            }
        )
    if not sessions:
        return None
    context = {"sessions": sessions, "player": player}
    return (
        render_to_string("games/bridge/_digest.html", context),
        render_to_string("games/bridge/_digest.txt", context),
    )
