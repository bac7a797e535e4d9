"""Settings, read from the environment (twelve-factor, as in cookiecutter-django).

Embedded defaults serve ``make run``: a SQLite file and Celery tasks run
eagerly. Production sets ``DJANGO_DEBUG=false`` and must then provide
``DJANGO_SECRET_KEY``; there is no default secret outside debug mode.

Variables:
    DATABASE_URL          default ``sqlite:///<repo>/db.sqlite3``
    CELERY_BROKER_URL     unset: tasks run eagerly in-process; e.g. redis://127.0.0.1:6379/0
    DJANGO_SECRET_KEY     required when DJANGO_DEBUG is false
    DJANGO_DEBUG          ``true`` (default) or ``false``
    DJANGO_ALLOWED_HOSTS  comma-separated, default ``127.0.0.1,localhost`` (plus ``*`` in debug)
    DJANGO_TIME_ZONE      default ``UTC``; naive times from forms are read in it
    CARDRANK_MAX_BODY_BYTES  default 1048576 (1 MiB): the largest request body read (API, pages, admin)

The rest (the cache, rate limits, sign-in limits, the trusted proxy count, the
Content-Security-Policy report address, the sweeper) are listed with their
defaults in docs/operations.md, and explained in docs/security.md.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int, minimum: int = 0) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}.") from None
    if number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {number}.")
    return number


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", True)

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is false.")
    SECRET_KEY = "insecure-development-key-only-for-debug-mode"  # noqa: S105 - debug only

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost")
if DEBUG:
    ALLOWED_HOSTS = [*ALLOWED_HOSTS, "testserver"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    # Unused: API tokens are config.models.ApiToken (hashed, expiring). Kept installed for its migrations
    # and so that config's data migration can move its old keys; its admin is unregistered (config/admin.py).
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "statici18n",
    "template_partials",
    "django_ratelimit",
    "axes",
    "config.apps.ConfigConfig",  # deployment checks (config/checks.py)
    "csp",
    "leagues",
    "ratings",
    "matches",
    "games",  # what the games share above the other apps: entry, imports, exports, the kinds' base
    # The games, each an app of its own (games/plugin.py): its kind, its parts' models, templates, static files.
    "games.slaps",
    "games.preferans",
    "games.bridge",
    # A club's own games, apps too: CARDRANK_EXTRA_GAME_APPS, comma-separated (docs/architecture.md).
    *[app.strip() for app in os.environ.get("CARDRANK_EXTRA_GAME_APPS", "").split(",") if app.strip()],
    # Over the games, hearing the apps below through their signals (issue 27): people's claims of players,
    # the emails they choose, a club's outgoing webhooks.
    "people",
    "notices",
    "hooks",
    # The top: the pages, the REST API and the admin that spans apps, over all of the above (web/apps.py).
    "web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy on every answer (CONTENT_SECURITY_POLICY below).
    "csp.middleware.CSPMiddleware",
    # A body over its cap (CARDRANK_MAX_BODY_BYTES; admin's import upload: CARDRANK_IMPORT_MAX_BYTES) is a
    # 413 before anything reads it, chunked bodies included (config/bodies.py). Before every middleware below.
    "config.bodies.BodyCapMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The language of every answer: a signed-in person's stored choice, else the switcher's cookie, else the
    # browser's Accept-Language (Django's LocaleMiddleware, which it extends; docs/translation.md).
    "config.language.LanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Turns a rate limit hit (django-ratelimit) into RATELIMIT_VIEW: 429 Too Many Requests.
    "django_ratelimit.middleware.RatelimitMiddleware",
    # Answers a sign-in that django-axes refused (config.signin): 429, the sign-in page with the wait.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context_processors.entry_pages",
                "matches.context_processors.to_confirm_count",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite serialises writers; wait for the lock instead of failing at once.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The cache backs rate limiting and cached pages: per process by default; a
# deployment with several web processes shares one, e.g. CACHE_URL=redis://127.0.0.1:6380/0: a Redis
# server apart from the broker's, capped and evicting (maxmemory, allkeys-lru; config/checks.py).
# It is never a dependency of writes (config/cache.py): while Redis is down a
# read is a miss and a write is dropped, so pages come from the database and
# rate limits fail open (RATELIMIT_FAIL_OPEN), with a warning in the log.
CACHE_URL = os.environ.get("CACHE_URL", "")
CACHES = {
    "default": (
        {
            "BACKEND": "config.cache.FailOpenRedisCache",
            "LOCATION": CACHE_URL,
            # A Redis that hangs costs a request at most this long before the cache is skipped.
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5, "RETRY_SECONDS": 5},
        }
        if CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "cardrank"}
    )
}
# A signed-in page reads its session from the shared cache, not PostgreSQL (one query fewer on every
# referee's page; docs/performance.md), under a digest of its key, never the key (config/sessions.py), and
# every session is still written to the database, which stays the truth: a miss (Redis down, evicted)
# reads it from there. Only with CACHE_URL: a per-process memory cache would keep a signed-out session
# alive in the other web processes.
SESSION_ENGINE = "config.sessions" if CACHE_URL else "django.contrib.sessions.backends.db"
# django-ratelimit wants a shared cache (E003): the embedded default is one process's memory.
# W001 only says our Redis backend is not on its list; Django's atomic add/incr is all it needs.
SILENCED_SYSTEM_CHECKS = ["django_ratelimit.W001"] + ([] if CACHE_URL else ["django_ratelimit.E003"])
RATELIMIT_FAIL_OPEN = True
RATELIMIT_VIEW = "config.views.rate_limited"
# Every limit keyed on an address reads it the same way (config/clientip.py).
RATELIMIT_IP_META_KEY = "config.clientip.client_ip"
# Result-entry posts per signed-in referee.
CARDRANK_PAGE_WRITE_RATE = os.environ.get("CARDRANK_PAGE_WRITE_RATE", "300/m")

# The largest request body any view reads, checked against Content-Length before reading, a chunked one
# read only up to it (config.bodies): over it, 413 (JSON under /api/). The largest legitimate body, a
# bridge session, is about 36 KB for 32 boards of 16 tables (100 KB pretty-printed); 1 MiB holds even the
# 100 boards x 50 tables the service accepts, compact. Django's default (2.5 MiB) let one write store
# megabytes in the audit log.
CARDRANK_MAX_BODY_BYTES = int(os.environ.get("CARDRANK_MAX_BODY_BYTES", str(1024 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = CARDRANK_MAX_BODY_BYTES

# Reads over a game's history (compare, quality, drift, crosstables, a player's history and profile, the
# downloads: config.lanes.heavy_read in config/urls.py) make their answers this many at a time across the
# site, so that visitors asking for them without pause leave a core to every other request; a heavy read
# waits for its turn at most CARDRANK_HEAVY_READS_WAIT_SECONDS, then is answered 503 with Retry-After.
# 0: no limit. Rule of thumb: the web host's cores minus one, at least 1 (docs/operations.md).
CARDRANK_HEAVY_READS_AT_ONCE = env_int("CARDRANK_HEAVY_READS_AT_ONCE", 1)
CARDRANK_HEAVY_READS_WAIT_SECONDS = env_int("CARDRANK_HEAVY_READS_WAIT_SECONDS", 15, minimum=1)

# The game kinds registered at start-up (games/, leagues/kinds.py): one class per rating system.
# A club's own game is best an app in INSTALLED_APPS (games/plugin.py); a kind without models of its own may
# instead be named here, by CARDRANK_EXTRA_GAME_KINDS (comma-separated import paths).
CARDRANK_GAME_KINDS = [
    *[path.strip() for path in os.environ.get("CARDRANK_EXTRA_GAME_KINDS", "").split(",") if path.strip()],
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The languages every page, email and message is in (issue 28, docs/translation.md). Each app keeps its
# own catalogue (<app>/locale/ru/LC_MESSAGES/django.po); the shared frame's (templates/, static/js/, config/)
# is config/locale. `make messages` updates them all. A language is added here and by its catalogues.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("ru", "Русский")]
LANGUAGE_COOKIE_NAME = "cardrank_language"
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
LANGUAGE_COOKIE_SAMESITE = "Lax"
# Dates, times and numbers in the active language's formats (config/formats/<lang>/formats.py extends
# Django's): a decimal comma in Russian. Thousands are grouped only where a page asks (humanize's intcomma:
# counts, totals), never in a rating (1500, as every rating list prints it) nor in an id or a form's value.
FORMAT_MODULE_PATH = ["config.formats"]
USE_THOUSAND_SEPARATOR = False
# The JavaScript catalogues are static files (django-statici18n: static/jsi18n/<lang>/djangojs.js), built by
# `make messages` from the djangojs.po of config/locale and of the apps with scripts of their own, so the
# Content-Security-Policy needs no script view.
STATICI18N_ROOT = BASE_DIR / "static"
STATICI18N_PACKAGES = ("config", "games.bridge")  # the apps with scripts of their own
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Files the site writes for itself (the whole-game downloads prepared in the background: games/export_files.py).
# Web processes and workers must see the same folder (docs/operations.md).
MEDIA_ROOT = os.environ.get("CARDRANK_FILES_DIR") or str(BASE_DIR / "files")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Production hardening; ``manage.py check --deploy`` reads these.
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SECURE_HSTS_SECONDS = 0 if DEBUG else int(os.environ.get("DJANGO_HSTS_SECONDS", "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", not DEBUG)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")

# The client's address (config/clientip.py): 0 = REMOTE_ADDR, X-Forwarded-For ignored; N = the
# proxies in front of the application, each appending to X-Forwarded-For: its N-th entry from the right.
CARDRANK_TRUSTED_PROXY_COUNT = env_int("CARDRANK_TRUSTED_PROXY_COUNT", 0)

# Sign-in limits (django-axes, config/signin.py), on every authenticate(): the sign-in page and the
# admin's. Failed sign-ins are counted per account and client address, per account (any address) and
# per address (any account); at a count's limit, sign-in is refused (429, even the right password)
# until its failures are older than the cool-off. The first limit is below the second, so no single
# address can lock an account for its owner. A successful sign-in clears the account's failures.
CARDRANK_SIGN_IN_LIMITS = {
    "account_and_address": env_int("CARDRANK_SIGN_IN_FAILURES_PER_ACCOUNT_AND_ADDRESS", 5, minimum=1),
    "account": env_int("CARDRANK_SIGN_IN_FAILURES_PER_ACCOUNT", 20, minimum=1),
    "address": env_int("CARDRANK_SIGN_IN_FAILURES_PER_ADDRESS", 20, minimum=1),
}
AXES_COOLOFF_TIME = timedelta(minutes=env_int("CARDRANK_SIGN_IN_COOLOFF_MINUTES", 15, minimum=1))
AXES_HANDLER = "config.signin.SignInAttemptHandler"
AXES_LOCKOUT_PARAMETERS = "config.signin.lockout_parameters"
# Axes compares one number with this limit; config.signin scales each count onto it. Axes' admin
# shows a record (account, address, user agent) as locked at it.
AXES_FAILURE_LIMIT = CARDRANK_SIGN_IN_LIMITS["account_and_address"]
AXES_CLIENT_IP_CALLABLE = "config.clientip.sign_in_client_ip"
AXES_RESET_ON_SUCCESS = True
# Attempts refused while locked are not counted: a lockout ends a cool-off after the last counted failure.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "config.views.sign_in_locked_out"
AXES_VERBOSE = False
# The log names the client's address of a failure or lockout; never what was typed as username
# (sometimes a password typed in the wrong field). Passwords are never logged nor stored.
AXES_SENSITIVE_PARAMETERS = ["username"]

# django-axes first: it refuses a locked-out sign-in before any password is checked.
# Then Django's ModelBackend, with a user's own and group permissions read in one query (config/auth.py).
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "config.auth.ModelBackend"]

# Content-Security-Policy (django-csp): everything from this origin only, no inline script or style
# (templates have none; htmx is told not to inject its indicator style, see base.html), no eval,
# no framing. Swagger UI at /api/docs/ loads its start-up script from a URL (SpectacularSwaggerSplitView)
# so it needs no exception. CARDRANK_CSP_REPORT_URI, when set, receives the browsers' violation reports.
CARDRANK_CSP_REPORT_URI = os.environ.get("CARDRANK_CSP_REPORT_URI", "")
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
        **({"report-uri": [CARDRANK_CSP_REPORT_URI]} if CARDRANK_CSP_REPORT_URI else {}),
    }
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first, so a bad or missing token answers 401 with WWW-Authenticate. Checked against the
        # tokens' digests, with their expiry and revocation (config/tokens.py, docs/security.md "Tokens").
        "config.tokens.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    "DEFAULT_THROTTLE_RATES": {"writes": os.environ.get("CARDRANK_API_WRITE_RATE", "600/min")},
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Cardrank API",
    "DESCRIPTION": "Rated leagues for card games. Reading is public; writing needs a referee token.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # No badge from validator.swagger.io: it would send the schema's address to a third party (and CSP blocks it).
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "REDOC_DIST": "SIDECAR",
}

# Celery: no broker configured means "run tasks eagerly, in-process".
CELERY_TASK_ALWAYS_EAGER = not os.environ.get("CELERY_BROKER_URL")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "memory://"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A submission must never fail because the broker is slow or down: publish
# with a short retry budget and let the sweeper pick up what was not queued.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2}
# Redis redelivers a task whose worker died before acknowledging it after this long.
CARDRANK_VISIBILITY_TIMEOUT = int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600"))
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CARDRANK_VISIBILITY_TIMEOUT,
    # A running worker looks for such tasks every interval x throttle seconds: kombu's 10 x 10
    # would add up to 100 s to any timeout. Look every fifth of the timeout (1 s to 1 min).
    "unacked_restore_interval": max(1, min(60, CARDRANK_VISIBILITY_TIMEOUT // 5)),
    "unacked_restore_throttle": 1,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# How often beat asks for every game's kept figures again (ratings.figures): the drift moves with the calendar.
FIGURES_EVERY = timedelta(seconds=env_int("CARDRANK_FIGURES_EVERY_SECONDS", 3600, minimum=60))
SWEEP_EVERY = timedelta(seconds=int(os.environ.get("CARDRANK_SWEEP_EVERY_SECONDS", "60")))
# Long admin work (an import's check and its storing, a tuning, a session's hand records) runs on its own
# queue, so results are rated while it runs: `make worker` starts a worker for each queue (docs/operations.md).
CARDRANK_ADMIN_QUEUE = "admin"
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = {
    "games.tasks.import_run_check": {"queue": CARDRANK_ADMIN_QUEUE},
    "games.tasks.import_run_apply": {"queue": CARDRANK_ADMIN_QUEUE},
    "games.tasks.bridge_hand_records": {"queue": CARDRANK_ADMIN_QUEUE},
    "ratings.tasks.ratings_tune": {"queue": CARDRANK_ADMIN_QUEUE},
    # Quality, drift, pair scale, crosstables: a replay or a scan of a game's history (ratings.figures).
    "ratings.tasks.figures_compute": {"queue": CARDRANK_ADMIN_QUEUE},
    # A scan of a game's ledger at a closing time, written once (ratings.lists).
    "ratings.tasks.rating_lists_publish_due": {"queue": CARDRANK_ADMIN_QUEUE},
    "ratings.tasks.rating_list_republish": {"queue": CARDRANK_ADMIN_QUEUE},
    # Seasons: their tables worked out from their results, their ends and moves (games.seasons).
    "games.tasks.season_table_refresh_task": {"queue": CARDRANK_ADMIN_QUEUE},
    "games.tasks.seasons_close_due": {"queue": CARDRANK_ADMIN_QUEUE},
    # The evening digests' sweep: every claimed player's day read, and their mails queued (notices.digests).
    "notices.tasks.digests_send_due": {"queue": CARDRANK_ADMIN_QUEUE},
    # A webhook's POST may wait on a slow receiver (hooks.sending.TIMEOUT); its sweep queues the due ones.
    "hooks.tasks.webhook_deliver": {"queue": CARDRANK_ADMIN_QUEUE},
    "hooks.tasks.webhook_deliveries_sweep": {"queue": CARDRANK_ADMIN_QUEUE},
}
CELERY_BEAT_SCHEDULE = {
    "ratings-close-periods": {"task": "ratings.tasks.ratings_close_periods", "schedule": SWEEP_EVERY},
    "ratings-sweep-submitted": {"task": "ratings.tasks.ratings_sweep", "schedule": SWEEP_EVERY},
    "games-expire-import-runs": {"task": "games.tasks.import_runs_expire", "schedule": timedelta(hours=1)},
    "ratings-figures-refresh": {"task": "ratings.tasks.figures_refresh", "schedule": FIGURES_EVERY},
    # Each game's official rating list, soon after its period closes (ratings.lists).
    "ratings-publish-lists": {"task": "ratings.tasks.rating_lists_publish_due", "schedule": timedelta(hours=1)},
    # Seasons whose last day is over are closed (tables frozen, players moved); running ones' tables refreshed.
    "games-close-seasons": {"task": "games.tasks.seasons_close_due", "schedule": timedelta(hours=1)},
    # The evening digests that are due: a finished day, or a quiet evening (notices.digests, docs/notices.md).
    "notices-send-digests": {"task": "notices.tasks.digests_send_due", "schedule": timedelta(hours=1)},
    # Webhook deliveries whose retry is due, or whose worker died mid-send (hooks.services, docs/webhooks.md).
    "hooks-sweep-deliveries": {"task": "hooks.tasks.webhook_deliveries_sweep", "schedule": timedelta(minutes=1)},
}

# Email (notices, docs/notices.md). Without EMAIL_HOST mails are printed on the console (``make run``);
# with it they go through that SMTP server. Only the notices' Celery tasks send mail, never a request.
#     EMAIL_HOST, EMAIL_PORT (default 587), EMAIL_HOST_USER, EMAIL_HOST_PASSWORD (no default: a secret),
#     EMAIL_USE_TLS (STARTTLS, default true) or EMAIL_USE_SSL (implicit TLS, e.g. port 465; then TLS is off),
#     EMAIL_TIMEOUT (seconds, default 20), DEFAULT_FROM_EMAIL (default cardrank@localhost).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", not EMAIL_USE_SSL) and not EMAIL_USE_SSL
    EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 20, minimum=1)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "cardrank@localhost")
# The site's own address, for the links in mails (a task has no request to build them from); no slash at the end.
CARDRANK_SITE_URL = os.environ.get("CARDRANK_SITE_URL", "http://127.0.0.1:8000").rstrip("/")
# An evening's digest goes once its day has ended, or once its last rated result is this old (and nothing of
# the player's day still waits to be rated).
CARDRANK_DIGEST_QUIET_MINUTES = env_int("CARDRANK_DIGEST_QUIET_MINUTES", 120, minimum=1)

# Ratings: a match still ``submitted`` after this long is picked up by the sweeper.
CARDRANK_SWEEP_AFTER = timedelta(seconds=int(os.environ.get("CARDRANK_SWEEP_AFTER_SECONDS", "30")))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
}

# An API token's lifetime from the day it is issued (config/tokens.py); past it the token is refused (401).
CARDRANK_TOKEN_DAYS = env_int("CARDRANK_TOKEN_DAYS", 90, minimum=1)

# The largest file ``import_results`` reads (bytes): a club's history in CSV is a few MB.
CARDRANK_IMPORT_MAX_BYTES = int(os.environ.get("CARDRANK_IMPORT_MAX_BYTES", 20 * 1024 * 1024))
# An admin import previewed (or never checked) and not confirmed within this many hours drops its file.
CARDRANK_IMPORT_PREVIEW_HOURS = env_int("CARDRANK_IMPORT_PREVIEW_HOURS", 24, minimum=1)
