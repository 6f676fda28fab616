"""The proxy environment routes a request the same way on both transports (the outside audit's D5): the
aiohttp transport's ``env_proxy`` mirrors the rules of the ``openai`` SDK's HTTP library (httpx2), so
``ALL_PROXY``, ``NO_PROXY`` entries with a port, CIDR networks, leading-dot domains and ``*`` act alike.

A real forward proxy on 127.0.0.1 counts what reaches it; before, the aiohttp transport ignored ``ALL_PROXY``
and sent the prompt and the key through the proxy for ``NO_PROXY=127.0.0.1:<port>`` and ``127.0.0.0/8``.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest
from reply_server import Reply, ReplyServer, completion

from benchsift.clients import ClientError, OpenAICompatClient, Request
from benchsift.clients.config import TRANSPORTS, config_from_dict
from benchsift.clients.transport import env_proxy

PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "REQUEST_METHOD")


def _clear(mp: pytest.MonkeyPatch) -> None:
    for var in PROXY_VARS:
        mp.delenv(var, raising=False)
        mp.delenv(var.upper(), raising=False)


def _route(base_url: str, transport: str, proxy: ReplyServer, target: ReplyServer) -> str:
    """Where one request went: ``"proxy"`` (the proxy saw it) or ``"direct"``."""
    cfg = config_from_dict(
        {
            "timeout": 5,
            "transport": transport,
            "endpoint": [
                {"name": "e", "base_url": base_url, "model": "m", "api_key_env": "BENCHSIFT_TEST_KEY"}
            ],
        }
    )
    client = OpenAICompatClient(cfg.endpoint("e"), timeout=cfg.timeout)
    before = (len(proxy.seen), len(target.seen))

    async def go() -> str | None:
        try:
            return (
                await client.generate(Request(model="m", messages=({"role": "user", "content": "x"},)))
            ).text
        except ClientError as err:
            return f"failed: {err.kind}"
        finally:
            await client.aclose()

    text = asyncio.run(go())
    seen = (len(proxy.seen) - before[0], len(target.seen) - before[1])
    if seen == (1, 0):
        assert text == "via proxy" and proxy.seen[-1].path.startswith("http://"), (text, proxy.seen[-1].path)
        return "proxy"
    assert seen == (0, 1) and text == "direct" or seen == (0, 0) and text == "failed: connection", (
        seen,
        text,
    )
    return "direct"


#: (environment, target host, route): {P} is the proxy's address, {port} the target server's port
ROWS = [
    ({"HTTP_PROXY": "http://{P}"}, "127.0.0.1", "proxy"),
    ({"http_proxy": "http://{P}"}, "127.0.0.1", "proxy"),
    ({"HTTP_PROXY": "{P}"}, "127.0.0.1", "proxy"),  # no scheme: http://
    ({"ALL_PROXY": "http://{P}"}, "127.0.0.1", "proxy"),
    ({"all_proxy": "http://{P}"}, "127.0.0.1", "proxy"),
    ({"HTTPS_PROXY": "http://{P}"}, "127.0.0.1", "direct"),  # an http base URL
    ({"HTTP_PROXY": "http://{P}", "NO_PROXY": "127.0.0.1"}, "127.0.0.1", "direct"),
    ({"HTTP_PROXY": "http://{P}", "NO_PROXY": "127.0.0.1:{port}"}, "127.0.0.1", "direct"),
    ({"HTTP_PROXY": "http://{P}", "NO_PROXY": "127.0.0.1:1"}, "127.0.0.1", "proxy"),  # another port
    ({"HTTP_PROXY": "http://{P}", "NO_PROXY": "127.0.0.0/8"}, "127.0.0.1", "direct"),
    ({"ALL_PROXY": "http://{P}", "NO_PROXY": "10.0.0.0/8"}, "127.0.0.1", "proxy"),
    ({"ALL_PROXY": "http://{P}", "NO_PROXY": "*"}, "127.0.0.1", "direct"),
    ({"HTTP_PROXY": "http://{P}", "NO_PROXY": "example.com, 127.0.0.1 "}, "127.0.0.1", "direct"),
    ({"HTTP_PROXY": "http://{P}", "no_proxy": "localhost"}, "localhost", "direct"),
    ({"HTTP_PROXY": "http://{P}", "NO_PROXY": ".localhost"}, "localhost", "proxy"),  # subdomains only
    ({"HTTP_PROXY": "http://{P}", "NO_PROXY": "calhost"}, "localhost", "proxy"),  # a name, not a suffix
    (
        {"HTTP_PROXY": "http://{P}", "NO_PROXY": ".benchsift-test.invalid"},
        "api.benchsift-test.invalid",
        "direct",
    ),
    (
        {"HTTP_PROXY": "http://{P}", "NO_PROXY": "benchsift-test.invalid"},
        "api.benchsift-test.invalid",
        "direct",
    ),
    ({"HTTP_PROXY": "http://{P}", "NO_PROXY": ".other.invalid"}, "api.benchsift-test.invalid", "proxy"),
]


@pytest.mark.parametrize("env, host, route", ROWS, ids=[f"{i}:{r[0]}->{r[1]}" for i, r in enumerate(ROWS)])
def test_both_transports_route_alike(env: dict[str, str], host: str, route: str, monkeypatch) -> None:
    # a name under .invalid never resolves: "direct" there is a failed connection that never reached the proxy
    with (
        ReplyServer(lambda s: Reply(body=completion("via proxy"))) as proxy,
        ReplyServer(lambda s: Reply(body=completion("direct"))) as target,
    ):
        base_url = f"http://{host}:{target.port}/v1"
        seen = {}
        with monkeypatch.context() as mp:
            _clear(mp)
            for k, v in env.items():
                mp.setenv(k, v.format(P=f"127.0.0.1:{proxy.port}", port=target.port))
            assert (env_proxy(base_url) is not None) == (route == "proxy")
            for transport in TRANSPORTS:
                seen[transport] = _route(base_url, transport, proxy, target)
    assert seen == {t: route for t in TRANSPORTS}


def _sdk_route(url: str) -> str | None:
    """The proxy URL the SDK's HTTP library picks for ``url`` from the environment (its client's rule: the
    first matching pattern, most specific first), or None."""
    try:
        from httpx2 import URL
        from httpx2._utils import URLPattern, get_environment_proxies
    except ImportError:  # SDKs before httpx2
        from httpx import URL  # type: ignore[no-redef]
        from httpx._utils import URLPattern, get_environment_proxies  # type: ignore[no-redef]
    mounts = sorted(((URLPattern(k), v) for k, v in get_environment_proxies().items()), key=lambda m: m[0])
    target = URL(url)
    return next((proxy for pattern, proxy in mounts if pattern.matches(target)), None)


NO_PROXY = [
    "",
    "*",
    "localhost",
    "127.0.0.1",
    "127.0.0.1:8000",
    "10.0.0.0/8",
    "10.1.2.3/32",
    "::1",
    "::1/128",
    "[::1]",
    "fe80::/10",
    ".example.com",
    "*.example.com",
    "example.com",
    "example.com:8443",
    "EXAMPLE.com",
    "http://example.com",
    "https://api.example.com:443",
    "example.com/path",
    "10.0.0.0/99",
    "example.com, .internal ,10.0.0.0/8",
]
URLS = [
    "http://127.0.0.1:8000/v1",
    "http://127.0.0.1/v1",
    "https://10.1.2.3/v1",
    "http://10.9.9.9:80/v1",
    "http://[::1]:8000/v1",
    "https://[fe80::1]/v1",
    "https://api.example.com/v1",
    "https://example.com:8443/v1",
    "http://example.com/v1",
    "https://notexample.com/v1",
    "http://localhost:11434/v1",
    "https://llm.internal/v1",
]
PROXIES = [
    {"HTTP_PROXY": "http://corp:3128"},
    {"HTTPS_PROXY": "corp:3129"},
    {"ALL_PROXY": "http://all:1080"},
    {"HTTP_PROXY": "http://corp:3128", "ALL_PROXY": "http://all:1080"},
    {"https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2"},
]


def test_env_proxy_agrees_with_the_sdk_http_library(monkeypatch) -> None:
    for proxies, no_proxy in itertools.product(PROXIES, NO_PROXY):
        with monkeypatch.context() as mp:
            _clear(mp)
            for k, v in {**proxies, "NO_PROXY": no_proxy}.items():
                mp.setenv(k, v)
            for url in URLS:
                assert env_proxy(url) == _sdk_route(url), (proxies, no_proxy, url)
