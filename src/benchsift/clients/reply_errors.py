"""How an HTTP reply that is not a success becomes a classified :class:`~benchsift.clients.base.ClientError`,
the same on both transports (:mod:`benchsift.clients.transport`).

* An error status (4xx, 5xx). Retryable by openai-python's rules, in its order (``_base_client.py``,
  ``_should_retry``): the ``x-should-retry`` header first (``true``: retry whatever the status, ``false``:
  never), then 408, 409, 429 and every 5xx. Fatal, stopping the endpoint after one call
  (:class:`~benchsift.clients.breaker.StopOnFatalClient`) whatever ``x-should-retry`` says: 401 and 403 (a
  rejected key), 402 (payment required: OpenRouter's "insufficient credits") and a 429 whose ``error.code``
  or ``error.type`` is ``insufficient_quota`` (OpenAI's "You exceeded your current quota": waiting does not
  mend it). The message is ``"<endpoint>: HTTP <status>: <the server's error.message>"``: the transport reads
  at most :data:`ERROR_BODY_BYTES` (64 KiB) of the body, decoded; a body that is not JSON there (an nginx HTML
  page, a longer body) gives no message. The server's text is cut to :data:`MESSAGE_CHARS` characters, its
  control characters removed and the API key masked, should the server quote it back.
* A redirect (3xx): never followed (a redirected POST reaches another origin, or turns into a bodyless GET,
  and its reply would be recorded and cached under this endpoint's base URL). Not retryable; the message
  names the status and the origin of its ``Location``.

``parse_retry_after`` reads the wait a reply asks for; :class:`~benchsift.clients.retry.RetryPolicy` decides
whether it is honoured.
"""

from __future__ import annotations

import email.utils
import json
import time
import unicodedata
import urllib.parse
from typing import Any

from benchsift.clients.base import ClientError

__all__ = [
    "ERROR_BODY_BYTES",
    "FATAL_STATUSES",
    "MESSAGE_CHARS",
    "is_retryable_status",
    "parse_retry_after",
    "redirect_error",
    "status_error",
]

#: the most bytes of an error reply's (decoded) body read for its message
ERROR_BODY_BYTES = 64 << 10
#: the most characters of a server's error message kept in a failure's text
MESSAGE_CHARS = 200
#: statuses after which every later request to the endpoint fails the same way (a rejected key)
FATAL_STATUSES = (401, 403)


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait as the reply asks, from ``retry-after-ms`` (preferred, as in openai-python) or
    ``Retry-After`` (seconds or an HTTP date), as sent: 0, negative (a date past) or huge included; None
    when neither is readable. :meth:`RetryPolicy.delay` honours it only when 0 < value <= 120 s."""
    if headers is None:
        return None
    try:
        ms, value = headers.get("retry-after-ms"), headers.get("retry-after")
    except Exception:
        return None
    for raw, unit in ((ms, 1000.0), (value, 1.0)):
        if raw is None:
            continue
        try:
            return float(raw) / unit
        except (TypeError, ValueError):
            continue
    if value is None:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return when.timestamp() - time.time()


def is_retryable_status(status: int) -> bool:
    """429 (rate limit), 408 (request timeout), 409 (conflict) and every 5xx are worth retrying (unless the
    reply's ``x-should-retry`` says otherwise: :func:`status_error`)."""
    return status in (408, 409, 429) or status >= 500


def _should_retry(headers: Any) -> bool | None:
    """The reply's ``x-should-retry`` header: True, False, or None when absent or another value."""
    try:
        value = headers.get("x-should-retry") if headers is not None else None
    except Exception:
        return None
    if not isinstance(value, str):
        return None
    return {"true": True, "false": False}.get(value.strip().lower())


def _one_line(text: str, secret: str = "") -> str:
    """``text`` fit for a one-line failure message: ``secret`` (the API key) masked, whitespace and control
    characters turned into single spaces or removed (lone surrogates too), cut to :data:`MESSAGE_CHARS`."""
    if len(secret) >= 4 and secret != "EMPTY":
        text = text.replace(secret, "***")
    text = text[: 4 * MESSAGE_CHARS]
    kept = (c if not unicodedata.category(c).startswith("C") else " " if c.isspace() else "" for c in text)
    text = " ".join("".join(kept).split())
    if len(text) > MESSAGE_CHARS:
        text = text[: MESSAGE_CHARS - 3].rstrip() + "..."
    return text


def _error_object(body: bytes) -> Any:
    """The ``error`` member of a JSON error body (the body itself when it has none), or None."""
    if not body:
        return None
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError):  # not JSON (an HTML page), cut at the prefix, invalid UTF-8
        return None
    return doc.get("error", doc) if isinstance(doc, dict) else None


def _message(error: Any, secret: str) -> str:
    if isinstance(error, dict):
        error = error.get("message")
    return _one_line(error, secret) if isinstance(error, str) else ""


def _out_of_quota(status: int, error: Any) -> bool:
    if status == 402:
        return True
    return (
        status == 429
        and isinstance(error, dict)
        and "insufficient_quota" in (error.get("code"), error.get("type"))
    )


def status_error(name: str, status: int, headers: Any, body: bytes = b"", *, secret: str = "") -> ClientError:
    """The failure of an error reply (``status`` >= 400) of endpoint ``name``, from its headers and the first
    :data:`ERROR_BODY_BYTES` of its body; ``secret``, the API key, never appears in the message."""
    error = _error_object(body[:ERROR_BODY_BYTES])
    message = _message(error, secret)
    quota = _out_of_quota(status, error)
    text = f"{name}: HTTP {status}" + (f": {message}" if message else "")
    if status in FATAL_STATUSES:
        text += " (authentication failed: check the key in api_key_env)"
    elif quota:
        text += " (out of quota or credit: check the account's plan and billing; retrying cannot help)"
    should = _should_retry(headers)
    return ClientError(
        text,
        retryable=is_retryable_status(status) if should is None else should,
        status=status,
        retry_after=parse_retry_after(headers),
        kind=str(status),
        fatal=status in FATAL_STATUSES or quota,
    )


def redirect_error(name: str, status: int, location: str | None, url: str) -> ClientError:
    """The failure of a redirect (3xx) from ``url``: not followed, not retried; names the origin (scheme,
    host and port, never credentials) its ``Location`` points to."""
    where = ""
    if location:
        try:
            parts = urllib.parse.urlsplit(urllib.parse.urljoin(url, location))
            host = parts.netloc.rpartition("@")[2]
            where = _one_line(f"{parts.scheme}://{host}" if parts.scheme and host else location)
        except ValueError:
            where = ""
    said = f"the endpoint redirected to {where}" if where else "the endpoint answered with a redirect"
    return ClientError(
        f"{name}: HTTP {status}: {said}: set base_url to the final address",
        retryable=False,
        status=status,
        kind=str(status),
    )
