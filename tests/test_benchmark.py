"""The benchmark harness works (CI checks the harness, never the timings)."""

import json

import pytest
from django.core.management import call_command

from leagues.models import Game, Player


@pytest.mark.django_db(transaction=True)
def test_benchmark_prints_a_table_and_a_json_object_and_cleans_up(reference_data, capsys):
    call_command("benchmark", "--updates", "2000", "--deals", "400", "--players", "50", "--skip-services")
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("Benchmark (quick)")
    result = json.loads(lines[-1])
    assert {row["engine"] for row in result["engines"]} == {"elo", "preferans"}
    assert all(row["ratio"] > 0 for row in result["engines"])
    assert result["replay"]["ledger_rows"] == 1600  # 400 deals x 4 seats
    assert result["replay"]["rows_per_s"] > 0
    assert not Game.objects.filter(slug="benchmark-preferans").exists()
    assert not Player.objects.filter(name__startswith="bench ").exists()
