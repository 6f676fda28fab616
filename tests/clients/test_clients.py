"""Client layers: retry policy, cache keys and durability, single flight, limits, config, errors."""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchsift.clients import (
    CachedClient,
    ClientError,
    ClientPool,
    LimitedClient,
    Request,
    Response,
    RetryingClient,
    RetryPolicy,
    image_data_url,
    load_config,
)
from benchsift.clients.base import json_bytes
from benchsift.clients.cache import ResponseCache
from benchsift.clients.config import config_from_dict
from benchsift.clients.transport import parse_retry_after
from benchsift.errors import InputError


class Script:
    """A stub client answering from a list of outcomes (Response or ClientError), counting calls."""

    def __init__(self, outcomes: list, delay: float = 0.0) -> None:
        self.outcomes = list(outcomes)
        self.calls = 0
        self.delay = delay

    async def generate(self, request: Request) -> Response:
        self.calls += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        out = self.outcomes.pop(0) if len(self.outcomes) > 1 else self.outcomes[0]
        if isinstance(out, Exception):
            raise out
        return out


REQ = Request(model="m", messages=({"role": "user", "content": "hi"},))


def test_backoff_is_exponential_with_bounded_seeded_jitter() -> None:
    p = RetryPolicy(initial=0.5, max_delay=4.0, random_state=3)
    for attempt, base in ((1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (6, 4.0), (1025, 4.0), (10**6, 4.0)):
        d = p.delay(attempt, "k", None)
        assert base * 0.5 <= d <= base
        assert d == p.delay(attempt, "k", None)  # same seed and request: same wait
    assert len({p.delay(1, f"k{i}", None) for i in range(20)}) == 20  # requests do not retry in lock-step
    assert p.delay(1, "k", 7.5) == 7.5 and RetryPolicy(max_retry_after=2).delay(1, "k", 30) == 2


def test_retry_after_header_forms() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    when = email.utils.formatdate(time.time() + 10, usegmt=True)
    wait = parse_retry_after({"retry-after": when})
    assert wait is not None and 8.0 <= wait <= 10.5
    assert parse_retry_after({}) is None and parse_retry_after({"retry-after": "soon"}) is None


def test_retries_are_bounded_and_only_for_retryable_errors() -> None:
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)

    flaky = Script(
        [
            ClientError("429", retryable=True, retry_after=1.25),
            ClientError("500", retryable=True),
            Response("ok"),
        ]
    )
    r = asyncio.run(
        RetryingClient(flaky, RetryPolicy(max_attempts=4, initial=0.1), sleep=sleep).generate(REQ)
    )
    assert r.text == "ok" and flaky.calls == 3
    assert waits[0] == 1.25 and 0.1 <= waits[1] <= 0.2  # attempt 2: 0.1 * 2 * U(0.5, 1)
    dead = Script([ClientError("503", retryable=True)])
    client = RetryingClient(dead, RetryPolicy(max_attempts=3, initial=0.1), sleep=sleep)
    with pytest.raises(ClientError, match="503"):
        asyncio.run(client.generate(REQ))
    assert dead.calls == 3 and client.stats.failures == 1 and client.stats.retries == 2
    bad = Script([ClientError("400", retryable=False)])
    with pytest.raises(ClientError):
        asyncio.run(RetryingClient(bad, sleep=sleep).generate(REQ))
    assert bad.calls == 1


def test_cache_key_ignores_transport_but_not_content() -> None:
    a = Request(model="m", messages=({"role": "user", "content": "x"},), max_tokens=512)
    assert a.key("http://h/v1") == Request(model="m", messages=({"role": "user", "content": "x"},)).key(
        "http://h/v1/"
    )
    assert a.key("u") != Request(model="m", messages=({"role": "user", "content": "y"},)).key("u")
    assert a.key("u") != Request(model="m", messages=a.messages, max_tokens=1024).key("u")
    assert a.key("u") != Request(model="m2", messages=a.messages).key("u")
    assert a.key("u") != a.key("v")


def _image_request(payload: bytes, text: str = "how many?") -> Request:
    parts = [
        {"type": "text", "text": text},
        {"type": "image_url", "image_url": {"url": image_data_url(payload)}},
    ]
    return Request(model="m", messages=({"role": "user", "content": parts},))


