"""Retries with exponential backoff, seeded jitter and ``Retry-After``.

The delay before attempt ``k + 1`` (``k = 1, 2, ...``) after a retryable failure is

    d_k = Retry-After                                  if the server sent one with 0 < Retry-After <= 120 s
                                                       (capped at ``max_retry_after``)
    d_k = min(max_delay, initial * 2 ** (k - 1)) * u_k  otherwise, u_k ~ U(0.5, 1) ("equal jitter")

As in openai-python (``_calculate_retry_timeout``), a ``Retry-After`` (or ``retry-after-ms``) of 0, negative
(a date past), longer than two minutes or unreadable is not honoured: ``Retry-After: 0`` on every 429 used to
turn the backoff off (six attempts in 0.3 s against a rate-limited server).

where ``u_k`` is drawn from a generator seeded by (``random_state``, request key, k), so a rerun waits
exactly as long as the first run did and concurrent requests do not retry in lock-step. A non-retryable
error, or the ``max_attempts``-th failure, is raised to the caller.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import numpy as np

from benchsift._params import renamed_attribute, renamed_params
from benchsift.clients.base import ClientError, ClientStats, ModelClient, Request, Response

__all__ = ["RETRY_AFTER_HONOURED", "RetryPolicy", "RetryingClient", "honoured_retry_after"]

#: the longest server-asked wait (seconds) honoured at all, as in openai-python; a longer one: the backoff
RETRY_AFTER_HONOURED = 120.0


def honoured_retry_after(retry_after: float | None) -> float | None:
    """The server's ``Retry-After`` in seconds when it is honoured (0 < value <= 120), else None."""
    if retry_after is None or not math.isfinite(retry_after):
        return None
    return retry_after if 0 < retry_after <= RETRY_AFTER_HONOURED else None


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries: ``max_attempts`` attempts in all, exponential backoff from ``initial`` seconds.

    ``random_state`` seeds the jitter (was ``seed``, accepted with a :class:`FutureWarning` until 0.3; the
    engine config's key stays ``retry_seed``)."""

    max_attempts: int = 6
    initial: float = 0.5
    max_delay: float = 30.0
    max_retry_after: float = 60.0
    random_state: int = 0

    seed = renamed_attribute("RetryPolicy", "seed", "random_state", until="0.3")

    def delay(self, attempt: int, key: str, retry_after: float | None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based) of the request ``key``."""
        honoured = honoured_retry_after(retry_after)
        if honoured is not None:
            return float(min(honoured, self.max_retry_after))
        digest = hashlib.sha256(f"{self.random_state}:{key}:{attempt}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        # (the exponent capped: past 2^1023 a float overflows, at attempt 1,025 of a long retry budget)
        base = min(self.max_delay, self.initial * 2.0 ** min(attempt - 1, 1000))
        return float(base * rng.uniform(0.5, 1.0))


# `RetryPolicy(seed=...)` still works until 0.3, with a FutureWarning naming the new keyword
RetryPolicy.__init__.__name__ = "RetryPolicy"
RetryPolicy.__init__ = renamed_params({"seed": "random_state"}, until="0.3")(  # type: ignore[method-assign]
    RetryPolicy.__init__
)


class RetryingClient:
    """Wrap a client: retry its retryable :class:`ClientError` under a :class:`RetryPolicy`."""

    def __init__(
        self,
        inner: ModelClient,
        policy: RetryPolicy | None = None,
        *,
        stats: ClientStats | None = None,
        endpoint: str = "",
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.inner = inner
        self.policy = policy or RetryPolicy()
        self.stats = stats if stats is not None else ClientStats()
        self.endpoint = endpoint
        self._sleep = sleep

    async def generate(self, request: Request) -> Response:
        key: str | None = None  # hashed only when a retry needs its jitter (not per request)
        attempt = 1
        while True:
            try:
                return await self.inner.generate(request)
            except ClientError as err:
                if not err.retryable or attempt >= self.policy.max_attempts:
                    self.stats.failures += 1
                    raise
                self.stats.retries += 1
                if key is None:
                    key = request.key(self.endpoint)
                honoured = honoured_retry_after(err.retry_after)
                if honoured is not None and honoured > self.policy.max_retry_after:
                    # Retry-After: 100 under max_retry_after = 60 waits the cap, counted so the stage warns
                    self.stats.retry_after_capped += 1
                await self._sleep(self.policy.delay(attempt, key, err.retry_after))
                attempt += 1
