"""Bridge results: cleaning a session's boards and tables, storing and reading them back.

A session is *boards* (deals played at several tables); each board has its
*tables*, each with two pairs, NS and EW, and either NS's score (a multiple
of 10) or, for a board played at one table or a two-table team match, the
*IMPs* (International Match Points) NS won. The seats are the session's
players in order of first appearance; their results come from the engine.
Body field: ``boards``.

What a scorer knows beside the scores is kept too, all optional (docs/api.md):
the session's ``scoring`` (how the club ranks the evening), ``movement``,
``event`` and ``scoring_options``, kept on ``Match.facts``; each board's
``dealer``, ``vulnerability`` (else the board number's), ``deal`` and
``byes``; each table's ``section``, pair numbers, ``contract``, ``declarer``,
``tricks``, ``lead``, or an ``adjusted`` score instead of a played one (not
rated, counted in the standings). A score must be one the board can have at
its vulnerability, and a contract, declarer and tricks give the score.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db.models import Q
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from games.bridge.analysis import hand_records_queue
from games.bridge.deals import deal_parse
from games.bridge.models import Board, BoardTable
from games.bridge.scoring import (
    board_dealer,
    board_vulnerability_name,
    contract_parse,
    ns_score,
    ns_score_problem,
    vulnerability_parse,
)
from games.bridge.standings import SCORINGS
from leagues.models import Player
from matches.inputs import Errors, GameInput, MatchInput, SeatInput, parse_cents, parse_id, players_by_id
from matches.models import Match
from matches.parts import hold

BRIDGE_MAX_BOARDS = 100
BRIDGE_MAX_TABLES = 50
BRIDGE_SCORE_LIMIT = 10_000
BRIDGE_IMPS_LIMIT = Decimal(24)
BRIDGE_POINTS_LIMIT = Decimal(10_000)  # an adjusted row's printed points (cross-IMP totals run to hundreds)
MOVEMENTS = ("mitchell", "howell")
DIRECTIONS = ("NS", "EW")
ADJUSTED_CODES = ("A+", "A=", "A-")
EVENT_MAX = 200
PAIR_TEXT = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,9}")
LEAD = re.compile(r"([SHDC])(10|[AKQJT2-9])")
OPTIONS_MAX = 12


@dataclass(frozen=True)
class TableInput:
    table: int
    ns: tuple[Player, Player]  # lowest id first
    ew: tuple[Player, Player]
    ns_score: int | None = None
    ns_imps: Decimal | None = None
    section: str = ""
    ns_pair: str = ""
    ew_pair: str = ""
    contract: str = ""
    declarer: str = ""
    tricks: int | None = None
    lead: str = ""
    adjusted: dict | None = None


@dataclass(frozen=True)
class BoardInput:
    number: int
    tables: tuple[TableInput, ...]
    dealer: str = ""
    vulnerability: str = ""
    deal: str = ""
    byes: tuple[dict, ...] = ()


BRIDGE_SCORE_TEXT = re.compile(r"-?[0-9]{1,7}")


def bridge_score(value: Any) -> int | None:
    """A table's NS score as a number, or None: a whole multiple of 10 within +-10,000, given as a
    JSON integer or as text ("420", " -50 "). The one reading of a score, for the API, the entry
    page and its preview alike."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and BRIDGE_SCORE_TEXT.fullmatch(value.strip()):
        value = int(value.strip())
    if not isinstance(value, int) or abs(value) > BRIDGE_SCORE_LIMIT or value % 10:
        return None
    return value


def _clean_pair(raw: Any, where: str, errors: Errors) -> tuple[int, int] | None:
    if not isinstance(raw, list | tuple) or len(raw) != 2:
        errors.add("boards", _("%(where)s: a pair is a list of two player ids.") % {"where": where})
        return None
    ids = [parse_id(value) for value in raw]
    if None in ids:
        errors.add("boards", _("%(where)s: player ids are positive whole numbers.") % {"where": where})
        return None
    if ids[0] == ids[1]:
        errors.add("boards", _("%(where)s: a pair needs two different players.") % {"where": where})
        return None
    return (min(ids), max(ids))


