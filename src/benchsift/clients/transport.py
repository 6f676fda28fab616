"""HTTP transports for the OpenAI-compatible client: one JSON ``POST`` in, one parsed JSON reply out.

Two transports, chosen per endpoint in the config (``transport = "aiohttp" | "openai"``):

* ``aiohttp`` (default): one :class:`aiohttp.ClientSession` per endpoint with keep-alive connections.
  aiohttp is the transport the ``openai`` SDK itself recommends for concurrent use (its ``aiohttp``
  extra); posting through it directly costs about 0.4 ms of client CPU per request on the 2-core test
  machine, against about 1 ms for the SDK over aiohttp and about 2 ms for the SDK over its default
  httpx transport (``benchmarks/bench_engine_throughput.py`` measures all of them side by side). At
  64 concurrent requests of 50 ms, the SDK's per-request cost alone keeps a single event loop below
  80 % of the latency-bound ideal; this transport does not.
* ``openai``: the ``openai`` SDK's ``AsyncOpenAI`` client (its default httpx transport), with
  ``max_retries=0``, through its low-level ``post`` with a plain JSON body and a plain dict result.

On both, ``timeout`` bounds the whole request (connection, upload and the complete reply), so a server
that trickles its reply byte by byte times out like one that never answers.

Both classify failures the same way, as a :class:`~benchsift.clients.base.ClientError` whose ``kind``
names the counter it feeds (``"timeout"``, ``"connection"``, the HTTP status, ``"malformed"``):

* retryable: 429 (with its ``Retry-After``), 408, 409, 5xx, timeouts, connection errors, replies that
  are not valid JSON; the reply's ``x-should-retry`` header overrides the status (openai-python's order);
* not retryable: other 4xx (bad request, authentication, unknown model), invalid URLs and TLS
  certificates that are not trusted (``kind = "tls"``), replies larger than ``max_reply_bytes``
  (``kind = "too_large"``, default 8 MiB: both transports read the decoded body 64 KiB at a time and stop
  past the cap, or refuse it from its ``Content-Length``, so a 10 MB reply, or 1 MB of gzip that inflates to
  1 GB, never costs more than the cap), and redirects (3xx: never followed, the failure names where it
  pointed);
* fatal (the endpoint stops after one call): 401/403, and 402 or a 429 ``insufficient_quota`` (out of credit).

An error reply's message is the server's ``error.message``, from at most 64 KiB of its body
(:mod:`benchsift.clients.reply_errors`). The proxy environment (``HTTP_PROXY``, ``HTTPS_PROXY``,
``ALL_PROXY``, ``NO_PROXY``) routes both alike: the aiohttp transport applies the rules of the SDK's HTTP
library (:mod:`benchsift.clients.proxies`).

Both trust the same certificates: the aiohttp transport takes its TLS context from the SDK's HTTP library
(:func:`sdk_ssl_context`), so ``SSL_CERT_FILE`` and the system store act alike on both.

The API key travels only in the ``Authorization`` header; error messages carry the endpoint name, the
HTTP status, the exception type and the server's own error message (cut to 200 characters, the key masked
should the server quote it), never the request or the key.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import ssl
from typing import Any, Protocol

from benchsift._version import __version__
from benchsift.clients.base import ClientError, json_bytes
from benchsift.clients.config import MAX_REPLY_BYTES, TRANSPORTS, EndpointConfig
from benchsift.clients.proxies import env_proxy
from benchsift.clients.reply_errors import (
    ERROR_BODY_BYTES,
    FATAL_STATUSES,
    is_retryable_status,
    parse_retry_after,
    redirect_error,
    status_error,
)
from benchsift.errors import InputError

__all__ = [
    "FATAL_STATUSES",
    "TRANSPORTS",
    "AiohttpTransport",
    "OpenAISDKTransport",
    "Transport",
    "env_proxy",
    "is_retryable_status",
    "make_transport",
    "parse_retry_after",
    "sdk_ssl_context",
]


def sdk_ssl_context() -> ssl.SSLContext:
    """The TLS trust the ``openai`` SDK's transports use: its HTTP library's default context, which
    honours ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` and otherwise reads the system's certificates."""
    try:
        import httpx2 as httpx  # the HTTP library of recent openai SDKs
    except ImportError:
        import httpx  # type: ignore[no-redef]  # older SDKs
    ctx: ssl.SSLContext = httpx.create_ssl_context()
    return ctx


def _untrusted_certificate(err: BaseException) -> bool:
    """True when a certificate verification failure caused ``err`` (retrying cannot help)."""
    seen: BaseException | None = err
    for _ in range(8):  # the SDK and aiohttp wrap the ssl error one or two levels down
        if seen is None:
            return False
        if isinstance(seen, ssl.SSLCertVerificationError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _timed_out(name: str) -> ClientError:
    return ClientError(f"{name}: request timed out", retryable=True, kind="timeout")


def _connection_error(name: str, err: BaseException) -> ClientError:
    if _untrusted_certificate(err):
        return ClientError(
            f"{name}: the server's TLS certificate is not trusted (set SSL_CERT_FILE to its CA bundle)",
            retryable=False,
            kind="tls",
            fatal=True,
        )
    if _refused(err):
        return ClientError(
            f"{name}: connection refused (is the server at base_url running?)",
            retryable=False,
            kind="connection",
            fatal=True,
        )
    return ClientError(f"{name}: connection error ({type(err).__name__})", retryable=True, kind="connection")


def _refused(err: BaseException) -> bool:
    """True when a refused connection (nothing listens at the address) caused ``err``."""
    seen: BaseException | None = err
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError) or getattr(seen, "errno", None) == errno.ECONNREFUSED:
            return True
        if isinstance(seen, OSError) and "Connect call failed" in str(seen):  # asyncio's multi-address error
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _too_large(name: str, cap: int, length: int | None) -> ClientError:
    size = f" ({length:,} bytes)" if length is not None else ""
    return ClientError(
        f"{name}: reply larger than {cap:,} bytes{size}, not read (max_reply_bytes in the config raises it)",
        retryable=False,
        kind="too_large",
    )


def _malformed(name: str, err: BaseException) -> ClientError:
    return ClientError(f"{name}: malformed reply ({type(err).__name__})", retryable=True, kind="malformed")


class Transport(Protocol):
    """``post_json(path, body)``: the reply's parsed JSON, or a classified :class:`ClientError`.

    ``data_urls=False`` tells the transport the body holds no image data URL (it may skip looking for them
    when it serialises the body, :func:`~benchsift.clients.base.json_bytes`).
    """

    async def post_json(self, path: str, body: dict[str, Any], *, data_urls: bool = True) -> Any: ...

    async def aclose(self) -> None: ...


class _OneEventLoop:
    """Connections belong to the event loop that opened them: a transport serves the loop of its first
    request until :meth:`aclose` (awaited in that loop) releases it."""

    name: str
    _loop: asyncio.AbstractEventLoop | None = None

    def _enter_loop(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = loop
        elif self._loop is not loop:
            raise RuntimeError(
                f"endpoint {self.name!r}: this client's connections belong to another event loop; "
                "use one ClientPool per event loop (per asyncio.run) and aclose() it there"
            )


class AiohttpTransport(_OneEventLoop):
    """JSON posts over one :class:`aiohttp.ClientSession` (created lazily in the running event loop).

    The session keeps up to ``endpoint.concurrency`` keep-alive connections. The proxy environment
    variables (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``) are honoured by the SDK's httpx
    rules (:func:`~benchsift.clients.proxies.env_proxy`), read once here rather than by aiohttp's
    ``trust_env`` (urllib's rules, which differ), which looks them up in a worker thread on every request:
    those thread hand-offs (and the GIL contention they bring to the cache's SQLite commits) cost more
    client CPU than the HTTP exchange itself.
    """

    def __init__(
        self, endpoint: EndpointConfig, *, timeout: float, max_reply_bytes: int = MAX_REPLY_BYTES
    ) -> None:
        self.name = endpoint.name
        self.base_url = endpoint.base_url.rstrip("/")
        self.timeout = float(timeout)
        self.max_reply_bytes = int(max_reply_bytes)
        self.limit = int(endpoint.concurrency)
        self._secret = endpoint.api_key()  # masked in the server's error messages (reply_errors)
        self._headers = {
            "Authorization": f"Bearer {self._secret}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"benchsift/{__version__}",
        }
        self.proxy = env_proxy(self.base_url)
        self._session: Any = None

    def _get_session(self) -> Any:
        if self._session is None or self._session.closed:
            import aiohttp

            tls = sdk_ssl_context() if self.base_url.startswith("https:") else None
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self.limit, ssl=tls if tls is not None else True),
                timeout=aiohttp.ClientTimeout(total=self.timeout),
                headers=self._headers,
                trust_env=False,  # the proxy is resolved once, in __init__
            )
        return self._session

    async def post_json(self, path: str, body: dict[str, Any], *, data_urls: bool = True) -> Any:
        import aiohttp

        self._enter_loop()
        name, url = self.name, self.base_url + path
        data = json_bytes(body, data_urls=data_urls)
        try:
            # a redirect is never followed: it is a failure (reply_errors.redirect_error)
            post = self._get_session().post(url, data=data, proxy=self.proxy, allow_redirects=False)
            async with post as resp:
                if resp.status >= 300:
                    raise await self._failure(resp, url)
                raw = await self._read(resp)
        except TimeoutError as err:  # aiohttp's timeouts subclass it
            raise _timed_out(name) from err
        except aiohttp.InvalidURL as err:
            raise ClientError(
                f"{name}: invalid base URL ({type(err).__name__})",
                retryable=False,
                kind="connection",
                fatal=True,
            ) from err
        except aiohttp.ClientPayloadError as err:
            raise _malformed(name, err) from err
        except (aiohttp.ClientError, OSError) as err:
            raise _connection_error(name, err) from err
        try:
            return json.loads(raw)
        except (ValueError, RecursionError) as err:  # JSONDecodeError, UnicodeDecodeError, nested too deep
            raise _malformed(name, err) from err

    async def _read(self, resp: Any) -> bytes:
        """The body of a 2xx reply, decoded, at most ``max_reply_bytes`` of it (else ``too_large``)."""
        cap, length = self.max_reply_bytes, resp.content_length
        if length is not None and length > cap:
            raise _too_large(self.name, cap, length)
        encoding = resp.headers.get("Content-Encoding", "").strip().lower()
        if length is not None and encoding in ("", "identity"):
            return bytes(await resp.read())  # the parser stops at Content-Length: one read, at most the cap
        # compressed (Content-Length is then the size on the wire: 1 MB of gzip inflates to 1 GB) or chunked:
        # the decoded body 64 KiB at a time, stopped past the cap, so a huge reply never costs more than it
        reply = bytearray()
        async for chunk in resp.content.iter_chunked(1 << 16):
            reply += chunk
            if len(reply) > cap:
                raise _too_large(self.name, cap, None)
        return bytes(reply)

    async def _failure(self, resp: Any, url: str) -> ClientError:
        """The failure of a redirect or an error reply (its message from at most ERROR_BODY_BYTES of body)."""
        if resp.status < 400:
            return redirect_error(self.name, resp.status, resp.headers.get("Location"), url)
        import aiohttp

        prefix = bytearray()
        try:
            while len(prefix) < ERROR_BODY_BYTES:
                chunk = await resp.content.read(ERROR_BODY_BYTES - len(prefix))
                if not chunk:
                    break
                prefix += chunk
        except (aiohttp.ClientError, OSError, TimeoutError, ValueError):  # unreadable: no message
            prefix.clear()
        return status_error(self.name, resp.status, resp.headers, bytes(prefix), secret=self._secret)

    async def aclose(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None
        self._loop = None


class OpenAISDKTransport(_OneEventLoop):
    """JSON posts through the ``openai`` SDK's ``AsyncOpenAI.post`` (SDK retries off: ours own them).

    The SDK's typed-parameter transform and response models are skipped (``cast_to=object``): they were
    the largest part of its client CPU per request.
    """

    def __init__(
        self, endpoint: EndpointConfig, *, timeout: float, max_reply_bytes: int = MAX_REPLY_BYTES
    ) -> None:
        import openai

        self.name = endpoint.name
        self.timeout = float(timeout)
        self.max_reply_bytes = int(max_reply_bytes)
        self._openai = openai
        self._secret = endpoint.api_key()
        # the SDK's own HTTP client, but redirects not followed, and a reply that is not a 2xx fails in the
        # hook, from at most ERROR_BODY_BYTES of its body (the SDK would read all of it for its message)
        http = openai.DefaultAsyncHttpxClient(
            timeout=timeout, follow_redirects=False, event_hooks={"response": [self._check_status]}
        )
        self._client = openai.AsyncOpenAI(
            api_key=self._secret, base_url=endpoint.base_url, timeout=timeout, max_retries=0, http_client=http
        )

    async def _check_status(self, response: Any) -> None:
        """The HTTP client's response hook: a redirect or an error reply raises its :class:`ClientError`."""
        status = int(response.status_code)
        if status < 300:
            return
        if status < 400:
            url = str(response.request.url)
            raise redirect_error(self.name, status, response.headers.get("location"), url)
        prefix = bytearray()
        try:
            async with contextlib.aclosing(response.aiter_bytes(1 << 14)) as chunks:
                async for chunk in chunks:
                    prefix += chunk
                    if len(prefix) >= ERROR_BODY_BYTES:
                        break
        except Exception:  # unreadable (a reset, a timeout of the HTTP library): no message
            prefix.clear()
        body = bytes(prefix[:ERROR_BODY_BYTES])
        raise status_error(self.name, status, response.headers, body, secret=self._secret)

    async def post_json(self, path: str, body: dict[str, Any], *, data_urls: bool = True) -> Any:
        self._enter_loop()
        oa, name = self._openai, self.name
        try:
            # the SDK's timeout bounds each connect / read / write, so a server that trickles its reply
            # could hold a request far past `timeout`; this bounds the whole request, as aiohttp's total does
            async with asyncio.timeout(self.timeout):
                # the raw response of a 2xx, its body not yet read (stream=True; _check_status raised on any
                # other status): read 64 KiB at a time, stopping past the cap, as the aiohttp transport does
                resp = await self._client.post(path, cast_to=_sdk_response_type(), body=body, stream=True)
                try:
                    cap = self.max_reply_bytes
                    length = resp.headers.get("content-length")
                    if length is not None and length.isdigit() and int(length) > cap:
                        raise _too_large(name, cap, int(length))
                    reply = bytearray()
                    async for chunk in resp.aiter_bytes(1 << 16):
                        reply += chunk
                        if len(reply) > cap:
                            raise _too_large(name, cap, None)
                finally:
                    await resp.aclose()
            return json.loads(bytes(reply))
        except ClientError:
            raise
        except _sdk_http_error() as err:  # the body is read here, outside the SDK: its HTTP library's errors
            raise (
                _timed_out(name) if "Timeout" in type(err).__name__ else _connection_error(name, err)
            ) from err
        except TimeoutError as err:
            raise _timed_out(name) from err
        except oa.APITimeoutError as err:
            raise _timed_out(name) from err
        except oa.APIConnectionError as err:
            raise _connection_error(name, err) from err
        except oa.APIStatusError as err:  # not seen: _check_status raised first
            raise status_error(name, int(err.status_code), getattr(err.response, "headers", None)) from err
        except (oa.APIResponseValidationError, ValueError, RecursionError) as err:  # JSONDecodeError, deep
            raise _malformed(name, err) from err

    async def aclose(self) -> None:
        await self._client.close()
        self._loop = None


def _sdk_response_type() -> Any:
    """The HTTP response class of the installed ``openai`` SDK (``httpx2`` from 3.x, ``httpx`` before), which
    as ``cast_to`` makes ``post`` return the raw response."""
    try:
        import httpx2

        return httpx2.Response
    except ImportError:
        import httpx

        return httpx.Response


def _sdk_http_error() -> type[Exception]:
    """The base class of the errors of the ``openai`` SDK's HTTP library (``httpx2.HTTPError`` or
    ``httpx.HTTPError``)."""
    try:
        import httpx2

        return httpx2.HTTPError
    except ImportError:
        import httpx

        return httpx.HTTPError


def make_transport(
    endpoint: EndpointConfig, *, timeout: float, max_reply_bytes: int = MAX_REPLY_BYTES
) -> Transport:
    """The endpoint's configured transport (``endpoint.transport``), with ``timeout`` seconds per request and
    replies of at most ``max_reply_bytes``."""
    if endpoint.transport == "aiohttp":
        return AiohttpTransport(endpoint, timeout=timeout, max_reply_bytes=max_reply_bytes)
    if endpoint.transport == "openai":
        return OpenAISDKTransport(endpoint, timeout=timeout, max_reply_bytes=max_reply_bytes)
    raise InputError(
        f"endpoint {endpoint.name!r}: unknown transport {endpoint.transport!r}; expected one of {TRANSPORTS}"
    )
