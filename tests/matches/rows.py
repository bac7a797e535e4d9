"""Every row a write could touch, by content: what "stores nothing" and "changes nothing" compare.

Counting rows misses an update in place (a match moved to another league, a
re-stored seat, a bumped version); comparing every column of every row of the
project's own apps does not.
"""

from django.apps import apps

APP_LABELS = ("games", "leagues", "matches", "ratings")


def rows_snapshot() -> dict[str, dict[object, dict]]:
    """{model label: {primary key: the row's columns}} for every model of the project's four apps."""
    snapshot = {}
    for label in APP_LABELS:
        for model in apps.get_app_config(label).get_models():
            key = model._meta.pk.attname
            snapshot[model._meta.label] = {row[key]: row for row in model.objects.values()}
    return snapshot


def rows_changed(before: dict, after: dict) -> dict[str, list]:
    """{model label: primary keys of the rows added, removed or changed}; empty when nothing changed."""
    changed = {}
    for label in before.keys() | after.keys():
        old, new = before.get(label, {}), after.get(label, {})
        keys = sorted((key for key in old.keys() | new.keys() if old.get(key) != new.get(key)), key=str)
        if keys:
            changed[label] = keys
    return changed