def _text(raw: Any) -> str:
    """An optional text field as given: a string (or a number, e.g. a pair number 7), stripped; else ""."""
    if isinstance(raw, bool) or raw is None:
        return ""
    if isinstance(raw, int):
        return str(raw)
    return raw.strip() if isinstance(raw, str) else ""


def _clean_adjusted(raw: Any, where: str, errors: Errors) -> dict | None:
    """An adjusted score: each side's award ("A+", "A=", "A-" or a percentage 0-100) and, from a scoring
    program's file, the points it printed for the row (authoritative: they need not equal the award)."""
    problem = _('%(where)s: an adjusted score is {"ns": "A+", "ew": "A-"} (A+, A=, A- or a percentage).')
    if not isinstance(raw, Mapping):
        errors.add("boards", problem % {"where": where})
        return None
    adjusted: dict[str, Any] = {}
    for side in ("ns", "ew"):
        award = raw.get(side)
        if isinstance(award, str) and award.strip().upper() in ADJUSTED_CODES:
            adjusted[side] = award.strip().upper()
        else:
            percent = parse_cents(award, limit=Decimal(100)) if award not in (None, "") else None
            if percent is None or percent < 0:
                errors.add("boards", problem % {"where": where})
                return None
            adjusted[side] = float(percent)
        points = raw.get(f"{side}_points")
        if points not in (None, ""):
            value = parse_cents(points, limit=BRIDGE_POINTS_LIMIT)
            if value is None:
                errors.add(
                    "boards",
                    _("%(where)s: the %(side)s points of an adjusted score are a number with at most two decimals.")
                    % {"where": where, "side": side.upper()},
                )
                return None
            adjusted[f"{side}_points"] = float(value)
    return adjusted


def _clean_play(raw: Mapping, table: dict, where: str, number: int, vulnerability: str, errors: Errors) -> bool:
    """The table's contract, declarer, tricks and lead, where given; the score they make (checked against,
    or giving, the NS score). False (an error added) when they cannot be."""
    contract_text, declarer = _text(raw.get("contract")), _text(raw.get("declarer")).upper()
    tricks_raw, lead = raw.get("tricks"), _text(raw.get("lead")).upper()
    if table["adjusted"] is not None and (contract_text or declarer or tricks_raw not in (None, "")):
        errors.add(
            "boards", _("%(where)s: an adjusted score was not played: no contract or tricks.") % {"where": where}
        )
        return False
    if contract_text:
        contract = contract_parse(contract_text)
        if contract is None:
            errors.add(
                "boards",
                _("%(where)s: “%(contract)s” is not a contract (e.g. 4S, 3NTX, 6HXX, Pass).")
                % {"where": where, "contract": contract_text[:20]},
            )
            return False
        table["contract"] = str(contract)
    if declarer:
        if declarer not in "NESW" or len(declarer) != 1:
            errors.add("boards", _("%(where)s: the declarer is N, E, S or W.") % {"where": where})
            return False
        table["declarer"] = declarer
    if tricks_raw not in (None, ""):
        tricks = parse_id(tricks_raw) if tricks_raw not in (0, "0") else 0
        if tricks is None or tricks > 13:
            errors.add("boards", _("%(where)s: the tricks taken are a whole number from 0 to 13.") % {"where": where})
            return False
        table["tricks"] = tricks
    if lead:
        found = LEAD.fullmatch(
            lead.replace("\u2660", "S").replace("\u2665", "H").replace("\u2666", "D").replace("\u2663", "C")
        )
        if found is None:
            errors.add("boards", _("%(where)s: the lead is a suit and a card, e.g. SK or H7.") % {"where": where})
            return False
        table["lead"] = found.group(1) + ("T" if found.group(2) == "10" else found.group(2))
    if not contract_text:
        return True
    if contract.passed_out:
        if table["ns_score"] not in (None, 0):
            errors.add("boards", _("%(where)s: a passed-out board scores 0.") % {"where": where})
            return False
        table["declarer"], table["tricks"] = "", None
        if table["ns_imps"] is None and table["adjusted"] is None:
            table["ns_score"] = 0
        return True
    if not table.get("declarer") or table.get("tricks") is None:
        return True  # a contract without its result: the score given stands
    score = ns_score(contract, table["declarer"], table["tricks"], board=number, vulnerability=vulnerability)
    if table["ns_score"] is None and table["ns_imps"] is None and table["adjusted"] is None:
        table["ns_score"] = score
    elif table["ns_score"] is not None and table["ns_score"] != score:
        errors.add(
            "boards",
            _(
                "%(where)s: %(contract)s by %(declarer)s taking %(tricks)s tricks scores %(score)+d for NS "
                "(vulnerable: %(vulnerability)s), not %(given)+d."
            )
            % {
                "where": where,
                "contract": contract,
                "declarer": table["declarer"],
                "tricks": table["tricks"],
                "score": score,
                "vulnerability": vulnerability,
                "given": table["ns_score"],
            },
        )
        return False
    return True


