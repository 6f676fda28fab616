"""The answer each section of the report opens with: a few plain sentences and the numbers that matter.

A *summariser* reads the files of one section (what benchsift wrote there: ``suite.json``, ``audit.json``,
``validate.json``, ...) and returns :class:`Answer` objects, each with two or three sentences in plain words
and three to five :class:`Number` entries, labelled in words, each with what a good value looks like.
Parameters and provenance are not part of the answer; the page folds them away below it.

Summarisers are registered in :data:`SUMMARISERS` (in order; every one is asked, each answers only for the
files it knows). A new command adds its own with :func:`register_summariser`::

    def compare_answers(files: SectionFiles) -> list[Answer]:
        return [Answer("compare", "Comparison", ["..."], [Number("...", "...", "...")])
                for rel, doc in files.named("compare.json")]

    register_summariser("compare", compare_answers)

The numbers are only those the files hold (nothing is recomputed); a value the files do not have is left
out of the answer rather than shown as 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

__all__ = [
    "SUMMARISERS",
    "Answer",
    "Number",
    "SectionFiles",
    "register_summariser",
    "section_answers",
]


@dataclass
class Number:
    """One number of an answer: what it is (``label``), its value as shown, and what good looks like."""

    label: str
    value: str
    good: str


@dataclass
class Answer:
    """The answer of one result: a heading, sentences, numbers; ``card``: the suite card's harness commands
    (``(tool, commands)``), empty for other results; ``source``: the file it was read from."""

    kind: str
    heading: str
    sentences: list[str]
    numbers: list[Number]
    source: str = ""
    card: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class SectionFiles:
    """What a summariser sees of a section: its JSON documents and CSV files (paths relative to the report
    folder, posix), the demo's summary entry of the section, and the folder as the user named it."""

    key: str
    json: dict[str, Any]
    csv: dict[str, Path]
    summary: dict[str, Any]
    folder: str

    def named(self, name: str) -> list[tuple[str, Any]]:
        """``(relative path, document)`` of each JSON document of the section called ``name``."""
        return [(rel, doc) for rel, doc in self.json.items() if PurePosixPath(rel).name == name]


Summariser = Callable[[SectionFiles], list[Answer]]
#: ``(name, summariser)`` pairs asked in order for every section.
SUMMARISERS: list[tuple[str, Summariser]] = []


def register_summariser(name: str, fn: Summariser) -> None:
    """Add (or replace, by ``name``) a summariser asked for every section of the page."""
    for k, (n, _) in enumerate(SUMMARISERS):
        if n == name:
            SUMMARISERS[k] = (name, fn)
            return
    SUMMARISERS.append((name, fn))


def section_answers(files: SectionFiles) -> list[Answer]:
    """Every registered summariser's answers for ``files``, in registration order."""
    out: list[Answer] = []
    for _, fn in SUMMARISERS:
        out += fn(files)
    return out


# ---------------------------------------------------------------------------------------------- helpers


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v) if math.isfinite(float(v)) else None
    return None


def _f(v: float, digits: int = 2) -> str:
    return f"{v:.{digits}f}"


def _n(v: float | int) -> str:
    """A count with thousands separators; a mean count that is not whole keeps one decimal."""
    return f"{int(v):,}" if float(v).is_integer() else f"{v:,.1f}"


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "n/a"


def _dir(rel: str) -> str:
    parent = PurePosixPath(rel).parent.as_posix()
    return "" if parent == "." else parent


def _where(files: SectionFiles, rel: str) -> str:
    """The folder of ``rel`` as the user would type it (for commands)."""
    sub = _dir(rel)
    return f"{files.folder}/{sub}" if sub else files.folder


def _heading(what: str, files: SectionFiles, rel: str) -> str:
    """The heading of an answer: ``what`` it answers, and the folder of ``rel`` inside its section when it
    is in one (the section's own title already names the section: ``Suite (suite)`` in ``compression/``,
    ``Benchmark redundancy`` in ``redundancy/``, never the section's key again)."""
    parts = list(PurePosixPath(rel).parent.parts)
    if parts and parts[0] == files.key:
        parts = parts[1:]
    inner = "/".join(parts)
    return f"{what} ({inner})" if inner else what


# ----------------------------------------------------------------------------------------------- suites


