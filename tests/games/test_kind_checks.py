"""The kinds' contracts are checked at start-up (``games.checks.kinds_check``), not learned from a crash.

A part must be a relation of ``Match`` (its model's ``related_name``), every template a kind names must
exist, and its entry page's template must define the partial ``entry-form`` that an HTMX post swaps.
"""

from games.base import BaseKind
from games.checks import kinds_check
from leagues.kinds import KINDS, kind_register, kind_unregister


class BrokenKind(BaseKind):
    slug = "broken-kind-check"
    parts = ("deals", "hands_nowhere")
    templates = {
        **BaseKind.templates,
        "entry": "games/_seats_line.html",  # exists, but defines no entry-form partial
        "seats_line": "games/no_such_template.html",
    }


def test_the_registered_kinds_keep_their_contracts():
    assert len(KINDS) >= 3
    assert kinds_check() == []


def test_a_kind_that_breaks_them_is_named_with_each_break():
    kind_register(BrokenKind())
    try:
        errors = kinds_check()
    finally:
        kind_unregister(BrokenKind.slug)
    found = sorted((error.id, error.msg.split(" names the ")[1].split(",")[0]) for error in errors)
    assert found == [
        ("games.E001", "part 'hands_nowhere'"),
        ("games.E002", "template 'games/_seats_line.html#entry-form' for 'entry'"),
        ("games.E002", "template 'games/no_such_template.html' for 'seats_line'"),
    ]
    assert all(error.obj is BrokenKind for error in errors)
    assert kinds_check() == []  # gone with its kind
