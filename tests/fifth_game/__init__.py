"""The fifth game, a plugin: Durak, 2 to 6 players a game of several deals, one loser each deal.

Proof of issue 26's claim "a new game lives in one place": this folder is a
Django app (``apps.py``) with its own part model and migration (each deal's
loser, ``models.Round``), its own body shape (``players`` and ``losers``), its
engine (a pairwise Elo, ``engine.py``), its kind (``kind.py``) and its entry
page's template, added to Cardrank by one line in settings
(``tests/settings.py``: ``INSTALLED_APPS``). Nothing outside this folder names it.
"""
