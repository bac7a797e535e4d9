"""What each parameter of Slaps' ISF Elo (seed 000, ``ratings.engines.elo``) does, in a club admin's words.

The quality page lists them and the tuning page words its changes with them (``ratings.parameters``).
Each sentence follows the engine's formula: E = 1 / (1 + 10^((Rb - Ra) / scale)), R' = R + K (S - E), K
being ``k_provisional`` until a player has completed ``provisional_matches`` rated matches and
``k_established`` from then on. A match moves a rating by K times (1 - E) at most, so K is the most one
match can move it.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from ratings.parameters import ParameterText

ELO_PARAMETER_TEXTS: dict[str, ParameterText] = {
    "k_provisional": ParameterText(
        label=_("K for new players"),
        does=_("The most one match can move the rating of a player still in their provisional matches."),
        higher=_("new players reach their level in fewer matches"),
        lower=_("new players' ratings move less on each early result"),
    ),
    "k_established": ParameterText(
        label=_("K for established players"),
        does=_("The most one match can move the rating of a player past their provisional matches."),
        higher=_("ratings follow recent form faster"),
        lower=_("ratings move less on each result and settle more"),
    ),
    "provisional_matches": ParameterText(
        label=_("Provisional matches"),
        does=_(
            "How many rated matches a player plays with the K for new players, their rating marked provisional, "
            "before the K for established players applies."
        ),
        higher=_("players keep the new players' K, and a provisional rating, for longer"),
        lower=_("players reach the established players' K sooner"),
    ),
    "scale": ParameterText(
        label=_("Rating scale"),
        does=_("The rating gap at which the stronger player is expected to win 10 matches to 1."),
        higher=_("a given gap predicts a closer match, so ratings spread wider apart"),
        lower=_("a given gap predicts a more one-sided match, so ratings stay closer together"),
    ),
}