def test_cache_key_depends_on_every_image_byte() -> None:
    img = bytes(range(256)) * 40
    flipped = img[:5000] + bytes([img[5000] ^ 1]) + img[5001:]
    assert _image_request(img).key("u") == _image_request(bytes(img)).key("u")
    assert _image_request(img).key("u") != _image_request(flipped).key("u")
    assert _image_request(img).key("u") != _image_request(img, "how many? ").key("u")
    # the key is the hash of the request with each image replaced by its data URL's sha256
    url = image_data_url(img)
    digest = "sha256:" + hashlib.sha256(url.encode("ascii")).hexdigest()
    expected = {
        "endpoint": "u",
        "request": {
            "model": "m",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "how many?"},
                        {"type": "image_url", "image_url": {"url": digest}},
                    ],
                }
            ],
            "max_tokens": 512,
            "temperature": 0.0,
            "top_p": 1.0,
        },
    }
    raw = json.dumps(expected, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert _image_request(img).key("u") == hashlib.sha256(raw.encode()).hexdigest()


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=5), kids, max_size=4),
        max_leaves=20,
    ),
    st.lists(st.binary(max_size=64), max_size=3),
    st.sampled_from(["\x000\x00", "\x001\x00", "plain"]),
)
@settings(deadline=None)  # no time limit per example: the verdict must not depend on the machine's load
def test_json_bytes_equals_json_dumps(tree, images: list[bytes], text: str) -> None:
    # image parts spliced in verbatim, beside arbitrary JSON, texts that mimic the placeholders, and
    # data URLs that do need escaping (a quote), which take the ordinary path
    parts = [{"type": "text", "text": text}, tree]
    parts += [{"type": "image_url", "image_url": {"url": image_data_url(b)}} for b in images]
    parts.append({"url": 'data:text/plain,say "hi"\n'})
    body = {"model": "m", "messages": [{"role": "user", "content": parts}]}
    assert json_bytes(body) == json.dumps(body, ensure_ascii=False).encode("utf-8")