def suite_answers(files: SectionFiles) -> list[Answer]:
    """A suite (``suite.json`` of ``benchsift compress``): items kept, rank fidelity, estimate error, and
    the suite card's ``export`` commands for every harness."""
    from benchsift.compression.export import TOOLS

    out: list[Answer] = []
    for rel, s in files.named("suite.json"):
        if not isinstance(s, dict) or "n_items_suite" not in s:
            continue
        inp = s.get("input") or {}
        n = _num(s.get("n_items_suite"))
        pool = _num(inp.get("n_items"))
        n_models = _num(inp.get("n_image_models"))
        cats = s.get("categories_selected") or []
        rho = _num(s.get("rho_suite_vs_stage0"))
        numbers: list[Number] = []
        sentences: list[str] = []
        if n is not None and pool:
            sentences.append(
                f"This suite keeps {_n(n)} of {_n(pool)} items ({_pct(n, pool)}) in {len(cats)} "
                f"categor{'y' if len(cats) == 1 else 'ies'}."
            )
            numbers.append(
                Number(
                    "items kept", f"{_n(n)} of {_n(pool)}", "fewer is cheaper, as long as the ranking holds"
                )
            )
        held = _holdout_beside(files, rel)
        held_rho = _num(held.get("rank_rho"))
        if held_rho is not None:
            rand_rho = _num((held.get("random_subset") or {}).get("rank_rho"))
            versus = (
                f"; {_n(n)} random items rank them at rho {_f(rand_rho)}"
                if rand_rho is not None and n
                else ""
            )
            sentences.append(
                f"On {_n(_num(held.get('n_held')) or 0)} held-out models (not used to build the suite, "
                f"`compress --holdout`), the suite's estimates rank them at Spearman rho {_f(held_rho)} "
                f"against their full-benchmark scores{versus}."
            )
            numbers.append(
                Number(
                    "rank fidelity on held-out models (rho)",
                    _f(held_rho),
                    "1 = same order; 0.9 or more is good",
                )
            )
        elif rho is not None:
            who = f"the {_n(n_models)} panel models" if n_models else "the panel's models"
            sentences.append(
                f"Scored on the suite, {who} keep their full-panel order at Spearman rho {_f(rho)}, measured "
                "in-panel on the models the suite was built from (optimistic; `compress --holdout 0.2` "
                "measures it on held-out models)."
            )
            numbers.append(
                Number(
                    "rank fidelity (rho, in-panel: optimistic)",
                    _f(rho),
                    "1 = same order; 0.9 or more is good",
                )
            )
        fs = s.get("full_score") or {}
        method = fs.get("method")
        mae = _num((fs.get("cv_mae_overall") or {}).get(method))
        half = _num((fs.get("halfwidth_overall") or {}).get(method))
        level = _num(fs.get("level"))
        held_mae = _num(held.get("mae"))
        lvl = f"{level * 100:.0f} %" if level else "the"
        if held_mae is not None:
            rand_mae = _num((held.get("random_subset") or {}).get("mae"))
            cover = _num(held.get("coverage"))
            sentences.append(
                f"Their full-benchmark scores are estimated with a mean absolute error of {_f(held_mae, 3)}"
                + (f" (random items of the same number: {_f(rand_mae, 3)})" if rand_mae is not None else "")
                + (f"; the {lvl} interval covers {cover * 100:.0f} % of them" if cover is not None else "")
                + "."
            )
            numbers.append(
                Number(
                    "estimate error on held-out models (MAE)",
                    _f(held_mae, 3),
                    "score points on a 0-1 scale; below 0.03 is good",
                )
            )
            if cover is not None:
                numbers.append(
                    Number(f"{lvl} interval coverage (held-out)", f"{cover * 100:.0f} %", f"near {lvl}")
                )
        elif mae is not None:
            extra = f"; its {lvl} interval is about +-{_f(half)} wide" if half is not None else ""
            sentences.append(
                f"A new model's full-benchmark score is estimated with a typical error of {_f(mae, 3)} "
                f"(mean absolute error on held-out reference models, {fs.get('n_folds', '?')}-fold, method "
                f"{method}){extra}."
            )
            numbers.append(
                Number(
                    "expected estimate error (MAE)",
                    _f(mae, 3),
                    "score points on a 0-1 scale; below 0.03 is good",
                )
            )
            if half is not None:
                numbers.append(
                    Number(f"interval half-width ({lvl})", f"+-{_f(half, 3)}", "narrower is sharper")
                )
        where = _where(files, rel)
        card = []
        for tool in TOOLS:
            cmd = f"benchsift export {where} --to {tool} -o {where}-{tool}"
            then = f"benchsift estimate {where} RUNS --from {tool}"
            if tool == "lmms-eval":
                then += f" --export {where}-{tool}"
            card.append((tool, f"{cmd}\n# run the harness with the files written there, then:\n{then}"))
        out.append(Answer("suite", _heading("Suite", files, rel), sentences, numbers, rel, card))
    return out


def _holdout_beside(files: SectionFiles, rel: str) -> dict[str, Any]:
    """``holdout.json`` written by ``compress --holdout`` beside the suite ``rel`` (empty when absent)."""
    want = str(PurePosixPath(rel).with_name("holdout.json"))
    doc = files.json.get(want)
    return doc if isinstance(doc, dict) and "n_held" in doc else {}


# ---------------------------------------------------------------------------------------------- audit


