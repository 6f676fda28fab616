"""Assemble the client stack for one endpoint: cache -> retry -> limit -> stop-on-fatal -> HTTP client."""

from __future__ import annotations

from benchsift.clients.base import ClientStats, ModelClient
from benchsift.clients.breaker import StopOnFatalClient
from benchsift.clients.cache import ResponseCache
from benchsift.clients.cached_client import CachedClient
from benchsift.clients.config import EndpointConfig, EngineConfig
from benchsift.clients.limits import LimitedClient
from benchsift.clients.openai_compat import OpenAICompatClient
from benchsift.clients.retry import RetryingClient, RetryPolicy

__all__ = ["ClientPool"]


class ClientPool:
    """One wrapped client per endpoint name, sharing one cache; per-endpoint :class:`ClientStats`."""

    def __init__(self, config: EngineConfig, cache: ResponseCache | None) -> None:
        self.config = config
        self.cache = cache
        self.stats: dict[str, ClientStats] = {}
        self._clients: dict[str, ModelClient] = {}
        self._http: list[OpenAICompatClient] = []

    def get(self, name: str) -> ModelClient:
        if name not in self._clients:
            ep: EndpointConfig = self.config.endpoint(name)
            stats = self.stats.setdefault(name, ClientStats())
            http = OpenAICompatClient(
                ep, timeout=self.config.timeout, stats=stats, max_reply_bytes=self.config.max_reply_bytes
            )
            self._http.append(http)
            policy = RetryPolicy(
                max_attempts=self.config.max_attempts,
                initial=self.config.retry_initial,
                random_state=self.config.retry_seed,
                max_retry_after=self.config.max_retry_after,
            )
            client: ModelClient = LimitedClient(StopOnFatalClient(http), ep.concurrency)
            scope = ep.cache_scope()
            client = RetryingClient(client, policy, stats=stats, endpoint=scope)
            client = CachedClient(client, self.cache, endpoint=scope, stats=stats, window=2 * ep.concurrency)
            self._clients[name] = client
        return self._clients[name]

    def total(self) -> ClientStats:
        out = ClientStats()
        for s in self.stats.values():
            out.add(s)
        return out

    async def aclose(self) -> None:
        for h in self._http:
            await h.aclose()
        self._http.clear()
        self._clients.clear()
