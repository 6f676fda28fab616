"""What a hostile or broken server or config can make the engine do, bounded (issue 32, point 3): a capped
``Retry-After`` (one over two minutes not honoured at all), a capped reply size (read in steps, never whole),
keys and base URLs checked at config load. Against the scripted local server (tests/support/fake_server.py)
on 127.0.0.1, on both transports."""

from __future__ import annotations

import asyncio

import pytest
from fake_server import API_KEY

from benchsift.clients import ClientError, OpenAICompatClient, Request
from benchsift.clients.base import ClientStats
from benchsift.clients.config import TRANSPORTS, config_from_dict
from benchsift.clients.retry import RetryingClient, RetryPolicy
from benchsift.errors import InputError

each_transport = pytest.mark.parametrize("transport", TRANSPORTS)


def _config(base_url: str, transport: str = "aiohttp", **top: object):
    return config_from_dict(
        {
            "timeout": 30,
            "transport": transport,
            **top,
            "endpoint": [
                {"name": "e", "base_url": base_url, "model": "m", "api_key_env": "BENCHSIFT_TEST_KEY"}
            ],
        }
    )


def _ask(client, model: str, http=None):
    async def go():
        try:
            return await client.generate(Request(model=model, messages=({"role": "user", "content": "x"},)))
        except ClientError as err:
            return err
        finally:
            await (http or client).aclose()

    return asyncio.run(go())


@each_transport
def test_retry_after_of_a_day_falls_back_to_the_backoff(server, transport: str) -> None:
    # a Retry-After over two minutes is not honoured (openai-python's rule: 0 < value <= 120 s): the
    # exponential backoff, not the max_retry_after cap, and not counted as capped (before: it waited the cap);
    # a shorter one over max_retry_after waits the cap, counted (test_reply_shapes.py)
    cfg = _config(server.url, transport, max_retry_after=0.3)
    assert cfg.max_retry_after == 0.3
    waits: list[float] = []

    async def sleep(seconds: float) -> None:  # records the waits instead of sleeping them
        waits.append(seconds)

    stats = ClientStats()
    http = OpenAICompatClient(cfg.endpoint("e"), timeout=cfg.timeout, stats=stats)
    policy = RetryPolicy(max_attempts=3, max_retry_after=cfg.max_retry_after)
    resp = _ask(RetryingClient(http, policy, stats=stats, sleep=sleep), "later", http)
    assert not isinstance(resp, ClientError) and resp.text == "ok"
    key = Request(model="later", messages=({"role": "user", "content": "x"},)).key("")
    assert waits == [policy.delay(1, key, None)] and 0.25 <= waits[0] <= 0.5
    assert stats.retry_after_capped == 0 and stats.retries == 1
    assert [r["status"] for r in server.requests("later")][-2:] == [429, 200]


def test_max_retry_after_defaults_to_a_minute_and_must_be_positive(server) -> None:
    assert _config(server.url).max_retry_after == 60.0 and RetryPolicy().max_retry_after == 60.0
    with pytest.raises(InputError, match="'max_retry_after' must be greater than 0"):
        _config(server.url, max_retry_after=0)
    with pytest.raises(InputError, match="'max_reply_bytes' must be greater than or equal to 1024"):
        _config(server.url, max_reply_bytes=10)


@each_transport
@pytest.mark.parametrize("model", ["huge", "huge-chunked"])
def test_a_reply_over_the_cap_is_a_non_retryable_too_large_failure(
    server, transport: str, model: str
) -> None:
    cfg = _config(server.url, transport)
    assert cfg.max_reply_bytes == 8 << 20
    client = OpenAICompatClient(cfg.endpoint("e"), timeout=cfg.timeout, max_reply_bytes=cfg.max_reply_bytes)
    err = _ask(client, model)  # a 10 MB reply, over the default 8 MiB
    assert isinstance(err, ClientError), err
    assert (err.kind, err.retryable) == ("too_large", False) and "max_reply_bytes" in str(err)
    assert client.stats.errors == {"too_large": 1} and client.stats.succeeded == 0
    # the same reply under a larger cap is a valid reply, counted as one
    big = OpenAICompatClient(cfg.endpoint("e"), timeout=cfg.timeout, max_reply_bytes=16 << 20)
    resp = _ask(big, model)
    assert not isinstance(resp, ClientError) and len(resp.text) == server.huge_bytes
    assert big.stats.succeeded == 1 and big.stats.errors == {}


@each_transport
def test_replies_under_the_cap_are_still_valid(server, transport: str) -> None:
    server.huge_bytes = 100_000
    try:
        cfg = _config(server.url, transport, max_reply_bytes=200_000)
        for model in ("huge", "huge-chunked"):
            client = OpenAICompatClient(
                cfg.endpoint("e"), timeout=cfg.timeout, max_reply_bytes=cfg.max_reply_bytes
            )
            resp = _ask(client, model)
            assert not isinstance(resp, ClientError) and len(resp.text) == 100_000
            assert client.stats.succeeded == 1
    finally:
        server.huge_bytes = 10_000_000


@pytest.mark.parametrize(
    "key, said",
    [
        (API_KEY + "\n", "ends with a line break (LF)"),
        (API_KEY + "\r\n", "ends with a carriage return (CR)"),
        (API_KEY[:5] + "\r\n" + API_KEY[5:], "holds a carriage return (CR)"),
        (API_KEY[:5] + "\n" + API_KEY[5:], "holds a line break (LF)"),
        (API_KEY + "é", "holds non-ASCII characters"),
    ],
)
def test_a_key_that_cannot_be_a_header_is_refused_at_config_load(
    server, monkeypatch, key: str, said: str
) -> None:
    monkeypatch.setenv("BENCHSIFT_TEST_KEY", key)
    with pytest.raises(InputError) as info:
        _config(server.url)
    message = str(info.value)
    assert said in message and "BENCHSIFT_TEST_KEY" in message and "'e'" in message
    assert API_KEY not in message and API_KEY[5:] not in message


@pytest.mark.parametrize(
    "url",
    [
        "http://user:hunter2secret@127.0.0.1:1/v1",
        "https://hunter2secret@api.example.com/v1",
        "http://:hunter2secret@h/v1",
    ],
)
def test_a_base_url_with_credentials_is_refused_without_repeating_them(url: str) -> None:
    with pytest.raises(InputError) as info:
        _config(url)
    message = str(info.value)
    assert "must not hold credentials" in message and "'base_url'" in message and "***@" in message
    assert "hunter2secret" not in message and "\n" not in message


@pytest.mark.parametrize("url", ["http://127.0.0.1:port/v1", "http://host/v1\r\nX-Evil: 1"])
def test_a_base_url_that_is_no_url_is_one_line(url: str) -> None:
    with pytest.raises(InputError, match="'base_url' must"):
        _config(url)