def audit_answers(files: SectionFiles) -> list[Answer]:
    """``audit.json``: items checked, items flagged, negatively discriminating items, duplicates."""
    out: list[Answer] = []
    for rel, a in files.named("audit.json"):
        if not isinstance(a, dict) or "flag_counts" not in a:
            continue
        benches = a.get("benchmarks") or {}
        n_items = sum(int(b.get("n_items") or 0) for b in benches.values() if isinstance(b, dict))
        n_models = max(
            (int(b.get("n_models") or 0) for b in benches.values() if isinstance(b, dict)), default=0
        )
        counts = a.get("flag_counts") or {}
        flagged = len(a.get("items") or [])
        neg = _num(counts.get("negative-discrimination"))
        dups = len(a.get("duplicates") or [])
        low = _num(counts.get("low-discrimination"))
        sentences = [
            f"The audit checked {_n(n_items)} items of {len(benches)} "
            f"benchmark{'s' if len(benches) != 1 else ''} "
            f"on {_n(n_models)} models and flagged {_n(flagged)} of them ({_pct(flagged, n_items)})."
        ]
        if neg:
            one = neg == 1
            sentences.append(
                f"{_n(neg)} item{'' if one else 's'} discriminate{'s' if one else ''} negatively (stronger "
                f"models get {'it' if one else 'them'} wrong more often than weaker ones): check "
                f"{'its answer key' if one else 'their answer keys'} first; click an item to see it."
            )
        elif neg is not None:
            sentences.append(
                "No item discriminates negatively (none looks like a wrong answer key: stronger models do "
                "not get any item wrong more often than weaker ones)."
            )
        if dups:
            sentences.append(f"{_n(dups)} pairs of items look like duplicates.")
        numbers = [
            Number("items flagged", f"{_n(flagged)} of {_n(n_items)}", "few; each flag names its reason")
        ]
        if neg is not None:
            numbers.append(Number("negatively discriminating", _n(neg), "0; each one is likely a wrong key"))
        if low is not None:
            numbers.append(Number("low discrimination", _n(low), "few; they add cost but little signal"))
        numbers.append(Number("duplicate pairs", _n(dups), "0"))
        not_run = [k for k, v in counts.items() if v is None]
        if not_run:
            sentences.append(f"Not checked (no data for it): {', '.join(not_run)}.")
        out.append(Answer("audit", _heading("Audit", files, rel), sentences, numbers, rel))
    return out


# ----------------------------------------------------------------------------------------- validation


def _best_rows(results: list[dict[str, Any]]) -> dict[float, dict[str, Any]]:
    best: dict[float, dict[str, Any]] = {}
    for r in results:
        ret, rho = _num(r.get("retention")), _num(r.get("rho_mean"))
        if ret is None or rho is None:
            continue
        if ret not in best or rho > (_num(best[ret].get("rho_mean")) or -2):
            best[ret] = r
    return best


def _per_split(v: dict[str, Any], selector: Any, ret: float) -> list[float] | None:
    """The selector's held-out rho on each split at retention ``ret`` (``macro_rho``), NaN where undefined;
    None when the file does not hold them."""
    per = (v.get("macro_rho") or {}).get(str(selector)) if isinstance(v.get("macro_rho"), dict) else None
    if not isinstance(per, dict):
        return None
    for key, values in per.items():
        try:
            hit = math.isclose(float(key), ret, rel_tol=1e-9, abs_tol=1e-12)
        except (TypeError, ValueError):
            continue
        if hit and isinstance(values, list):
            return [math.nan if _num(x) is None else float(x) for x in values]
    return None


@dataclass
class _Gain:
    """The selector's rho minus random's: ``mean`` and ``sd`` over the splits (paired when ``n`` splits
    give both; else the difference of the means, ``sd`` the larger of the two sds); ``wins``: splits where
    the selector is above random (paired only)."""

    mean: float
    sd: float
    n: int
    wins: int | None

    @property
    def clear(self) -> bool:
        """A gain larger than its spread over the splits (mean above one sd; one split never is)."""
        return self.n > 1 and math.isfinite(self.sd) and self.mean > self.sd

    @property
    def worse(self) -> bool:
        return self.n > 1 and math.isfinite(self.sd) and -self.mean > self.sd


def _gain(v: dict[str, Any], row: dict[str, Any], rand: dict[str, Any], ret: float) -> _Gain | None:
    """The selector's gain over random items at ``ret`` (:class:`_Gain`), None without random's rho."""
    a, b = _per_split(v, row.get("selector"), ret), _per_split(v, "random", ret)
    if a is not None and b is not None and len(a) == len(b):
        d = np.array(a) - np.array(b)
        d = d[np.isfinite(d)]
        if d.size:
            sd = float(np.std(d, ddof=1)) if d.size > 1 else math.nan
            return _Gain(float(d.mean()), sd, int(d.size), int(np.count_nonzero(d > 0)))
    rho, rand_rho = _num(row.get("rho_mean")), _num(rand.get("rho_mean"))
    if rho is None or rand_rho is None:
        return None
    sds = [x for x in (_num(row.get("rho_sd")), _num(rand.get("rho_sd"))) if x is not None]
    splits = v.get("splits")
    n = len(splits) if isinstance(splits, list) else (_num(splits) or 0)
    return _Gain(rho - rand_rho, max(sds) if sds else math.nan, int(n), None)


