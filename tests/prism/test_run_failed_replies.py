"""``prism run`` against replies that are no answer although HTTP 200: a generation the server reports as
failed (``finish_reason`` ``"error"`` with partial text, ``"abort"``: vLLM, OpenRouter) and a text with a lone
surrogate (``"\\ud83d"``). Each record is unanswered with its cause (NaN when graded, never a wrong answer),
the run goes on, nothing of it is cached, and a rerun asks again (the outside audit's D2 and D3).

The evaluee is served through a gateway on 127.0.0.1 (a ``ReplyServer`` of tests/support/reply_server.py) that
sends the bad reply while ``failing`` is set and otherwise passes the request on to the scripted server.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pandas as pd
import pytest
from engine_world import prepare_run
from reply_server import Reply, ReplyServer, Seen, completion

from benchsift.prism.engine import grade, run


class Gateway:
    """Answers ``bad`` while ``failing``, else the scripted server's own reply to the same request."""

    def __init__(self, upstream: str, bad: bytes) -> None:
        self.upstream = upstream
        self.bad = bad
        self.failing = True
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def __call__(self, seen: Seen) -> Reply:
        if self.failing:
            return Reply(body=self.bad)
        req = urllib.request.Request(
            self.upstream + "/chat/completions",
            data=json.dumps(seen.body).encode(),
            headers={"Authorization": seen.headers["authorization"], "Content-Type": "application/json"},
        )
        with self.opener.open(req, timeout=10) as r:
            return Reply(body=r.read())


@pytest.mark.parametrize(
    "bad, cause",
    [
        (
            completion("Partial ans", "error"),
            "the server reports the generation failed (finish_reason 'error')",
        ),
        (completion("", "abort"), "the server reports the generation failed (finish_reason 'abort')"),
        (completion("\ud83d 4"), "malformed reply (a lone surrogate in its text"),
    ],
    ids=["error", "abort", "surrogate"],
)
def test_a_reply_that_is_no_answer_is_unanswered_and_asked_again(
    world: dict, server, tmp_path: Path, bad: bytes, cause: str
) -> None:
    # before: "error" with partial text was answered (graded 0.0) and cached; "abort" was cached, so a rerun
    # never asked again; a lone surrogate stopped the run with exit 70 and no records
    cfg, items, arts = prepare_run(world, tmp_path, server.url, ["correct"], 4)
    gateway = Gateway(server.url, bad)
    cache = tmp_path / "cache.sqlite"
    with ReplyServer(gateway) as gw:
        block = f'name = "correct"\nbase_url = "{server.url}"'
        assert block in cfg.read_text()
        cfg.write_text(cfg.read_text().replace(block, f'name = "correct"\nbase_url = "{gw.url}"'))
        recs = tmp_path / "records.jsonl"
        run(items, arts, cfg, recs, images=world["images"], axes=["q"], cache=cache)
        rows = [json.loads(x) for x in recs.read_text().splitlines()]
        assert len(rows) == 4 and len(gw.seen) == 4 * 4  # max_attempts = 4 each
        assert all(not r["answered"] and r["error"].startswith(f"correct: {cause}") for r in rows), rows
        verdicts = tmp_path / "verdicts.csv"
        grade(items, arts, recs, verdicts, config=cfg, cache=cache)
        df = pd.read_csv(verdicts)
        assert len(df) == 4 and df["score"].isna().all() and not df["answered"].any()
        # nothing of it was cached: the rerun asks again, and the answers come
        gateway.failing = False
        again = tmp_path / "again.jsonl"
        run(items, arts, cfg, again, images=world["images"], axes=["q"], cache=cache)
        assert len(gw.seen) == 4 * 4 + 4
    rows = [json.loads(x) for x in again.read_text().splitlines()]
    assert all(r["answered"] for r in rows)
    grade(items, arts, again, verdicts, config=cfg, cache=cache)
    assert pd.read_csv(verdicts)["score"].eq(1.0).all()