def _clean_bridge_table(raw: Any, where: str, number: int, vulnerability: str, errors: Errors) -> dict | None:
    if not isinstance(raw, Mapping):
        errors.add(
            "boards", _("%(where)s: a table is an object with ns, ew and ns_score (or ns_imps).") % {"where": where}
        )
        return None
    if raw.get("ns") in (None, "", []) or raw.get("ew") in (None, "", []):
        errors.add(
            "boards", _("%(where)s: both pairs are required (ns and ew), four players in all.") % {"where": where}
        )
        return None
    ns = _clean_pair(raw.get("ns"), f"{where}, NS", errors)
    ew = _clean_pair(raw.get("ew"), f"{where}, EW", errors)
    if ns is None or ew is None:
        return None
    table: dict[str, Any] = {"ns": ns, "ew": ew, "ns_score": None, "ns_imps": None, "adjusted": None}
    for name in ("section", "ns_pair", "ew_pair"):
        value = _text(raw.get(name))
        if value and not PAIR_TEXT.fullmatch(value):
            errors.add(
                "boards",
                _("%(where)s: %(field)s is at most 10 letters, digits or hyphens.") % {"where": where, "field": name},
            )
            return None
        table[name] = value
    given = [name for name in ("ns_score", "ns_imps", "adjusted") if raw.get(name) not in (None, "")]
    if len(given) > 1:
        errors.add(
            "boards",
            _("%(where)s: give one of the NS score, the NS IMPs or an adjusted score, not %(both)s.")
            % {"where": where, "both": " and ".join(given)},
        )
        return None
    if "ns_score" in given:
        score = bridge_score(raw["ns_score"])
        if score is None:
            errors.add(
                "boards",
                _("%(where)s: the NS score is a whole multiple of 10 within ±%(limit)s.")
                % {"where": where, "limit": number_format(BRIDGE_SCORE_LIMIT, force_grouping=True)},
            )
            return None
        if problem := ns_score_problem(score, vulnerability):
            errors.add("boards", f"{where}: {problem}")
            return None
        table["ns_score"] = score
    if "ns_imps" in given:
        imps = parse_cents(raw["ns_imps"], limit=BRIDGE_IMPS_LIMIT)
        if imps is None:
            errors.add(
                "boards",
                _("%(where)s: the NS IMPs are a number within ±24 with at most two decimals.") % {"where": where},
            )
            return None
        table["ns_imps"] = imps
    if "adjusted" in given:
        table["adjusted"] = _clean_adjusted(raw["adjusted"], where, errors)
        if table["adjusted"] is None:
            return None
    if not _clean_play(raw, table, where, number, vulnerability, errors):
        return None
    return table


