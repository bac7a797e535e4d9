from django.db import migrations

# A season's end (games.seasons.season_close) writes an audit entry naming the players it moved: erasing a
# person (ratings.people.player_erase) takes their name out of it too, as from merges and disputes; only while
# the erasure says so, and nothing else of the entry (0018_audit_disputes_erasable).
WITH_SEASONS = """
CREATE OR REPLACE FUNCTION cardrank_audit_append_only() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND current_setting('cardrank.erasing', true) = 'on'
       AND OLD.action IN ('merged', 'disputed', 'season') AND NEW.action = OLD.action AND NEW.at = OLD.at
       AND NEW.id = OLD.id AND NEW.actor_id IS NOT DISTINCT FROM OLD.actor_id
       AND NEW.match_id IS NOT DISTINCT FROM OLD.match_id THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'the audit log is append-only';
END;
$$ LANGUAGE plpgsql;
"""
WITHOUT_SEASONS = """
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


def with_seasons(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(WITH_SEASONS)


def without_seasons(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(WITHOUT_SEASONS)


class Migration(migrations.Migration):
    dependencies = [("matches", "0020_audit_season")]

    operations = [migrations.RunPython(with_seasons, without_seasons)]
