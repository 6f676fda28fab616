"""The models/judges config file (TOML, read with the standard library's :mod:`tomllib`).

Example::

    cache = "prism-cache.sqlite"          # optional, relative to the config file, or a database URL
                                          # ("postgresql://user@host/db": benchsift[postgres])
    timeout = 120                         # seconds per HTTP request (default)
    max_attempts = 6                      # retry budget per request
    retry_initial = 0.5                   # first backoff in seconds (doubles per attempt)
    max_retry_after = 60                  # longest wait a server's Retry-After obtains (seconds; one of
                                          # 0 or over 120 s is not honoured: the backoff instead)
    max_reply_bytes = 8388608             # largest reply read (bytes); a larger one fails, not retried
    transport = "aiohttp"                 # HTTP transport: "aiohttp" (default) or "openai" (the SDK)

    [judges]
    gen = "gpt5"                          # J_gen: builds the perturbations (PRISM-VLM Sec. 3)
    grade = "gpt5"                        # J_judge: grades open-ended axes (default: gen)
    audit = "sonnet"                      # J': cross-judge audit re-grade (optional)

    [[endpoint]]
    name = "gpt5"                         # unique name used everywhere else
    base_url = "https://api.openai.com/v1"
    model = "gpt-5"                       # model id sent to the API
    api_key_env = "OPENAI_API_KEY"        # environment variable holding the key ("" = no key)
    concurrency = 16                      # in-flight requests to this endpoint
    role = "judge"                        # "model" (an evaluee, default) or "judge"
    max_tokens_field = "max_completion_tokens"   # or "max_tokens" (default)
    transport = "openai"                  # optional, overrides the file-level transport
    [endpoint.budgets]                    # output budgets in tokens (defaults: PRISM-VLM App. C)
    judge = 384                           # this endpoint's calls as the grading (or audit) judge
    gen = 1024                            # this endpoint's calls as the generation judge J_gen

An evaluee's ``[endpoint.budgets]`` sets its per-axis budgets (``q``, ``if``, ``h``, ``c``, ``vis``: 512;
``mq``: 1024; ``sc``: 512 per turn); a judge's sets ``judge`` (384) and ``gen`` (1024). Any other name is
refused (:data:`BUDGET_NAMES`).

The API key itself is read from the environment at client construction and is never stored,
hashed, logged or printed.

Validation: the file is checked against a typed schema (pydantic v2 models in strict mode, unknown keys
forbidden), so a wrong type (``timeout = "fast"``, ``judges = "gen"``, ``cache = 5``, ``concurrency =
true``) or an invalid setting (``timeout <= 0``, ``max_attempts < 1``, ``retry_initial < 0``, a
``base_url`` that is not an http(s) URL) is refused with one line naming the file, the table and the key.
A ``base_url`` with credentials (``https://user:password@host``) is refused (never sent as basic auth: the
URL is part of the cache key and of messages), without repeating it. A key that is set but holds a control
character (a trailing line break from a key file, CR/LF inside) is refused at load, naming the variable,
never the key.
"""

from __future__ import annotations

import math
import os
import tomllib
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from benchsift._inputs import choose
from benchsift.clients.base import canonical_json
from benchsift.clients.cache import is_database_url
from benchsift.errors import InputError

__all__ = ["BUDGET_NAMES", "TRANSPORTS", "EndpointConfig", "EngineConfig", "config_from_dict", "load_config"]

#: the names ``[endpoint.budgets]`` takes: the seven PRISM-VLM axes (an evaluee's calls), ``judge`` (the
#: grading and audit judge's calls) and ``gen`` (the generation judge's calls)
BUDGET_NAMES: tuple[str, ...] = ("q", "if", "h", "mq", "sc", "c", "vis", "judge", "gen")

TRANSPORTS = ("aiohttp", "openai")  # HTTP transports, benchsift.clients.transport
_CHOICES: dict[str, tuple[str, ...]] = {
    "transport": TRANSPORTS,
    "role": ("model", "judge"),
    "max_tokens_field": ("max_tokens", "max_completion_tokens"),
}

