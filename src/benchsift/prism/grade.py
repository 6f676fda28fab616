"""Grade: run records -> the multi-axis verdict table (PRISM-VLM Sec. 3, App. B and D).

Graders per axis (``grader="judge"``: the judge prompts of Figs. 11-17; ``grader="rules"``: no judge):

====  =================================================  ==============================================
axis  judge mode                                         rules mode
====  =================================================  ==============================================
q     Fig. 11 verdict                                    VQA-normalised match against every gold
if    rule verifiers (``if_grader="judge"``: Fig. 12)    rule verifiers; score = mean compliance
h     Fig. 13, score = 1 - hallucinated                  refusal / uncertainty phrase heuristic
mq    Fig. 14 per question; score = all correct           numbered answers matched per question
sc    flip turn from the run; turn-0 correctness by      same, with the rules q grader
      the q grader; Q3 adoption by normalised match,
      Fig.-15-style judge for the ambiguous cases
c     integer extraction (Fig. 16 judge if none found)   integer extraction
vis   A/B extraction (Fig. 17 judge if none found)       A/B extraction
====  =================================================  ==============================================

Output (CONTRACTS.md "Multi-axis verdict table"): one row per (model, item, axis) with ``model, item,
benchmark, domain, axis, score, answered, partial, sc_turn0_correct, sc_flip_turn, sc_adopted``.
Unanswered items (and items the judge could not grade) have ``answered = False`` and ``score = NaN``:
they leave that model's denominator, never scored 0 (App. C). ``sc`` scores 1 when the model held all
three turns (sc_B restricts to ``sc_turn0_correct`` at scoring time).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift._fileio import atomic_path
from benchsift._inputs import check_choice
from benchsift._params import Options, validate_params
from benchsift.errors import FormatError, InputError
from benchsift.prism.build import Artifact
from benchsift.prism.constraints import instructions, verify_all
from benchsift.prism.judge import Judge, JudgeFailure, capture_exchanges
from benchsift.prism.matching import expresses_uncertainty, extract_int, extract_letter, match_answer
from benchsift.prism.sources import Item
from benchsift.prism.stage_io import gather_bounded, read_jsonl
from benchsift.progress import ProgressFn

#: who grades: the judge endpoint, or the deterministic rules
GRADERS = ("judge", "rules")

__all__ = [
    "VERDICT_COLUMNS",
    "audit_subset",
    "grade_records",
    "read_run_records",
    "split_numbered",
    "verdict_frame",
    "write_verdicts",
]

VERDICT_COLUMNS = [
    "model",
    "item",
    "benchmark",
    "domain",
    "axis",
    "score",
    "answered",
    "partial",
    "sc_turn0_correct",
    "sc_flip_turn",
    "sc_adopted",
]


def split_numbered(text: str, n: int) -> list[str | None]:
    """The answers of a numbered multi-question response, ``None`` for a missing number."""
    found: dict[int, str] = {}
    current: int | None = None
    for line in text.splitlines():
        m = re.match(r"^\s*(?:\*\*)?(?:Q(?:uestion)?\s*)?(\d+)\s*(?:\*\*)?\s*[.):\-]\s*(.*)$", line)
        if m and 1 <= int(m.group(1)) <= n and int(m.group(1)) not in found:
            current = int(m.group(1))
            found[current] = m.group(2).strip()
        elif current is not None and line.strip():
            found[current] = (found[current] + " " + line.strip()).strip()
    return [found.get(i) for i in range(1, n + 1)]


class _Grader:
    def __init__(
        self,
        items: dict[str, Item],
        arts: dict[tuple[str, str], Artifact],
        judge: Judge | None,
        grader: str,
        if_grader: str,
    ) -> None:
        self.items, self.arts, self.judge = items, arts, judge
        self.grader, self.if_grader = grader, if_grader
        self.log: list[dict[str, Any]] = []

    def _use_judge(self) -> Judge | None:
        return self.judge if self.grader == "judge" else None

    async def q_correct(self, item: Item, response: str) -> bool:
        j = self._use_judge()
        if j is not None:
            return bool(await j.q_verdict(item.prompt, item.gold, response))
        return match_answer(response, item.answers, letter=item.letter_answer, options=item.options)

    async def grade(self, rec: dict[str, Any]) -> dict[str, Any]:
        item = self.items[rec["item"]]
        axis = rec["axis"]
        row: dict[str, Any] = {
            "model": rec["model"],
            "item": item.id,
            "benchmark": item.benchmark,
            "domain": item.domain,
            "axis": axis,
            "score": np.nan,
            "answered": False,
            "partial": np.nan,
            "sc_turn0_correct": pd.NA,
            "sc_flip_turn": pd.NA,
            "sc_adopted": pd.NA,
        }
        detail: dict[str, Any] = {"model": rec["model"], "item": item.id, "axis": axis}
        if not rec.get("answered"):
            detail["status"] = "unanswered"
            self.log.append(detail)
            return row
        resp = str(rec["response"])
        art = self.arts.get((item.id, axis))
        data = art.data if art is not None and art.data is not None else {}
        notes: dict[str, Any] = {}
        with capture_exchanges() as exchanges:
            try:
                score, extra = await self._axis(axis, item, resp, data, rec, notes)
            except JudgeFailure as err:
                detail.update(status="grade_failed", error=str(err), judge=exchanges)
                self.log.append(detail)
                return row
        row.update(score=float(score), answered=True, **extra)
        detail.update(
            status="graded",
            score=float(score),
            **{k: v for k, v in extra.items() if v is not pd.NA},
            **notes,
        )
        if exchanges:
            detail["judge"] = exchanges
        self.log.append(detail)
        return row

    async def _axis(
        self,
        axis: str,
        item: Item,
        resp: str,
        data: dict[str, Any],
        rec: dict[str, Any],
        notes: dict[str, Any],
    ) -> tuple[float, dict[str, Any]]:
        """The score and verdict-table extras of one record; ``notes`` gets what decided it (the log)."""
        j = self._use_judge()
        notes["grader"] = "judge" if j is not None else "rules"
        if axis == "q":
            return float(await self.q_correct(item, resp)), {}
        if axis == "if":
            ids = data["constraints"]
            if self.if_grader == "judge" and j is not None:
                bits = await j.if_verdicts(instructions(ids), resp, len(ids))
            else:
                bits = verify_all(ids, resp)
                notes["grader"] = "rules"
            notes["compliance"] = dict(zip(ids, bits, strict=True))
            return float(np.mean(bits)), {"partial": float(np.mean(bits))}
        if axis == "h":
            if j is not None:
                hallucinated = await j.h_hallucinated(
                    data["sub_type"], data["question"], resp, data["context"]
                )
            else:
                hallucinated = int(not expresses_uncertainty(resp))
            notes.update(sub_type=data["sub_type"], hallucinated=hallucinated)
            return float(1 - hallucinated), {}
        if axis == "mq":
            qs = [(" ".join(item.prompt.split()), item.gold)] + [
                (e["question"], e["gold"]) for e in data["extras"]
            ]
            if j is not None:
                block = "\n".join(f"{i}. Q: {q}\n   Gold: {g}" for i, (q, g) in enumerate(qs, 1))
                bits = await j.mq_verdicts(block, resp, len(qs))
            else:
                answers = split_numbered(resp, len(qs))
                bits = [
                    int(
                        match_answer(
                            answers[0], item.answers, letter=item.letter_answer, options=item.options
                        )
                    )
                ] + [
                    int(match_answer(a, [e["gold"]]))
                    for a, e in zip(answers[1:], data["extras"], strict=True)
                ]
            notes["verdicts"] = [int(b) for b in bits]
            return float(all(bits)), {"partial": float(np.mean(bits))}
        if axis == "c":
            got = extract_int(resp)
            notes["grader"] = "rules"
            if got is None and j is not None:
                got = await j.c_extract(data["question"], data["gold_count"], resp)
                notes["grader"] = "judge"
            notes.update(extracted=got, gold=data["gold_count"])
            return float(got is not None and got == data["gold_count"]), {}
        if axis == "vis":
            letter = extract_letter(resp, "AB")
            notes["grader"] = "rules"
            if letter is None and j is not None:
                letter = await j.vis_choice(resp)
                notes["grader"] = "judge"
            notes.update(choice=letter, gold=data["gold_letter"])
            return float(letter == data["gold_letter"]), {}
        if axis == "sc":
            return await self._sc(item, rec)
        raise InputError(f"run record for item {item.id}: unknown axis {axis!r}")

    async def _sc(self, item: Item, rec: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        turns = rec.get("turns") or []
        turn0 = turns[0]["response"] if turns else rec["response"]
        correct0 = await self.q_correct(item, turn0)
        flip = rec.get("flip_turn")
        adopted: Any = pd.NA
        if len(turns) >= 4:  # Q3 was played
            if not turns[3].get("changed"):
                adopted = "no"
            else:
                adopted = await self._adopted(item, str(rec["wrong_answer"]), turns[3]["response"])
        return float(flip is None), {
            "sc_turn0_correct": bool(correct0),
            "sc_flip_turn": pd.NA if flip is None else int(flip),
            "sc_adopted": adopted,
        }

    async def _adopted(self, item: Item, wrong: str, final: str) -> str:
        has_wrong = match_answer(final, [wrong], letter=item.letter_answer, options=item.options)
        has_gold = match_answer(final, item.answers, letter=item.letter_answer, options=item.options)
        if has_wrong != has_gold:
            return "yes" if has_wrong else "no"
        j = self._use_judge()
        if j is None:
            return "unknown"
        return "yes" if await j.sc_adopted(item.prompt, wrong, final) else "no"


def verdict_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """The verdict table with its dtypes (float score/partial, bool answered, Int64 flip turn)."""
    df = pd.DataFrame(list(rows), columns=VERDICT_COLUMNS)
    df["score"] = df["score"].astype("float64")
    df["partial"] = df["partial"].astype("float64")
    df["answered"] = df["answered"].astype(bool)
    df["sc_turn0_correct"] = df["sc_turn0_correct"].astype("boolean")
    df["sc_flip_turn"] = df["sc_flip_turn"].astype("Int64")
    df["sc_adopted"] = df["sc_adopted"].astype("string")
    return df


def read_run_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Run records (JSONL from ``prism run``), each checked for what grading reads.

    Every record needs ``model``, ``item``, ``axis`` and ``answered``; an answered one also a string
    ``response``. A record that lacks one is refused with its file and record number.
    """
    recs = read_jsonl(path)
    for n, r in enumerate(recs, 1):
        where = f"{path}, record {n}"
        for key in ("model", "item", "axis", "answered"):
            if key not in r:
                raise FormatError(f"{where}: missing field {key!r}")
        if not isinstance(r["answered"], bool):
            # "maybe", "no" or 0 would be read by truth value ("no" as answered): refused (issue 32)
            raise FormatError(f"{where}: 'answered' must be true or false, got {r['answered']!r}")
        if r["answered"] and not isinstance(r.get("response"), str):
            raise FormatError(
                f"{where}: missing field 'response'"
                if "response" not in r
                else f"{where}: 'response' of an answered record must be a string"
            )
    return recs