def _gain_sentence(g: _Gain, rand_rho: float) -> str:
    """Random items' rho and the selector's gain over them, with its spread; "no clear gain" when the
    difference is within the spread."""
    if not math.isfinite(g.sd):
        spread = f"{g.mean:+.3f} (no spread over the splits to judge it by)"
    elif g.wins is not None:
        spread = (
            f"{g.mean:+.3f} +- {_f(g.sd, 3)} (paired difference, mean +- sd over {_n(g.n)} splits; above "
            f"random on {g.wins} of them)"
        )
    else:
        spread = f"{g.mean:+.3f} (difference of the means; each rho varies by up to +- {_f(g.sd, 3)} (sd))"
    head = f"Random items of the same size reach rho {_f(rand_rho, 3)}; "
    if g.clear:
        return head + f"the selector gains {spread}."
    if g.worse:
        return head + f"the selector does worse than random here: {spread}."
    return head + f"there is no clear gain: the difference, {spread}, is within its spread over the splits."


def _selector_note(results: list[dict[str, Any]], row: dict[str, Any], ret: float, n_splits: Any) -> str:
    """How the selector shown was picked: the best mean of several tried on the same splits, and on how many
    splits it was the best (``wins``)."""
    tried = {str(r.get("selector")) for r in results if _num(r.get("retention")) == ret}
    tried.discard("random")
    if len(tried) < 2:
        return ""
    wins = _num(row.get("wins"))
    on = ""
    if wins is not None and n_splits:
        on = f"; it is the best on {_n(wins)} of the {_n(n_splits)} splits"
    return (
        f" (the highest mean of the {len(tried)} selectors tried, picked after seeing these same splits, so "
        f"somewhat optimistic{on})"
    )


def validation_answers(files: SectionFiles) -> list[Answer]:
    """A validation result (``validate --out``: ``validate.json``; the demo: ``heldout.json``): held-out
    rank fidelity of the best selector, and its paired difference from random items of the same size with
    the difference's spread over the splits."""
    out: list[Answer] = []
    for rel, v in files.json.items():
        if not (isinstance(v, dict) and "protocol" in v and isinstance(v.get("results"), list)):
            continue
        results = [r for r in v["results"] if isinstance(r, dict)]
        best = _best_rows(results)
        if not best:
            continue
        good = [r for r in sorted(best) if (_num(best[r].get("rho_mean")) or 0) >= 0.95]
        ret = good[0] if good else max(best)
        row = best[ret]
        rho, sd = _num(row.get("rho_mean")), _num(row.get("rho_sd"))
        rand = next(
            (r for r in results if r.get("selector") == "random" and _num(r.get("retention")) == ret), None
        )
        rand_rho = _num(rand.get("rho_mean")) if rand else None
        splits = v.get("splits")
        n_splits = len(splits) if isinstance(splits, list) else _num(splits)
        params = v.get("params") or {}
        n_items = _num(params.get("n_items"))
        floor = _num(params.get("floor"))
        if floor:
            kept = f" (and at least {_n(floor)} per category: the item floor)"
        else:
            kept = f" (about {_n(round(ret * n_items))} of {_n(n_items)} items)" if n_items else ""
        split_text = f" over {_n(n_splits)} splits" if n_splits else ""
        sentences = [
            f"On held-out models ({v['protocol']} protocol{split_text}), "
            f"the {row.get('selector')} selector{_selector_note(results, row, ret, n_splits)} keeps "
            f"{ret * 100:g} % of the items{kept} and ranks the held-out models at Spearman rho "
            f"{_f(rho or 0, 3)}" + (f" +- {_f(sd, 3)}" if sd is not None else "") + "."
        ]
        gain = _gain(v, row, rand, ret) if rand is not None and row is not rand else None
        if row is rand and rand_rho is not None:
            sentences.append("Random items do as well as every selector tried here.")
        elif gain is not None and rand_rho is not None:
            sentences.append(_gain_sentence(gain, rand_rho))
        if not good:
            sentences.append("No selector reaches rho 0.95 at the retentions tried; the largest is shown.")
        numbers = [
            Number(
                "items kept (retention)",
                f"{ret * 100:g} %" + (f", floor {_n(floor)}" if floor else ""),
                "the smallest share that keeps rho at 0.95"
                if good
                else "a share that keeps rho at 0.95; none tried does (this is the largest)",
            ),
            Number("held-out rank fidelity (rho)", _f(rho or 0, 3), "1 = same order; 0.9 or more is good"),
        ]
        if rand_rho is not None:
            numbers.append(Number("random items, same size (rho)", _f(rand_rho, 3), "below the selector's"))
        if gain is not None:
            numbers.append(
                Number(
                    "gain over random (mean +- sd over splits)",
                    f"{gain.mean:+.3f}" + (f" +- {_f(gain.sd, 3)}" if math.isfinite(gain.sd) else ""),
                    "above its sd (a clear gain); within it, no clear gain",
                )
            )
        if n_splits:
            numbers.append(Number("splits", _n(n_splits), "more splits, steadier numbers"))
        out.append(Answer("validation", _heading("Validation", files, rel), sentences, numbers, rel))
    return out


