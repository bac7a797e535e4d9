"""The site's setup (its games and their bots) kept in the shared cache under the **setup stamp**.

Every page a referee reads lists the games (the menu's entry links, the entry
page's own game: ``games.context_processors.games_of``) and the Preferans
entry page lists its bots: rows an admin edits a few times a year, read on
every request. They are kept under the setup stamp (``config.stamps``),
which saving or deleting a game, a league or a bot renews (receivers
connected in ``games.apps``): a kept list is never older than the last such
change made through the models. A change made around the signals
(``QuerySet.update``, ``bulk_create``, raw SQL) is seen within
``SETUP_SECONDS``, or at once after ``SETUP_STAMP.renew()``. Nothing is kept
in a per-process cache (no ``CACHE_URL``), where another process would not
see the change.
"""

from django.db.models.signals import post_delete, post_save

from config.stamps import Stamp
from leagues.models import Bot, Game, League

#: Keeps the games, each game's leagues and active bots in the shared cache; renewed by every save or delete of
#: a game, a league or a bot, at once and at commit (``connect_receivers``), else after ``SETUP_SECONDS``.
SETUP_STAMP = Stamp("games:setup-stamp", shared_only=True)
#: How long a kept list lives at most: the bound on a change made around the signals.
SETUP_SECONDS = 300


def connect_receivers() -> None:
    for model in (Game, League, Bot):
        label = model._meta.label
        post_save.connect(SETUP_STAMP.changed, sender=model, dispatch_uid=f"setup-stamp-saved-{label}")
        post_delete.connect(SETUP_STAMP.changed, sender=model, dispatch_uid=f"setup-stamp-deleted-{label}")


def kept_games() -> list[Game]:
    """Every game, in id order: fresh instances on every call (unpickled), so no request sees another's."""
    return SETUP_STAMP.kept("games:all", lambda: list(Game.objects.order_by("pk")), SETUP_SECONDS)


def kept(name: str, compute, *, game: Game):
    """What ``compute()`` reads about ``game``'s setup (its bots ...), kept as ``name`` under the stamp."""
    return SETUP_STAMP.kept(f"games:{game.pk}:{name}", compute, SETUP_SECONDS)
