"""What each parameter of SmartPref's per-deal rating (seed 001, ``ratings.engines.preferans``) does, in a club
admin's words.

The quality page lists them and the tuning page words its changes with them (``ratings.parameters``).
Each sentence follows the engine's formula (its docstring names the letters): a player of rating Rs at a
table of rating Rt is expected Vf = min((Rs - Rt) / Kv, cap) whists, with Kv = kv_base + (Rs - Rt) / X above
the table and kv_base + (Rt - Rs) / Y at or below it, so Vf stays below X (and above -Y); a deal moves the
rating by Kd times the square root of the whists scored above or below Vf, with
Kd = clamp(kd_base / (1 + log10(1 + |Rs - Rt| / kd_scale)), kd_min, kd_max), which halves at a gap of
nine times kd_scale; a gain above ``smoothing_start`` is multiplied by
1 / (1 + (Rs - smoothing_start) / smoothing_scale), a half at smoothing_scale points above it.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from ratings.parameters import ParameterText

PREFERANS_PARAMETER_TEXTS: dict[str, ParameterText] = {
    "kv_base": ParameterText(
        label=_("Expected-whist divisor (Kv) base"),
        does=_(
            "Where Kv starts: the gap between a player's rating and the table rating, divided by Kv, is the whists "
            "the player is expected to score in a deal."
        ),
        higher=_("the gap to the table counts for less in the whists a player is expected to score"),
        lower=_("the gap to the table counts for more in the whists a player is expected to score"),
    ),
    "kv_above": ParameterText(
        label=_("Kv divisor above the table (X)"),
        does=_(
            "For a player rated above the table, Kv grows by the gap divided by this number, so however strong "
            "they are, they are expected fewer than this many whists."
        ),
        higher=_("players rated above the table are expected more whists, so they gain less and lose more there"),
        lower=_("players rated above the table are expected fewer whists, so they gain more and lose less there"),
    ),
    "kv_below": ParameterText(
        label=_("Kv divisor below the table (Y)"),
        does=_(
            "For a player rated at or below the table, Kv grows by the gap divided by this number, so however weak "
            "they are, they are expected to lose fewer than this many whists."
        ),
        higher=_("players rated below the table are expected to lose more whists, so they gain more and lose less"),
        lower=_("players rated below the table are expected to lose fewer whists, so they gain less and lose more"),
    ),
    "expected_whists_cap": ParameterText(
        label=_("Most expected whists"),
        does=_("The most whists a player is expected to score in a deal, however far above the table they are rated."),
        higher=_("players far above the table must score more whists to gain"),
        lower=_("players far above the table gain with fewer whists"),
    ),
    "kd_base": ParameterText(
        label=_("Deal coefficient (Kd) base"),
        does=_(
            "How much a deal moves a rating, per square root of the whists scored above or below expectation, "
            "when the player and the table are rated alike; Kd shrinks as the gap between them grows."
        ),
        higher=_("every deal moves ratings more"),
        lower=_("every deal moves ratings less"),
    ),
    "kd_min": ParameterText(
        label=_("Smallest deal coefficient (Kd)"),
        does=_("The smallest Kd, which a deal keeps however far the player's rating is from the table rating."),
        higher=_("deals at very uneven tables count more"),
        lower=_("deals at very uneven tables count less"),
    ),
    "kd_max": ParameterText(
        label=_("Largest deal coefficient (Kd)"),
        does=_(
            "The largest Kd: the most a deal can move a rating per square root of a whist scored above or below "
            "expectation."
        ),
        higher=_("deals may move ratings further"),
        lower=_("no deal moves a rating as far as before"),
    ),
    "kd_scale": ParameterText(
        label=_("Deal coefficient (Kd) gap scale"),
        does=_(
            "How big a gap between a player's rating and the table rating makes deals count less: Kd is halved at "
            "a gap of nine times this number."
        ),
        higher=_("deals keep more of their weight at uneven tables"),
        lower=_("deals count less as soon as the player and the table are rated apart"),
    ),
    "smoothing_start": ParameterText(
        label=_("Smoothing starts at"),
        does=_("The rating above which a player's gains are smoothed (made smaller); losses never are."),
        higher=_("gains are cut only from a higher rating on, so top ratings climb further"),
        lower=_("gains are cut from a lower rating on"),
    ),
    "smoothing_scale": ParameterText(
        label=_("Smoothing scale"),
        does=_(
            "How far above the smoothing start a gain is halved: this many points above it a gain counts half, "
            "twice as many a third."
        ),
        higher=_("gains above the smoothing start shrink more slowly"),
        lower=_("gains above the smoothing start shrink faster"),
    ),
}
