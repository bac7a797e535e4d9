# Cardrank: the commands a newcomer needs.
#   make run   set up .venv, migrate, load demo data once, serve http://127.0.0.1:8000
#   make test  the whole test suite
#   make lint  ruff check + format check + migrations check + import contracts
#   make messages  update every translation catalogue, compile them, build the JavaScript ones (needs GNU
#                  gettext: apt-get install gettext; docs/translation.md)
#   make mutation  mutation testing of the rating engines and the ledger's apply/replay code
#                  (slow, not part of make test; docs/mutation.md says how to read it);
#                  make mutation-engines / mutation-services run one phase
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint format install worker clean messages mutation mutation-engines mutation-services

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

install: $(VENV)/.installed

run: install
	$(PY) manage.py migrate --no-input
	$(PY) manage.py demo_data
	$(PY) manage.py runserver $(HOST):$(PORT)

# The suite in parallel (pytest-xdist, docs/testing.md): TEST_WORKERS processes (auto: one per core, at
# most 8), each with its own test database and Redis database. --dist loadgroup keeps the browser tests on
# one worker and those that start gunicorn and Celery on one worker; --no-loadscope-reorder keeps the
# order the run collected (the groups after the plain database tests: GroupsAfterTheDatabaseTests in
# tests/conftest.py). Then the tests marked serial (a PostgreSQL restart) alone; exit status 5 is "none
# selected". PYTEST_ARGS narrows both runs: make test PYTEST_ARGS=tests/ratings TEST_WORKERS=0.
TEST_WORKERS ?= auto
PYTEST_ARGS ?=
test: install
	$(PY) -m pytest -n $(TEST_WORKERS) --maxprocesses 8 --dist loadgroup --no-loadscope-reorder -m "not serial" $(PYTEST_ARGS)
	$(PY) -m pytest -m serial $(PYTEST_ARGS) || [ $$? -eq 5 ]

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) manage.py makemigrations --check --dry-run
	$(VENV)/bin/lint-imports

messages: install
	$(PY) manage.py messages

format: install
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

worker: install
	# Two workers: results are rated on the default queue while imports and tunings run on "admin", whose
	# long runs give way (nice 10) to rating and to the web server when both want a core.
	trap 'kill 0' INT TERM EXIT; \
	nice -n 10 $(VENV)/bin/celery -A config worker -Q admin -n admin@%h --loglevel=INFO & \
	$(VENV)/bin/celery -A config worker -Q celery -n ratings@%h --beat --loglevel=INFO & \
	wait

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache .ruff_cache mutants mutation-results celerybeat-schedule*

# Mutation testing (mutmut; its configuration is [tool.mutmut] in pyproject.toml).
# Two phases, each with the tests its mutants need and no others:
#   engines   every function of ratings/engines/, against tests/ratings/engines
#             only, with pytest-django and the root conftest switched off (no
#             database: the engines are pure Python)
#   services  the apply/replay code of ratings/ (MUTATION_SERVICES),
#             against the service tests on an in-memory SQLite database
# Databases, caches and brokers named in the environment are dropped, so a
# run never touches a shared PostgreSQL or Redis. MUTATION_JOBS caps the
# mutants run in parallel (mutmut's default: one per core).
MUTMUT := $(VENV)/bin/mutmut
MUTATION_JOBS ?=
MUTATION_ENV := env -u DATABASE_URL -u CACHE_URL -u CELERY_BROKER_URL -u CARDRANK_REQUIRE_SERVICES -u PYTHONPATH
MUTATION_RUN = $(MUTMUT) run $(if $(MUTATION_JOBS),--max-children $(MUTATION_JOBS))
# The engines phase leaves out every test module directly in tests/ratings/ (they need the database),
# so a new service test there cannot break it; a new subfolder of tests/ratings/ must be added here.
MUTATION_ENGINES_PYTEST := -p no:django --confcutdir=tests/ratings/engines --ignore-glob=tests/ratings/test_*.py
MUTATION_SERVICES_PYTEST := --ignore=tests/ratings/test_selectors.py
MUTATION_SERVICES := 'ratings.history.x_key_at_or_after*' 'ratings.history.x_key_before*' \
	'ratings.history.x_match_chunks*' 'ratings.history.xǁMatchRowǁ*' \
	'ratings.loaders.x_seat_rows*' 'ratings.loaders.x_seats_inputs*' 'ratings.loaders.xǁReplayContextǁ*' \
	'games.slaps.loading.x_*' 'games.preferans.loading.x_*' 'games.bridge.loading.x_*' \
	'ratings.ledger.x_rating_replay_mark*' 'ratings.ledger.x_ledger_*' \
	'ratings.ledger.x_pool_*' 'ratings.ledger.x__standings_update*' 'ratings.ledger.xǁLedgerWriterǁ*' \
	'ratings.periods.x_period_aligned*' 'ratings.periods.xǁPeriodSnapshotsǁ*' \
	'ratings.replay.x_ledger_*' 'ratings.replay.x_league_rules*' 'ratings.replay.xǁMatchApplierǁ*' \
	'ratings.services.x__pending_start*' 'ratings.services.x_ratings_process_*' \
	'ratings.services.x_ratings_replay_all*' 'ratings.services.x_ratings_request_full_replay*'
