from django.db import migrations

# Erasing a person (ratings.people.player_erase) also takes their name out of the dispute notes that named
# them, in the dispute's audit entry as on the result: besides a merge entry's data, a dispute entry's data
# may now change, only while the erasure says so (a transaction-local setting), and nothing else of either.
# Everything else is refused as before (0007_audit_log_append_only, 0015_auditentry_people).
ERASABLE = """
CREATE OR REPLACE FUNCTION cardrank_audit_append_only() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND current_setting('cardrank.erasing', true) = 'on'
       AND OLD.action IN ('merged', 'disputed') AND NEW.action = OLD.action AND NEW.at = OLD.at
       AND NEW.id = OLD.id AND NEW.actor_id IS NOT DISTINCT FROM OLD.actor_id
       AND NEW.match_id IS NOT DISTINCT FROM OLD.match_id THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'the audit log is append-only';
END;
$$ LANGUAGE plpgsql;
"""
MERGES_ONLY = """
CREATE OR REPLACE FUNCTION cardrank_audit_append_only() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND current_setting('cardrank.erasing', true) = 'on'
       AND OLD.action = 'merged' AND NEW.action = OLD.action AND NEW.at = OLD.at AND NEW.id = OLD.id
       AND NEW.actor_id IS NOT DISTINCT FROM OLD.actor_id AND NEW.match_id IS NULL THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'the audit log is append-only';
END;
$$ LANGUAGE plpgsql;
"""


def erasable(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(ERASABLE)


def merges_only(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(MERGES_ONLY)


class Migration(migrations.Migration):
    dependencies = [("matches", "0017_bridge_session_records")]

    operations = [migrations.RunPython(erasable, merges_only)]
