"""The menu's entry pages: one link per game whose kind has an entry page, labelled by the kind."""

from django.urls import reverse

from games.setup import kept_games
from leagues.models import Game


def games_of(request) -> list[Game]:
    """Every game, in id order, read once per request: an entry page's game and the menu's links share
    the one read, from the cache (``games.setup``), or one query when it has none."""
    games = getattr(request, "_cardrank_games", None)
    if games is None:
        games = kept_games()
        request._cardrank_games = games
    return games


def entry_pages(request) -> dict:
    """``entry_pages``: the menu's links to the games' entry pages, as ``{"url", "label"}``.

    A callable, so that the template evaluates it only where it shows the
    links (to a referee): one query on the games table then (none on an entry page, which has read them
    already: ``games_of``), none otherwise.
    """

    def links() -> list[dict]:
        return [
            {"url": reverse("result-entry", args=[game.slug]), "label": game.kind.entry_label(game)}
            for game in games_of(request)
            if game.kind is not None and game.kind.has_entry_page
        ]

    return {"entry_pages": links}