Transport = Literal["aiohttp", "openai"]


#: default cap on a server's ``Retry-After`` (seconds): ``max_retry_after``
MAX_RETRY_AFTER = 60.0
#: default cap on a reply body (bytes): ``max_reply_bytes``; a chat completion is a few kB
MAX_REPLY_BYTES = 8 << 20


def _redacted(url: Any) -> Any:
    """``url`` with any ``user:password@`` part replaced by ``***@``, for messages."""
    if not isinstance(url, str) or "@" not in url:
        return url
    scheme, sep, rest = url.partition("://")
    host_part, slash, path = (rest if sep else scheme).partition("/")
    if "@" not in host_part:
        return url
    safe = "***@" + host_part.rpartition("@")[2]
    return f"{scheme}{sep}{safe}{slash}{path}" if sep else f"{safe}{slash}{path}"


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, allow_inf_nan=False)


class EndpointConfig(_Strict):
    """One model or judge behind an OpenAI-compatible endpoint (one ``[[endpoint]]`` table)."""

    name: str = Field(min_length=1)
    base_url: str
    model: str = Field(min_length=1)
    api_key_env: str = ""
    concurrency: int = Field(default=8, ge=1)
    role: Literal["model", "judge"] = "model"
    budgets: dict[str, int] = Field(default_factory=dict)
    timeout: float | None = Field(default=None, gt=0)
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    extra_body: dict[str, Any] = Field(default_factory=dict)
    transport: Transport = "aiohttp"

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        if any(ord(c) < 32 or ord(c) == 127 for c in value.strip()):
            raise ValueError("must not contain control characters (a line break, a tab)")
        try:
            parts = urllib.parse.urlsplit(value.strip())
            parts.port  # noqa: B018  (raises ValueError on a port that is not a number)
        except ValueError:
            raise ValueError("must be an http:// or https:// URL with a host") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// URL with a host")
        if parts.username is not None or parts.password is not None:
            # refused rather than sent as basic auth: the base URL is part of the cache key and of messages,
            # so a password in it would be stored and printed; the key belongs in api_key_env (issue 32)
            raise ValueError(
                "must not hold credentials (user:password@): put the key in the environment variable "
                "named by api_key_env"
            )
        return value.strip().rstrip("/")

    @field_validator("budgets")
    @classmethod
    def _budgets(cls, value: dict[str, int]) -> dict[str, int]:
        unknown = [k for k in value if k not in BUDGET_NAMES]
        if unknown:  # a misspelt axis would silently keep the default budget
            raise ValueError(f"has unknown names {unknown} (allowed: {', '.join(BUDGET_NAMES)})")
        bad = {k: v for k, v in value.items() if v < 1}
        if bad:
            raise ValueError(f"must map axis names to positive integers ({bad})")
        return value

    def api_key(self) -> str:
        """The key from ``$api_key_env`` ("EMPTY" when no variable is configured).

        A key with a control character (a trailing line break, as a key read from a file often has, or CR/LF
        inside) is refused with one line naming the endpoint and the variable, never the key: it cannot go
        into an HTTP header, and stripping it would hide a key file that holds more than the key (issue 32).
        """
        if not self.api_key_env:
            return "EMPTY"
        value = os.environ.get(self.api_key_env)
        if not value:
            raise InputError(
                f"endpoint {self.name!r}: environment variable {self.api_key_env} (api_key_env) is not set"
            )
        bad = next((c for c in value if ord(c) < 32 or ord(c) == 127), None)
        if bad is not None:
            trimmed = value.rstrip("\r\n")
            clean = not any(ord(c) < 32 or ord(c) == 127 for c in trimmed)
            where = "ends with" if clean else "holds"
            bad = value[len(trimmed)] if clean else next(c for c in trimmed if ord(c) < 32 or ord(c) == 127)
            what = {"\n": "a line break (LF)", "\r": "a carriage return (CR)", "\t": "a tab"}.get(
                bad, f"a control character (code {ord(bad)})"
            )
            raise InputError(
                f"endpoint {self.name!r}: the key in environment variable {self.api_key_env} (api_key_env) "
                f"{where} {what}; an HTTP header cannot carry it: set the variable to the key alone "
                f"(e.g. {self.api_key_env}=\"$(tr -d '\\r\\n' < keyfile)\")"
            )
        if not value.isascii():
            raise InputError(
                f"endpoint {self.name!r}: the key in environment variable {self.api_key_env} (api_key_env) "
                "holds non-ASCII characters; an HTTP header cannot carry them: is it the right variable?"
            )
        return value

    def cache_scope(self) -> str:
        """What besides the request itself shapes the answer, for the cache key: the base URL and,
        when set, the extra body fields and the name of the budget field (never the API key).

        Two endpoints that differ only in ``extra_body`` (say a reasoning effort) never share cached
        answers; with no extra fields the scope is the bare base URL.
        """
        extra: dict[str, Any] = {}
        if self.extra_body:
            extra["extra_body"] = self.extra_body
        if self.max_tokens_field != "max_tokens":
            extra["max_tokens_field"] = self.max_tokens_field
        return self.base_url if not extra else f"{self.base_url}#{canonical_json(extra)}"