# The modules those globs name (what ratings/services.py held before it was split by concern, and the
# games' loaders, which ratings/loaders.py held before the kinds).
MUTATION_SERVICES_MODULES := ^ *(ratings[.](services|history|ledger|loaders|periods|replay)|games[.][a-z]+[.]loading)[.]
# `mutmut results --all true` prints "    module.function__mutmut_N: status"; tally it per file and phase.
MUTATION_TALLY := sed -E 's/^ *([^ ]+)\.x(_|ǁ)[^:]*: (.*)$$/\1 \3/' | awk '{ \
	file = $$1; status = $$2; for (i = 3; i <= NF; i++) status = status " " $$i; \
	if (status == "not checked") next; \
	kind = (status == "killed" || status == "survived" || status == "timeout") ? status : "other"; \
	phase = (file ~ /^ratings[.]engines/) ? "(all engines)" : "(all services)"; \
	total[file]++; n[file, kind]++; total[phase]++; n[phase, kind]++ } \
	END { for (f in total) printf "  %-28s %5d mutants: %5d killed, %4d survived, %3d timeout, %3d other\n", \
	f, total[f], n[f, "killed"], n[f, "survived"], n[f, "timeout"], n[f, "other"] }' | sort

# Each phase can run alone: make mutation-engines (minutes), make mutation-services (an hour or more on 2 cores).
mutation: mutation-engines mutation-services
	@echo "Mutation testing, both phases (docs/mutation.md):"
	@cat mutation-results/engines.txt mutation-results/services.txt | $(MUTATION_TALLY)

mutation-engines: install
	rm -rf mutants mutation-results/engines.txt
	mkdir -p mutation-results
	$(MUTATION_ENV) PYTEST_ADDOPTS="$(MUTATION_ENGINES_PYTEST)" $(MUTATION_RUN) 'ratings.engines.*'
	$(MUTMUT) results --all true | grep -F 'ratings.engines.' > mutation-results/engines.txt
	@echo "Engine mutants (every one and its status: mutation-results/engines.txt):"
	@cat mutation-results/engines.txt | $(MUTATION_TALLY)

mutation-services: install
	rm -rf mutants mutation-results/services.txt
	mkdir -p mutation-results
	$(MUTATION_ENV) PYTEST_ADDOPTS="$(MUTATION_SERVICES_PYTEST)" $(MUTATION_RUN) $(MUTATION_SERVICES)
	$(MUTMUT) results --all true | grep -E '$(MUTATION_SERVICES_MODULES)' > mutation-results/services.txt
	@echo "Services mutants (every one and its status: mutation-results/services.txt):"
	@cat mutation-results/services.txt | $(MUTATION_TALLY)
