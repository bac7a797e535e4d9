"""The test suite's settings: Cardrank's own, with the fifth game added as a club adds its game (issue 26)."""

from config.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "tests.fifth_game"]  # noqa: F405
