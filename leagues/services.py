"""Writing players. Validation here is shared by the API, the pages and admin."""

import unicodedata

from django.core.exceptions import ValidationError

from leagues.models import Player

NAME_MAX = 100


def player_name_clean(value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError({"name": ["This field is required: the player's name."]})
    name = " ".join(value.split())
    if len(name) > NAME_MAX:
        raise ValidationError({"name": [f"At most {NAME_MAX} characters."]})
    if any(unicodedata.category(char) in {"Cc", "Cf", "Cs", "Co", "Cn"} for char in name):
        raise ValidationError({"name": ["The name contains control or unassigned characters."]})
    return name


def player_create(*, name) -> Player:
    return Player.objects.create(name=player_name_clean(name))
