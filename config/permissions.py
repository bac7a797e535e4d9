"""Who may do what with results: the roles' permissions, read apart from the services that act on them.

The services check them before any write (``PermissionDenied``); the API's
permission classes (``config.api``), the pages and admin ask the same questions.
They live in config, the shared plumbing below the apps, because leagues asks
them too (a referee adds players): only permission names, no app's code.
"""


def user_can_submit(user) -> bool:
    return bool(user and user.is_authenticated and user.is_active and user.has_perm("matches.submit_result"))


def user_can_void(user) -> bool:
    return bool(user and user.is_authenticated and user.is_active and user.has_perm("matches.void_match"))


def user_sees_club_data(user) -> bool:
    """Federation and club numbers, and the JSON dump of a game that carries them: the club's staff
    (``is_staff``, who reach admin), not the public reading the site (docs/import.md, "Who may download what")."""
    return bool(user and user.is_authenticated and user.is_active and user.is_staff)
