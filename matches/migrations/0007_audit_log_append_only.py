"""On PostgreSQL the audit log refuses UPDATE and DELETE at the database too."""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION cardrank_audit_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER matches_auditentry_append_only
    BEFORE UPDATE OR DELETE ON matches_auditentry
    FOR EACH ROW EXECUTE FUNCTION cardrank_audit_append_only();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS matches_auditentry_append_only ON matches_auditentry;
DROP FUNCTION IF EXISTS cardrank_audit_append_only();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("matches", "0006_audit_log")]

    operations = [migrations.RunPython(forward, backward)]
