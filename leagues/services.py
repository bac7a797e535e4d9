"""Writing players. Validation here is shared by the API, the pages and admin.

A player's *name* is any text people are called by, in any script: it is
kept in Unicode normal form C (one spelling of "é", so search and the
name order that breaks ties see one name), with runs of whitespace made one
space. Refused: characters that change how the text around them is shown or
read without showing themselves — controls, bidirectional overrides,
embeddings, isolates and marks (U+202A to U+202E, U+2066 to U+2069, U+200E/F),
other format characters, private-use, surrogate and unassigned code points —
except the format characters real names need:

- ZERO WIDTH NON-JOINER (U+200C), as in Persian "مهدی‌زاده", and ZERO
  WIDTH JOINER (U+200D), as in the emoji 👩‍💻 (a woman and a laptop joined)
  or Indic conjuncts, each between two other characters of the name;
- emoji tag sequences (the flag of Scotland: a black flag, tag letters, a
  cancel tag), and nowhere else: a tag character elsewhere is invisible text.

Emoji are allowed: variation selectors (U+FE0F) and skin tones are ordinary
marks and symbols, not format characters.
"""

import re
import unicodedata

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from leagues.models import Player

NAME_MAX = 100
FEDERATION_ID_MAX = 40
JOINERS = "\u200c\u200d"  # ZWNJ, ZWJ
REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn"}
# A black flag, tag characters (U+E0020-E007E) and the cancel tag U+E007F: a subdivision flag (UTS #51).
EMOJI_TAG_SEQUENCE = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")


def player_name_clean(value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError({"name": [_("This field is required: the player's name.")]})
    name = unicodedata.normalize("NFC", " ".join(value.split()))
    if len(name) > NAME_MAX:
        raise ValidationError({"name": [_("At most %(most)s characters.") % {"most": NAME_MAX}]})
    if name[0] in JOINERS or name[-1] in JOINERS or any(f" {j}" in name or f"{j} " in name for j in JOINERS):
        raise ValidationError({"name": [_("A zero-width joiner or non-joiner must stand between two characters.")]})
    shown = EMOJI_TAG_SEQUENCE.sub("\U0001f3f4", name)
    if any(unicodedata.category(char) in REFUSED_CATEGORIES and char not in JOINERS for char in shown):
        raise ValidationError(
            {"name": [_("The name contains control, formatting (such as bidirectional) or unassigned characters.")]}
        )
    return name


def player_federation_id_clean(value, *, player_id: int | None = None) -> str:
    """A federation or club number: printable text without spaces, kept as given (leading zeros matter),
    that no player but ``player_id`` has; "" for none."""
    number = _federation_id_text(value)
    if number and Player.objects.filter(federation_id=number).exclude(pk=player_id).exists():
        raise _number_taken(number)
    return number


def _federation_id_text(value) -> str:
    number = (value or "").strip() if isinstance(value, str) or value is None else None
    if (
        number is None
        or len(number) > FEDERATION_ID_MAX
        or any(not char.isprintable() or char.isspace() for char in number)
    ):
        raise ValidationError(
            {
                "federation_id": [
                    _("A federation number is printable text without spaces, at most %(most)s.")
                    % {"most": FEDERATION_ID_MAX}
                ]
            }
        )
    return number


def _number_taken(number: str) -> ValidationError:
    return ValidationError(
        {"federation_id": [_("Another player has federation number %(number)s.") % {"number": number}]}
    )


def player_create(*, name, federation_id: str = "") -> Player:
    return Player.objects.create(name=player_name_clean(name), federation_id=player_federation_id_clean(federation_id))


def player_rename(*, player: Player, name) -> Player:
    """Give ``player`` a new name, cleaned as ``player_create`` cleans one; its search key follows
    (``Player.save``: ``search_name``). Saving bumps the cached pages' versions (``ratings.receivers``)."""
    player.name = player_name_clean(name)
    player.save(update_fields=["name"])
    return player


#: New players checked and written together (``players_create``): one query of numbers and one INSERT each.
PLAYERS_A_QUERY = 1000


class PlayerRefused(ValidationError):
    """One of ``players_create``'s people the checks refuse: ``index`` says which; the messages are
    ``player_create``'s for them."""

    def __init__(self, index: int, error: ValidationError):
        super().__init__(error.message_dict if hasattr(error, "error_dict") else error.messages)
        self.index = index


def players_create(*, people: list[tuple[str, str]]) -> list[Player]:
    """``player_create`` for many new people at once (an import's): (name, federation number) each, the same
    checks, and the players in the same order.

    Each name and number is cleaned as ``player_create`` cleans it; whether a number is another player's
    (or given twice here) is asked once for ``PLAYERS_A_QUERY`` people, who are then written in one INSERT,
    not a query or two each. The first person refused raises ``PlayerRefused`` and nothing more is written:
    the caller's transaction holds the batch.
    """
    created: list[Player] = []
    given: set[str] = set()  # the numbers of the people checked so far
    for start in range(0, len(people), PLAYERS_A_QUERY):
        chunk = people[start : start + PLAYERS_A_QUERY]
        players = []
        for index, (name, federation_id) in enumerate(chunk, start=start):
            try:
                players.append(Player(name=player_name_clean(name), federation_id=_federation_id_text(federation_id)))
            except ValidationError as error:
                raise PlayerRefused(index, error) from None
        numbers = [player.federation_id for player in players if player.federation_id]
        taken = set(Player.objects.filter(federation_id__in=numbers).values_list("federation_id", flat=True))
        for index, player in enumerate(players, start=start):
            number = player.federation_id
            if number and (number in taken or number in given):
                raise PlayerRefused(index, _number_taken(number))
            if number:
                given.add(number)
        created += Player.objects.bulk_create(players)
    return created
