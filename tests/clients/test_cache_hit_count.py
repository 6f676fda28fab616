"""The API-calls table's ``cache_hits`` counts only requests answered without a call of their own (audit s32
F08: the copies of a pending request that then failed were counted as cache hits, on a fresh cache against
a server that answered every request with an error)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from benchsift.clients import ClientError, ClientPool, Request
from benchsift.clients.base import ClientStats
from benchsift.clients.cache import ResponseCache
from benchsift.clients.config import config_from_dict

PROMPT = "You are extracting the letter (A or B) ...\nModel response: B\n"


def _copies(server_url: str, model: str, cache: Path, n: int) -> tuple[list[object], ClientStats, int]:
    """``n`` copies of one request sent together through a fresh pool on ``cache``: their outcomes (a
    Response or the ClientError), the pool's statistics and the number of answers the cache holds."""
    cfg = config_from_dict(
        {
            "max_attempts": 2,
            "retry_initial": 0.01,
            "endpoint": [
                {"name": "e", "base_url": server_url, "model": model, "api_key_env": "BENCHSIFT_TEST_KEY"}
            ],
        }
    )
    req = Request(model=model, messages=({"role": "user", "content": PROMPT},))

    async def go() -> tuple[list[object], ClientStats, int]:
        pool = ClientPool(cfg, ResponseCache(cache))
        try:
            sent = (pool.get("e").generate(req) for _ in range(n))
            out = await asyncio.gather(*sent, return_exceptions=True)
            return list(out), pool.total(), len(pool.cache) if pool.cache is not None else 0
        finally:
            await pool.aclose()

    return asyncio.run(go())


def test_copies_of_a_failed_request_are_no_cache_hits(server, tmp_path: Path) -> None:
    out, stats, stored = _copies(server.url, "broken", tmp_path / "c.sqlite", 6)  # HTTP 400 to every request
    assert all(isinstance(r, ClientError) and r.status == 400 for r in out)
    assert stored == 0
    assert stats.requests == 1 and stats.failures == 1
    assert stats.cache_hits == 0  # was 5: the copies that shared the failure


@pytest.mark.parametrize("n", [1, 5])
def test_copies_of_an_answered_request_and_stored_answers_are_hits(server, tmp_path: Path, n: int) -> None:
    cache = tmp_path / "c.sqlite"
    out, stats, stored = _copies(server.url, "judge", cache, n)
    assert all(getattr(r, "text", None) == '{"choice": "B"}' for r in out)
    assert stats.requests == 1 and stored == 1
    assert stats.cache_hits == n - 1  # the copies shared the one answer
    out, stats, _ = _copies(server.url, "judge", cache, n)  # a rerun: every copy answered from the cache
    assert all(getattr(r, "text", None) == '{"choice": "B"}' for r in out)
    assert stats.requests == 0 and stats.cache_hits == n
