"""The Celery application.

Without ``CELERY_BROKER_URL`` the settings make every task run eagerly in the
calling process (the embedded default used by ``make run``); with it, a
``celery -A config worker`` process applies ratings.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("cardrank")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
