"""A name as search and name order read it: ``name_key`` (``Player.search_name``, and every text searched).

People are found and listed by a key made from their name, the same way for a stored name and for the text
someone types, so that the database only compares plain text (``contains``, ``startswith``, ``ORDER BY``)
and PostgreSQL and SQLite agree (SQLite's ``LIKE`` folds only ASCII letters' case, and its ``UPPER`` none but
those):

- case is folded (``str.casefold``: "ПЁТР", "Пётр" and "пётр" are one name; "Straße" is "strasse");
- ё is the letter without its dots (Russian writes both for one letter: "Петр" and "Пётр" are one name);
- in a word that mixes Cyrillic and Latin letters, the letters that look alike in the two scripts
  ("a", "c", "e", "o", "p", "x", "y", and in capitals "B", "H", "K", "M", "T"...) are taken in the script of
  the word's other letters: "Петр" typed with a Latin "e" is "петр", and "Oscar" typed with a Cyrillic "O"
  is "oscar". A word of one script is kept as it is, so a Latin name sorts with Latin names and a Cyrillic
  one with Cyrillic names; a word of look-alikes only, mixed, is taken as Cyrillic;
- whitespace is one space, and the key is composed (NFC) as stored names are.

Sorting by the key puts names in alphabetical order within each script (Cyrillic after Latin, as code points
run): "Елена", "ёжиков", "Жанна". ``docs/translation.md`` ("Names and search") says why.
"""

from __future__ import annotations

import re
import unicodedata

#: Cyrillic letters (after case folding) and the Latin letters that look like them, in one script or, for
#: в/н/м/т/к, in capitals (people type names in capitals too). Written as code points: the pairs look alike.
LOOK_ALIKES = dict(
    zip(
        "\u0430\u0432\u0435\u0456\u0458\u043a\u043c\u043d\u043e\u0440\u0441\u0455\u0442\u0443\u0445",
        "abeijkmhopcstyx",
        strict=True,
    )
)
TO_LATIN = str.maketrans(LOOK_ALIKES)
TO_CYRILLIC = str.maketrans({latin: cyrillic for cyrillic, latin in LOOK_ALIKES.items()})
LATIN_LOOK_ALIKES = frozenset(LOOK_ALIKES.values())
#: A word: a run of letters and marks (a name's hyphen, apostrophe or space parts it).
WORD = re.compile(r"[^\W\d_]+")


def _script(char: str) -> str:
    """ "cyrillic", "latin" or "" for a letter of neither, by its Unicode name."""
    name = unicodedata.name(char, "")
    if name.startswith("CYRILLIC"):
        return "cyrillic"
    if name.startswith("LATIN"):
        return "latin"
    return ""


def _one_script(match: re.Match) -> str:
    word = match.group()
    scripts = {_script(char) for char in word}
    if not {"cyrillic", "latin"} <= scripts:
        return word
    cyrillic = sum(1 for char in word if _script(char) == "cyrillic" and char not in LOOK_ALIKES)
    latin = sum(1 for char in word if _script(char) == "latin" and char not in LATIN_LOOK_ALIKES)
    return word.translate(TO_LATIN) if latin > cyrillic else word.translate(TO_CYRILLIC)


def name_key(text) -> str:
    """The key of a name or of a searched text: see the module."""
    if not isinstance(text, str):
        return ""
    folded = unicodedata.normalize("NFC", " ".join(text.split()).casefold()).replace("\u0451", "\u0435")  # yo as ie
    return WORD.sub(_one_script, folded)
