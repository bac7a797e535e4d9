# Cardrank: the commands a newcomer needs.
#   make run   set up .venv, migrate, load demo data once, serve http://127.0.0.1:8000
#   make test  the whole test suite
#   make lint  ruff check + format check + migrations check
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint format install worker clean

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

test: install
	$(PY) -m pytest

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) manage.py makemigrations --check --dry-run

format: install
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

worker: install
	$(VENV)/bin/celery -A config worker --beat --loglevel=INFO

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache .ruff_cache
