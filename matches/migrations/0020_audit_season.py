"""A season's end is audited (``games.seasons.season_close``): an entry of action "season", about a league's
season and no match, as merges and erasures are about people.

Going back keeps the wider check in the database (the state returns to the old one of the same name): the
audit log is append-only, so the season entries written meanwhile stay, and the old check would refuse them.
"""

from django.conf import settings
from django.db import migrations, models

NAME = "audit_entry_match_unless_people"


def _check(actions: list[str]) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=models.Q(
            models.Q(("action__in", actions), ("match__isnull", True)),
            models.Q(models.Q(("action__in", actions), _negated=True), ("match__isnull", False)),
            _connector="OR",
        ),
        name=NAME,
    )


NEW = _check(["merged", "erased", "season"])


class RemoveOnlyForwards(migrations.RemoveConstraint):
    """The old check goes; going back, it is not put back (the wider one stays: see the module)."""

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        pass


class AddOnlyForwards(migrations.AddConstraint):
    """The wider check comes; going back, it stays (see the module)."""

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        pass


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0019_parts_to_their_games"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        RemoveOnlyForwards(model_name="auditentry", name=NAME),
        migrations.AlterField(
            model_name="auditentry",
            name="action",
            field=models.CharField(
                choices=[
                    ("submitted", "Submitted"),
                    ("corrected", "Corrected"),
                    ("confirmed", "Confirmed"),
                    ("disputed", "Disputed"),
                    ("voided", "Voided"),
                    ("merged", "Players merged"),
                    ("erased", "Player erased"),
                    ("season", "Season closed"),
                ],
                max_length=10,
            ),
        ),
        AddOnlyForwards(model_name="auditentry", constraint=NEW),
    ]
