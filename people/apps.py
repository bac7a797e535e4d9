from django.apps import AppConfig


class PeopleConfig(AppConfig):
    """People and the player records that are theirs (issue 27): a signed-in person's claim of a player,
    approved by a referee or an admin (one person per player), and the "me" links it brings.

    Beside notices and hooks, above the games and below web, which serves its pages; it hears an erasure
    through ``ratings.people.player_erased``.
    """

    name = "people"
    verbose_name = "People"