class _Judges(_Strict):
    gen: str | None = None
    grade: str | None = None
    audit: str | None = None


class _File(_Strict):
    """The top level of the TOML file."""

    cache: str | None = None
    timeout: float = Field(default=120.0, gt=0)
    max_attempts: int = Field(default=6, ge=1)
    retry_seed: int = Field(default=0, ge=0)
    retry_initial: float = Field(default=0.5, ge=0)
    max_retry_after: float = Field(default=MAX_RETRY_AFTER, gt=0)
    max_reply_bytes: int = Field(default=MAX_REPLY_BYTES, ge=1024)
    transport: Transport = "aiohttp"
    judges: _Judges = Field(default_factory=_Judges)
    endpoint: list[dict[str, Any]] = Field(min_length=1)


@dataclass(frozen=True)
class EngineConfig:
    """All endpoints, which of them judge, and the transport defaults."""

    endpoints: dict[str, EndpointConfig]
    gen_judge: str | None = None
    grade_judge: str | None = None
    audit_judge: str | None = None
    #: an SQLite file (relative paths resolved against the config file's folder) or a database URL
    cache: Path | str | None = None
    timeout: float = 120.0
    max_attempts: int = 6
    retry_seed: int = 0
    retry_initial: float = 0.5
    #: longest wait a server's ``Retry-After`` obtains (seconds); a longer one waits this long (counted)
    max_retry_after: float = MAX_RETRY_AFTER
    #: largest reply body read (bytes); a larger one is a non-retryable ``too_large`` failure
    max_reply_bytes: int = MAX_REPLY_BYTES

    @property
    def models(self) -> list[EndpointConfig]:
        return [e for e in self.endpoints.values() if e.role == "model"]

    def endpoint(self, name: str) -> EndpointConfig:
        chosen: str = choose(name, sorted(self.endpoints), what="endpoint", param="endpoint", where="config")
        return self.endpoints[chosen]


