"""Model clients: an async protocol, an OpenAI-compatible client over a chosen HTTP transport, retries,
limits and a cache.

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
from benchsift.clients.cache import ResponseCache
from benchsift.clients.cache_sqlite import SQLiteCache
from benchsift.clients.cached_client import CachedClient
from benchsift.clients.config import EndpointConfig, EngineConfig, config_from_dict, load_config
from benchsift.clients.limits import LimitedClient
from benchsift.clients.openai_compat import OpenAICompatClient
from benchsift.clients.retry import RetryingClient, RetryPolicy
from benchsift.clients.stack import ClientPool
from benchsift.clients.transport import (
    AiohttpTransport,
    OpenAISDKTransport,
    Transport,
    make_transport,
    parse_retry_after,
)

__all__ = [
    "AiohttpTransport",
    "CachedClient",
    "ClientError",
    "ClientPool",
    "ClientStats",
    "EndpointConfig",
    "EngineConfig",
    "LimitedClient",
    "ModelClient",
    "OpenAICompatClient",
    "OpenAISDKTransport",
    "Request",
    "Response",
    "ResponseCache",
    "RetryPolicy",
    "RetryingClient",
    "SQLiteCache",
    "Transport",
    "canonical_json",
    "config_from_dict",
    "image_data_url",
    "load_config",
    "make_transport",
    "parse_retry_after",
]
