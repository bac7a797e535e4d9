"""The benchmark harness behind ``manage.py benchmark``, and the process stack the tests share.

Not shipped: this package sits at the top of the repository, outside the
apps that ``[tool.setuptools.packages.find]`` packages, so an installed
Cardrank has neither the harness nor its process-spawning helpers. The
command (``ratings/management/commands/benchmark.py``) imports it lazily and
answers a ``CommandError`` where it is missing.

Dependencies run one way: this package imports the apps (``leagues``,
``matches``, ``ratings``, ``config``); the tests import this package
(``benchmarks.stack``: ``Stack``, ``free_port``, ``port_open``); the apps
import neither.

    engine.py   engine speed against the same formulas written inline
    replay.py   a full replay of a synthetic Preferans history
    service.py  latency, sustained load and pages on real gunicorn and Celery processes
    afterload.py  anonymous load after a result (issue 25): heavy pages under 20 clients, a probe timed
    stack.py    those processes (``Stack``), and the port helpers the tests use
"""
