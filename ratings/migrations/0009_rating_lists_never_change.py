"""On PostgreSQL a published rating list refuses change at the database too.

A list's row may change its published ``name`` only (erasing a player renames them everywhere,
``ratings.people.player_erase``); no row or list is updated otherwise or deleted.
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION cardrank_rating_list_row_kept() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND (NEW.rating_list_id, NEW.rank, NEW.player_id, NEW.rating, NEW.peak, NEW.units, NEW.change, NEW.new,
            NEW.provisional, NEW.inactive)
       IS NOT DISTINCT FROM
           (OLD.rating_list_id, OLD.rank, OLD.player_id, OLD.rating, OLD.peak, OLD.units, OLD.change, OLD.new,
            OLD.provisional, OLD.inactive)
    THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'a published rating list never changes';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER ratings_ratinglistrow_kept
    BEFORE UPDATE OR DELETE ON ratings_ratinglistrow
    FOR EACH ROW EXECUTE FUNCTION cardrank_rating_list_row_kept();
CREATE OR REPLACE FUNCTION cardrank_rating_list_kept() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'a published rating list never changes';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER ratings_ratinglist_kept
    BEFORE UPDATE OR DELETE ON ratings_ratinglist
    FOR EACH ROW EXECUTE FUNCTION cardrank_rating_list_kept();
"""
BACKWARD = """
DROP TRIGGER IF EXISTS ratings_ratinglistrow_kept ON ratings_ratinglistrow;
DROP FUNCTION IF EXISTS cardrank_rating_list_row_kept();
DROP TRIGGER IF EXISTS ratings_ratinglist_kept ON ratings_ratinglist;
DROP FUNCTION IF EXISTS cardrank_rating_list_kept();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("ratings", "0008_rating_lists")]

    operations = [migrations.RunPython(forward, backward)]
