"""The grading judge: strict JSON, bounded re-asks, failures recorded as ungraded (never as 0)."""

from __future__ import annotations

import asyncio

import pytest

from benchsift.clients import ClientError, Request, Response
from benchsift.errors import InputError
from benchsift.prism.build import Artifact
from benchsift.prism.grade import grade_records
from benchsift.prism.judge import Judge, JudgeFailure
from benchsift.prism.sources import Item, load_hf


class Replies:
    def __init__(self, texts: list[str]) -> None:
        self.texts = list(texts)
        self.requests: list[Request] = []

    async def generate(self, request: Request) -> Response:
        self.requests.append(request)
        t = self.texts.pop(0) if len(self.texts) > 1 else self.texts[0]
        if t == "ERROR":
            raise ClientError("HTTP 500", retryable=True, status=500)
        return Response(t)


def test_reasks_then_accepts() -> None:
    client = Replies(["The verdict is 1", '{"verdict": 2}', '```json\n{"verdict": 1, "reason": "ok"}\n```'])
    judge = Judge(client, "j", max_reasks=2)
    assert asyncio.run(judge.q_verdict("Q?", "a", "a")) == 1
    assert len(client.requests) == 3
    last = client.requests[-1].messages
    assert [m["role"] for m in last] == ["user", "assistant", "user", "assistant", "user"]
    assert "invalid" in last[-1]["content"] and '"verdict" must be 0 or 1' in last[-1]["content"]
    assert all(r.max_tokens == 384 and r.temperature == 0.0 for r in client.requests)


def test_gives_up_after_bounded_reasks() -> None:
    client = Replies(["nope"])
    with pytest.raises(JudgeFailure, match="after 2 attempts"):
        asyncio.run(Judge(client, "j", max_reasks=1).vis_choice("A"))
    assert len(client.requests) == 2
    with pytest.raises(JudgeFailure, match="HTTP 500"):
        asyncio.run(Judge(Replies(["ERROR"]), "j").sc_changed("q", "a", "b"))


def test_list_verdicts_must_match_the_count() -> None:
    judge = Judge(Replies(['{"verdicts": [1, 0]}', '{"verdicts": [1, 0, 1]}']), "j")
    assert asyncio.run(judge.mq_verdicts("block", "resp", 3)) == [1, 0, 1]


def test_grade_failure_is_unanswered_not_zero() -> None:
    item = Item("b/1", "b", "d", "What color?", ["red"])
    recs = [
        {"model": "m", "item": "b/1", "axis": "q", "answered": True, "response": "red"},
        {"model": "m", "item": "b/1", "axis": "vis", "answered": True, "response": "hmm"},
    ]
    arts = [Artifact("b/1", "vis", "ok", {"caption_a": "x", "caption_b": "y", "gold_letter": "A"})]
    df, log = asyncio.run(grade_records(recs, [item], arts, judge=Judge(Replies(["garbage"]), "j")))
    assert not df["answered"].any() and df["score"].isna().all()
    assert [r["status"] for r in log] == ["grade_failed", "grade_failed"]
    # rules mode needs no judge; an unextractable A/B choice is a wrong answer, not a missing one
    df2, _ = asyncio.run(grade_records(recs, [item], arts, grader="rules"))
    assert df2.set_index("axis")["score"].to_dict() == {"q": 1.0, "vis": 0.0}
    with pytest.raises(InputError, match="needs a judge"):
        asyncio.run(grade_records(recs, [item], arts, grader="judge"))


def test_hf_loading_needs_the_optional_extra(tmp_path) -> None:
    try:
        import datasets  # noqa: F401
    except ImportError:
        with pytest.raises(InputError, match=r"pip install 'benchsift\[hf\]'"):
            load_hf("okvqa", tmp_path)
    else:
        pytest.skip("datasets is installed; the lazy-import error path cannot be exercised")
