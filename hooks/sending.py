"""One HTTP POST of a signed body, with the standard library: no database here.

The signature is ``sha256=`` and the hex HMAC-SHA256, keyed with the webhook's secret, of the timestamp
(Unix seconds, as sent in ``X-Cardrank-Timestamp``), a full stop and the body's exact bytes
(docs/webhooks.md shows a receiver checking it). Redirects are not followed (a 3xx is an answer that
failed), the answer is read to ``ANSWER_MAX_BYTES`` at most, and nothing waits longer than ``TIMEOUT``.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import urllib.error
import urllib.request
from dataclasses import dataclass

USER_AGENT = "Cardrank-Webhooks/1"
#: Seconds to connect, and between any two reads of the answer.
TIMEOUT = 10
ANSWER_MAX_BYTES = 4096
ERROR_MAX_LENGTH = 300


def signature(*, secret: str, timestamp: str, body: bytes) -> str:
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


@dataclass(frozen=True)
class Outcome:
    """An attempt's outcome: delivered on a 2xx answer; otherwise the status (None: no answer) and why."""

    delivered: bool
    status_code: int | None
    error: str


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # urllib then raises HTTPError with the 3xx: a receiver that moved is not followed


_opener = urllib.request.build_opener(_NoRedirects)


def _short(text: str) -> str:
    return text if len(text) <= ERROR_MAX_LENGTH else text[: ERROR_MAX_LENGTH - 1] + "…"


def post(*, url: str, body: bytes, headers: dict[str, str]) -> Outcome:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")  # noqa: S310 - http(s) only, checked by hooks.validation
    try:
        with _opener.open(request, timeout=TIMEOUT) as answer:
            answer.read(ANSWER_MAX_BYTES)
            status = answer.status
    except urllib.error.HTTPError as error:
        with error:
            return Outcome(False, error.code, _short(f"HTTP {error.code} {error.reason}"))
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        return Outcome(False, None, _short(f"{type(error).__name__}: {reason}"))
    if 200 <= status < 300:
        return Outcome(True, status, "")
    return Outcome(False, status, _short(f"HTTP {status}"))