# ------------------------------------------------------------------------------------------- adaptive


def adaptive_answers(files: SectionFiles) -> list[Answer]:
    """``adaptive simulate --out`` (``adaptive.json``): adaptive, static suite and random at one budget."""
    out: list[Answer] = []
    for rel, a in files.named("adaptive.json"):
        rows = {str(r.get("method")): r for r in (a.get("results") or []) if isinstance(r, dict)}
        if not rows:
            continue
        first = next(iter(rows.values()))
        n_items = _num(first.get("n_items"))
        parts = [
            f"{m} rho {_f(_num(r.get('rho_mean')) or math.nan)} "
            f"(error {_f(_num(r.get('mae_mean')) or math.nan, 3)})"
            for m, r in rows.items()
        ]
        sentences = [
            f"Held-out models ({a.get('holdout', '?')} of the panel) replayed with "
            f"{_n(n_items) if n_items else '?'} items each: " + "; ".join(parts) + ".",
            "rho is the rank agreement with the full benchmark; error the mean absolute score error.",
        ]
        numbers = [
            Number(
                f"{m}: rank fidelity (rho)",
                _f(_num(r.get("rho_mean")) or math.nan),
                "higher is better; 1 = same order",
            )
            for m, r in list(rows.items())[:4]
        ]
        if n_items:
            numbers.insert(0, Number("items per model", _n(n_items), "the same budget for every method"))
        out.append(Answer("adaptive", _heading("Adaptive testing", files, rel), sentences, numbers, rel))
    return out


# ------------------------------------------------------------------------------------------- estimate


def _overall_interval(m: dict[str, Any]) -> tuple[float | None, float, float] | None:
    """A model's overall estimate and interval ``(score or None, low, high)``; None without an interval."""
    overall: dict[str, Any] = m["overall"] if isinstance(m.get("overall"), dict) else {}
    ci, score = overall.get("interval"), _num(overall.get("score"))
    if ci is None:
        suite: dict[str, Any] = m["suite"] if isinstance(m.get("suite"), dict) else {}
        ci, score = suite.get("overall_ci"), _num(suite.get("overall"))
    if isinstance(ci, list) and len(ci) == 2 and all(_num(x) is not None for x in ci):
        return score, float(ci[0]), float(ci[1])
    return None


def estimate_answers(files: SectionFiles) -> list[Answer]:
    """``estimate --out`` (``estimate.json``): how many models were estimated, how wide their intervals
    are (the median width; with the median distances below and above the estimate, since an interval
    clipped at the ends of the scale is not symmetric)."""
    out: list[Answer] = []
    for rel, e in files.named("estimate.json"):
        models = [m for m in (e.get("models") or []) if isinstance(m, dict)]
        if not models:
            continue
        cis = [ci for ci in map(_overall_interval, models) if ci is not None]
        level = _num(e.get("level"))
        lvl = f"{level * 100:.0f} %" if level else "the"
        sentences = [
            f"{_n(len(models))} new model{'s' if len(models) != 1 else ''} estimated from their scores "
            "on the "
            f"suite (method {e.get('method')}, against {e.get('n_reference', '?')} reference models)."
        ]
        numbers = [Number("models estimated", _n(len(models)), "every model you ran")]
        if cis:
            width = float(np.median([hi - lo for _, lo, hi in cis]))
            sides = [(s - lo, hi - s) for s, lo, hi in cis if s is not None and lo <= s <= hi]
            text = (
                f"Their overall scores carry {lvl} intervals about {_f(width, 3)} wide (the median over "
                f"{_n(len(cis))} model{'s' if len(cis) != 1 else ''})"
            )
            if sides:
                below = float(np.median([b for b, _ in sides]))
                above = float(np.median([a for _, a in sides]))
                text += (
                    f"; they need not be symmetric around the estimate: it lies a median {_f(below, 3)} "
                    f"above the lower end and {_f(above, 3)} below the upper end"
                )
            sentences.append(text + ".")
            numbers.append(Number(f"interval width ({lvl}, median)", _f(width, 3), "narrower is sharper"))
        out.append(Answer("estimate", _heading("Estimates", files, rel), sentences, numbers, rel))
    return out


# ----------------------------------------------------------------------------------------- redundancy


