"""Bring scores reported on other scales into the panel's [0, 1] range, one benchmark at a time.

A panel holds scores in [0, 1]. Sources often report other scales: leaderboards give percentages, MME a sum
out of 2800, OCRBench a count out of 1000. Rescaling is decided **per benchmark**, from all of that
benchmark's scores in the input at once, so every model of a benchmark is treated alike:

1. All scores of the benchmark in [0, 1]: kept as they are (item-level 0/1 results of OCRBench or MME are
   not touched).
2. A *declared* range (``scales={"TruthfulQA": (-1, 1)}``, CLI ``--scale TruthfulQA=-1:1``): scores are
   mapped linearly from ``[low, high]`` onto [0, 1], ``(score - low) / (high - low)`` -- a -1/+1 coding
   (wrong / right) becomes 0/1. A score outside the declared range is an error.
3. Otherwise any negative score: rejected (the message proposes a declared range).
4. A *declared* full scale (``scales={"MMStar": 100}``, CLI ``--scale MMStar=100``; the key ``"*"`` applies to
   every benchmark without its own entry): scores are divided by it.
5. A *known* scale (:data:`KNOWN_SCALES`, matched on the whole benchmark name, case-insensitive):

   * ``OCRBench``, ``OCRBench_MINI``: 1000 (OCRBench "Final Score" counts right answers of 1,000 questions);
   * ``MME``: 2800 (MME total = perception, 10 subtasks x 200, + cognition, 4 x 200);
   * ``MME_Perception``: 2000; ``MME_Cognition`` / ``MME_Reasoning``: 800;
   * ``MMBench-Video``: 3 (GPT-judged mean score on a 0-3 scale).

6. Mode ``"auto"`` only: a benchmark whose scores all lie in [0, 100], some above 1, is *detected* as a
   percentage and divided by 100 only when its scores are consistent with that scale: at least half of its
   nonzero scores (:data:`PERCENT_MIN_SHARE`) lie above 1. Zeros are left out of the count, as they read
   the same on both scales (an item-level 0/100 file at 30 % accuracy is still a percentage). A 0/1 file
   with one stray ``2`` or ``1.5`` is not: it is rejected, naming the row and the value (issue 12). The
   nonzero scores of at most 1 that a detected percentage also holds are divided with the rest, with a
   warning naming the first: in a table that mixes 0-1 and 0-100 scores they would read as 1 % or less.
7. Anything else is rejected with an :class:`~benchsift.errors.InputError` naming the file, row, benchmark
   and value, and how to declare a scale.

A declared or known full scale is checked too: a score above it is an error. Modes: ``"auto"`` (rules 1-6),
``"known"`` (no percentage detection: only declared and known scales) and ``"none"`` (only declared scales).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from benchsift._params import Options, check_param
from benchsift.errors import InputError
from benchsift.io._rows import row_label

RescaleMode = Literal["auto", "known", "none"]
#: a declared scale: a full scale (scores in [0, full]) or a range ``(low, high)`` mapped onto [0, 1]
ScaleSpec = float | tuple[float, float]
#: benchmark name (or ``"*"``) -> its declared scale
ScaleMap = Mapping[str, ScaleSpec]
RESCALE_MODES: tuple[str, ...] = ("auto", "known", "none")

#: rows per block of :func:`rescale_codes`' passes
_BLOCK = 1 << 20

#: share of a benchmark's nonzero scores that must lie above 1 for it to be detected as a percentage
PERCENT_MIN_SHARE = 0.5


@dataclass(frozen=True)
class ScaleRule:
    """A known reporting scale: a benchmark matching ``pattern`` runs from 0 to ``full_scale``.

    ``pattern`` is a case-insensitive regular expression matched against the whole benchmark name.
    """

    pattern: str
    full_scale: float
    why: str

    def matches(self, benchmark: str) -> bool:
        return re.fullmatch(self.pattern, benchmark.strip(), flags=re.IGNORECASE) is not None


KNOWN_SCALES: tuple[ScaleRule, ...] = (
    ScaleRule(r"ocr[_ -]?bench(_mini)?", 1000.0, "OCRBench 0-1000 (correct answers of 1,000 questions)"),
    ScaleRule(r"mme", 2800.0, "MME 0-2800 (perception 2000 + cognition 800)"),
    ScaleRule(r"mme[_ -]?perception", 2000.0, "MME perception 0-2000"),
    ScaleRule(r"mme[_ -]?(cognition|reasoning)", 800.0, "MME cognition 0-800"),
    ScaleRule(r"mmbench[_ -]?video", 3.0, "MMBench-Video 0-3 judge score"),
)


def known_scale(benchmark: str) -> ScaleRule | None:
    """The :class:`ScaleRule` whose pattern matches the whole benchmark name, if any."""
    for rule in KNOWN_SCALES:
        if rule.matches(benchmark):
            return rule
    return None


def parse_scales(specs: list[str] | None) -> dict[str, ScaleSpec]:
    """Parse CLI declarations: ``NAME=FULL_SCALE`` (scores in [0, FULL_SCALE]) or ``NAME=LOW:HIGH`` (a range
    mapped onto [0, 1], e.g. ``NAME=-1:1`` for a -1/+1 coding); ``*`` for every benchmark."""
    out: dict[str, ScaleSpec] = {}
    for spec in specs or []:
        name, sep, value = spec.partition("=")
        low_text, colon, high_text = value.partition(":")
        try:
            nums = [float(low_text), float(high_text)] if colon else [float(value)]
        except ValueError:
            nums = [float("nan")]
        ok = bool(sep) and bool(name.strip()) and all(np.isfinite(v) for v in nums)
        if ok and colon:
            ok = nums[0] < nums[1]
        elif ok:
            ok = nums[0] > 0
        if not ok:
            raise InputError(
                f"`scale` {spec!r}: expected BENCHMARK=FULL_SCALE with a positive number (e.g. MMStar=100) "
                "or BENCHMARK=LOW:HIGH with LOW < HIGH (e.g. TruthfulQA=-1:1 for a -1/+1 coding)"
            )
        out[name.strip()] = (nums[0], nums[1]) if colon else nums[0]
    return out


def decide_affine(
    benchmark: str,
    low: float,
    high: float,
    *,
    mode: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    share_above_one: float = 1.0,
) -> tuple[float, float, str] | str:
    """How to bring a benchmark whose scores span ``[low, high]`` into [0, 1], and why; or why it is rejected.

    Returns ``(zero, divisor, reason)`` -- each score becomes ``(score - zero) / divisor``; ``(0.0, 1.0, _)``
    means unchanged -- or an error text. ``share_above_one``: the share of the benchmark's nonzero scores
    that are above 1 (percentage detection needs at least :data:`PERCENT_MIN_SHARE`).
    """
    check_param("rescale", mode, [Options(RESCALE_MODES)])
    if not np.isfinite(high):  # no observed score at all
        return 0.0, 1.0, "no scores"
    scales = scales or {}
    declared = scales.get(benchmark, scales.get("*"))
    if isinstance(declared, tuple):
        lo, hi = (float(v) for v in declared)
        if low < lo or high > hi:
            bad = low if low < lo else high
            return f"score {bad!r} outside its declared range {lo:g}:{hi:g}"
        return lo, hi - lo, f"declared range {lo:g}:{hi:g} mapped onto [0, 1]"
    if low < 0:
        return f"negative score {low!r}"
    if high <= 1.0 and declared is None:
        return 0.0, 1.0, "already in [0, 1]"
    if declared is not None:
        if high > declared:
            return f"score {high!r} above its declared full scale {declared!r}"
        return 0.0, float(declared), f"declared full scale {declared:g}"
    if high <= 1.0:
        return 0.0, 1.0, "already in [0, 1]"
    rule = known_scale(benchmark) if mode != "none" else None
    if rule is not None:
        if high > rule.full_scale:
            return f"score {high!r} above the known {rule.why} scale"
        return 0.0, rule.full_scale, f"known scale: {rule.why}"
    if mode == "auto" and high <= 100.0:
        if share_above_one < PERCENT_MIN_SHARE:
            return (
                f"only {share_above_one:.0%} of its nonzero scores are above 1, so it is not on a "
                "percentage scale"
            )
        return 0.0, 100.0, f"{_DETECTED} (all scores in [0, 100], most nonzero ones above 1)"
    return f"score {high!r} outside [0, 1] and no rescaling rule"


def decide_scale(
    benchmark: str,
    low: float,
    high: float,
    *,
    mode: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    share_above_one: float = 1.0,
) -> tuple[float, str] | str:
    """The divisor for a benchmark whose scores span ``[low, high]``, and why; or the reason it is rejected.

    :func:`decide_affine` without the zero point (``(divisor, reason)``; divisor 1.0 means unchanged); a
    declared range, whose zero point is not 0, is reported by :func:`decide_affine` only (here: an error
    text saying so).
    """
    d = decide_affine(benchmark, low, high, mode=mode, scales=scales, share_above_one=share_above_one)
    if isinstance(d, str):
        return d
    zero, div, why = d
    if zero != 0.0:
        return f"{why}: a shift, not a divisor (use decide_affine)"
    return div, why


_DETECTED = "detected percentage"


def _mixed_warning(benchmark: str, n_small: int, n_nonzero: int, where: str) -> str:
    """The warning of a benchmark detected as a percentage that also holds nonzero scores of at most 1:
    divided by 100 with the rest, they are now at most 0.01, which is wrong if they were on the 0-1 scale."""
    return (
        f"warning: benchmark {benchmark!r}: {n_small} of its {n_nonzero} nonzero scores are at most 1{where} "
        "and were divided by 100 with the percentages (now at most 0.01); if they were on the 0-1 scale, the "
        "input mixes scales: write them as percentages too"
    )


def _reject(benchmark: str, why: str, where: str) -> InputError:
    if "outside its declared range" in why:
        return InputError(
            f"{where}: benchmark {benchmark!r}: {why}; declare a range that holds every score (`scale` "
            f"'{benchmark}=LOW:HIGH') or give scores in [0, 1]"
        )
    if why.startswith("negative"):  # a full scale cannot help: propose the range the scores need
        value = float(why.split()[-1])
        example = "-1:1" if value >= -1.0 else "LOW:HIGH"
        return InputError(
            f"{where}: benchmark {benchmark!r}: {why}; declare its range, mapped onto [0, 1] (e.g. `scale` "
            f"'{benchmark}={example}'{' for a -1/+1 coding' if example == '-1:1' else ''}) or give scores in "
            "[0, 1]"
        )
    return InputError(
        f"{where}: benchmark {benchmark!r}: {why}; declare its full scale (e.g. `scale` "
        f"'{benchmark}=100') or give scores in [0, 1]"
    )


def rescale_long(
    long: pd.DataFrame,
    *,
    mode: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
) -> pd.DataFrame:
    """Rescale the ``score`` column of a long table per ``benchmark`` (rules in the module docstring).

    ``long`` carries ``_file`` and ``_row`` so a rejection names where the offending score is.
    """
    scores = long["score"].to_numpy(dtype=np.float64)
    # benchmarks in order of first appearance (the order of groupby(sort=False), so of the notes)
    codes, names = pd.factorize(long["benchmark"], use_na_sentinel=False)

    def where(i: int) -> str:
        file = long["_file"].iloc[i]
        return f"{file}, {row_label(file, long['_row'].iloc[i])}"

    out_scores = rescale_codes(scores, codes, list(names), where=where, mode=mode, scales=scales, notes=notes)
    if out_scores is scores:
        return long
    out = long.copy()
    out["score"] = out_scores
    return out


def rescale_codes(
    scores: np.ndarray,
    codes: np.ndarray,
    names: Sequence[object],
    *,
    where: Callable[[int], str],
    mode: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
) -> np.ndarray:
    """:func:`rescale_long` on arrays: ``scores`` (float64, one per row), ``codes`` (each row's benchmark, an
    index into ``names``, numbered in order of first appearance, which is the order of the notes).

    Returns ``scores`` itself when no benchmark is rescaled, else a new array (every row divided by its
    benchmark's divisor, 1.0 for the others). A rejection names ``where(row)`` of the offending score.
    Per-benchmark minimum, maximum and counts are taken with unbuffered ``ufunc.at`` / ``bincount`` over
    the codes, so a 10-million-row table needs no per-row object nor grouping frame.
    """
    n_bench, n = len(names), len(scores)
    n_obs = np.zeros(n_bench, dtype=np.int64)
    above = np.zeros(n_bench, dtype=np.int64)
    zeros = np.zeros(n_bench, dtype=np.int64)
    lows = np.full(n_bench, np.inf)
    highs = np.full(n_bench, -np.inf)
    for s in range(0, n, _BLOCK):  # blocks of rows: no per-row temporary of the whole table
        c, x = codes[s : s + _BLOCK], scores[s : s + _BLOCK]
        n_obs += np.bincount(c[~np.isnan(x)], minlength=n_bench)
        above += np.bincount(c[x > 1], minlength=n_bench)  # NaN compares False
        zeros += np.bincount(c[x == 0], minlength=n_bench)
        np.fmin.at(lows, c, x)
        np.fmax.at(highs, c, x)
    lows[n_obs == 0] = np.nan
    highs[n_obs == 0] = np.nan
    share = above / np.maximum(n_obs - zeros, 1)
    divisor = np.ones(n_bench)
    zero = np.zeros(n_bench)
    for b, bench in enumerate(names):
        decision = decide_affine(
            str(bench),
            float(lows[b]),
            float(highs[b]),
            mode=mode,
            scales=scales,
            share_above_one=float(share[b]),
        )
        if isinstance(decision, str):
            in_bench = codes == b
            if decision.startswith("negative"):
                bad = in_bench & (scores < 0)
            elif "outside its declared range" in decision:  # the offending score is named in the text
                bad = in_bench & (scores == float(decision.split()[1]))
            elif decision.startswith("only"):  # the first score above 1 of a 0-1 benchmark
                bad = in_bench & (scores > 1)
                decision = f"score {float(scores[np.flatnonzero(bad)[0]])!r} above 1, but {decision}"
            else:
                bad = in_bench & (scores == float(highs[b]))
            raise _reject(str(bench), decision, where(int(np.flatnonzero(bad)[0])))
        z, div, why = decision
        if div != 1.0 or z != 0.0:
            divisor[b], zero[b] = div, z
            if notes is not None:
                notes.append(f"rescaled {bench!r}: {_how(z, div)} ({why})")
                n_small = int(n_obs[b] - zeros[b] - above[b])
                if why.startswith(_DETECTED) and n_small:
                    first = int(np.flatnonzero((codes == b) & (scores > 0) & (scores <= 1))[0])
                    notes.append(
                        _mixed_warning(
                            str(bench), n_small, int(n_obs[b] - zeros[b]), f" (first: {where(first)})"
                        )
                    )
    if (divisor == 1.0).all() and (zero == 0.0).all():
        return scores
    out = np.empty_like(scores)
    for s in range(0, n, _BLOCK):
        c = codes[s : s + _BLOCK]
        out[s : s + _BLOCK] = (scores[s : s + _BLOCK] - zero[c]) / divisor[c]
    return out


def _how(zero: float, div: float) -> str:
    """How a benchmark's scores were changed, for its note."""
    return f"divided by {div:g}" if zero == 0.0 else f"mapped x -> (x - ({zero:g})) / {div:g}"


#: cells per block of :func:`_matrix_counts` (512 KiB: each block stays in cache across its passes)
_CACHE_CELLS = 1 << 16


def _matrix_counts(scores: np.ndarray) -> tuple[bool, float, float, int, int]:
    """Whether any score is finite, the least and greatest score (NaN ignored; NaN when none is finite),
    and how many are above 1 and how many are not 0 (NaN compares False: only observed cells count), over
    blocks of about :data:`_CACHE_CELLS` cells: no temporary of the matrix's size, each block read from
    cache by every pass over it. The two counts only matter when a score is above 1 (the share of
    percentages, :func:`decide_affine`): they are counted then, in a second pass, and are 0 otherwise."""
    rows = scores.reshape(len(scores), -1) if scores.ndim > 1 else scores.reshape(1, -1)
    step = max(1, _CACHE_CELLS // max(1, rows.shape[1]))
    any_score, above, nonzero = False, 0, 0
    low, high = np.inf, -np.inf
    with np.errstate(invalid="ignore"):
        for s in range(0, len(rows), step):
            block = rows[s : s + step]
            if not any_score and bool(np.isfinite(block).any()):
                any_score = True
            if block.size:
                low = min(low, float(np.fmin.reduce(block, axis=None)))
                high = max(high, float(np.fmax.reduce(block, axis=None)))
        if not high > 1:
            return (True, low, high, 0, 0) if any_score else (False, float("nan"), float("nan"), 0, 0)
        for s in range(0, len(rows), step):
            block = rows[s : s + step]
            n_above = int(np.count_nonzero(block > 1))
            above += n_above
            nonzero += n_above + int(
                np.count_nonzero((block > 0) & (block <= 1)) + np.count_nonzero(block < 0)
            )
    if not any_score:
        return False, float("nan"), float("nan"), above, nonzero
    return True, low, high, above, nonzero


def matrix_affine(
    scores: np.ndarray,
    benchmark: str,
    *,
    where: str,
    mode: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
) -> tuple[float, float]:
    """The ``(zero, divisor)`` :func:`rescale_long`'s rules give a one-benchmark score matrix (each score
    becomes ``(score - zero) / divisor``; ``(0.0, 1.0)``: unchanged), with its note appended to ``notes``; a
    rejection names ``where`` and the offending value. Counts cells instead of copying the finite ones, so a
    large reader's matrix is never duplicated."""
    any_score, low, high, above, nonzero = _matrix_counts(scores)
    share = above / nonzero if nonzero else 1.0
    decision = decide_affine(benchmark, low, high, mode=mode, scales=scales, share_above_one=share)
    if isinstance(decision, str):
        if decision.startswith("only"):
            flat = scores.reshape(-1)
            decision = f"score {float(flat[np.flatnonzero(flat > 1)[0]])!r} above 1, but {decision}"
        raise _reject(benchmark, decision, where)
    zero, div, why = decision
    if (div != 1.0 or zero != 0.0) and notes is not None:
        notes.append(f"rescaled {benchmark!r}: {_how(zero, div)} ({why})")
        if why.startswith(_DETECTED) and nonzero > above:
            notes.append(_mixed_warning(benchmark, nonzero - above, nonzero, f" (in {where})"))
    return float(zero), float(div)


def matrix_divisor(
    scores: np.ndarray,
    benchmark: str,
    *,
    where: str,
    mode: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
) -> float:
    """:func:`matrix_affine`'s divisor, for a decision without a zero point (a declared range is an error
    here: callers that can shift use :func:`matrix_affine`)."""
    zero, div = matrix_affine(scores, benchmark, where=where, mode=mode, scales=scales, notes=notes)
    if zero != 0.0:
        raise InputError(f"{where}: benchmark {benchmark!r}: a declared range needs a shift, not a divisor")
    return div


def rescale_matrix(
    scores: np.ndarray,
    benchmark: str,
    *,
    where: str,
    mode: RescaleMode = "auto",
    scales: ScaleMap | None = None,
    notes: list[str] | None = None,
) -> np.ndarray:
    """Rescale a one-benchmark score matrix by the same rules as :func:`rescale_long` (a new array when it
    changes)."""
    zero, div = matrix_affine(scores, benchmark, where=where, mode=mode, scales=scales, notes=notes)
    return scores if (div == 1.0 and zero == 0.0) else (scores - zero) / div
