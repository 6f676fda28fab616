"""Run: every model over every applicable (item, axis), at temperature 0 (PRISM-VLM Sec. 4, App. C).

Per-axis prompts: q the item's question; if the question plus its numbered constraints; h the trap
question; mq the original question and the extras as one numbered bundle; c the counting question; vis
the two captions as a forced A/B choice; sc the question (turn 0, the same request as q, so asked
once) followed by the pressure turns of Fig. 10 (template per turn chosen by the item's hash; Q3
carries the built wrong answer). The dialogue stops at the first flip (``full_dialogue=False``, the
paper's protocol) or plays all three turns (``full_dialogue=True``, the paper's proposed fix); a flip
is a change of the committed answer between consecutive turns, decided by the judge (Fig. 15) when one
is given, else by the rule of :func:`benchsift.prism.matching.extract_answer`.

Output budgets: 512 tokens (q, if, h, c, vis), 1024 (mq), 512 per sc turn, overridable per model in
the config. Images travel as base64 data URLs in chat content parts. A request that still fails after
the retries (or returns no text) is recorded as unanswered, never as a wrong answer.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from benchsift.clients.base import ClientError, ModelClient, Request
from benchsift.prism.axes import (
    AXES,
    BUDGETS,
    IF_EVALUEE,
    MQ_EVALUEE,
    PRESSURE_TEMPLATES,
    VIS_EVALUEE,
    fill,
    stable_hash,
)
from benchsift.prism.build import Artifact
from benchsift.prism.constraints import instructions
from benchsift.prism.judge import Judge, JudgeFailure, capture_exchanges
from benchsift.prism.matching import extract_answer
from benchsift.prism.sources import Item
from benchsift.prism.stage_io import ImageStore, gather_bounded, user_message
from benchsift.progress import ProgressFn

__all__ = ["ModelSpec", "applicable", "evaluee_prompt", "pressure_turn", "run_models"]


@dataclass
class ModelSpec:
    """An evaluee: its display name, client, API model id and per-axis budget overrides."""

    name: str
    client: ModelClient
    model_id: str
    budgets: dict[str, int] = field(default_factory=dict)

    def budget(self, axis: str) -> int:
        return int(self.budgets.get(axis, BUDGETS[axis]))


def applicable(item: Item, axis: str, arts: dict[tuple[str, str], Artifact]) -> bool:
    """q always; sc needs its Q3 hint; the other axes need an artifact with status ``ok``."""
    if axis == "q":
        return True
    a = arts.get((item.id, axis))
    return a is not None and a.status == "ok"


def evaluee_prompt(item: Item, axis: str, art: Artifact | None) -> str:
    """The text the model sees for one (item, axis) (turn 0 for sc)."""
    if axis in ("q", "sc"):
        return item.prompt
    assert art is not None and art.data is not None
    d = art.data
    if axis == "if":
        return fill(IF_EVALUEE, question=item.prompt, constraints=instructions(d["constraints"]))
    if axis in ("h", "c"):
        return str(d["question"])
    if axis == "mq":
        qs = [" ".join(q.split()) for q in [item.prompt] + [e["question"] for e in d["extras"]]]
        block = "\n".join(f"{i}. {q}" for i, q in enumerate(qs, 1))
        return fill(MQ_EVALUEE, n=len(qs), questions=block)
    if axis == "vis":
        return fill(VIS_EVALUEE, caption_a=d["caption_a"], caption_b=d["caption_b"])
    raise ValueError(f"unknown axis {axis!r}")


def pressure_turn(item: Item, turn: int, wrong: str) -> str:
    """The text of pressure turn ``turn`` (1-3) for ``item`` (Fig. 10 pools, template by hash)."""
    pool = PRESSURE_TEMPLATES[turn]
    return fill(pool[stable_hash("sc-template", item.id, turn) % len(pool)], wrong=wrong)


def _is_numeric(item: Item) -> bool:
    return all(a.strip().lstrip("-").isdigit() for a in item.answers)


async def _changed(
    item: Item, prev: str, curr: str, judge: Judge | None
) -> tuple[bool, str, list[dict[str, Any]]]:
    """Whether the committed answer changed (Fig. 15 judge, else the rule), how, and the judge exchanges."""
    exchanges: list[dict[str, Any]] = []
    if judge is not None:
        with capture_exchanges() as exchanges:
            try:
                return bool(await judge.sc_changed(item.prompt, prev, curr)), "judge", exchanges
            except JudgeFailure:
                pass
    kw = {"letter": item.letter_answer, "numeric": _is_numeric(item)}
    return extract_answer(prev, **kw) != extract_answer(curr, **kw), "rules", exchanges


async def _run_one(
    spec: ModelSpec,
    item: Item,
    axis: str,
    art: Artifact | None,
    images: ImageStore,
    judge: Judge | None,
    full_dialogue: bool,
) -> dict[str, Any]:
    text = evaluee_prompt(item, axis, art)
    rec: dict[str, Any] = {
        "model": spec.name,
        "item": item.id,
        "benchmark": item.benchmark,
        "domain": item.domain,
        "axis": axis,
        "prompt": text,
        "response": None,
        "answered": False,
        "error": None,
        "usage": {"prompt_tokens": 0, "completion_tokens": 0},
    }
    messages: list[dict[str, Any]] = [user_message(text, images.urls(item))]
    budget = spec.budget(axis)

    finish: list[str | None] = [None]  # finish_reason of the last reply (named when it had no text)

    async def ask() -> str | None:
        resp = await spec.client.generate(
            Request(model=spec.model_id, messages=tuple(messages), max_tokens=budget)
        )
        rec["usage"]["prompt_tokens"] += resp.prompt_tokens
        rec["usage"]["completion_tokens"] += resp.completion_tokens
        finish[0] = resp.finish_reason
        return resp.text if resp.text and resp.text.strip() else None

    def empty() -> str:
        # named like a ClientError ("<endpoint>: ..."), so the stage's most common cause says which model
        return f"{spec.name}: reply has no text (finish_reason {finish[0]!r})"

    try:
        first = await ask()
    except ClientError as err:
        rec["error"] = str(err)
        return rec
    rec["response"] = first
    if first is None:
        rec["error"] = empty()
        return rec
    if axis != "sc":
        rec["answered"] = True
        return rec
    assert art is not None and art.data is not None
    wrong = str(art.data["wrong_answer"])
    turns = [{"turn": 0, "prompt": text, "response": first}]
    changes: list[int | None] = [None, None, None]
    flip: int | None = None
    prev = first
    for t in (1, 2, 3):
        if flip is not None and not full_dialogue:
            break
        q = pressure_turn(item, t, wrong)
        messages += [{"role": "assistant", "content": prev}, {"role": "user", "content": q}]
        try:
            cur = await ask()
        except ClientError as err:
            rec["error"] = f"turn {t}: {err}"
            rec["turns"] = turns
            return rec
        if cur is None:
            rec["error"] = f"turn {t}: {empty()}"
            rec["turns"] = turns
            return rec
        changed, how, exchanges = await _changed(item, prev, cur, judge)
        turn: dict[str, Any] = {
            "turn": t,
            "prompt": q,
            "response": cur,
            "changed": int(changed),
            "change_by": how,
        }
        if exchanges:
            turn["judge"] = exchanges
        turns.append(turn)
        changes[t - 1] = int(changed)
        if changed and flip is None:
            flip = t
        prev = cur
    rec.update(
        answered=True,
        turns=turns,
        changes=changes,
        flip_turn=flip,
        wrong_answer=wrong,
        full_dialogue=full_dialogue,
    )
    return rec


async def run_models(
    items: Sequence[Item],
    artifacts: Sequence[Artifact],
    models: Sequence[ModelSpec],
    *,
    axes: Sequence[str] = AXES,
    image_root: str | None = None,
    item_file: str | os.PathLike[str] | None = None,
    sc_judge: Judge | None = None,
    full_dialogue: bool = False,
    progress: ProgressFn | None = None,
) -> list[dict[str, Any]]:
    """One record per (model, item, applicable axis): prompt, response(s), answered, error, usage.

    ``item_file``, the file ``items`` came from, is named in an error about an item's image path."""
    arts = {(a.item, a.axis): a for a in artifacts}
    images = ImageStore(image_root, item_file)
    jobs = [
        (spec, item, axis)
        for spec in models
        for item in items
        for axis in axes
        if applicable(item, axis, arts)
    ]
    images.check(it for _, it, _ in jobs)  # every image path checked (and read) before the first request
    return await gather_bounded(
        [
            partial(_run_one, s, it, ax, arts.get((it.id, ax)), images, sc_judge, full_dialogue)
            for s, it, ax in jobs
        ],
        progress=progress,
    )
