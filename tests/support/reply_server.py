"""A local HTTP server on 127.0.0.1 that sends exactly the reply a test scripts: any status, headers and body
bytes (compressed, chunked, a redirect, an error envelope), one reply per request, and logs every request.

Unlike tests/support/fake_server.py (a scripted world of models), the reply here is a function of the
request number and the request itself, so a test states the shape a real server or gateway sends.
"""

from __future__ import annotations

import json
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted reply: ``status``, extra ``headers`` (``Content-Type`` defaults to JSON), ``body`` as
    bytes, sent with a ``Content-Length`` unless ``chunked``."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    chunked: bool = False


@dataclass
class Seen:
    """One request as the server received it: its number (1-based), path (absolute-form through a forward
    proxy), headers (lower-case names) and parsed JSON body (None when it had none)."""

    n: int
    path: str
    headers: dict[str, str]
    body: Any


def completion(text: str | None, finish: str | None = "stop", escaped: bool = True) -> bytes:
    """An OpenAI chat completion with one choice; ``escaped``: non-ASCII as ``\\uXXXX`` escapes (so a lone
    surrogate in ``text`` travels as the JSON escape a JavaScript gateway would send)."""
    doc = {
        "id": "chatcmpl-x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
    }
    return json.dumps(doc, ensure_ascii=escaped).encode("ascii" if escaped else "utf-8")


def error_body(message: str, type_: str | None = None, code: Any = None) -> bytes:
    """The OpenAI error envelope ``{"error": {"message", "type", "param", "code"}}`` (vLLM and Ollama send
    the same shape)."""
    return json.dumps({"error": {"message": message, "type": type_, "param": None, "code": code}}).encode()


def gzipped(head: bytes, fill: bytes = b"", repeat: int = 0, tail: bytes = b"") -> bytes:
    """``head + fill * repeat + tail`` gzip-compressed piece by piece: a small body on the wire that may
    inflate to a large one (nginx's ``gzip on`` compresses JSON this way)."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [c.compress(head)] + [c.compress(fill) for _ in range(repeat)] + [c.compress(tail), c.flush()]
    return b"".join(out)


class ReplyServer:
    """``respond(seen) -> Reply`` answers each POST; ``url`` is the ``/v1`` base URL, ``seen`` the log."""

    def __init__(self, respond: Callable[[Seen], Reply]) -> None:
        self.respond = respond
        self.seen: list[Seen] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802  (a 302 turned the POST into a GET)
                self._answer(b"")

            def do_POST(self) -> None:  # noqa: N802
                self._answer(self.rfile.read(int(self.headers.get("Content-Length", 0))))

            def _answer(self, raw: bytes) -> None:
                with server.lock:
                    seen = Seen(
                        n=len(server.seen) + 1,
                        path=self.path,
                        headers={k.lower(): v for k, v in self.headers.items()},
                        body=json.loads(raw) if raw else None,
                    )
                    server.seen.append(seen)
                reply = server.respond(seen)
                self.send_response(reply.status)
                headers = {"Content-Type": "application/json", **reply.headers}
                for k, v in headers.items():
                    self.send_header(k, v)
                if reply.chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                try:
                    if not reply.chunked:
                        self.wfile.write(reply.body)
                        return
                    for i in range(0, len(reply.body), 1 << 16):
                        part = reply.body[i : i + (1 << 16)]
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                    self.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading (a capped reply): expected

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ReplyServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
