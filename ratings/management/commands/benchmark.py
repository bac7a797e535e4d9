"""``manage.py benchmark``: measured speed, printed as a table and one JSON object.

    --quick (default)  engine streams of 200,000 updates; a replay of 100,000 deals; 100
                       results' latency; 10 s of sustained load; pages over 10,000 players;
                       imports of 10,000 Slaps results (CSV) and a 30-board 22-table PBN session
    --full             2,000,000 updates; 1,000,000 deals (about 4M ledger rows); 500
                       results; 60 s; pages over 100,000 players; 100,000 Slaps results imported
    --json             only the JSON object (last line either way)
    --only pages       only the pages under load: leaderboards, a profile, the entry pages
                       and the player search (no engines, replay, submission latency or
                       sustained load)
    --only submissions only the submission latency and the sustained load
    --only import      only the imports (``benchmarks/importing.py``), each with its ratio to a
                       replay of the results it stored
    --only tuning      only the tuning (``benchmarks/tuning.py``): pure engine replays of a synthetic
                       Slaps history (20,000 results quick, 100,000 full) under the current
                       parameters and 20 candidates, then the search from the current parameters
                       until it converges (issue 29), each with its ratio to one replay
    --only batch       only the batch endpoint at its limits (``benchmarks/batch.py``): a full
                       POST /api/matches/batch/ of each game, through gunicorn, timed
    --only after-result
                       only the anonymous load after a result (``benchmarks/afterload.py``, issue 25):
                       a rated Preferans history (20,000 deals and 500 players quick, 200,000 and
                       2,000 full; --deals, --players), one result POSTed, then 20 anonymous clients
                       on the heavy pages while a 21st times GET /api/games/ (2 gunicorn workers)
    --only lists       only a rating list published (``ratings.lists``) over a synthetic Preferans history
                       (20,000 players quick, 100,000 full; --players, --deals), with its ratio to the replay
    --only path        only a result's path (``benchmarks/path.py``): the calls, files and hops between
                       modules and apps of one Preferans result posted to the API, a count, not a time
    --only digests     only evening digests (``benchmarks/digests.py``, issue 27): 100 quick, 1,000 full, each a
                       claimed player's Preferans evening, built and sent to an SMTP server the benchmark starts
                       (aiosmtpd; Django's in-memory backend without it), with the ratio to the replay

Every timing comes with a ratio to a baseline measured in the same run
(absolute times drift on shared machines). Run it on PostgreSQL: the replay
writes with COPY there. The synthetic data lives in a game of its own and is
deleted afterwards (``--keep`` keeps it).

The harness itself is ``benchmarks/`` at the top of the repository, not part
of the ``ratings`` app: it spawns gunicorn and Celery processes and bulk-loads
synthetic players, which an installed Cardrank has no use for, so the wheel
leaves it out. The command imports it only when it runs, and on an install
without the source checkout it says so (a ``CommandError``) instead of failing
at start-up.
"""

import json
import os
import platform
import time

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

HARNESS = "benchmarks"

SIZES = {
    "quick": {
        "updates": 200_000,
        "deals": 100_000,
        "players": 10_000,
        "latency_results": 100,
        "sustain_seconds": 10,
        "board_players": 10_000,
        "profile_units": 5_000,
        "page_seconds": 3,
        "import_results": 10_000,
        "tuning_results": 20_000,
        "after_result_deals": 20_000,
        "after_result_players": 500,
        "after_result_seconds": 20,
        # Games of a few deals at tables of four: about five deals a player seats nearly all of them.
        "list_players": 20_000,
        "list_deals": 100_000,
        "digests": 100,
    },
    "full": {
        "updates": 2_000_000,
        "deals": 1_000_000,
        "players": 10_000,
        "latency_results": 500,
        "sustain_seconds": 60,
        "board_players": 100_000,
        "profile_units": 5_000,
        "page_seconds": 10,
        "import_results": 100_000,
        "tuning_results": 100_000,
        "after_result_deals": 200_000,
        "after_result_players": 2_000,
        "after_result_seconds": 60,
        "list_players": 100_000,
        "list_deals": 500_000,
        "digests": 1_000,
    },
}