def _describe(err: ValidationError, table: str, where: str, allowed: list[str]) -> InputError:
    """One line for the first error of ``err``: file, table, key, what was expected, what arrived."""
    errors = err.errors(include_url=False)
    extra = [str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden" and e["loc"]]
    if extra:
        return InputError(f"{where}: {table}: unknown keys {extra} (allowed: {sorted(allowed)})")
    e = errors[0]
    loc = [str(x) for x in e["loc"]]
    key = loc[0] if loc else ""
    if key == "judges" and len(loc) > 1:
        table, loc = "[judges]", loc[1:]
    if key == "endpoint" and len(loc) > 1 and loc[1].isdigit():
        return InputError(f"{where}: [[endpoint]] #{int(loc[1]) + 1} must be a table, got {e.get('input')!r}")
    shown = ".".join(loc) or key
    got = e.get("input")
    if loc and loc[-1] == "base_url":
        got = _redacted(got)  # never repeat a password written into the URL
    kind = e["type"]
    if kind == "missing":
        return InputError(f"{where}: {table}: '{shown}' is required")
    if kind == "literal_error" and loc[-1] in _CHOICES:
        what = f"must be one of {list(_CHOICES[loc[-1]])}"
    elif kind in ("model_type", "dict_type"):
        what = "must be a table"
    elif kind == "list_type":
        what = "must be an array of tables ([[endpoint]])" if key == "endpoint" else "must be an array"
    elif kind == "string_too_short":
        what = "must be a non-empty string"
    else:  # pydantic's "Input should be ..." / our validators' "must be ..."
        what = str(e["msg"]).removeprefix("Value error, ").replace("Input should be", "must be")
    if isinstance(got, float) and not math.isfinite(got):
        got = str(got)
    return InputError(f"{where}: {table}: '{shown}' {what}, got {got!r}")


def config_from_dict(
    raw: dict[str, Any], *, where: str = "config", base_dir: Path | None = None
) -> EngineConfig:
    """Validate a parsed config (the TOML layout above) into an :class:`EngineConfig`."""
    if raw.get("endpoint") in (None, []):
        raise InputError(f"{where}: expected at least one [[endpoint]] table")
    try:
        top = _File.model_validate(raw)
    except ValidationError as err:
        raise _describe(err, "top level", where, list(_File.model_fields)) from None
    endpoints: dict[str, EndpointConfig] = {}
    for i, entry in enumerate(top.endpoint):
        table = f"[[endpoint]] #{i + 1}"
        if isinstance(entry.get("name"), str) and entry["name"]:
            table += f" ({entry['name']!r})"
        try:
            ep = EndpointConfig.model_validate({"transport": top.transport, **entry})
        except ValidationError as err:
            raise _describe(err, table, where, list(EndpointConfig.model_fields)) from None
        if ep.api_key_env and os.environ.get(ep.api_key_env):
            ep.api_key()  # a key that is set but cannot be sent is refused now, not at the first request
        if ep.name in endpoints:
            raise InputError(f"{where}: endpoint name {ep.name!r} appears twice")
        endpoints[ep.name] = ep
    gen = top.judges.gen
    grade = top.judges.grade if top.judges.grade is not None else gen
    audit = top.judges.audit
    for role, name in (("gen", gen), ("grade", grade), ("audit", audit)):
        if name is not None and name not in endpoints:
            raise InputError(f"{where}: [judges] {role} = {name!r} names no endpoint")
    cache_path: Path | str | None = None
    if top.cache and is_database_url(top.cache):
        cache_path = top.cache  # a database URL (postgresql://...), kept as written
    elif top.cache:
        cache_path = Path(top.cache)
        if not cache_path.is_absolute() and base_dir is not None:
            cache_path = base_dir / cache_path
    return EngineConfig(
        endpoints=endpoints,
        gen_judge=gen,
        grade_judge=grade,
        audit_judge=audit,
        cache=cache_path,
        timeout=top.timeout,
        max_attempts=top.max_attempts,
        retry_seed=top.retry_seed,
        retry_initial=top.retry_initial,
        max_retry_after=top.max_retry_after,
        max_reply_bytes=top.max_reply_bytes,
    )


def load_config(path: str | os.PathLike[str]) -> EngineConfig:
    """Read and validate a TOML config file."""
    p = Path(path)
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise InputError(f"{p}: config file not found") from err
    except IsADirectoryError as err:
        raise InputError(f"{p}: is a directory, expected a TOML config file") from err
    except UnicodeDecodeError as err:
        raise InputError(f"{p}: not a text file ({err.reason})") from err
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{p}: not valid TOML ({err})") from err
    return config_from_dict(raw, where=str(p), base_dir=p.parent)