def redundancy_answers(files: SectionFiles) -> list[Answer]:
    """Redundancy analyses (``benchmarks.json``, ``dimensions.json``, ``instances.json``)."""
    out: list[Answer] = []
    for rel, d in files.named("benchmarks.json"):
        names = d.get("benchmarks") or []
        mat = (d.get("matrix") or {}).get("srcc")
        if not names or not isinstance(mat, list):
            continue
        best = (-2.0, "", "")
        for i, a in enumerate(names):
            for j in range(i + 1, len(names)):
                v = _num(mat[i][j]) if i < len(mat) and j < len(mat[i]) else None
                if v is not None and v > best[0]:
                    best = (v, a, names[j])
        anchor = (d.get("anchor") or {}).get("srcc")
        n_models = _num(d.get("n_models"))
        sentences = [f"Across {len(names)} benchmarks on {_n(n_models) if n_models else '?'} models,"]
        numbers = [Number("benchmarks compared", _n(len(names)), "")]
        if best[1]:
            sentences[0] += (
                f" the most similar pair is {best[1]} and {best[2]} (rank correlation {_f(best[0])})."
            )
            numbers.append(
                Number("most similar pair (SRCC)", _f(best[0]), "below 0.9: each adds its own signal")
            )
        else:
            sentences[0] += " no pair has a defined correlation."
        if anchor:
            sentences.append(
                f"{anchor} ranks the models most like the others together (the anchor benchmark)."
            )
            numbers.append(Number("anchor benchmark", str(anchor), "the one that stands for the rest"))
        out.append(
            Answer("redundancy", _heading("Benchmark redundancy", files, rel), sentences, numbers, rel)
        )
    for rel, d in files.named("dimensions.json"):
        internal = _num((d.get("internal_redundancy") or {}).get("srcc"))
        pairs = (d.get("top_pairs") or {}).get("srcc") or []
        if internal is None:
            continue
        sentences = [
            f"Inside {d.get('benchmark', 'the benchmark')}, its {len(d.get('dimensions') or [])} "
            "dimensions agree "
            f"at rho {_f(internal)} on average (internal redundancy)."
        ]
        numbers = [
            Number("internal redundancy (SRCC)", _f(internal), "low: the dimensions measure different things")
        ]
        if pairs and isinstance(pairs[0], dict):
            p = pairs[0]
            sentences.append(
                f"The most similar dimensions are {p.get('a')} and {p.get('b')} "
                f"({_f(_num(p.get('value')) or math.nan)})."
            )
            numbers.append(
                Number("most similar dimensions (SRCC)", _f(_num(p.get("value")) or math.nan), "below 0.9")
            )
        out.append(
            Answer("redundancy", _heading("Dimension redundancy", files, rel), sentences, numbers, rel)
        )
    for rel, d in files.named("instances.json"):
        res = d.get("all") if isinstance(d.get("all"), dict) else d
        answer = _instance_answer(files, rel, res) if isinstance(res, dict) else None
        if answer is not None:
            out.append(answer)
    return out


def _instance_answer(files: SectionFiles, rel: str, res: dict[str, Any]) -> Answer | None:
    """``instances.json`` (all models): the smallest random share of the items that ranks the models as all
    of them do (the saturation ratio, SRCC when computed), and whether the rest is redundant."""
    sat_all = res.get("saturation") if isinstance(res.get("saturation"), dict) else {}
    if not sat_all:
        return None
    metric = "srcc" if "srcc" in sat_all else str(next(iter(sat_all)))
    sat = _num(sat_all.get(metric))
    thr = _num(res.get("threshold")) or 0.95
    n_items = _num(res.get("n_items"))
    bench = res.get("benchmark")
    place = bench if isinstance(bench, str) and bench else "the panel (all its benchmarks)"
    of = f" of its {_n(n_items)} items" if n_items else " of its items"
    stat = "rho" if metric == "srcc" else metric
    ratios, sizes = res.get("ratios"), res.get("sample_sizes")
    if sat is None:
        top = max((_num(r) or 0 for r in ratios), default=0) if isinstance(ratios, list) else 0
        up_to = f" up to {top * 100:g} %" if top else ""
        sentences = [
            f"On {place}, no random share of the items{up_to} ranks the models at {stat} "
            f"{thr:g} against all of them: little of it is redundant."
        ]
        share, good = "none reaches it", f"small: few items reach {stat} {thr:g}"
    else:
        k = None
        if isinstance(ratios, list) and isinstance(sizes, list) and len(ratios) == len(sizes):
            k = next((_num(n) for r, n in zip(ratios, sizes, strict=True) if _num(r) == sat), None)
        if k is not None and n_items and k >= n_items:
            sentences = [
                f"On {place}, {stat} {thr:g} against all {_n(n_items)} items is reached only at a random "
                f"{sat * 100:g} % of them, which is {_n(k)} items, every one: none of it is redundant."
            ]
        else:
            count = f" ({_n(k)} items)" if k is not None and n_items else ""
            rest = (
                "the rest is largely redundant for ranking them."
                if sat < 0.5
                else "most of the items are needed to keep that order, so little of it is redundant."
            )
            sentences = [
                f"On {place}, a random {sat * 100:g} %{of}{count} already rank the models at {stat} {thr:g} "
                f"against all of them: {rest}"
            ]
        share, good = f"{sat * 100:g} %", f"small: few items reach {stat} {thr:g}"
    numbers = [
        Number(f"items that suffice (share, {stat} {thr:g})", share, good),
        Number(
            "items in the benchmark" if bench else "items in the panel", _n(n_items) if n_items else "?", ""
        ),
    ]
    return Answer("redundancy", _heading("Item redundancy", files, rel), sentences, numbers, rel)


