"""A bridge session's own pages beside its match page: each board's traveller and each pair's scorecard.

Public (no sign-in), like the match page (``web.pages.match_page``), which is not cached either: each
reads the session with the match page's query (a fixed number of queries whatever its size) and computes
its standings and points in memory (``games.bridge.session``), a few milliseconds for a 22-table evening.
Routed by the bridge kind (``BridgeKind.page_urls``); ``system`` is its rating system, so a match of
another game is not found here.
"""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from games.bridge.session import SessionReading, rating_changes_over, session_title
from leagues.kinds import kind_of
from matches.models import Match
from ratings.models import RatingChange


def _session(pk: int, system: str) -> SessionReading:
    """The session with its boards, tables and their players: seven queries whatever its size. Not its
    ledger rows: a 40-table evening has thousands (a row per player per board), and these pages need them
    for two players at most (``_pair_changes``)."""
    boards = kind_of(system).part_prefetches()["boards"]
    queryset = Match.objects.select_related("game", "league").filter(game__rating_system=system)
    return SessionReading(get_object_or_404(queryset.prefetch_related(boards), pk=pk), ratings=False)


def _pair_changes(reading: SessionReading, pair) -> None:
    """The pair's players' rating changes over the evening, from their ledger rows only (one query)."""
    rows = RatingChange.objects.filter(match=reading.match, player__in=[player.pk for player in pair.players])
    changes = rating_changes_over(rows.order_by("unit", "player_id"))
    pair.changes = [(player, changes.get(player.pk)) for player in pair.players]


def traveller_page(request, pk: int, number: int, system: str):
    """Board ``number`` of the session: every table's result and points, its byes and its hand record."""
    reading = _session(pk, system)
    position = next((index for index, board in enumerate(reading.boards) if board.number == number), None)
    if position is None:
        raise Http404(_("Board %(number)d was not played in this session.") % {"number": number})
    traveller = reading.traveller(position)
    context = {
        "match": reading.match,
        "session": reading,
        "session_title": session_title(reading.match),
        "title": _("Board %(number)d") % {"number": number},
        **traveller,
    }
    return render(request, "games/bridge/traveller.html", context)


def scorecard_page(request, pk: int, pair: str, system: str):
    """One pair's evening board by board, with its standing."""
    reading = _session(pk, system)
    found = reading.pair_of_slug(pair)
    if found is None:
        raise Http404(_("No pair %(pair)s played in this session.") % {"pair": pair})
    _pair_changes(reading, found)
    card = reading.scorecard(found)
    title = _("Pair %(pair)s") % {"pair": found.label} if found.label else found.names
    context = {
        "match": reading.match,
        "session": reading,
        "session_title": session_title(reading.match),
        "title": title,
        "pair": found,
        **card,
    }
    return render(request, "games/bridge/scorecard.html", context)


def player_scorecard(request, pk: int, player: int, system: str):
    """The scorecard of the pair ``player`` sat in (the profile links here, knowing the player, not the pair);
    of the pair they played most boards in, if a partner changed during the evening."""
    reading = _session(pk, system)
    pairs = reading.pairs_of_player(player)
    if not pairs:
        raise Http404(_("This player did not play in this session."))
    return redirect(pairs[0].get_absolute_url())
