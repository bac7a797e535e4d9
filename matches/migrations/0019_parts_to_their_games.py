"""Preferans' deals and bridge's boards and tables move to their games' apps (issue 26).

Only Django's idea of the models moves here: the tables stay, every row and id
with them, and the games' first migrations (``games/preferans``,
``games/bridge``) take them over and rename them to their apps' names.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("matches", "0018_audit_disputes_erasable")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="BoardTable"),
                migrations.DeleteModel(name="Board"),
                migrations.DeleteModel(name="Deal"),
            ],
            database_operations=[],
        )
    ]
