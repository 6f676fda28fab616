"""The models/judges config file (TOML, read with the standard library's :mod:`tomllib`).

Example::

    cache = "prism-cache.sqlite"          # optional, relative to the config file
    timeout = 120                         # seconds per HTTP request (default)
    max_attempts = 6                      # retry budget per request
    retry_initial = 0.5                   # first backoff in seconds (doubles per attempt)
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
    [endpoint.budgets]                    # per-axis output budgets (defaults: PRISM-VLM App. C)
    judge = 384

The API key itself is read from the environment at client construction and is never stored,
hashed, logged or printed.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchsift.clients.base import canonical_json
from benchsift.errors import InputError

__all__ = ["TRANSPORTS", "EndpointConfig", "EngineConfig", "config_from_dict", "load_config"]

_ENDPOINT_KEYS = {
    "name",
    "base_url",
    "model",
    "api_key_env",
    "concurrency",
    "role",
    "budgets",
    "timeout",
    "max_tokens_field",
    "extra_body",
    "transport",
}

TRANSPORTS = ("aiohttp", "openai")  # HTTP transports, benchsift.clients.transport


@dataclass(frozen=True)
class EndpointConfig:
    """One model or judge behind an OpenAI-compatible endpoint."""

    name: str
    base_url: str
    model: str
    api_key_env: str = ""
    concurrency: int = 8
    role: str = "model"
    budgets: dict[str, int] = field(default_factory=dict)
    timeout: float | None = None
    max_tokens_field: str = "max_tokens"
    extra_body: dict[str, Any] = field(default_factory=dict)
    transport: str = "aiohttp"

    def api_key(self) -> str:
        """The key from ``$api_key_env`` ("EMPTY" when no variable is configured)."""
        if not self.api_key_env:
            return "EMPTY"
        value = os.environ.get(self.api_key_env)
        if not value:
            raise InputError(
                f"endpoint {self.name!r}: environment variable {self.api_key_env} (api_key_env) is not set"
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


@dataclass(frozen=True)
class EngineConfig:
    """All endpoints, which of them judge, and the transport defaults."""

    endpoints: dict[str, EndpointConfig]
    gen_judge: str | None = None
    grade_judge: str | None = None
    audit_judge: str | None = None
    cache: Path | None = None
    timeout: float = 120.0
    max_attempts: int = 6
    retry_seed: int = 0
    retry_initial: float = 0.5

    @property
    def models(self) -> list[EndpointConfig]:
        return [e for e in self.endpoints.values() if e.role == "model"]

    def endpoint(self, name: str) -> EndpointConfig:
        if name not in self.endpoints:
            raise InputError(f"no endpoint named {name!r} in the config (have: {sorted(self.endpoints)})")
        return self.endpoints[name]


def _transport(value: Any, where: str) -> str:
    if value not in TRANSPORTS:
        raise InputError(f"{where}: 'transport' must be one of {list(TRANSPORTS)}, got {value!r}")
    return str(value)


def _endpoint(raw: dict[str, Any], where: str, transport: str = "aiohttp") -> EndpointConfig:
    unknown = set(raw) - _ENDPOINT_KEYS
    if unknown:
        raise InputError(f"{where}: unknown keys {sorted(unknown)} (allowed: {sorted(_ENDPOINT_KEYS)})")
    for key in ("name", "base_url", "model"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise InputError(f"{where}: '{key}' must be a non-empty string")
    conc = raw.get("concurrency", 8)
    if not isinstance(conc, int) or conc < 1:
        raise InputError(f"{where}: 'concurrency' must be a positive integer, got {conc!r}")
    role = raw.get("role", "model")
    if role not in ("model", "judge"):
        raise InputError(f"{where}: 'role' must be 'model' or 'judge', got {role!r}")
    budgets = raw.get("budgets", {})
    if not isinstance(budgets, dict) or not all(isinstance(v, int) and v > 0 for v in budgets.values()):
        raise InputError(f"{where}: 'budgets' must map axis names to positive integers")
    field_name = raw.get("max_tokens_field", "max_tokens")
    if field_name not in ("max_tokens", "max_completion_tokens"):
        raise InputError(f"{where}: 'max_tokens_field' must be 'max_tokens' or 'max_completion_tokens'")
    return EndpointConfig(
        name=raw["name"],
        base_url=raw["base_url"].rstrip("/"),
        model=raw["model"],
        api_key_env=str(raw.get("api_key_env", "")),
        concurrency=conc,
        role=role,
        budgets={str(k): int(v) for k, v in budgets.items()},
        timeout=float(raw["timeout"]) if "timeout" in raw else None,
        max_tokens_field=field_name,
        extra_body=dict(raw.get("extra_body", {})),
        transport=_transport(raw.get("transport", transport), where),
    )


def config_from_dict(
    raw: dict[str, Any], *, where: str = "config", base_dir: Path | None = None
) -> EngineConfig:
    """Validate a parsed config (the TOML layout above) into an :class:`EngineConfig`."""
    entries = raw.get("endpoint", [])
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{where}: expected at least one [[endpoint]] table")
    transport = _transport(raw.get("transport", "aiohttp"), where)
    endpoints: dict[str, EndpointConfig] = {}
    for i, entry in enumerate(entries):
        ep = _endpoint(entry, f"{where}: [[endpoint]] #{i + 1}", transport)
        if ep.name in endpoints:
            raise InputError(f"{where}: endpoint name {ep.name!r} appears twice")
        endpoints[ep.name] = ep
    judges = raw.get("judges", {})
    gen = judges.get("gen")
    grade = judges.get("grade", gen)
    audit = judges.get("audit")
    for role, name in (("gen", gen), ("grade", grade), ("audit", audit)):
        if name is not None and name not in endpoints:
            raise InputError(f"{where}: [judges] {role} = {name!r} names no endpoint")
    cache = raw.get("cache")
    cache_path = None
    if cache:
        cache_path = Path(cache)
        if not cache_path.is_absolute() and base_dir is not None:
            cache_path = base_dir / cache_path
    return EngineConfig(
        endpoints=endpoints,
        gen_judge=gen,
        grade_judge=grade,
        audit_judge=audit,
        cache=cache_path,
        timeout=float(raw.get("timeout", 120.0)),
        max_attempts=int(raw.get("max_attempts", 6)),
        retry_seed=int(raw.get("retry_seed", 0)),
        retry_initial=float(raw.get("retry_initial", 0.5)),
    )


def load_config(path: str | os.PathLike[str]) -> EngineConfig:
    """Read and validate a TOML config file."""
    p = Path(path)
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise InputError(f"{p}: config file not found") from err
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{p}: not valid TOML ({err})") from err
    return config_from_dict(raw, where=str(p), base_dir=p.parent)
