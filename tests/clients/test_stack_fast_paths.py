"""The per-request shortcuts of the client stack (issue 36) give what the long way gave.

* ``Request.canonical`` (the text of every cache key) is ``canonical_json(request.loggable())``, also when it
  skips the copy that replaces data URLs (a request without one);
* ``Request.has_data_urls`` never misses a data URL, so ``json_bytes(body, data_urls=...)`` (the plain
  encoder when there is none) is byte for byte the ``json.dumps`` of the body;
* :class:`StopOnFatalClient` lets the requests that waited for the probe go on together, still sends a
  bad key exactly once, and hands the probe to a waiter when the probe is cancelled.
"""

from __future__ import annotations

import asyncio
import hashlib
import json

from hypothesis import given
from hypothesis import strategies as st

from benchsift.clients import ClientError, Request, Response, image_data_url
from benchsift.clients.base import canonical_json, json_bytes
from benchsift.clients.breaker import StopOnFatalClient


def _has_data_url(obj: object) -> bool:
    """The definition, walked plainly: a ``"url"`` key whose value is a string starting ``data:``."""
    if isinstance(obj, dict):
        return any(
            (k == "url" and isinstance(v, str) and v.startswith("data:")) or _has_data_url(v)
            for k, v in obj.items()
        )
    if isinstance(obj, list | tuple):
        return any(_has_data_url(v) for v in obj)
    return False


leaves = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
trees = st.recursive(
    leaves | st.just("data:x") | st.just('"url":"sha256:'),
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.dictionaries(
            st.sampled_from(["url", "text", "type", "image_url"]) | st.text(max_size=4), kids, max_size=4
        )
    ),
    max_leaves=20,
)


@given(trees, st.lists(st.binary(max_size=32), max_size=2))
def test_has_data_urls_never_misses_one_and_the_body_bytes_stay_the_same(tree, images: list[bytes]) -> None:
    parts = [{"type": "text", "text": "q"}, tree]
    parts += [{"type": "image_url", "image_url": {"url": image_data_url(b)}} for b in images]
    req = Request(model="m", messages=({"role": "user", "content": parts},))
    body = req.payload()
    if _has_data_url(body):
        assert req.has_data_urls
    assert json_bytes(body, data_urls=req.has_data_urls) == json.dumps(body, ensure_ascii=False).encode()


@given(trees, st.lists(st.binary(max_size=32), max_size=2), st.text(max_size=8))
def test_the_canonical_text_is_the_loggable_request_s_canonical_json(
    tree, images: list[bytes], endpoint
) -> None:
    parts = [{"type": "text", "text": 'say "url":"data:x" back'}, tree]
    parts += [{"type": "image_url", "image_url": {"url": image_data_url(b)}} for b in images]
    plain = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_json(parts) == plain
    for content in (parts, tree, "plain text"):
        req = Request(model="m", messages=({"role": "user", "content": content},), extra=(("url", "data:y"),))
        for r in (req, Request(model="m", messages=({"role": "user", "content": content},))):
            assert r.canonical == canonical_json(r.loggable())
            # the key as the cache defined it: the canonical JSON of the endpoint and the loggable request
            whole = canonical_json({"endpoint": endpoint.rstrip("/"), "request": r.loggable()})
            assert r.key(endpoint) == hashlib.sha256(whole.encode()).hexdigest()


def test_a_text_request_has_no_data_urls_and_an_image_request_has() -> None:
    text = Request(model="m", messages=({"role": "user", "content": "what is 2 + 2?"},))
    image = Request(
        model="m",
        messages=(
            {
                "role": "user",
                "content": [{"type": "image_url", "image_url": {"url": image_data_url(b"\x89PNG")}}],
            },
        ),
    )
    assert not text.has_data_urls and image.has_data_urls
    body = image.payload()
    assert json_bytes(body, data_urls=True) == json.dumps(body, ensure_ascii=False).encode()


class Gate:
    """An inner client whose calls wait for ``open`` and then answer (or raise ``error``), counting them."""

    def __init__(self, error: ClientError | None = None) -> None:
        self.open = asyncio.Event()
        self.calls = 0
        self.error = error

    async def generate(self, request: Request) -> Response:
        self.calls += 1
        await self.open.wait()
        if self.error is not None:
            raise self.error
        return Response(text="ok")


REQ = Request(model="m", messages=({"role": "user", "content": "hi"},))


def test_the_waiters_go_on_together_once_the_probe_answers() -> None:
    async def go() -> tuple[int, int, int]:
        inner = Gate()
        client = StopOnFatalClient(inner)
        tasks = [asyncio.create_task(client.generate(REQ)) for _ in range(20)]
        for _ in range(3):
            await asyncio.sleep(0)
        during_probe = inner.calls
        inner.open.set()  # the probe answers (and every later call answers at once)
        for _ in range(6):  # a few event-loop passes; with a lock, one waiter went on per pass
            await asyncio.sleep(0)
        after = inner.calls
        done = sum(r.text == "ok" for r in await asyncio.gather(*tasks))
        return during_probe, after, done

    during_probe, after, done = asyncio.run(go())
    assert during_probe == 1  # only the probe is sent while it is in flight
    assert after == 20 and done == 20


def test_a_fatal_probe_costs_one_call_and_stops_every_waiter() -> None:
    async def go() -> tuple[int, list[BaseException | Response]]:
        inner = Gate(ClientError("e: HTTP 401", retryable=False, status=401, kind="401", fatal=True))
        client = StopOnFatalClient(inner)
        tasks = [asyncio.create_task(client.generate(REQ)) for _ in range(10)]
        await asyncio.sleep(0)
        inner.open.set()
        out = await asyncio.gather(*tasks, return_exceptions=True)
        return inner.calls, out

    calls, out = asyncio.run(go())
    assert calls == 1
    assert all(isinstance(e, ClientError) and e.status == 401 and not e.retryable for e in out)
    assert sum("endpoint stopped" in str(e) for e in out) == 9


def test_a_cancelled_probe_hands_the_probe_to_one_waiter() -> None:
    async def go() -> tuple[int, int, int, bool]:
        inner = Gate()
        client = StopOnFatalClient(inner)
        tasks = [asyncio.create_task(client.generate(REQ)) for _ in range(5)]
        for _ in range(3):
            await asyncio.sleep(0)
        first = inner.calls
        tasks[0].cancel()  # the probe
        for _ in range(6):
            await asyncio.sleep(0)
        second = inner.calls  # one waiter became the probe; the others still wait
        inner.open.set()
        out = await asyncio.gather(*tasks, return_exceptions=True)
        return (
            first,
            second,
            sum(isinstance(r, Response) for r in out),
            isinstance(out[0], asyncio.CancelledError),
        )

    first, second, answered, cancelled = asyncio.run(go())
    assert (first, second, answered, cancelled) == (1, 2, 4, True)
