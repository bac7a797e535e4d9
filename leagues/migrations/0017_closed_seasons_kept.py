"""On PostgreSQL a closed season and its frozen table refuse change at the database too (as a published
rating list does, ratings migration 0009).

A closed season keeps its league, days and closing time (its name may still be put right) and is never
deleted; a line of its table may change its ``name`` only (erasing a player renames them everywhere,
``ratings.people.player_erase``) and is never deleted. A running season's lines are rewritten freely
(``games.seasons``).
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION cardrank_season_kept() RETURNS trigger AS $$
BEGIN
    IF OLD.closed_at IS NULL THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE'
       AND (NEW.league_id, NEW.first_day, NEW.last_day, NEW.closed_at)
       IS NOT DISTINCT FROM (OLD.league_id, OLD.first_day, OLD.last_day, OLD.closed_at)
    THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'a closed season never changes';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER leagues_season_kept
    BEFORE UPDATE OR DELETE ON leagues_season
    FOR EACH ROW EXECUTE FUNCTION cardrank_season_kept();
CREATE OR REPLACE FUNCTION cardrank_season_standing_kept() RETURNS trigger AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM leagues_season WHERE id = OLD.season_id AND closed_at IS NOT NULL) THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE'
       AND (NEW.season_id, NEW.rank, NEW.player_id, NEW.points, NEW.results, NEW.won, NEW.drawn, NEW.lost, NEW.tied)
       IS NOT DISTINCT FROM
           (OLD.season_id, OLD.rank, OLD.player_id, OLD.points, OLD.results, OLD.won, OLD.drawn, OLD.lost, OLD.tied)
    THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'a closed season''s table never changes';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER leagues_seasonstanding_kept
    BEFORE UPDATE OR DELETE ON leagues_seasonstanding
    FOR EACH ROW EXECUTE FUNCTION cardrank_season_standing_kept();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS leagues_season_kept ON leagues_season;
DROP FUNCTION IF EXISTS cardrank_season_kept();
DROP TRIGGER IF EXISTS leagues_seasonstanding_kept ON leagues_seasonstanding;
DROP FUNCTION IF EXISTS cardrank_season_standing_kept();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("leagues", "0016_season_tables")]

    operations = [migrations.RunPython(forward, backward)]
