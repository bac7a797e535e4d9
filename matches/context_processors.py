"""The menu's count of results a referee may confirm: "To confirm (3)"."""

from matches.selectors import matches_to_confirm_count


def to_confirm_count(request) -> dict:
    """``to_confirm_count``: how many results the signed-in user may confirm (``matches_to_confirm_count``).

    A callable, as ``games.context_processors.entry_pages``: the template
    evaluates it only where it shows the link (to a referee), so a visitor's
    page costs no query, and a referee's one.
    """
    user = getattr(request, "user", None)
    return {"to_confirm_count": lambda: matches_to_confirm_count(user_id=user.pk) if user is not None else 0}
