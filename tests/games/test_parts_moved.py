"""Issue 26: Preferans' deals and bridge's boards and tables moved from ``matches`` to their games' apps.

The move is Django's idea of the models plus a rename of three tables, so
every stored row must come through it untouched, both ways: a database filled
by the demo data and by a real bridge import is read table by table, every
column of every row, then migrated back to before the move (the old tables'
names) and forward again, and read each time.
"""

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games.bridge.models import Board, BoardTable
from games.preferans.models import Deal
from tests.shared_data import shared_data

BEFORE = [("matches", "0018_audit_disputes_erasable")]
#: The parts' tables before the move and after it.
TABLES = {"matches_deal": "preferans_deal", "matches_board": "bridge_board", "matches_boardtable": "bridge_boardtable"}
REAL_FILE = "usebio-compscore3_nsbc-lindfield_2022-07-28_mp-mitchell.xml"


def rows(table: str) -> list[tuple]:
    """Every column of every row, in id order, as the database gives them."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)} ORDER BY id")  # noqa: S608 - our names
        return cursor.fetchall()


def tables_now() -> set[str]:
    return set(connection.introspection.table_names())


def migrate_to(targets: list[tuple[str, str]] | None) -> None:
    if targets is None:
        call_command("migrate", verbosity=0, stdout=StringIO())
        return
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()


@pytest.mark.shared_data("bridge-results")
@pytest.mark.django_db(transaction=True)  # migrations run outside a test's transaction
def test_every_part_row_survives_the_move_back_and_forth(reference_data):
    demo = {"players": 8, "matches": 10, "preferans_games": 3, "bridge_weeks": 1, "allow_production": True}
    call_command("demo_data", **demo, stdout=StringIO())
    demo_tables = BoardTable.objects.count()
    call_command("import_results", str(shared_data("bridge-results", REAL_FILE)), "--game", "bridge", stdout=StringIO())
    assert BoardTable.objects.count() > demo_tables  # the real club's tables are stored too
    moved = {new: rows(new) for new in TABLES.values()}
    # Something of every kind is there to move: deals, boards, and a real club's tables.
    assert Deal.objects.count() == len(moved["preferans_deal"]) > 0
    assert Board.objects.count() == len(moved["bridge_board"]) > 0
    assert BoardTable.objects.count() == len(moved["bridge_boardtable"]) > 0

    try:
        migrate_to(BEFORE)
        assert set(TABLES) <= tables_now()
        assert not set(TABLES.values()) & tables_now()
        assert {old: rows(old) for old in TABLES} == {old: moved[new] for old, new in TABLES.items()}
    finally:
        migrate_to(None)

    assert set(TABLES.values()) <= tables_now()
    assert not set(TABLES) & tables_now()
    assert {new: rows(new) for new in TABLES.values()} == moved
    # The models read them again, joined to their matches as before.
    assert Deal.objects.filter(match__game__slug="preferans").count() == len(moved["preferans_deal"])
    assert BoardTable.objects.filter(board__match__game__slug="bridge").count() == len(moved["bridge_boardtable"])