def _bridge_scoring_error(tables: list[dict]) -> str | None:
    """Which scores a board needs: every played table's NS score, or IMPs for one table or a two-table match.
    Adjusted tables were not played; a board of adjusted tables only has nothing to rate, which is fine."""
    played = [table for table in tables if table["adjusted"] is None]
    if not played:
        return None
    scores = [table["ns_score"] is not None for table in played]
    imps = [table["ns_imps"] is not None for table in played]
    if len(played) == 1:
        return None if imps[0] or scores[0] else _("the board has no scores")
    if all(scores):
        return None
    if len(played) == 2 and imps[0] and not scores[1] and not imps[1]:
        return None
    if not any(scores) and not any(imps):
        return _("the board has no scores")
    return _(
        "give every table's NS score, or for a two-table team match the IMPs of NS at table 1 (with EW at table 2)"
    )


def _rated(tables: list[dict]) -> bool:
    """Whether a board gives the engine something: IMPs, or scores at two tables or more (a duel)."""
    played = [table for table in tables if table["adjusted"] is None]
    return (
        any(table["ns_imps"] is not None for table in played)
        or sum(table["ns_score"] is not None for table in played) >= 2
    )


def _clean_byes(raw: Any, where: str, errors: Errors) -> tuple[dict, ...] | None:
    if raw in (None, []):
        return ()
    problem = _(
        '%(where)s: byes are a list of {"pair", "section", "direction", "points"}: a pair credited without opponents.'
    )
    if not isinstance(raw, list | tuple) or len(raw) > BRIDGE_MAX_TABLES:
        errors.add("boards", problem % {"where": where})
        return None
    byes = []
    for item in raw:
        if not isinstance(item, Mapping):
            errors.add("boards", problem % {"where": where})
            return None
        pair, section = _text(item.get("pair")), _text(item.get("section"))
        direction = _text(item.get("direction")).upper() or None
        # No points: the scoring program printed none, and the standings give the pair its average.
        given = item.get("points") not in (None, "")
        points = parse_cents(item.get("points"), limit=BRIDGE_POINTS_LIMIT) if given else None
        if (
            not PAIR_TEXT.fullmatch(pair)
            or (section and not PAIR_TEXT.fullmatch(section))
            or (given and points is None)
        ):
            errors.add("boards", problem % {"where": where})
            return None
        if direction not in (None, *DIRECTIONS):
            errors.add("boards", problem % {"where": where})
            return None
        byes.append(
            {
                "section": section or None,
                "pair": pair,
                "direction": direction,
                "points": float(points) if points is not None else None,
            }
        )
    return tuple(byes)


def _clean_board_facts(raw: Mapping, number: int, where: str, errors: Errors) -> dict | None:
    """The board's dealer, vulnerability and deal: as given, else the board number's (Law 2)."""
    facts = {"dealer": board_dealer(number), "vulnerability": board_vulnerability_name(number), "deal": ""}
    dealer = _text(raw.get("dealer")).upper()
    if dealer:
        if dealer not in ("N", "E", "S", "W"):
            errors.add("boards", _("%(where)s: the dealer is N, E, S or W.") % {"where": where})
            return None
        facts["dealer"] = dealer
    vulnerability = _text(raw.get("vulnerability"))
    if vulnerability:
        facts["vulnerability"] = vulnerability_parse(vulnerability)
        if facts["vulnerability"] is None:
            errors.add("boards", _("%(where)s: the vulnerability is None, NS, EW or All.") % {"where": where})
            return None
    deal = _text(raw.get("deal"))
    if deal:
        try:
            facts["deal"] = deal_parse(deal)
        except ValueError as error:
            errors.add("boards", f"{where}: {error}")
            return None
    return facts