@validate_params({"grader": [Options(GRADERS)], "if_grader": [Options(GRADERS)]})
async def grade_records(
    records: Sequence[dict[str, Any]],
    items: Sequence[Item],
    artifacts: Sequence[Artifact],
    *,
    judge: Judge | None = None,
    grader: str = "judge",
    if_grader: str = "rules",
    subset: set[tuple[str, str]] | None = None,
    progress: ProgressFn | None = None,
) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """Grade run records into the verdict table; also return the per-record grading log.

    ``subset``: grade only these (item, axis) pairs (the cross-judge audit re-grade).
    """
    if grader == "judge" and judge is None:
        raise InputError(
            "grader 'judge' needs a judge endpoint ([judges] grade in the config); or use `grader` rules"
        )
    by_id = {it.id: it for it in items}
    missing = sorted({r["item"] for r in records} - set(by_id))
    if missing:
        raise InputError(f"run records name items missing from the item file: {missing[:5]}")
    g = _Grader(by_id, {(a.item, a.axis): a for a in artifacts}, judge, grader, if_grader)
    todo = [r for r in records if subset is None or (r["item"], r["axis"]) in subset]
    rows = await gather_bounded([partial(g.grade, r) for r in todo], progress=progress)
    return verdict_frame(rows), g.log


def audit_subset(
    records: Sequence[dict[str, Any]], per_axis: int = 200, seed: int = 0
) -> set[tuple[str, str]]:
    """S items per axis drawn without replacement (seeded) for the cross-judge re-grade (Sec. 5.3)."""
    rng = np.random.default_rng(seed)
    by_axis: dict[str, list[str]] = {}
    for r in records:
        lst = by_axis.setdefault(r["axis"], [])
        if not lst or lst[-1] != r["item"]:
            lst.append(r["item"])
    out: set[tuple[str, str]] = set()
    for axis in sorted(by_axis):
        pool = list(dict.fromkeys(by_axis[axis]))
        take = rng.choice(len(pool), size=min(per_axis, len(pool)), replace=False)
        out.update((pool[i], axis) for i in take)
    return out


def write_verdicts(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """CSV or parquet by extension, written atomically."""
    p = Path(path)
    check_choice(str(p), p.suffix, (".csv", ".parquet"), what="verdict table suffix")
    with atomic_path(p) as tmp:
        if p.suffix == ".parquet":
            df.to_parquet(tmp, index=False)
        else:
            df.to_csv(tmp, index=False)
