"""The site's own date and number formats where they differ from Django's for a language
(``FORMAT_MODULE_PATH``): each ``<language>/formats.py`` names only what it changes."""