def _clean_session_facts(data: Mapping[str, Any], errors: Errors) -> dict:
    """The session's scoring, movement, event and scoring options, where given (``Match.facts``)."""
    facts: dict[str, Any] = {}
    scoring = _text(data.get("scoring")).lower()
    if scoring:
        if scoring not in SCORINGS:
            errors.add("scoring", _("The scoring is one of %(choices)s.") % {"choices": ", ".join(SCORINGS)})
        facts["scoring"] = scoring
    movement = _text(data.get("movement")).lower()
    if movement:
        if movement not in MOVEMENTS:
            errors.add("movement", _("The movement is mitchell or howell."))
        facts["movement"] = movement
    event = data.get("event")
    if event not in (None, ""):
        if not isinstance(event, str) or len(event.strip()) > EVENT_MAX or not event.strip().isprintable():
            errors.add("event", _("The event is a name of at most %(most)d characters.") % {"most": EVENT_MAX})
        else:
            facts["event"] = event.strip()
    options = data.get("scoring_options")
    if options not in (None, {}):
        plain = (
            isinstance(options, Mapping)
            and len(options) <= OPTIONS_MAX
            and all(
                isinstance(key, str)
                and len(key) <= 30
                and (
                    value is None
                    or isinstance(value, bool | int | float)
                    or (isinstance(value, str) and len(value) <= 30)
                )
                for key, value in options.items()
            )
        )
        if not plain:
            errors.add("scoring_options", _("The scoring options are a few names with short plain values."))
        else:
            facts["scoring_options"] = dict(options)
    return facts


def bridge_clean(data: Mapping[str, Any], errors: Errors) -> GameInput:
    facts = _clean_session_facts(data, errors)
    raw_boards = data.get("boards")
    if raw_boards in (None, "", []):
        errors.add("boards", _("This field is required: at least one board with its tables."))
        return GameInput()
    if not isinstance(raw_boards, list | tuple):
        errors.add("boards", _("Give a list of boards."))
        return GameInput()
    if len(raw_boards) > BRIDGE_MAX_BOARDS:
        errors.add("boards", _("At most %(most)d boards in one session.") % {"most": BRIDGE_MAX_BOARDS})
        return GameInput()
    boards: list[tuple[int, list[dict], dict]] = []
    numbers: set[int] = set()
    for position, raw in enumerate(raw_boards, start=1):
        if not isinstance(raw, Mapping):
            errors.add(
                "boards", _("Board %(position)d: a board is an object with number and tables.") % {"position": position}
            )
            continue
        number = parse_id(raw.get("number", position))
        if number is None or number > 10_000:
            errors.add(
                "boards", _("Board %(position)d: the board number is a positive whole number.") % {"position": position}
            )
            continue
        where = _("Board %(number)d") % {"number": number}
        if number in numbers:
            errors.add("boards", _("%(where)s appears twice in the session.") % {"where": where})
            continue
        numbers.add(number)
        board_facts = _clean_board_facts(raw, number, where, errors)
        byes = _clean_byes(raw.get("byes"), where, errors)
        if board_facts is None or byes is None:
            continue
        board_facts["byes"] = byes
        raw_tables = raw.get("tables")
        if not isinstance(raw_tables, list | tuple) or (not raw_tables and not byes):
            errors.add("boards", _("%(where)s: no tables, so no scores.") % {"where": where})
            continue
        if len(raw_tables) > BRIDGE_MAX_TABLES:
            errors.add("boards", _("%(where)s: at most %(most)d tables.") % {"where": where, "most": BRIDGE_MAX_TABLES})
            continue
        tables = [
            _clean_bridge_table(
                t,
                _("%(where)s, table %(table)d") % {"where": where, "table": i},
                number,
                board_facts["vulnerability"],
                errors,
            )
            for i, t in enumerate(raw_tables, 1)
        ]
        if None in tables:
            continue
        problem = _bridge_scoring_error(tables)
        if problem:
            errors.add("boards", f"{where}: {problem}.")
            continue
        seated = [player for table in tables for pair in (table["ns"], table["ew"]) for player in pair]
        twice = sorted({player for player in seated if seated.count(player) > 1})
        if twice:
            errors.add(
                "boards",
                _("%(where)s: player(s) %(ids)s sit at two seats of the board.")
                % {"where": where, "ids": ", ".join(map(str, twice))},
            )
            continue
        boards.append((number, tables, board_facts))
    if "boards" in errors:
        return GameInput()
    if not any(_rated(tables) for _number, tables, _facts in boards):
        errors.add(
            "boards",
            _(
                "No board was played at two tables or more, nor scored in IMPs: there is nothing to compare. "
                "A board played at one table is entered in IMPs (ns_imps)."
            ),
        )
        return GameInput()
    ids = sorted(
        {player for _n, tables, _f in boards for t in tables for pair in (t["ns"], t["ew"]) for player in pair}
    )
    players = players_by_id(ids, errors, "boards")
    if players is None:
        return GameInput()
    order: list[int] = []
    for _number, tables, _facts in boards:
        for table in tables:
            for player in (*table["ns"], *table["ew"]):
                if player not in order:
                    order.append(player)
    return GameInput(
        seats=tuple(SeatInput(player=players[player_id], result=Decimal(0)) for player_id in order),
        parts={
            "boards": tuple(
                BoardInput(
                    number=number,
                    tables=tuple(
                        TableInput(
                            table=index,
                            ns=(players[t["ns"][0]], players[t["ns"][1]]),
                            ew=(players[t["ew"][0]], players[t["ew"][1]]),
                            ns_score=t["ns_score"],
                            ns_imps=t["ns_imps"],
                            section=t["section"],
                            ns_pair=t["ns_pair"],
                            ew_pair=t["ew_pair"],
                            contract=t.get("contract", ""),
                            declarer=t.get("declarer", ""),
                            tricks=t.get("tricks"),
                            lead=t.get("lead", ""),
                            adjusted=t["adjusted"],
                        )
                        for index, t in enumerate(tables, start=1)
                    ),
                    **board_facts,
                )
                for number, tables, board_facts in boards
            ),
            "facts": (facts,),
        },
    )


