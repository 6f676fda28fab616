"""Both HTTP transports against the local server: the same classified errors, counters and proxy use."""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
import time
from pathlib import Path

import pytest
from fake_server import API_KEY, ODD_REPLIES

from benchsift.clients import ClientError, OpenAICompatClient, Request
from benchsift.clients.config import TRANSPORTS, config_from_dict
from benchsift.clients.transport import env_proxy, is_retryable_status

each_transport = pytest.mark.parametrize("transport", TRANSPORTS)


def _client(base_url: str, model: str, transport: str, timeout: float = 5.0) -> OpenAICompatClient:
    cfg = config_from_dict(
        {
            "timeout": timeout,
            "transport": transport,
            "endpoint": [
                {"name": "e", "base_url": base_url, "model": model, "api_key_env": "BENCHSIFT_TEST_KEY"}
            ],
        }
    )
    return OpenAICompatClient(cfg.endpoint("e"), timeout=cfg.timeout)


def _flaky_request(client: OpenAICompatClient, mode: int) -> Request:
    """The first prompt whose first attempt the scripted flaky model answers in ``mode``: 0 = 429 with
    Retry-After 0.2, 1 = 500, 2 = a truncated JSON body, 3 = a reply slower than the client timeout."""
    for i in range(1000):
        req = Request(model="flaky", messages=({"role": "user", "content": f"question {i}"},))
        key = hashlib.sha256(json.dumps(client.body(req), sort_keys=True).encode()).hexdigest()
        if int(key[:8], 16) % 4 == mode:  # the server's rule (fake_server.FakeServer._respond)
            return req
    raise AssertionError("no prompt found")


def _fails(client: OpenAICompatClient, req: Request) -> ClientError:
    async def go() -> ClientError:
        try:
            with pytest.raises(ClientError) as info:
                await client.generate(req)
            return info.value
        finally:
            await client.aclose()

    return asyncio.run(go())


@each_transport
def test_each_failure_is_classified_the_same_way(server, transport: str) -> None:
    server.slow = 1.0
    expected = {  # mode -> (kind, status, retry_after)
        0: ("429", 429, 0.2),
        1: ("500", 500, None),
        2: ("malformed", None, None),
        3: ("timeout", None, None),
    }
    seen = {}
    for mode, (kind, _, _) in expected.items():
        client = _client(server.url, "flaky", transport, timeout=0.4)
        err = _fails(client, _flaky_request(client, mode))
        seen[mode] = (err.kind, err.status, err.retry_after)
        assert err.retryable, (mode, err)
        assert client.stats.errors == {kind: 1} and client.stats.requests == 1 and client.stats.succeeded == 0
        assert API_KEY not in str(err)
    assert seen == expected
    broken = _client(server.url, "broken", transport)
    err = _fails(broken, Request(model="broken", messages=({"role": "user", "content": "x"},)))
    assert (err.kind, err.status, err.retryable) == ("400", 400, False) and API_KEY not in str(err)


@each_transport
@pytest.mark.parametrize("model", sorted(ODD_REPLIES))
def test_an_unusable_completion_is_a_malformed_reply(server, transport: str, model: str) -> None:
    # before: JSON nested 100,000 deep stopped `prism run` with a RecursionError (exit 70), an infinite
    # token count with an OverflowError; a list as finish reason or a negative count was cached, and the
    # next run read the cache as corrupt
    client = _client(server.url, model, transport)
    err = _fails(client, Request(model=model, messages=({"role": "user", "content": "x"},)))
    assert (err.kind, err.retryable, err.fatal) == ("malformed", True, False), err
    assert client.stats.errors == {"malformed": 1} and client.stats.succeeded == 0


@each_transport
def test_the_timeout_bounds_the_whole_request_on_a_trickling_reply(server, transport: str) -> None:
    # a ~150-byte body at one byte per 0.05 s: every gap is far below the 1 s timeout, the reply is not
    server.trickle = 0.05
    client = _client(server.url, "trickle", transport, timeout=1.0)
    t0 = time.monotonic()
    err = _fails(client, Request(model="trickle", messages=({"role": "user", "content": "x"},)))
    assert (err.kind, err.retryable) == ("timeout", True) and str(err) == "e: request timed out"
    assert time.monotonic() - t0 < 3.0
    assert client.stats.errors == {"timeout": 1} and client.stats.succeeded == 0


@each_transport
def test_a_refused_connection_is_a_fatal_connection_error(transport: str) -> None:
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens on it
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = _client(f"http://127.0.0.1:{port}/v1", "m", transport)
    err = _fails(client, Request(model="m", messages=({"role": "user", "content": "x"},)))
    # nothing listens: every later request would fail the same way, so the endpoint stops (issue 12)
    assert err.kind == "connection" and err.fatal and not err.retryable and err.status is None
    assert "connection refused" in str(err)


