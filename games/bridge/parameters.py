"""What each parameter of bridge's pairs Elo (seed 003, ``ratings.engines.bridge``) does, in a club admin's words.

The quality page lists them and the tuning page words its changes with them (``ratings.parameters``).
Each sentence follows the engine's formula (its docstring has the vocabulary: board, duel, side, IMP): a duel
moves each of its players by K (S - E), E = 1 / (1 + 10^(rd / scale)) with rd, the gap between the sides,
clamped to +-rating_difference_cap; S is 1/2 within ``draw_margin_imps``; K is k_base for a margin of up to
one goal of ``imps_per_goal`` IMPs, 1.5 k_base up to two goals and k_base (11 + goals) / 8 beyond; a pair
is its partners' mean plus bonus_max (1 - e^(-deals / bonus_scale)), nearly two thirds of bonus_max after
bonus_scale deals together and almost all of it after three times as many.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from ratings.parameters import ParameterText

BRIDGE_PARAMETER_TEXTS: dict[str, ParameterText] = {
    "k_base": ParameterText(
        label=_("K for a narrow margin"),
        does=_(
            "The most a duel won or lost by up to one goal of IMPs can move a player's rating; wider margins "
            "raise it (1.5 times up to two goals, more beyond)."
        ),
        higher=_("ratings follow recent form faster"),
        lower=_("ratings move less on each board and settle more"),
    ),
    "scale": ParameterText(
        label=_("Rating scale"),
        does=_("The rating gap at which the stronger side is expected to win a duel 10 to 1."),
        higher=_("a given gap predicts a closer duel, so ratings spread wider apart"),
        lower=_("a given gap predicts a more one-sided duel, so ratings stay closer together"),
    ),
    "rating_difference_cap": ParameterText(
        label=_("Largest rating gap counted (the rule of 400)"),
        does=_("A gap between two sides wider than this counts as this one, so no duel is a foregone conclusion."),
        higher=_("a much stronger side gains less from beating a weak one and loses more to it"),
        lower=_("a much stronger side gains more from beating a weak one and loses less to it"),
    ),
    "draw_margin_imps": ParameterText(
        label=_("Draw margin (IMPs)"),
        does=_("A duel won or lost by no more than this many IMPs is a draw, half a point to each side."),
        higher=_("more duels count as draws"),
        lower=_("fewer duels count as draws, so narrow margins decide more"),
    ),
    "imps_per_goal": ParameterText(
        label=_("IMPs per goal"),
        does=_(
            "How many IMPs make one goal, the step by which a wider margin raises K: 1.5 times up to two goals, "
            "then a little more with every goal."
        ),
        higher=_("only wider margins raise K, so big wins and losses count less extra"),
        lower=_("narrower margins already raise K, so big wins and losses count more"),
    ),
    "bonus_max": ParameterText(
        label=_("Largest partnership bonus"),
        does=_("The most rating points a long-standing partnership adds to the mean of its partners' ratings."),
        higher=_("regular partnerships are rated further above their partners' mean"),
        lower=_("a partnership counts for less beside its partners' own ratings"),
    ),
    "bonus_scale": ParameterText(
        label=_("Partnership bonus pace (deals)"),
        does=_(
            "How many deals played together give a pair nearly two thirds of the largest bonus; three times as "
            "many give almost all of it."
        ),
        higher=_("partnerships take longer to earn their bonus"),
        lower=_("partnerships earn their bonus in fewer deals"),
    ),
}
