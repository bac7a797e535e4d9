"""Every key of DRF's token table becomes an ``ApiToken`` holding only its digest, and the plain-text keys
are deleted.

Clients keep their key: it is looked up by its digest (SHA-256 in hex, as ``config.tokens.api_token_digest``
computes it; written out here so that this migration never changes with the code). A moved token expires
``CARDRANK_TOKEN_DAYS`` after the migration, not after it was made: an old key would otherwise stop at once,
and each client gets a full lifetime to ask for a new one. Backwards there is nothing to restore: the keys
are gone (that is the point), so going back needs new tokens (``createreferee NAME --rotate-token`` of the
older code).
"""

import hashlib
from datetime import timedelta

from django.conf import settings
from django.db import migrations
from django.utils import timezone

MOVED_NAME = "moved from the plain-text table"


def authtoken_keys_move(apps, schema_editor):
    Token = apps.get_model("authtoken", "Token")
    ApiToken = apps.get_model("config", "ApiToken")
    expires_at = timezone.now() + timedelta(days=settings.CARDRANK_TOKEN_DAYS)
    moved = [
        ApiToken(
            user_id=token.user_id,
            name=MOVED_NAME,
            prefix=token.key[:8],
            digest=hashlib.sha256(token.key.encode()).hexdigest(),
            created_at=token.created,
            expires_at=expires_at,
        )
        for token in Token.objects.all()
    ]
    # ignore_conflicts: a digest already moved (a migration run again by hand) is not moved twice.
    ApiToken.objects.bulk_create(moved, ignore_conflicts=True)
    Token.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("config", "0001_initial"),
        ("authtoken", "0004_alter_tokenproxy_options"),
    ]

    operations = [migrations.RunPython(authtoken_keys_move, migrations.RunPython.noop)]
