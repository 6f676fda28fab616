"""Model clients: an async protocol, an OpenAI-compatible client over a chosen HTTP transport, retries,
limits and a cache.

Clients know nothing of the evaluation axes they serve.
"""

from __future__ import annotations

from benchsift.clients.base import ClientError, ModelClient, Request, Response, image_data_url
from benchsift.clients.cache_sqlite import SQLiteCache
from benchsift.clients.cached_client import CachedClient
from benchsift.clients.config import EngineConfig, load_config
from benchsift.clients.limits import LimitedClient
from benchsift.clients.openai_compat import OpenAICompatClient
from benchsift.clients.retry import RetryingClient, RetryPolicy
from benchsift.clients.stack import ClientPool

__all__ = [
    "CachedClient",
    "ClientError",
    "ClientPool",
    "EngineConfig",
    "LimitedClient",
    "ModelClient",
    "OpenAICompatClient",
    "Request",
    "Response",
    "RetryPolicy",
    "RetryingClient",
    "SQLiteCache",
    "image_data_url",
    "load_config",
]
