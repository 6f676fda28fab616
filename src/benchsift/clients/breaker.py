"""Stop an endpoint at its first fatal failure: a bad key, an invalid URL, a closed port.

Retrying cannot mend a rejected API key (HTTP 401/403), a base URL that is not a URL, a refused
connection or an untrusted certificate, and sending every remaining request into it only repeats the
failure (issue 12: a 401 used to cost 36 more calls). :class:`StopOnFatalClient` sits between the retry
layer and the concurrency limit of one endpoint:

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
    """Wrap one endpoint's client: probe with the first request, then stop at the first fatal error."""

    def __init__(self, inner: ModelClient) -> None:
        self.inner = inner
        self.stopped: ClientError | None = None
        self._probe: asyncio.Lock | None = None
        self._open = False

    def _fail_fast(self) -> None:
        err = self.stopped
        if err is not None:
            raise ClientError(f"{err} (endpoint stopped)", retryable=False, status=err.status, kind=err.kind)

    async def _send(self, request: Request) -> Response:
        try:
            resp = await self.inner.generate(request)
        except ClientError as err:
            if err.fatal and self.stopped is None:
                self.stopped = err
            if not err.fatal:
                self._open = True
            raise
        self._open = True
        return resp

    async def generate(self, request: Request) -> Response:
        self._fail_fast()
        if not self._open:
            if self._probe is None:  # created lazily so that it binds to the running event loop
                self._probe = asyncio.Lock()
            async with self._probe:
                self._fail_fast()
                if not self._open:
                    return await self._send(request)
        return await self._send(request)
