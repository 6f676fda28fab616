"""What real OpenAI-compatible servers and gateways send, on both transports: a compressed reply capped by its
inflated size, a lone surrogate, a failed generation, error messages and out-of-quota replies, Retry-After
outside (0, 120] s, ``x-should-retry`` and redirects (the outside audit of the client layer, D1-D4 and D6-D8).

Each test scripts the exact reply on a real server on 127.0.0.1 (reply_server.py) and sends through the real
client stack (``OpenAICompatClient``, or ``ClientPool`` with its retries, stop-on-fatal and SQLite cache).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from fake_server import API_KEY
from reply_server import Reply, ReplyServer, Seen, completion, error_body, gzipped

from benchsift.clients import ClientError, ClientPool, OpenAICompatClient, Request, Response
from benchsift.clients.base import ClientStats
from benchsift.clients.cache import ResponseCache
from benchsift.clients.config import TRANSPORTS, config_from_dict
from benchsift.clients.retry import RetryingClient, RetryPolicy

each_transport = pytest.mark.parametrize("transport", TRANSPORTS)


def _config(url: str, transport: str, **top: Any):
    return config_from_dict(
        {
            "timeout": 10,
            "transport": transport,
            "retry_initial": 0.01,
            **top,
            "endpoint": [
                {
                    "name": "e",
                    "base_url": url,
                    "model": "m",
                    "api_key_env": "BENCHSIFT_TEST_KEY",
                    "concurrency": 2,
                }
            ],
        }
    )


def _request(prompt: str = "What is 2+2?") -> Request:
    return Request(model="m", messages=({"role": "user", "content": prompt},))


def _ask(url: str, transport: str, prompt: str = "What is 2+2?", **top: Any) -> Response | ClientError:
    """One request through the HTTP client alone (no retries): its answer or its classified error."""
    cfg = _config(url, transport, **top)
    client = OpenAICompatClient(cfg.endpoint("e"), timeout=cfg.timeout, max_reply_bytes=cfg.max_reply_bytes)

    async def go() -> Response | ClientError:
        try:
            return await client.generate(_request(prompt))
        except ClientError as err:
            return err
        finally:
            await client.aclose()

    return asyncio.run(go())


def _pool_ask(url: str, transport: str, cache: Path, prompts: list[str], **top: Any) -> list[Any]:
    """``prompts`` sent together through the full stack (cache, retries, limit, stop-on-fatal)."""
    cfg = _config(url, transport, **top)

    async def go() -> list[Any]:
        pool = ClientPool(cfg, ResponseCache(cache))
        try:
            client = pool.get("e")
            return await asyncio.gather(
                *(client.generate(_request(p)) for p in prompts), return_exceptions=True
            )
        finally:
            await pool.aclose()
            assert pool.cache is not None
            pool.cache.close()

    return asyncio.run(go())


def _rows(cache: Path) -> int:
    c = ResponseCache(cache)
    try:
        return len(c)
    finally:
        c.close()


def _prompt(seen: Seen) -> str:
    return str(seen.body["messages"][-1]["content"])


class Attempts:
    """A reply script by attempt of each prompt: ``first(seen)`` on a prompt's first ``failing`` attempts,
    then the right answer ("4")."""

    def __init__(self, first: Any, failing: int = 1) -> None:
        self.first = first
        self.failing = failing
        self.count: dict[str, int] = {}

    def __call__(self, seen: Seen) -> Reply:
        p = _prompt(seen)
        self.count[p] = self.count.get(p, 0) + 1
        if self.count[p] <= self.failing:
            return self.first(seen)
        return Reply(body=completion("4"))


# --- D1: a compressed reply is capped by its inflated size --------------------------------------------------

#: a valid chat completion whose text is 64 MiB of spaces: about 64 KB on the wire with gzip
BOMB = gzipped(
    b'{"choices": [{"message": {"content": "', b" " * (1 << 20), 64, b'"}, "finish_reason": "stop"}]}'
)
#: 64 MiB of spaces that are no JSON, gzip-compressed
BAD_BOMB = gzipped(b"", b" " * (1 << 20), 64)


@each_transport
@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("body", [BOMB, BAD_BOMB], ids=["json", "not-json"])
def test_a_compressed_reply_is_capped_by_its_inflated_size(
    transport: str, chunked: bool, body: bytes
) -> None:
    # before: with an honest Content-Length of the compressed body (nginx `gzip on`) the aiohttp transport
    # inflated the whole body in one read (1 MB on the wire cost 3 GB of RAM); the JSON bomb was an answer
    assert len(body) < 200_000  # far under the 8 MiB cap on the wire
    gz = {"Content-Encoding": "gzip"}
    with ReplyServer(lambda s: Reply(body=body, headers=gz, chunked=chunked)) as srv:
        err = _ask(srv.url, transport)
    assert isinstance(err, ClientError), err
    assert (err.kind, err.retryable, err.fatal) == ("too_large", False, False)
    assert "max_reply_bytes" in str(err)
    # a compressed reply under the cap is an answer
    small = gzipped(completion("4"))
    with ReplyServer(lambda s: Reply(body=small, headers=gz, chunked=chunked)) as srv:
        resp = _ask(srv.url, transport)
    assert isinstance(resp, Response) and resp.text == "4"


# --- D2: a lone surrogate ----------------------------------------------------------------------------------


@each_transport
def test_a_lone_surrogate_is_a_malformed_reply_retried_and_never_cached(
    transport: str, tmp_path: Path
) -> None:
    # "\ud83d" (half an emoji, as a JavaScript gateway cutting a string sends it) is valid JSON; before, the
    # text reached the cache, whose UTF-8 encoding raised UnicodeEncodeError: exit 70, no record written
    surrogate = completion("\ud83d 4")
    assert b"\\ud83d 4" in surrogate
    with ReplyServer(lambda s: Reply(body=surrogate)) as srv:
        err = _ask(srv.url, transport)
        assert isinstance(err, ClientError), err
        assert (err.kind, err.retryable) == ("malformed", True) and "surrogate" in str(err)
        cache = tmp_path / "c.sqlite"
        out = _pool_ask(srv.url, transport, cache, ["a", "b"], max_attempts=2)
    assert all(isinstance(o, ClientError) and o.kind == "malformed" for o in out), out
    assert len(srv.seen) == 1 + 2 * 2 and _rows(cache) == 0  # retried within max_attempts, nothing stored
    # retried: a good second reply is the answer, and only it is stored
    with ReplyServer(Attempts(lambda s: Reply(body=surrogate))) as srv:
        out = _pool_ask(srv.url, transport, cache, ["a", "b"], max_attempts=2)
    assert [o.text for o in out] == ["4", "4"] and len(srv.seen) == 4 and _rows(cache) == 2


# --- D3: finish_reason "error" / "abort" -------------------------------------------------------------------


@each_transport
@pytest.mark.parametrize("finish, text", [("error", "Partial ans"), ("abort", "")])
def test_a_failed_generation_is_retried_and_never_cached(
    transport: str, finish: str, text: str, tmp_path: Path
) -> None:
    # vLLM's FINISH_REASON_STRINGS has "abort" and "error"; OpenRouter normalises a failed generation to
    # "error". Before, "error" with partial text was an answer graded 0.0, and both were cached for good
    failed = completion(text, finish)
    cache = tmp_path / "c.sqlite"
    with ReplyServer(lambda s: Reply(body=failed)) as srv:
        out = _pool_ask(srv.url, transport, cache, ["a"], max_attempts=2)
    (err,) = out
    assert isinstance(err, ClientError) and err.retryable and err.kind == f"finish_{finish}", err
    assert f"finish_reason {finish!r}" in str(err) and str(err).startswith("e: ")
    assert len(srv.seen) == 2 and _rows(cache) == 0
    # a rerun asks again, and a good reply after a failed one is the answer
    with ReplyServer(Attempts(lambda s: Reply(body=failed))) as srv:
        out = _pool_ask(srv.url, transport, cache, ["a"], max_attempts=2)
    assert out[0].text == "4" and len(srv.seen) == 2 and _rows(cache) == 1


@pytest.mark.parametrize("finish", ["stop", "length", "content_filter", None])
def test_other_finish_reasons_are_answers_as_before(finish: str | None) -> None:
    with ReplyServer(lambda s: Reply(body=completion("The answer is", finish))) as srv:
        resp = _ask(srv.url, "aiohttp")
    assert isinstance(resp, Response) and (resp.text, resp.finish_reason) == ("The answer is", finish)


# --- D4: the server's error message; out of quota is fatal -----------------------------------------------

VLLM_400 = error_body(
    "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4488 in the "
    "messages, 512 in the completion). Please reduce the length of the messages or completion.",
    "BadRequestError",
    400,
)
LLAMA_400 = json.dumps(
    {
        "error": {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 5000,
            "n_ctx": 4096,
        }
    }
).encode()
NGINX_502 = b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>nginx</body>\r\n</html>\r\n"
#: the message begins past the first 64 KiB: the prefix read holds no complete JSON, so no message
LATE = b'{"error": ' + b" " * (70 << 10) + b'{"message": "read past the prefix"}}'


@each_transport
@pytest.mark.parametrize(
    "status, body, said, retryable",
    [
        (
            400,
            VLLM_400,
            "e: HTTP 400: This model's maximum context length is 4096 tokens. However, you",
            False,
        ),
        (
            400,
            LLAMA_400,
            "e: HTTP 400: the request exceeds the available context size, try increasing it",
            False,
        ),
        (502, NGINX_502, "e: HTTP 502", True),
        (500, LATE, "e: HTTP 500", True),
        (
            503,
            error_body("line one\nline two\x1b[31m red\x00"),
            "e: HTTP 503: line one line two[31m red",
            True,
        ),
        (400, b'{"error": "model \\"m\\" not found"}', 'e: HTTP 400: model "m" not found', False),
    ],
    ids=["vllm-context", "llama-context", "nginx-html", "past-64KiB", "control-chars", "error-string"],
)
def test_an_error_reply_names_the_servers_message(
    transport: str, status: int, body: bytes, said: str, retryable: bool
) -> None:
    # before: every record said only "e: HTTP 400" (the body was not read)
    with ReplyServer(lambda s: Reply(status=status, body=body)) as srv:
        err = _ask(srv.url, transport)
    assert isinstance(err, ClientError), err
    assert (err.status, err.retryable, err.fatal, err.kind) == (status, retryable, False, str(status))
    message = str(err)
    assert message.startswith(said), message
    if body in (NGINX_502, LATE):
        assert message == said
    assert len(message) <= len("e: HTTP 400: ") + 200 and message.isprintable()


@each_transport
def test_an_error_message_is_cut_short_and_never_repeats_the_key(transport: str) -> None:
    def echo(seen: Seen) -> Reply:  # a server that quotes the Authorization header back, then a long text
        said = f"Incorrect API key provided: {seen.headers['authorization']}. " + "x" * 1000
        return Reply(status=400, body=error_body(said, "invalid_request_error"))

    with ReplyServer(echo) as srv:
        err = _ask(srv.url, transport)
    message = str(err)
    assert API_KEY not in message and "Incorrect API key provided: Bearer " in message
    assert len(message) <= len("e: HTTP 400: ") + 200 and message.endswith("...")


QUOTA_429 = error_body(
    "You exceeded your current quota, please check your plan and billing details. For more information on "
    "this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
    "insufficient_quota",
    "insufficient_quota",
)
#: OpenRouter's 402 (its errors page: "Your account or API key has insufficient credits")
CREDITS_402 = json.dumps(
    {"error": {"code": 402, "message": "Insufficient credits. Add more using https://openrouter.ai/settings"}}
).encode()


@each_transport
@pytest.mark.parametrize(
    "status, body, headers",
    [
        (429, QUOTA_429, {}),
        (429, error_body("quota", "insufficient_quota", None), {}),  # the type alone says it
        (402, CREDITS_402, {}),
        (429, QUOTA_429, {"x-should-retry": "true"}),  # fatal stays fatal
    ],
    ids=["429-code", "429-type", "402", "429-should-retry"],
)
def test_out_of_quota_stops_the_endpoint_after_one_call(
    transport: str, status: int, body: bytes, headers: dict[str, str], tmp_path: Path
) -> None:
    # before: a 429 insufficient_quota was retried max_attempts times for every request (240 calls for 40
    # items), each record saying only "HTTP 429"
    with ReplyServer(lambda s: Reply(status=status, body=body, headers=headers)) as srv:
        out = _pool_ask(
            srv.url, transport, tmp_path / "c.sqlite", [f"q{i}" for i in range(6)], max_attempts=6
        )
    assert len(srv.seen) == 1
    assert all(isinstance(o, ClientError) and not o.retryable and o.status == status for o in out), out
    first = next(o for o in out if "endpoint stopped" not in str(o))
    assert first.fatal and f"e: HTTP {status}: " in str(first) and "quota" in str(first)
    assert all("quota" in str(o) for o in out)


@each_transport
def test_a_rate_limit_429_is_still_retried(transport: str) -> None:
    limited = error_body("Rate limit reached for requests", "requests", "rate_limit_exceeded")
    with ReplyServer(lambda s: Reply(status=429, body=limited)) as srv:
        err = _ask(srv.url, transport)
    assert isinstance(err, ClientError) and err.retryable and not err.fatal
    assert str(err) == "e: HTTP 429: Rate limit reached for requests"


# --- D6: Retry-After outside (0, 120] s falls back to the backoff ------------------------------------------


def _first_wait(url: str, transport: str, policy: RetryPolicy) -> tuple[float, ClientStats]:
    cfg = _config(url, transport)
    stats = ClientStats()
    http = OpenAICompatClient(cfg.endpoint("e"), timeout=cfg.timeout, stats=stats)
    waits: list[float] = []

    async def sleep(seconds: float) -> None:  # records the waits instead of sleeping them
        waits.append(seconds)

    async def go() -> Response:
        try:
            return await RetryingClient(http, policy, stats=stats, sleep=sleep).generate(_request())
        finally:
            await http.aclose()

    assert asyncio.run(go()).text == "4"
    return waits[0], stats


@each_transport
@pytest.mark.parametrize(
    "headers, honoured",
    [
        ({"Retry-After": "0"}, None),
        ({"Retry-After": "-3"}, None),
        ({"Retry-After": "121"}, None),
        ({"Retry-After": "86400"}, None),
        ({"Retry-After": "nan"}, None),
        ({"retry-after-ms": "0"}, None),
        ({"retry-after-ms": "150000", "Retry-After": "1"}, None),  # the ms header wins, as in openai-python
        ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, None),  # a date in the past
        ({"Retry-After": "2"}, 2.0),
        ({"retry-after-ms": "1500", "Retry-After": "1"}, 1.5),
        ({"Retry-After": "120"}, 60.0),  # honoured, and capped at max_retry_after
    ],
)
def test_retry_after_is_honoured_only_between_0_and_120_seconds(
    transport: str, headers: dict[str, str], honoured: float | None
) -> None:
    # before: Retry-After: 0 turned the backoff off (6 attempts in 0.3 s against a rate-limited server), and
    # a day's Retry-After waited the full max_retry_after
    limited = error_body("Rate limit reached", "requests", "rate_limit_exceeded")
    policy = RetryPolicy(max_attempts=3, initial=0.5, max_retry_after=60.0)
    with ReplyServer(Attempts(lambda s: Reply(status=429, body=limited, headers=headers))) as srv:
        wait, stats = _first_wait(srv.url, transport, policy)
    if honoured is None:
        assert wait == policy.delay(1, _request().key(), None) and 0.25 <= wait <= 0.5  # the backoff
    else:
        assert wait == honoured
    assert stats.retry_after_capped == (1 if headers.get("Retry-After") == "120" else 0)


# --- D7: x-should-retry ------------------------------------------------------------------------------------


@each_transport
@pytest.mark.parametrize(
    "status, header, retried",
    [
        (500, "false", False),
        (429, "false", False),
        (400, "true", True),
        (404, "true", True),
        (500, None, True),
        (400, None, False),
    ],
)
def test_x_should_retry_decides_before_the_status(
    transport: str, status: int, header: str | None, retried: bool, tmp_path: Path
) -> None:
    # before: a 500 with x-should-retry: false was sent 6 times, a 400 with x-should-retry: true once
    headers = {} if header is None else {"x-should-retry": header}
    reply = Reply(status=status, body=error_body("transient", "server_error"), headers=headers)
    with ReplyServer(Attempts(lambda s: reply)) as srv:
        (out,) = _pool_ask(srv.url, transport, tmp_path / "c.sqlite", ["a"], max_attempts=3)
    if retried:
        assert isinstance(out, Response) and out.text == "4" and len(srv.seen) == 2
    else:
        assert isinstance(out, ClientError) and not out.retryable and len(srv.seen) == 1


@each_transport
def test_x_should_retry_true_leaves_a_rejected_key_fatal(transport: str, tmp_path: Path) -> None:
    reply = Reply(status=401, body=error_body("bad key"), headers={"x-should-retry": "true"})
    with ReplyServer(lambda s: reply) as srv:
        out = _pool_ask(srv.url, transport, tmp_path / "c.sqlite", ["a", "b", "c"], max_attempts=3)
    assert len(srv.seen) == 1 and all(isinstance(o, ClientError) and not o.retryable for o in out)
    assert "authentication failed" in str(out[0])


# --- D8: redirects are refused, never followed -------------------------------------------------------------


@each_transport
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_a_failure_never_followed_nor_cached(
    transport: str, status: int, tmp_path: Path
) -> None:
    # before: both transports followed it; the other origin's reply was recorded, cached and graded as the
    # model's answer (307/308 re-POSTed the prompt there, 302 turned it into a bodyless GET)
    cache = tmp_path / "c.sqlite"
    with ReplyServer(lambda s: Reply(body=completion("stolen"))) as other:
        target = f"{other.url}/chat/completions"
        with ReplyServer(lambda s: Reply(status=status, headers={"Location": target})) as srv:
            out = _pool_ask(srv.url, transport, cache, ["a"], max_attempts=3)
    (err,) = out
    assert isinstance(err, ClientError) and not err.retryable and not err.fatal, err
    assert (err.status, err.kind) == (status, str(status))
    assert str(err) == (
        f"e: HTTP {status}: the endpoint redirected to http://127.0.0.1:{other.port}: "
        "set base_url to the final address"
    )
    assert other.seen == [] and len(srv.seen) == 1 and _rows(cache) == 0


@each_transport
def test_a_redirect_on_the_same_origin_names_it_too(transport: str) -> None:
    with ReplyServer(lambda s: Reply(status=307, headers={"Location": "/v2/chat/completions"})) as srv:
        err = _ask(srv.url, transport)
        assert isinstance(err, ClientError) and len(srv.seen) == 1
        assert f"redirected to http://127.0.0.1:{srv.port}: set base_url" in str(err)
