"""Every keyed match has a fingerprint (0012 filled the old ones); the database holds it so.

A separate migration: on PostgreSQL, altering a table in the transaction that
just updated its rows can fail on pending trigger events.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0012_match_idempotency_fingerprint"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="match",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("idempotency_key__isnull", True), ("idempotency_fingerprint__isnull", False), _connector="OR"
                ),
                name="match_idempotency_key_fingerprinted",
            ),
        ),
    ]
