"""The APIs' "not found" answer in the reader's language (issue 28).

Django's ``get_object_or_404`` says "No Player matches the given query." in English whatever the request's
language, and DRF passes that message on as the 404's ``detail``. The web's APIs look their objects up with
``object_or_404`` instead: the same English message, translated.
"""

from __future__ import annotations

from django.db.models import Model, QuerySet
from django.http import Http404
from django.utils.translation import gettext_lazy as _

#: The message of each model an API looks up, by the model's name (Django's English text kept as the msgid).
NOT_FOUND = {
    "Game": _("No Game matches the given query."),
    "League": _("No League matches the given query."),
    "Match": _("No Match matches the given query."),
    "Player": _("No Player matches the given query."),
    "Season": _("No Season matches the given query."),
}


def not_found(model: type[Model]) -> Http404:
    """The 404 of a ``model`` that is not there, its message in the active language."""
    name = model._meta.object_name
    message = NOT_FOUND.get(name)
    return Http404(str(message) if message is not None else f"No {name} matches the given query.")


def object_or_404(klass, *args, **kwargs):
    """``get_object_or_404`` with the message in the active language (``NOT_FOUND``)."""
    queryset = klass if isinstance(klass, QuerySet) else klass._default_manager.all()
    try:
        return queryset.get(*args, **kwargs)
    except queryset.model.DoesNotExist:
        raise not_found(queryset.model) from None