class Command(BaseCommand):
    help = "Measure engine speed and full-replay speed; print a table and a JSON object."

    def add_arguments(self, parser):
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument("--quick", action="store_true", help="Small sizes (the default).")
        mode.add_argument("--full", action="store_true", help="The sizes the targets are set for.")
        parser.add_argument("--json", action="store_true", help="Print only the JSON object.")
        parser.add_argument("--updates", type=int, help="Override the engine stream length.")
        parser.add_argument("--deals", type=int, help="Override the replay's number of deals.")
        parser.add_argument("--players", type=int, help="Override the replay's number of players.")
        parser.add_argument(
            "--import-boards", type=int, default=30, help="The imported bridge evening's boards (default 30)."
        )
        parser.add_argument(
            "--import-tables", type=int, default=22, help="The imported bridge evening's tables (default 22)."
        )
        parser.add_argument(
            "--board-players", type=int, help="Override the number of players on the measured leaderboard."
        )
        parser.add_argument("--import-results", type=int, help="Override the number of Slaps results imported.")
        parser.add_argument("--tuning-results", type=int, help="Override the number of Slaps results tuned on.")
        parser.add_argument(
            "--only",
            choices=["pages", "submissions", "import", "tuning", "batch", "after-result", "path", "lists", "digests"],
            help=(
                "Measure only this section (pages: leaderboards, a profile, the entry pages and the player "
                "search; submissions: latency and sustained; import: a Slaps CSV and a bridge PBN session imported; "
                "batch: a full POST /api/matches/batch/ of each game; after-result: anonymous load after a result; "
                "path: the calls, files and hops between modules of one Preferans result posted to the API; "
                "lists: a rating list of every player of a synthetic history published, against its replay; "
                "digests: evening digests built and sent to a real SMTP server, against the replay)."
            ),
        )
        parser.add_argument("--skip-replay", action="store_true", help="Leave out the replay section.")
        parser.add_argument("--skip-import", action="store_true", help="Leave out the import section.")
        parser.add_argument("--skip-tuning", action="store_true", help="Leave out the tuning section.")
        parser.add_argument("--skip-services", action="store_true", help="Leave out gunicorn/worker measures.")
        parser.add_argument(
            "--web-workers",
            type=int,
            help="gunicorn workers (default 3: best measured on 2 cores; 2 for after-result, as issue 25's probe).",
        )
        parser.add_argument(
            "--worker-processes",
            type=int,
            default=1,
            help="Celery worker processes (default 1: one game's ratings run under one lock anyway).",
        )
        parser.add_argument(
            "--broker",
            default=os.environ.get("CARDRANK_BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"),
            help="Redis URL for the benchmark's own Celery worker.",
        )
        parser.add_argument(
            "--cache",
            default=os.environ.get("CARDRANK_BENCH_CACHE_URL"),
            help="Redis URL of the after-result stack's cache (default: the broker's server, its next database).",
        )
        parser.add_argument(
            "--seconds", type=float, help="Override the after-result load's length (20 s quick, 60 s full)."
        )
        parser.add_argument("--keep", action="store_true", help="Keep the replay's synthetic data.")

    def handle(self, *args, full=False, json=False, updates=None, deals=None, players=None, **options):
        size = dict(SIZES["full" if full else "quick"])
        overrides = {
            "updates": updates,
            "deals": deals,
            "players": players,
            "board_players": options["board_players"],
            "import_results": options["import_results"],
            "tuning_results": options["tuning_results"],
        }
        size.update({k: v for k, v in overrides.items() if v})
        only = options["only"]
        options["web_workers"] = options["web_workers"] or (2 if only == "after-result" else 3)
        engine_speed, full_replay, service_benchmarks, import_speed = _harness()
        started = time.perf_counter()
        result = {
            "mode": "full" if full else "quick",
            "machine": {"python": platform.python_version(), "platform": platform.platform(), "cpus": _cpus()},
            "database": connection.vendor,
        }
        if not only:
            result["engines"] = engine_speed(updates=size["updates"])
        if not options["skip_replay"] and not only:
            result["replay"] = full_replay(deals=size["deals"], players=size["players"], keep=options["keep"])
        if not options["skip_import"] and only in (None, "import"):
            result["import"] = import_speed(
                results=size["import_results"],
                players=size["players"],
                boards=options["import_boards"],
                tables=options["import_tables"],
                keep=options["keep"],
            )
        if not options["skip_tuning"] and only in (None, "tuning"):
            from benchmarks.tuning import search_speed, tuning_speed

            result["tuning"] = tuning_speed(results=size["tuning_results"])
            result["tuning_search"] = search_speed(results=size["tuning_results"])
        if only == "batch":
            from benchmarks.batch import batch_speed

            result["batch"] = batch_speed(broker_url=options["broker"], web_workers=options["web_workers"])
        if only == "after-result":
            from benchmarks.afterload import after_result, cache_beside

            result["after_result"] = after_result(
                broker_url=options["broker"],
                cache_url=options["cache"] or cache_beside(options["broker"]),
                deals=deals or size["after_result_deals"],
                players=players or size["after_result_players"],
                seconds=options["seconds"] or size["after_result_seconds"],
                web_workers=options["web_workers"],
                keep=options["keep"],
            )
        if only == "lists":
            result["lists"] = full_replay(
                deals=deals or size["list_deals"], players=players or size["list_players"], keep=options["keep"]
            )
        if only == "digests":
            from benchmarks.digests import digest_speed

            result["digests"] = digest_speed(digests=size["digests"], keep=options["keep"])
        if only == "path":
            from benchmarks.path import result_path

            result["path"] = result_path()
        if not options["skip_services"] and only not in (
            "import",
            "tuning",
            "batch",
            "after-result",
            "path",
            "lists",
            "digests",
        ):
            result["services"] = service_benchmarks(
                broker_url=options["broker"],
                web_workers=options["web_workers"],
                worker_processes=options["worker_processes"],
                latency_results=size["latency_results"],
                sustain_seconds=size["sustain_seconds"],
                players=size["board_players"],
                profile_units=size["profile_units"],
                page_seconds=size["page_seconds"],
                sections=frozenset([only] if only else ["submissions", "pages"]),
            )
        result["seconds"] = round(time.perf_counter() - started, 1)
        if not json:
            self._table(result)
        self.stdout.write(_dumps(result))

    def _table(self, result: dict) -> None:
        self.stdout.write(f"Benchmark ({result['mode']}) on {result['database']}, {result['machine']['cpus']} CPUs")
        if result.get("engines"):
            self.stdout.write(f"{'engine':<12} {'updates':>10} {'engine/s':>12} {'inline/s':>12} {'ratio':>7}")
        for row in result.get("engines", []):
            self.stdout.write(
                f"{row['engine']:<12} {row['updates']:>10,} {row['engine_updates_per_s']:>12,} "
                f"{row['inline_updates_per_s']:>12,} {row['ratio']:>7}"
            )
        services = result.get("services") or {}
        if "latency" in services:
            latency, sustained = services["latency"], services["sustained"]
            self.stdout.write(
                f"submission to rated: p50 {latency['p50_ms']} ms, p95 {latency['p95_ms']} ms over "
                f"{latency['results']} results ({latency['p95_to_baseline']}x an empty GET, "
                f"{services['baseline_get_ms']} ms)"
            )
            self.stdout.write(
                f"sustained: {sustained['submitted']} results from {sustained['clients']} clients in "
                f"{sustained['seconds']} s: {sustained['rated_per_s']} rated/s"
            )
        if "pages" in services:
            self.stdout.write(
                f"pages over {services['players']:,} players, empty GET {services['baseline_get_ms']} ms:"
            )
            for row in services["pages"]:
                self.stdout.write(
                    f"  {row['page']:<42} {row['requests_per_s']:>7} req/s  p50 {row['p50_ms']:>7} ms  "
                    f"p95 {row['p95_ms']:>7} ms ({row['p95_to_baseline']}x, "
                    f"{row.get('p95_to_loaded_empty', '-')}x loaded)  "
                    f"{row['queries']}/{row['queries_warm']} queries cold/warm  "
                    f"client {row['client_cpu_ms_per_request']} ms CPU/request"
                )
        if "skipped" in services:
            self.stdout.write(f"services: {services['skipped']}")
        for key, label in (("slaps_csv", "Slaps CSV"), ("bridge_pbn", "bridge PBN")):
            row = (result.get("import") or {}).get(key)
            if row:
                self.stdout.write(
                    f"import {label}: {row['results']:,} results, {row['ledger_rows']:,} ledger rows in "
                    f"{row['import_s']} s (read {row['read_s']}, store {row['store_s']}, rate {row['rate_s']}; "
                    f"{row['store_ms_per_result']} ms stored per result): {row['ratio_to_replay']}x the replay "
                    f"of the same results ({row['replay_s']} s)"
                )
                if row.get("hand_records"):
                    self.stdout.write(
                        f"  with its {row['hand_records']} hand records analysed (double dummy, par) in "
                        f"{row['analyse_s']} s: {row['with_analysis_ratio_to_replay']}x the replay"
                    )
        tuning = result.get("tuning")
        if tuning:
            self.stdout.write(
                f"tuning: {tuning['results']:,} Slaps results x {tuning['candidates']} candidates in "
                f"{tuning['tuning_s']} s ({tuning['results_per_s']:,} results/s), {tuning['ratio_to_one_replay']}x "
                f"one replay ({tuning['one_replay_s']} s)"
            )
        search = result.get("tuning_search")
        if search:
            converged = "converged" if search["converged"] else f"stopped at its budget of {search['budget']}"
            self.stdout.write(
                f"tuning search: {search['results']:,} Slaps results, {search['replays']} replays in "
                f"{search['rounds']} rounds ({converged}) in {search['search_s']} s, "
                f"{search['ratio_to_one_replay']}x one replay ({search['one_replay_s']} s)"
            )
        batch = result.get("batch") or {}
        if "skipped" in batch:
            self.stdout.write(f"batch: {batch['skipped']}")
        for row in batch.get("full", []):
            self.stdout.write(
                f"full batch of {row['game']}: {row['results']} results ({row['units']:,} rated units, "
                f"{row['body_kb']} KB) answered in {row['seconds']} s ({row['answer_kb']} KB), limits "
                f"{batch['batch_max']} results and {batch['batch_max_bytes']:,} bytes"
            )
        self._after_result_table(result.get("after_result"))
        for part, row in (result.get("path") or {}).items():
            self.stdout.write(
                f"a Preferans result's path, {part}: {row['calls']} calls in {row['files']} files, "
                f"{row['hops_between_modules']} hops between modules, {row['hops_between_apps']} between apps"
            )
        for replay in (result.get("replay"), result.get("lists")):
            if replay:
                self.stdout.write(
                    f"rating list of {replay['list_players']:,} players published in {replay['list_s']} s: "
                    f"{replay['list_ratio_to_replay']}x the replay of their {replay['deals']:,} deals "
                    f"({replay['replay_s']} s), memory +{replay['rss_growth_during_list_mb']} MB"
                )
        digests = result.get("digests")
        if digests:
            self.stdout.write(
                f"evening digests: {digests['digests']:,} built and sent to {digests['backend']} in "
                f"{digests['send_s']} s ({digests['per_digest_ms']} ms each, {digests['due_s']} s to find them due): "
                f"{digests['ratio_to_replay']}x the replay of their {digests['results']:,} results "
                f"({digests['replay_s']} s), memory +{digests['rss_growth_mb']} MB (peak {digests['rss_peak_mb']} MB)"
            )
        replay = result.get("replay")
        if replay:
            self.stdout.write(
                f"replay: {replay['deals']:,} deals, {replay['ledger_rows']:,} ledger rows in {replay['replay_s']} s "
                f"({replay['rows_per_s']:,} rows/s, {replay['ratio_to_engine']}x the pure engine), "
                f"memory +{replay['rss_growth_during_replay_mb']} MB while replaying; "
                f"again over the existing ledger in {replay['replay_over_ledger_s']} s"
            )

    def _after_result_table(self, after: dict | None) -> None:
        if not after:
            return
        if "skipped" in after:
            self.stdout.write(f"after a result: {after['skipped']}")
            return
        targets = after["targets"]
        self.stdout.write(
            f"anonymous load after a result: {after['deals']:,} deals, {after['players']:,} players "
            f"({after['ledger_rows']:,} ledger rows), {after['web_workers']} gunicorn workers "
            f"({after['web_worker_class']}), {after['clients']} clients; figures' first run {after['figures_first_s']}s"
        )
        self.stdout.write(
            f"  GET /api/games/ p95: unloaded {after['p95_unloaded_ms']} ms (the faster of "
            f"{after['unloaded']['p95_ms']} ms before the load and "
            f"{after['unloaded_at_end']['p95_ms']} ms at the end), "
            f"loaded after the result "
            f"{after['p95_loaded_ms']} ms: {after['ratio']}x (target <= {targets['ratio_at_most']:g}: "
            f"{'met' if targets['ratio_met'] else 'MISSED'}); before the result, same load, "
            f"{after['before_result']['probe']['p95_ms']} ms"
        )
        self.stdout.write(
            f"  5xx after the result: {after['server_errors']} (target {targets['server_errors_at_most']}: "
            f"{'met' if targets['server_errors_met'] else 'MISSED'}); connection errors {after['connection_errors']}, "
            f"client timeouts {after['timeouts']}, truncated downloads {after['truncated']}; gunicorn worker "
            f"timeouts {after['worker_timeouts']}"
        )
        figures = after["figures_after_result_s"]
        self.stdout.write(
            f"  figures run after the result: done {figures} s after the POST"
            f"{' (during the load)' if after['figures_done_during_load'] else ' (after the load)'}"
        )
        for phase in ("before_result", "after_result"):
            load = after[phase]
            self.stdout.write(
                f"  {phase.replace('_', ' ')} ({load['seconds']} s): {load['served_per_s']} served/s, "
                f"{load['busy_ms_per_request']} ms of a worker per request"
            )
            for row in [*load["pages"], {"page": "probe GET /api/games/", **load["probe"]}]:
                statuses = " ".join(f"{code}:{count}" for code, count in row["statuses"].items())
                self.stdout.write(
                    f"    {row['page']:<22} {row['requests']:>6} served  p50 {row['p50_ms']} ms  "
                    f"p95 {row['p95_ms']} ms  max {row['max_ms']} ms  alone {row.get('alone_ms', '-')} ms  "
                    f"{row['mb_read']} MB  [{statuses}]"
                    f"{'  errors ' + str(row['connection_errors']) if row['connection_errors'] else ''}"
                    f"{'  timeouts ' + str(row['timeouts']) if row['timeouts'] else ''}"
                    f"{'  truncated ' + str(row['truncated']) if row['truncated'] else ''}"
                )
        rss = after["rss"]
        self.stdout.write(
            f"  peak RSS: gunicorn workers {rss['web']['children_peak_mb']} MB (master {rss['web']['main_mb']} MB, "
            f"{rss['web']['children_seen']} workers seen), heavy reads' gunicorn worker "
            f"{rss['heavy']['children_peak_mb']} MB, Celery ratings {rss['ratings']['children_peak_mb']} MB, "
            f"Celery admin {rss['admin']['children_peak_mb']} MB (main processes {rss['ratings']['main_mb']} / "
            f"{rss['admin']['main_mb']} MB)"
        )


def _harness():
    """The harness's four entry points, imported now: ``benchmarks/`` lives in a source checkout only."""
    try:
        from benchmarks.engine import engine_speed
        from benchmarks.importing import import_speed
        from benchmarks.replay import full_replay
        from benchmarks.service import service_benchmarks
    except ModuleNotFoundError as error:
        if error.name != HARNESS and not (error.name or "").startswith(HARNESS + "."):
            raise  # something the harness itself imports is missing: say what, not that the harness is
        raise CommandError(
            "The benchmark harness is not installed here: it is the benchmarks/ folder of a Cardrank source "
            "checkout, which an installed package leaves out. Run `python manage.py benchmark` from the top "
            "of a checkout of the repository."
        ) from error
    return engine_speed, full_replay, service_benchmarks, import_speed


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 0


def _dumps(result: dict) -> str:
    return json.dumps(result, separators=(",", ":"))