@each_transport
def test_the_environment_proxy_carries_the_request(server, transport: str, monkeypatch) -> None:
    # the endpoint's host does not exist: the request succeeds only through the proxy, here the local
    # server itself, which then sees the absolute-form request line of a forward proxy
    for var in ("no_proxy", "NO_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HTTP_PROXY", server.url.removesuffix("/v1"))
    target = "http://api.benchsift-test.invalid/v1"
    assert env_proxy(target) == server.url.removesuffix("/v1")
    client = _client(target, "judge", transport)
    prompt = "You are extracting the letter (A or B) ...\nModel response: A\n"

    async def go():
        try:
            return await client.generate(
                Request(model="judge", messages=({"role": "user", "content": prompt},))
            )
        finally:
            await client.aclose()

    resp = asyncio.run(go())
    assert resp.text == '{"choice": "A"}'
    assert [r["path"] for r in server.requests()] == [target + "/chat/completions"]


def test_env_proxy_follows_scheme_and_no_proxy(monkeypatch) -> None:
    for var in ("no_proxy", "NO_PROXY", "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(var, raising=False)
    assert env_proxy("https://api.openai.com/v1") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://corp:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1,.internal")
    assert env_proxy("https://api.openai.com/v1") == "http://corp:3128"
    assert env_proxy("http://api.openai.com/v1") is None  # no http proxy set
    assert env_proxy("https://llm.internal/v1") is None and env_proxy("https://127.0.0.1:8000/v1") is None
    assert [s for s in range(400, 600) if is_retryable_status(s)] == [408, 409, 429, *range(500, 600)]


@each_transport
def test_a_client_serves_one_event_loop(server, transport: str) -> None:
    client = _client(server.url, "judge", transport)
    prompt = "You are extracting the letter (A or B) ...\nModel response: B\n"
    req = Request(model="judge", messages=({"role": "user", "content": prompt},))

    async def ask() -> str | None:
        return (await client.generate(req)).text

    async def ask_and_close() -> str | None:
        try:
            return await ask()
        finally:
            await client.aclose()

    first = asyncio.new_event_loop()
    try:
        assert first.run_until_complete(ask()) == '{"choice": "B"}'
        with pytest.raises(RuntimeError, match="'e': this client's connections belong to another event loop"):
            asyncio.run(ask())  # refused up front rather than failing obscurely on the first loop's sockets
        first.run_until_complete(client.aclose())  # closed in its own loop
    finally:
        first.close()
    assert len(server.requests()) == 1
    if transport == "aiohttp":  # once closed, it opens fresh connections in the next loop
        assert asyncio.run(ask_and_close()) == '{"choice": "B"}'
        assert asyncio.run(ask_and_close()) == '{"choice": "B"}'
        assert len(server.requests()) == 3


def test_the_transport_is_not_part_of_the_cache_key(server, tmp_path) -> None:
    from benchsift.clients import ClientPool
    from benchsift.clients.cache import ResponseCache

    prompt = "You are extracting the letter (A or B) ...\nModel response: A\n"
    req = Request(model="judge", messages=({"role": "user", "content": prompt},))

    def pool(transport: str) -> ClientPool:
        cfg = config_from_dict(
            {
                "transport": transport,
                "endpoint": [
                    {
                        "name": "j",
                        "base_url": server.url,
                        "model": "judge",
                        "api_key_env": "BENCHSIFT_TEST_KEY",
                    }
                ],
            }
        )
        return ClientPool(cfg, ResponseCache(tmp_path / "c.sqlite"))

    async def ask(p: ClientPool) -> tuple[str | None, bool]:
        try:
            r = await p.get("j").generate(req)
            return r.text, r.cached
        finally:
            await p.aclose()

    assert asyncio.run(ask(pool("openai"))) == ('{"choice": "A"}', False)
    assert asyncio.run(ask(pool("aiohttp"))) == ('{"choice": "A"}', True)
    assert len(server.requests()) == 1


TLS = Path(__file__).resolve().parents[1] / "fixtures" / "tls"


@each_transport
def test_https_trusts_what_the_sdk_trusts(world: dict, transport: str, monkeypatch) -> None:
    """Over HTTPS both transports trust the same certificates: a self-signed test server is refused
    (not retryable) until ``SSL_CERT_FILE`` names its certificate."""
    from fake_server import FakeServer

    srv = FakeServer(world["world"], tls=(str(TLS / "cert.pem"), str(TLS / "key.pem"))).start()
    prompt = "You are extracting the letter (A or B) ...\nModel response: B\n"
    req = Request(model="judge", messages=({"role": "user", "content": prompt},))
    try:
        assert srv.url.startswith("https://127.0.0.1:")
        for var in ("SSL_CERT_FILE", "SSL_CERT_DIR", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.delenv(var, raising=False)
        err = _fails(_client(srv.url, "judge", transport), req)
        assert (err.kind, err.retryable) == ("tls", False) and "SSL_CERT_FILE" in str(err)
        monkeypatch.setenv("SSL_CERT_FILE", str(TLS / "cert.pem"))
        client = _client(srv.url, "judge", transport)

        async def go():
            try:
                return await client.generate(req)
            finally:
                await client.aclose()

        assert asyncio.run(go()).text == '{"choice": "B"}'
        assert len(srv.requests()) == 1  # the refused handshakes never reached the handler
    finally:
        srv.stop()