#: A table's fields beside its pairs and scores, in the order a body gives them (each only when set).
TABLE_DETAILS = ("section", "ns_pair", "ew_pair", "contract", "declarer", "tricks", "lead", "adjusted")
SESSION_FACTS = ("scoring", "movement", "event", "scoring_options")


def _table_body(ns: list[int], ew: list[int], table) -> dict[str, Any]:
    """A table as a body gives it: one reading for a validated result (``TableInput``) and a stored one
    (``BoardTable``)."""
    body: dict[str, Any] = {"ns": ns, "ew": ew}
    if table.ns_score is not None:
        body["ns_score"] = table.ns_score
    if table.ns_imps is not None:
        body["ns_imps"] = float(table.ns_imps)
    for name in TABLE_DETAILS:
        value = getattr(table, name)
        if value not in (None, ""):
            body[name] = value
    return body


def _board_body(board, tables: list[dict]) -> dict[str, Any]:
    """A board as a body gives it; its dealer and vulnerability only where they are not its number's."""
    body: dict[str, Any] = {"number": board.number}
    if board.dealer and board.dealer != board_dealer(board.number):
        body["dealer"] = board.dealer
    if board.vulnerability and board.vulnerability != board_vulnerability_name(board.number):
        body["vulnerability"] = board.vulnerability
    if board.deal:
        body["deal"] = board.deal
    if board.byes:
        body["byes"] = list(board.byes)
    body["tables"] = tables
    return body


def _session_body(facts: Mapping[str, Any]) -> dict[str, Any]:
    return {name: facts[name] for name in SESSION_FACTS if facts.get(name) not in (None, "", {})}


