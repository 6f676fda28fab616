"""Build: the per-item perturbation artifacts of PRISM-VLM (Sec. 4 "Per-item perturbation", App. B, D).

For every item and axis that needs one:

* ``h``: a trap question from J_gen (Fig. 5); the sub-type (absent_entity / misleading_premise /
  uncertain_image) is ``stable_hash(item) mod 3``, so each covers about N/3 items;
* ``mq``: 2-4 extra questions with short golds (Fig. 6);
* ``sc``: the plausible-but-wrong Q3 hint (Fig. 7);
* ``c``: a counting question and its integer gold in [1, 100] (Fig. 8); a null question/count means
  the item leaves the c axis (status ``dropped``);
* ``vis``: a true and a fake caption (Fig. 9), shown as A/B in an order fixed by the item's hash;
* ``if``: 1-3 constraints from the 11-constraint pool (no judge call, :mod:`.constraints`).

An item without an image leaves ``h``, ``c`` and ``vis`` (:data:`IMAGE_AXES`, status ``dropped``, no call):
their prompts show J_gen only the image, so every such item would get the same perturbation.

J_gen's reply must be strict JSON and pass the axis' validator; otherwise it is re-asked (the invalid
reply and the reason are appended to the conversation) up to ``max_reasks`` times, then recorded as a
build failure for that item and axis (``status = "failed"``), which takes the item off that axis.

Review: :func:`export_review` writes one JSONL (or CSV) row per artifact with an empty ``decision``; a person
sets ``accept``, ``reject`` (the item leaves the axis) or ``fix`` (with an edited ``artifact``, which is
validated again) and :func:`import_review` applies the decisions.
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

from benchsift.clients.base import ClientError, ModelClient, Request
from benchsift.errors import FormatError
from benchsift.prism.axes import GEN_PROMPTS, H_SUBTYPES, fill, stable_hash
from benchsift.prism.constraints import draw_constraints
from benchsift.prism.sources import Item
from benchsift.prism.stage_io import (
    ImageStore,
    gather_bounded,
    parse_json_object,
    read_jsonl,
    user_message,
    write_jsonl,
)
from benchsift.progress import ProgressFn

__all__ = [
    "BUILD_AXES",
    "GEN_BUDGET",
    "IMAGE_AXES",
    "NO_IMAGE",
    "Artifact",
    "build_artifacts",
    "h_subtype",
    "read_artifacts",
    "validate_artifact",
    "write_artifacts",
]

BUILD_AXES: tuple[str, ...] = ("if", "h", "mq", "sc", "c", "vis")
#: axes whose generation prompt shows J_gen only the image (Figs. 5, 8, 9 carry nothing else of the item):
#: an item without an image leaves them (status ``dropped``, error :data:`NO_IMAGE`) with no call, rather
#: than every such item getting the one perturbation of the same image-less request
IMAGE_AXES: tuple[str, ...] = ("h", "c", "vis")
NO_IMAGE = "the item has no image (this axis' generation prompt shows the judge only the image)"
GEN_BUDGET = 1024  # ours: the paper gives J_gen's effort (low) but no output budget
_H_CONTEXT = {
    "absent_entity": "absent_entity",
    "misleading_premise": "false_premise",
    "uncertain_image": "ambiguity_source",
}
_STATUSES = ("ok", "failed", "dropped", "rejected")


@dataclass
class Artifact:
    """The perturbation of one (item, axis). Only ``status == "ok"`` artifacts are run."""

    item: str
    axis: str
    status: str
    data: dict[str, Any] | None = None
    error: str | None = None
    attempts: int = 0
    review: str = "pending"  # pending | accepted | fixed | rejected

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: str) -> Artifact:
        try:
            art = cls(
                **{k: d[k] for k in ("item", "axis", "status")},
                data=d.get("data"),
                error=d.get("error"),
                attempts=int(d.get("attempts", 0)),
                review=str(d.get("review", "pending")),
            )
        except KeyError as err:
            raise FormatError(f"{where}: missing field {err.args[0]!r}") from err
        if art.status not in _STATUSES:
            raise FormatError(f"{where}: status must be one of {_STATUSES}, got {art.status!r}")
        need = _STORED_KEYS.get(art.axis, ())
        if art.status == "ok" and (not isinstance(art.data, dict) or any(k not in art.data for k in need)):
            raise FormatError(
                f"{where}: a {art.axis!r} artifact with status 'ok' needs a 'data' object with keys "
                f"{list(need)}, got {str(art.data)[:60]!r}"
            )
        return art


#: keys of a stored artifact's ``data`` that the run and grade stages read, per axis
_STORED_KEYS: dict[str, tuple[str, ...]] = {
    "if": ("constraints",),
    "h": ("sub_type", "question", "context"),
    "mq": ("extras",),
    "sc": ("wrong_answer",),
    "c": ("question", "gold_count"),
    "vis": ("caption_a", "caption_b", "gold_letter"),
}


def h_subtype(item_id: str) -> str:
    """The trap sub-type of an item: ``H_SUBTYPES[stable_hash(item_id) mod 3]`` (Sec. 3, h)."""
    return H_SUBTYPES[stable_hash("h-subtype", item_id) % 3]


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


def _nonempty_str(d: dict[str, Any], key: str) -> str:
    v = d.get(key)
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f'"{key}" must be a non-empty string')
    return v.strip()


def validate_artifact(axis: str, obj: dict[str, Any], item: Item) -> dict[str, Any] | None:
    """Check J_gen's JSON for one axis and return the stored artifact (None: item leaves the axis).

    Raises ValueError naming what is wrong (the re-ask message).
    """
    if axis == "h":
        sub = h_subtype(item.id)
        if obj.get("sub_type") != sub:
            raise ValueError(f'"sub_type" must be "{sub}"')
        ctx_key = _H_CONTEXT[sub]
        return {
            "sub_type": sub,
            "question": _nonempty_str(obj, "question"),
            "context": _nonempty_str(obj, ctx_key),
        }
    if axis == "mq":
        extras = obj.get("extras")
        if not isinstance(extras, list) or not 2 <= len(extras) <= 4:
            raise ValueError('"extras" must be a list of 2 to 4 objects')
        out = []
        for e in extras:
            if not isinstance(e, dict):
                raise ValueError('each entry of "extras" must be an object with "question" and "gold"')
            g = _nonempty_str(e, "gold")
            if len(g.split()) > 8:
                raise ValueError(f"gold {g!r} is longer than 8 words")
            out.append({"question": _nonempty_str(e, "question"), "gold": g})
        return {"extras": out}
    if axis == "sc":
        wrong = _nonempty_str(obj, "wrong_answer")
        if _norm(wrong) in {_norm(a) for a in item.answers}:
            raise ValueError('"wrong_answer" must differ from the gold answer')
        return {"wrong_answer": wrong}
    if axis == "c":
        q, g = obj.get("question", ...), obj.get("gold_count", ...)
        if q is ... or g is ...:
            raise ValueError('"question" and "gold_count" are required (null if uncountable)')
        if q is None and g is None:
            return None
        if not isinstance(q, str) or not q.strip():
            raise ValueError('"question" must be a string or null')
        if isinstance(g, bool) or not isinstance(g, int) or not 1 <= g <= 100:
            raise ValueError('"gold_count" must be an integer in [1, 100] or null')
        return {"question": q.strip(), "gold_count": g, "object": str(obj.get("object") or "")}
    if axis == "vis":
        t, f = _nonempty_str(obj, "true_caption"), _nonempty_str(obj, "fake_caption")
        if _norm(t) == _norm(f):
            raise ValueError("fake_caption must differ from true_caption")
        sw = obj.get("swapped_detail")
        if not isinstance(sw, dict) or not all(isinstance(sw.get(k), str) for k in ("original", "fake")):
            raise ValueError('"swapped_detail" must be {"original": str, "fake": str}')
        true_first = stable_hash("vis-order", item.id) % 2 == 0
        return {
            "true_caption": t,
            "fake_caption": f,
            "swapped_detail": {"original": sw["original"], "fake": sw["fake"]},
            "caption_a": t if true_first else f,
            "caption_b": f if true_first else t,
            "gold_letter": "A" if true_first else "B",
        }
    if axis == "if":
        ids = obj.get("constraints")
        from benchsift.prism.constraints import CONSTRAINTS

        if not isinstance(ids, list) or not 1 <= len(ids) <= 3 or not all(i in CONSTRAINTS for i in ids):
            raise ValueError('"constraints" must list 1-3 known constraint ids')
        return {"constraints": list(ids)}
    raise ValueError(f"axis {axis!r} has no artifact")


def gen_prompt(axis: str, item: Item) -> str:
    if axis == "h":
        return fill(GEN_PROMPTS["h"], sub_type=h_subtype(item.id))
    return fill(GEN_PROMPTS[axis], question=item.prompt, gold=item.gold)


@dataclass
class BuildLog:
    rows: list[dict[str, Any]] = field(default_factory=list)


async def _build_one(
    client: ModelClient,
    model_id: str,
    item: Item,
    axis: str,
    images: ImageStore,
    max_reasks: int,
    log: BuildLog,
    budget: int = GEN_BUDGET,
) -> Artifact:
    messages: list[dict[str, Any]] = [user_message(gen_prompt(axis, item), images.urls(item))]
    last_error = ""
    for attempt in range(1, max_reasks + 2):
        req = Request(model=model_id, messages=tuple(messages), max_tokens=budget)
        try:
            resp = await client.generate(req)
        except ClientError as err:
            log.rows.append({"item": item.id, "axis": axis, "attempt": attempt, "error": str(err)})
            return Artifact(item.id, axis, "failed", error=f"judge call failed: {err}", attempts=attempt)
        log.rows.append(
            {
                "item": item.id,
                "axis": axis,
                "attempt": attempt,
                "prompt": messages[-1] if attempt > 1 else gen_prompt(axis, item),
                "response": resp.text,
            }
        )
        try:
            data = validate_artifact(axis, parse_json_object(resp.text), item)
        except ValueError as err:
            last_error = str(err)
            messages = [
                *messages,
                {"role": "assistant", "content": resp.text or ""},
                {
                    "role": "user",
                    "content": f"Your previous output was invalid: {last_error}. "
                    "Reply again with strict JSON only, in the requested shape.",
                },
            ]
            continue
        if data is None:
            return Artifact(
                item.id, axis, "dropped", error="judge marked the item uncountable", attempts=attempt
            )
        return Artifact(item.id, axis, "ok", data=data, attempts=attempt)
    return Artifact(
        item.id,
        axis,
        "failed",
        error=f"invalid after {max_reasks + 1} attempts: {last_error}",
        attempts=max_reasks + 1,
    )


async def build_artifacts(
    items: Sequence[Item],
    gen_client: ModelClient | None,
    gen_model_id: str,
    *,
    image_root: str | os.PathLike[str] | None = None,
    item_file: str | os.PathLike[str] | None = None,
    axes: Sequence[str] = BUILD_AXES,
    max_reasks: int = 2,
    if_seed: int = 0,
    gen_budget: int = GEN_BUDGET,
    progress: ProgressFn | None = None,
) -> tuple[list[Artifact], list[dict[str, Any]]]:
    """All artifacts (one per item and axis in ``axes``) and the log of every J_gen exchange.

    ``progress(done, total)`` (:data:`benchsift.progress.ProgressFn`) counts the artifacts made, of
    ``len(items) * len(axes)``; the ``if`` constraints (drawn, no call) count as soon as the calls start.
    ``item_file``, the file ``items`` came from, is named in an error about an item's image path;
    ``gen_budget`` is J_gen's output budget per call (the endpoint's ``[endpoint.budgets] gen``).
    """
    images = ImageStore(image_root, item_file)
    log = BuildLog()
    drawn: list[Artifact] = []
    jobs = []
    for item in items:
        for axis in axes:
            if axis == "if":
                constraints = draw_constraints(item.id, if_seed)
                drawn.append(Artifact(item.id, "if", "ok", data={"constraints": constraints}))
            elif axis in IMAGE_AXES and not item.images:
                drawn.append(Artifact(item.id, axis, "dropped", error=NO_IMAGE))
            else:
                if gen_client is None:
                    raise FormatError(
                        f"axis {axis!r} needs a generation judge (set [judges] gen in the config)"
                    )
                jobs.append((item, axis))
    if jobs:
        images.check(it for it, _ in jobs)  # every image path checked (and read) before the first request

    async def ready(a: Artifact) -> Artifact:
        return a

    factories: list[Callable[[], Awaitable[Artifact]]] = [partial(ready, a) for a in drawn]
    if jobs:
        assert gen_client is not None
        client = gen_client
        factories += [
            partial(_build_one, client, gen_model_id, it, ax, images, max_reasks, log, gen_budget)
            for it, ax in jobs
        ]
    arts = await gather_bounded(factories, progress=progress)
    order = {ax: i for i, ax in enumerate(axes)}
    pos = {it.id: i for i, it in enumerate(items)}
    arts.sort(key=lambda a: (pos[a.item], order[a.axis]))
    return arts, log.rows


def write_artifacts(arts: Sequence[Artifact], path: str | os.PathLike[str]) -> None:
    write_jsonl((a.to_dict() for a in arts), path)


def read_artifacts(path: str | os.PathLike[str]) -> list[Artifact]:
    return [Artifact.from_dict(d, f"{path}, record {i + 1}") for i, d in enumerate(read_jsonl(path))]