def test_cache_stores_successes_only_and_survives_reopen(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    ok = Script([Response("hello", prompt_tokens=3, completion_tokens=1)])
    client = CachedClient(ok, cache, endpoint="u")
    assert asyncio.run(client.generate(REQ)).text == "hello"
    assert asyncio.run(client.generate(REQ)).cached and ok.calls == 1
    other = Request(model="m", messages=({"role": "user", "content": "other"},))
    err = CachedClient(Script([ClientError("500", retryable=True)]), cache, endpoint="u")
    with pytest.raises(ClientError):
        asyncio.run(err.generate(other))
    cache.close()
    again = ResponseCache(tmp_path / "c.sqlite")
    assert len(again) == 1  # the error was not cached
    hit = again.get(REQ.key("u"))
    assert hit is not None and hit.text == "hello" and hit.prompt_tokens == 3 and hit.cached
    mode = again._conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    again.close()


def test_single_flight_and_concurrency_limit(tmp_path: Path) -> None:
    slow = Script([Response("r")], delay=0.05)
    limited = LimitedClient(slow, concurrency=3)
    client = CachedClient(limited, None)

    async def go() -> list[Response]:
        same = [client.generate(REQ) for _ in range(5)]
        distinct = [
            client.generate(Request(model="m", messages=({"role": "user", "content": str(i)},)))
            for i in range(12)
        ]
        return await asyncio.gather(*same, *distinct)

    out = asyncio.run(go())
    assert all(r.text == "r" for r in out)
    assert slow.calls == 1 + 12  # five identical requests made one call
    assert limited.max_in_flight == 3
    with pytest.raises(InputError):
        LimitedClient(slow, concurrency=0)


def test_config_validation_and_key_from_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "m.toml"
    p.write_text(
        'cache = "c.sqlite"\n[judges]\ngen = "j"\n[[endpoint]]\nname = "j"\nbase_url = "http://x/v1/"\n'
        'model = "gpt"\napi_key_env = "MY_KEY"\nconcurrency = 2\nrole = "judge"\n'
        "[endpoint.budgets]\nmq = 2048\n"
    )
    cfg = load_config(p)
    ep = cfg.endpoint("j")
    assert ep.base_url == "http://x/v1" and ep.budgets == {"mq": 2048} and cfg.cache == tmp_path / "c.sqlite"
    assert cfg.grade_judge == "j" and cfg.models == []
    monkeypatch.delenv("MY_KEY", raising=False)
    with pytest.raises(InputError, match="MY_KEY"):
        ep.api_key()
    monkeypatch.setenv("MY_KEY", "sk-abc")
    assert ep.api_key() == "sk-abc"
    assert "sk-abc" not in repr(cfg)
    assert ep.transport == "aiohttp"  # the default
    two = config_from_dict(
        {
            "transport": "openai",
            "endpoint": [
                {"name": "a", "base_url": "http://u/v1", "model": "m"},
                {"name": "b", "base_url": "http://u/v1", "model": "m", "transport": "aiohttp"},
            ],
        }
    )
    assert two.endpoint("a").transport == "openai" and two.endpoint("b").transport == "aiohttp"
    for bad, msg in (
        (
            {"transport": "curl", "endpoint": [{"name": "a", "base_url": "http://u/v1", "model": "m"}]},
            "'transport'",
        ),
        (
            {"endpoint": [{"name": "a", "base_url": "http://u/v1", "model": "m", "transport": "requests"}]},
            r"#1 \('a'\): 'transport' must be one of \['aiohttp', 'openai'\], got 'requests'",
        ),
        (
            {"endpoint": [{"name": "a", "base_url": "http://u/v1", "model": "m", "concurrency": 0}]},
            "concurrency",
        ),
        ({"endpoint": [{"name": "a", "base_url": "http://u/v1", "model": "m", "colour": 1}]}, "unknown keys"),
        (
            {"endpoint": [{"name": "a", "base_url": "http://u/v1", "model": "m"}], "judges": {"gen": "b"}},
            "names no endpoint",
        ),
        ({}, "at least one"),
    ):
        with pytest.raises(InputError, match=msg):
            config_from_dict(bad)


def test_http_client_against_the_fake_server(server, tmp_path: Path) -> None:
    from fake_server import API_KEY

    cfg = config_from_dict(
        {
            "max_attempts": 3,
            "retry_initial": 0.01,
            "endpoint": [
                {"name": "b", "base_url": server.url, "model": "broken", "api_key_env": "BENCHSIFT_TEST_KEY"},
                {"name": "j", "base_url": server.url, "model": "judge", "api_key_env": "BENCHSIFT_TEST_KEY"},
            ],
        }
    )

    async def go() -> tuple:
        pool = ClientPool(cfg, ResponseCache(tmp_path / "c.sqlite"))
        try:
            prompt = "You are extracting the letter (A or B) ...\nModel response: B\n"
            ok = await pool.get("j").generate(
                Request(model="judge", messages=({"role": "user", "content": prompt},))
            )
            with pytest.raises(ClientError) as info:
                await pool.get("b").generate(REQ)
            return ok, info.value, pool.total()
        finally:
            await pool.aclose()

    ok, err, stats = asyncio.run(go())
    assert ok.text == '{"choice": "B"}' and ok.completion_tokens > 0
    assert err.status == 400 and not err.retryable and API_KEY not in str(err)
    assert stats.requests == 2 and stats.failures == 1 and stats.retries == 0


def test_cache_scope_separates_extra_body_but_never_holds_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOPE_KEY", "sk-scope-secret")
    base = {"name": "a", "base_url": "http://h/v1/", "model": "m", "api_key_env": "SCOPE_KEY"}

    def ep(**extra: object):
        return config_from_dict({"endpoint": [{**base, **extra}]}).endpoint("a")

    plain = ep()
    low, high = ep(extra_body={"reasoning_effort": "low"}), ep(extra_body={"reasoning_effort": "high"})
    mct = ep(max_tokens_field="max_completion_tokens")
    assert plain.cache_scope() == "http://h/v1"  # no extra fields: the bare base URL (old keys stay valid)
    keys = {REQ.key(e.cache_scope()) for e in (plain, low, high, mct)}
    assert len(keys) == 4  # an answer under one reasoning effort is never served for another
    assert REQ.key(low.cache_scope()) == REQ.key(low.cache_scope())
    assert all("sk-scope-secret" not in e.cache_scope() for e in (plain, low, high, mct))
