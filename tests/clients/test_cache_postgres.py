"""The PostgreSQL cache backend on a real server (``pg_server``, tests/support): what differs from SQLite.

The shared behaviour (leases, expiry, takeover, racing claims, several ``prism run`` processes, kill -9
resume) is tested on both backends in test_shared_cache.py and test_resilience.py.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

import psycopg
import pytest
from engine_world import invoke, run_args, write_config

from benchsift.clients.base import Request, Response
from benchsift.clients.cache import ResponseCache, redact_url
from benchsift.clients.cache_postgres import PostgresCache
from benchsift.clients.config import config_from_dict
from benchsift.errors import InputError

REQ = Request(model="m", messages=({"role": "user", "content": "hi"},))


def test_url_opens_postgres_and_round_trips(pg_database) -> None:
    url = pg_database()
    c = ResponseCache(url)
    try:
        assert isinstance(c, PostgresCache) and c.created is False
        assert c.get("k") is None and len(c) == 0
        assert c.claim("k") == "claimed"
        (owner, expires), now = c.leases()["k"], time.time()
        assert owner == c.owner and now + 25 < expires < now + 35  # the server's clock + 30 s
        resp = Response(text="é ✓ \x00 end", finish_reason="stop", prompt_tokens=3, completion_tokens=4)
        c.put("k", "http://x/v1", REQ, resp)
        got = c.get("k")
        assert got is not None and got.cached and (got.text, got.prompt_tokens) == (resp.text, 3)
        assert c.keys() == {"k"} and c.leases() == {}
    finally:
        c.close()
    with psycopg.connect(url) as conn:  # what is stored: the canonical request, the endpoint
        endpoint, request = conn.execute("SELECT endpoint, request FROM responses").fetchone()
    assert endpoint == "http://x/v1" and request == REQ.canonical


def test_first_writer_wins_and_tables_are_created_once(pg_database) -> None:
    url = pg_database()
    a, b = ResponseCache(url), ResponseCache(url)  # the second open finds the tables
    try:
        a.put("k", "u", REQ, Response(text="first"))
        b.put("k", "u", REQ, Response(text="second"))
        assert b.get("k").text == "first" and len(a) == 1
    finally:
        a.close()
        b.close()


def test_foreign_tables_are_refused(pg_database) -> None:
    url = pg_database()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE responses (id INT PRIMARY KEY, body TEXT)")
    with pytest.raises(InputError, match=r"table 'responses' is not a benchsift response cache's") as err:
        ResponseCache(url)
    assert "\n" not in str(err.value)


def test_unreachable_server_is_one_line_without_the_password() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql://bench:s3cret@127.0.0.1:{port}/db"
    with pytest.raises(InputError, match="cannot connect to the cache database") as err:
        ResponseCache(url)
    msg = str(err.value)
    assert "s3cret" not in msg and msg.startswith(f"postgresql://bench:***@127.0.0.1:{port}/db: ")
    assert "\n" not in msg


def test_other_url_schemes_are_refused() -> None:
    with pytest.raises(InputError, match=r"unsupported cache URL scheme 'mysql'"):
        ResponseCache("mysql://u:pw@host/db")
    assert redact_url("postgresql://u:pw@h/db?password=x&sslmode=require") == (
        "postgresql://u:***@h/db?password=***&sslmode=require"
    )


def test_lost_connection_is_one_line(pg_server, pg_database) -> None:
    c = ResponseCache(pg_database())
    try:
        with psycopg.connect(pg_server.url, autocommit=True) as admin:
            pid = c._conn.info.backend_pid
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(InputError, match="lost the cache database") as err:
            c.get("k")
        assert "\n" not in str(err.value)
    finally:
        c.close()


def test_config_keeps_a_database_url(tmp_path: Path) -> None:
    raw = {
        "cache": "postgresql://u@db.example/cache",
        "endpoint": [{"name": "a", "base_url": "http://x/v1", "model": "m"}],
    }
    assert config_from_dict(raw, base_dir=tmp_path).cache == "postgresql://u@db.example/cache"
    raw["cache"] = "c.sqlite"
    assert config_from_dict(raw, base_dir=tmp_path).cache == tmp_path / "c.sqlite"


@pytest.mark.slow
def test_prism_run_on_a_database_cache_then_a_rerun_sends_nothing(
    world: dict, server, tmp_path: Path, pg_database
) -> None:
    """``cache = "postgresql://..."`` in the config: the build's and the run's answers land in the
    database, a rerun sends no request, and nothing is written next to the output (no SQLite file)."""
    root, img = world["root"], world["images"]
    url = pg_database()
    cfg = write_config(tmp_path / "models.toml", server.url, ["correct"], extra=f'cache = "{url}"')
    items = tmp_path / "items.jsonl"
    invoke("sources", "--raw", f"okvqa={root / 'okvqa.jsonl'}", "--no-sample", "--out", str(items))
    items.write_text("\n".join(items.read_text().splitlines()[:6]) + "\n")
    arts = tmp_path / "artifacts.jsonl"
    build = ["build", "--items", str(items), "--images", str(img), "--config", str(cfg), "--out", str(arts)]
    built = invoke(*build)
    first = invoke(*run_args(items, arts, img, cfg, tmp_path / "r1.jsonl"))
    assert first["calls"]["requests"] > 0 and first["unanswered"] == 0
    c = ResponseCache(url)
    stored = len(c)
    c.close()
    # every distinct request of the build (judge) and of the run answered once and stored
    assert stored == built["calls"]["requests"] + first["calls"]["requests"]
    again = invoke(*run_args(items, arts, img, cfg, tmp_path / "r2.jsonl"))
    assert again["calls"]["requests"] == 0 and again["calls"]["cache_hits"] > 0
    assert (tmp_path / "r1.jsonl").read_text() == (tmp_path / "r2.jsonl").read_text()
    assert not list(tmp_path.glob("*.sqlite*"))
