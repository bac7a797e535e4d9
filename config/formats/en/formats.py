"""English: Django's, but a short date is the ISO day (2026-12-03), as clubs and rating lists across the
English-speaking world read it (Django's en says 12/03/2026, which a British reader takes for the 12th of March).
Russian keeps Django's: 03.12.2026, and the month in words."""

SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
