"""The recent matches.

The entry pages are the kinds' (``games/entry.py``); the match page, which
shows rating changes, is in ``ratings/pages.py``, and the referees'
confirmations list, which answers a confirmation with them, in
``ratings/confirm_pages.py``.
"""

from django.shortcuts import render

from matches import selectors


def recent_matches_page(request):
    return render(request, "matches/recent.html", {"matches": selectors.matches_recent(limit=50)})