# ---------------------------------------------------------------------------------------------- prism


def prism_answers(files: SectionFiles) -> list[Answer]:
    """``prism score --out`` (``result.json`` with ``pscore``): the leader and how many pairs separate."""
    out: list[Answer] = []
    for rel, r in files.named("result.json"):
        ps = r.get("pscore")
        if not isinstance(ps, dict) or not ps:
            continue
        ranked = sorted(((float(v), k) for k, v in ps.items() if _num(v) is not None), reverse=True)
        sep = _num((r.get("separation") or {}).get("bh"))
        sentences = [
            f"{len(ps)} models scored on {r.get('n_items', '?')} items; {ranked[0][1]} leads with PScore "
            f"{_f(ranked[0][0], 3)}."
        ]
        numbers = [Number("top PScore", f"{_f(ranked[0][0], 3)} ({ranked[0][1]})", "")]
        if sep is not None:
            sentences.append(
                f"{sep * 100:.0f} % of model pairs are told apart by the paired bootstrap (BH-corrected)."
            )
            numbers.append(Number("pairs separated", f"{sep * 100:.0f} %", "high: the ranking is not noise"))
        numbers.append(Number("models", _n(len(ps)), ""))
        out.append(Answer("prism", _heading("Multi-axis scores", files, rel), sentences, numbers, rel))
    return out


# ------------------------------------------------------------------------------------ demo summaries


def demo_answers(files: SectionFiles) -> list[Answer]:
    """The demo's own sections without a result file of their own (the panel, the loop)."""
    s = files.summary
    if files.key == "panel" and "n_models" in s:
        sentences = [
            f"A simulated panel of {_n(s['n_models'])} models x {_n(s['n_items'])} items in "
            f"{s.get('n_benchmarks', '?')} benchmarks; mean score {_f(s.get('mean_score', math.nan))}, "
            f"{(s.get('coverage') or 0) * 100:.1f} % of the cells scored."
        ]
        numbers = [
            Number("models", _n(s["n_models"]), ""),
            Number("items", _n(s["n_items"]), ""),
            Number(
                "coverage", f"{(s.get('coverage') or 0) * 100:.1f} %", "100 %: every model ran every item"
            ),
        ]
        return [Answer("panel", "The panel", sentences, numbers)]
    if files.key == "loop" and "mae_estimate" in s:
        sentences = [
            f"New models run on a {s.get('n_items_suite', '?')}-item suite and estimated with "
            f"{s.get('method')}: "
            f"their full-benchmark scores are off by {_f(s['mae_estimate'], 3)} on average "
            f"(the suite's raw mean: {_f(s.get('mae_suite_mean', math.nan), 3)}).",
            f"{(s.get('interval_coverage') or 0) * 100:.0f} % of the intervals hold the true score.",
        ]
        numbers = [
            Number("items run", str(s.get("n_items_suite", "?")), "small"),
            Number("estimate error (MAE)", _f(s["mae_estimate"], 3), "below 0.03 is good"),
            Number(
                "raw suite mean error", _f(s.get("mae_suite_mean", math.nan), 3), "larger than the estimate's"
            ),
            Number(
                "intervals holding the truth",
                f"{(s.get('interval_coverage') or 0) * 100:.0f} %",
                "about their level (95 %)",
            ),
        ]
        return [Answer("loop", "Run a suite, estimate full scores", sentences, numbers)]
    return []


# -------------------------------------------------------------------------------------------- compare


#: sections of a pair's answer told in sentences (the rest: ``pair_power.csv``)
_PAIR_SECTIONS = 6


def _pair_sentence(r: dict[str, Any], alpha: float, target: Any) -> str:
    """One section of ``pair_power``: the difference, its p, the power now and the items that would give the
    target power."""
    a, b, section = r.get("model_a"), r.get("model_b"), r.get("section", "?")
    delta, p, power = _num(r.get("delta")), _num(r.get("p")), _num(r.get("power"))
    need, n = _num(r.get("items_needed")), _num(r.get("n_common"))
    on = f" on the {_n(n)} items both answered" if n is not None else ""
    text = f"{section}: {a} scores {_f(delta, 4) if delta is not None else '?'} above {b}{on}"
    if p is not None:
        verdict = "told apart" if p <= alpha else "not told apart"
        text += f" (p = {p:.2g} for this pair alone: {verdict} at alpha {alpha:g})"
    if power is not None:
        text += f"; a paired test over these items detects a true difference this size with power {power:.2f}"
    if need is not None:
        text += f", and about {_n(need)} items would give power {target}"
    elif delta == 0:
        text += "; no number of items separates a difference of 0"
    return text + "."


