from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PeopleConfig(AppConfig):
    """People and the player records that are theirs (issue 27): a signed-in person's claim of a player,
    approved by a referee or an admin (one person per player), and the "me" links it brings.

    Beside notices and hooks, above the games and below web, which serves its pages; it hears an erasure
    through ``ratings.people.player_erased``.
    """

    name = "people"
    verbose_name = _("People")

    def ready(self) -> None:
        from people.receivers import claims_forget
        from ratings.people import player_erased

        player_erased.connect(claims_forget, dispatch_uid="people.claims_forget")
