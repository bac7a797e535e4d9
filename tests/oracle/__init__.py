"""The rating oracle: a literal, slow, readable second reading of the rules.

Why it exists: above the engines, tests used to take their expected ratings
from the code under test (``get_rating_system(...).rate``,
``ratings_replay_all``), so a bug shared by the engine and the replay could
not fail a test. The oracle is written from the specification alone — the
seeds in ``shared/seeds/`` (000 Slaps Elo, 001 Preferans, 003 bridge pairs
Elo), ``shared/spec/PRODUCT.md`` ("Rating rules" and "Rules settled after the
first release") and the project's documented choices (docs/ratings.md, the
engines' module docstrings read as prose) — and it imports
nothing from ``ratings/``, ``matches/``, ``leagues/``, ``config/`` or Django
(``tests/oracle/test_isolation.py`` walks its imports to hold it to that).

How to use it: describe the game (``GameSpec`` with its ``LeagueSpec``s) and
hand ``oracle_replay`` every stored result (``ResultSpec``: id, played_at,
league filed under, status, API-shaped body) in any order, with ``now``. It
returns an ``Outcome``: one ``LedgerRow`` per (match, unit, player), the
promotions and every player's final standing. ``tests/oracle_db.py`` reads
those inputs from the database and diffs its ledger with the oracle's.

Vocabulary:
    unit        the rated unit: a Slaps match (unit 0), a Preferans deal, a
                bridge board (units numbered from 0 in the order played).
    counted     a result with status "rated"; void, friendly and pending
                (awaiting a second referee) results change nothing.
    as played   a bot seat's rating and maximum as they were when the result
                was stored (a correction keeps those of a bot already at the
                table of the result it corrects); the body carries them.

The rules, as the oracle reads them (each is a function in ``rules`` or a
step of ``history.oracle_replay``):

* Order. Ratings are a function of the counted results in (played_at, id)
  order. Everyone starts at the game's start rating (1000), in the amateur
  league, with peak = start rating (the start counts as a peak) and 0 rated
  matches.
* Arithmetic. Exact (``fractions.Fraction``); powers, logarithms, square
  roots and exponentials to 50 significant digits (``exact``). A new rating
  is rounded half away from zero: Slaps to whole numbers after each match,
  Preferans to two decimals after each deal, bridge to two decimals after
  each board.
* Slaps (seed 000). E = 1/(1 + 10^((Rb - Ra)/400)); R' = R + K(S - E); S is
  1 or 0; K = 32 while the player has completed fewer than 32 rated matches,
  16 from the 33rd; each player uses their own K. ``k_provisional``,
  ``k_established``, ``provisional_matches`` and ``scale`` may be overridden
  by the game's parameters.
* Preferans (seed 001), per deal, every seat's change from the ratings at the
  deal's start (bots' ratings included as opponents): Rt from the opponents
  sorted high to low (1: Rr1; 2: (2Rr1 + Rr2)/3; 3: (3Rr1 + 2Rr2 + Rr3)/6);
  Kv = 60 + (Rs - Rt)/6 if Rs > Rt else 60 + (Rt - Rs)/22; Vf = min((Rs -
  Rt)/Kv, 4); Kd = clamp(2/(1 + log10(1 + |Rs - Rt|/100)), 0.3, 2.0); Rd =
  +Kd*sqrt(Vs - Vf) if Vs > Vf, -Kd*sqrt(Vf - Vs) if Vs < Vf, else 0. The
  formula wins over the seed's "-5 whists against the 1800 bot" sentence.
  Smoothing (the project's definition): a gain earned at Rs > 4000 is
  multiplied by 1/(1 + (Rs - 4000)/1000); losses are not smoothed. Bot
  maxima: a gain never lifts the player above the highest maximum of the
  bots at the table (a player already above it keeps their rating); losses
  apply normally; bots are never rated; their rating and maximum are the
  ones as played.
* Bridge (seed 003 and the project's documented choices). A board is split
  into duels: one table (in IMPs) is NS against EW; a two-table team match
  given in IMPs is {NS1, EW2} against {NS2, EW1}; otherwise every pair of
  tables t < u is {NS(t), EW(u)} against {NS(u), EW(t)}, scored by the WBF
  IMPs of NS(t)'s score minus NS(u)'s. A pair's rating is its players' mean
  plus 50(1 - e^(-d/100)) for d deals played together before the board (a
  deal together is one board at one table, counted over counted results in
  order, within a session too); a side's rating is its pairs' mean. E =
  1/(1 + 10^(rd/400)) with rd = opponents - own clamped to +-400; S = 1 above
  +1 IMP, 0 below -1 IMP, 1/2 within; K by margin with a goal of 3 IMPs:
  24 up to one goal, 36 up to two, 24(11 + goals)/8 beyond. A player's change
  on a board is the mean of K(S - E) over their duels, the new rating
  rounded to two decimals.
* Rating periods (bridge only). A result filed under a league with a rating
  period of N days belongs to the period whose bounds contain it: local
  midnight of anchor + kN days to local midnight of anchor + (k+1)N days on
  the calendar of the configured time zone. It waits until the period's end
  (it is ``pending`` before). Every board of a period's results is computed
  from the ratings at the period's start (the ratings left by everything
  played before the start); the change each board computes (its rounded new
  rating minus the period-start rating) is added to the player's current
  rating.
* Leagues. Each rated match adds one to each of its players' rated-match
  counts (all the match's rows carry the count after it). After every unit,
  in this order: the floor of the league the player is in *at this unit*
  only stops a fall, after = max(proposed, min(before, floor)), so a unit
  never takes a player below the floor and never lifts one who is already
  below it (an admin raised the floor); then the peak; then promotion: an
  amateur reaching the amateur league's threshold moves to pro at this unit
  (a promotion recorded with the rating reached), and the pro floor applies
  from the next unit on, even inside the same game or session.
"""

from .history import GameSpec, LeagueSpec, LedgerRow, Outcome, PromotionRow, ResultSpec, Standing, oracle_replay

__all__ = [
    "GameSpec",
    "LeagueSpec",
    "LedgerRow",
    "Outcome",
    "PromotionRow",
    "ResultSpec",
    "Standing",
    "oracle_replay",
]