def _pair_answer(files: SectionFiles, rel: str, rows: Any, params: dict[str, Any]) -> Answer | None:
    """``compare --pair A,B`` (``pair_power`` of ``compare.json``): that pair's difference, p, power and the
    items needed to separate it, per section; None without a pair."""
    rows = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    if not rows:
        return None
    alpha = _num(params.get("alpha")) or 0.05
    target = rows[0].get("target_power", params.get("power", 0.8))
    first = next((r for r in rows if r.get("section") == "overall"), rows[0])  # the numbers: overall
    a, b = first.get("model_a"), first.get("model_b")
    sentences = [f"The pair you asked about, {a} and {b} (`--pair`):"]
    ordered = [first, *(r for r in rows if r is not first)]
    sentences += [_pair_sentence(r, alpha, target) for r in ordered[:_PAIR_SECTIONS]]
    if len(rows) > _PAIR_SECTIONS:
        sentences.append(f"{len(rows) - _PAIR_SECTIONS} more sections: pair_power.csv.")
    section = first.get("section", "?")
    delta, p, power = _num(first.get("delta")), _num(first.get("p")), _num(first.get("power"))
    need, n = _num(first.get("items_needed")), _num(first.get("n_common"))
    numbers = [
        Number(
            f"difference {a} - {b} ({section})",
            _f(delta, 4) if delta is not None else "n/a",
            "",
        ),
        Number(f"p ({section})", f"{p:.2g}" if p is not None else "n/a", f"at most {alpha:g}: told apart"),
        Number(f"power now ({section})", _f(power) if power is not None else "n/a", f"{target} or more"),
        Number(
            f"items needed for power {target} ({section})",
            _n(need) if need is not None else "never (difference 0)" if delta == 0 else "n/a",
            f"at most {_n(n)}, the items both answered now" if n is not None else "fewer is sooner",
        ),
    ]
    return Answer("compare", _heading(f"Pair {a} vs {b}", files, rel), sentences, numbers, rel)


def compare_answers(files: SectionFiles) -> list[Answer]:
    """``compare --out`` (``compare.json``): per section, how many models are apart, the tie groups and the
    smallest difference the benchmark can detect."""
    out: list[Answer] = []
    for rel, c in files.named("compare.json"):
        rows = [r for r in (c.get("resolution") or []) if isinstance(r, dict)]
        ties = c.get("ties") if isinstance(c.get("ties"), dict) else {}
        params = c.get("parameters") if isinstance(c.get("parameters"), dict) else {}
        pair = _pair_answer(files, rel, c.get("pair_power"), params)
        if pair is not None:
            out.append(pair)  # the pair the user asked about (`compare --pair A,B`) answers first
        correction = params.get("correction", "holm")
        for r in rows:
            section = str(r.get("section", "?"))
            mdd = _num(r.get("mdd"))
            sep = _num(r.get(f"separated_{correction}"))
            groups = _num(r.get("n_groups"))
            largest = _num(r.get("largest_group"))
            n_models = _num(r.get("n_models"))
            sentences = [
                f"{section}: {_n(n_models) if n_models else '?'} models on {_n(_num(r.get('n_items')) or 0)}"
                f" items fall into {_n(groups) if groups else '?'} groups that the benchmark cannot order"
                f" inside (the largest holds {_n(largest) if largest else '?'} models)."
            ]
            if mdd is not None:
                sentences.append(
                    f"Two models must differ by about {_f(mdd, 3)} before a paired test over the items tells"
                    f" them apart (power {params.get('power', 0.8)}, alpha {params.get('alpha', 0.05)})."
                )
            first = (ties.get(section) or [None])[0]
            if isinstance(first, str):
                sentences.append(f"Top group: {first}.")
            numbers = []
            if groups is not None:
                numbers.append(Number("tie groups", _n(groups), "more groups = a finer leaderboard"))
            if sep is not None:
                numbers.append(
                    Number(f"pairs told apart ({correction})", f"{sep * 100:.0f} %", "higher is sharper")
                )
            if mdd is not None:
                numbers.append(Number("minimum detectable difference", _f(mdd, 3), "smaller is sharper"))
            if largest is not None:
                numbers.append(Number("largest tie group", _n(largest), "small"))
            out.append(
                Answer("compare", _heading(f"Leaderboard {section}", files, rel), sentences, numbers, rel)
            )
    return out


for _name, _fn in (
    ("demo", demo_answers),
    ("suite", suite_answers),
    ("validation", validation_answers),
    ("estimate", estimate_answers),
    ("adaptive", adaptive_answers),
    ("audit", audit_answers),
    ("redundancy", redundancy_answers),
    ("prism", prism_answers),
    ("compare", compare_answers),
):
    register_summariser(_name, _fn)
