"""Stop an endpoint at its first fatal failure: a bad key, an invalid URL, a closed port.

Retrying cannot mend a rejected API key (HTTP 401/403), an account out of quota or credit (HTTP 402, a
429 ``insufficient_quota``), a base URL that is not a URL, a refused connection or an untrusted
certificate, and sending every remaining request into it only repeats the failure (issue 12: a 401 used to
cost 36 more calls; a 429 ``insufficient_quota`` cost 240 calls for 40 items). :class:`StopOnFatalClient`
sits inside the concurrency limit of one endpoint (``ClientPool``: retry -> limit -> stop-on-fatal -> HTTP),
so while the probe is in flight only the requests holding a slot wait on it, and its answer wakes at most the
concurrency, not every queued request (issue 36: waking all of them cost a pass over thousands of tasks
before the first slots were refilled):

* until the endpoint has answered one request (successfully, or with an error that is not fatal), the
  other requests wait, so a bad key or a closed port costs exactly one call;
* after a fatal error (:attr:`ClientError.fatal`), every later request fails at once with the same
  error, without touching the network. Requests already in flight when a later fatal error arrives (a
  key revoked mid-run) finish as they may: at most the endpoint's concurrency limit.
"""

from __future__ import annotations

import asyncio

from benchsift.clients.base import ClientError, ModelClient, Request, Response

__all__ = ["StopOnFatalClient"]


class StopOnFatalClient:
    """Wrap one endpoint's client: probe with the first request, then stop at the first fatal error.

    While the probe is in flight the other requests wait on one future and all go on together when it
    ends (they used to pass an :class:`asyncio.Lock` one at a time, one event-loop pass each); if the probe
    was cancelled, one of them becomes the next probe.
    """

    def __init__(self, inner: ModelClient) -> None:
        self.inner = inner
        self.stopped: ClientError | None = None
        self._probing: asyncio.Future[None] | None = None
        self._open = False

    def _fail_fast(self) -> None:
        err = self.stopped
        if err is not None:
            raise ClientError(f"{err} (endpoint stopped)", retryable=False, status=err.status, kind=err.kind)

    async def _probe(self, request: Request) -> Response:
        """Send ``request`` as the probe: open the endpoint unless it fails fatally; wake the waiters."""
        self._probing = asyncio.get_running_loop().create_future()
        try:
            resp = await self.inner.generate(request)
        except ClientError as err:
            if err.fatal and self.stopped is None:
                self.stopped = err
            if not err.fatal:
                self._open = True
            raise
        finally:
            done, self._probing = self._probing, None
            done.set_result(None)
        self._open = True
        return resp

    async def generate(self, request: Request) -> Response:
        self._fail_fast()
        while not self._open:
            if self._probing is None:
                return await self._probe(request)
            await asyncio.shield(self._probing)  # shielded: a cancelled waiter leaves the others waiting
            self._fail_fast()
        try:
            return await self.inner.generate(request)
        except ClientError as err:
            if err.fatal and self.stopped is None:
                self.stopped = err
            raise
