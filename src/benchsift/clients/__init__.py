"""Model clients: an async protocol, an OpenAI-compatible client, retries, limits and a cache.

Clients know nothing of the evaluation axes they serve.
"""

from __future__ import annotations

from benchsift.clients.base import (
    ClientError,
    ClientStats,
    ModelClient,
    Request,
    Response,
    canonical_json,
    image_data_url,
)
from benchsift.clients.cache import CachedClient, ResponseCache
from benchsift.clients.config import EndpointConfig, EngineConfig, config_from_dict, load_config
from benchsift.clients.limits import LimitedClient
from benchsift.clients.openai_compat import OpenAICompatClient, parse_retry_after
from benchsift.clients.retry import RetryingClient, RetryPolicy
from benchsift.clients.stack import ClientPool

__all__ = [
    "CachedClient",
    "ClientError",
    "ClientPool",
    "ClientStats",
    "EndpointConfig",
    "EngineConfig",
    "LimitedClient",
    "ModelClient",
    "OpenAICompatClient",
    "Request",
    "Response",
    "ResponseCache",
    "RetryPolicy",
    "RetryingClient",
    "canonical_json",
    "config_from_dict",
    "image_data_url",
    "load_config",
    "parse_retry_after",
]
