from django.apps import AppConfig


class PeopleConfig(AppConfig):
    """People who hear about their results (issue 27): a person's claim of a player record, their choices
    of notices, and the emails (evening digests, new lists, referees' notices) sent by Celery.

    Above the games (it asks a game's kind for its part of a digest) and below web, which serves its pages;
    it hears the lower apps through their signals (ratings.signals, matches.signals, ratings.people).
    """

    name = "people"
    verbose_name = "People and notices"