def session_scoring(body: Mapping[str, Any]) -> str:
    """How the club scores the session: as the body says, else as it was always ranked here, by IMPs: a
    board given in IMPs ("imps"), else each table's score against every other table's ("cross_imps")."""
    if body.get("scoring"):
        return body["scoring"]
    given = any("ns_imps" in table for board in body.get("boards", ()) for table in board.get("tables", ()))
    return "imps" if given else "cross_imps"


def bridge_input_body(cleaned: MatchInput) -> dict[str, Any]:
    facts = cleaned.parts.get("facts", ({},))[0]
    return {
        **_session_body(facts),
        "boards": [
            _board_body(
                board,
                [
                    _table_body([table.ns[0].pk, table.ns[1].pk], [table.ew[0].pk, table.ew[1].pk], table)
                    for table in board.tables
                ],
            )
            for board in cleaned.parts["boards"]
        ],
    }


def bridge_stored_body(match: Match) -> dict[str, Any]:
    return {
        **_session_body(match.facts or {}),
        "boards": [
            _board_body(
                board,
                [
                    _table_body([table.ns_1_id, table.ns_2_id], [table.ew_1_id, table.ew_2_id], table)
                    for table in board.tables.all()
                ],
            )
            for board in match.boards.all()
        ],
    }


def bridge_boards_store(match: Match, cleaned: MatchInput) -> None:
    facts = _session_body(cleaned.parts.get("facts", ({},))[0])
    if facts != (match.facts or {}):
        match.facts = facts
        Match.objects.filter(pk=match.pk).update(facts=facts)
    boards = []
    for position, board_input in enumerate(cleaned.parts["boards"], start=1):
        board = Board.objects.create(
            match=match,
            number=board_input.number,
            position=position,
            dealer=board_input.dealer or board_dealer(board_input.number),
            vulnerability=board_input.vulnerability or board_vulnerability_name(board_input.number),
            deal=board_input.deal,
            byes=list(board_input.byes),
        )
        tables = BoardTable.objects.bulk_create(
            BoardTable(
                board=board,
                table=table.table,
                ns_1=table.ns[0],
                ns_2=table.ns[1],
                ew_1=table.ew[0],
                ew_2=table.ew[1],
                ns_score=table.ns_score,
                ns_imps=table.ns_imps,
                section=table.section,
                ns_pair=table.ns_pair,
                ew_pair=table.ew_pair,
                contract=table.contract,
                declarer=table.declarer,
                tricks=table.tricks,
                lead=table.lead,
                adjusted=table.adjusted,
            )
            for table in board_input.tables
        )
        hold(board, "tables", sorted(tables, key=lambda table: table.table))
        boards.append(board)
    hold(match, "boards", sorted(boards, key=lambda board: board.position))
    if any(board.deal for board in boards):
        hand_records_queue(match.pk)  # double-dummy tables and par, in a task once committed


def bridge_tables_player_move(match_ids: list[int], *, drop_id: int, keep_id: int) -> None:
    """Put ``keep_id`` in ``drop_id``'s place at every table of these sessions, each pair kept lowest id first.

    The caller (a merge) has checked that no session seats both, so no table can end with one player twice.
    """
    tables = list(
        BoardTable.objects.filter(board__match_id__in=match_ids).filter(
            Q(ns_1=drop_id) | Q(ns_2=drop_id) | Q(ew_1=drop_id) | Q(ew_2=drop_id)
        )
    )
    for table in tables:
        ns = sorted(keep_id if p == drop_id else p for p in (table.ns_1_id, table.ns_2_id))
        ew = sorted(keep_id if p == drop_id else p for p in (table.ew_1_id, table.ew_2_id))
        table.ns_1_id, table.ns_2_id = ns
        table.ew_1_id, table.ew_2_id = ew
    # One statement: PostgreSQL checks the partners' order (a row constraint) on each row as it is written.
    BoardTable.objects.bulk_update(tables, ["ns_1", "ns_2", "ew_1", "ew_2"], batch_size=1000)
