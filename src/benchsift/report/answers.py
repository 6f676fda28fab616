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


def _label(files: SectionFiles, rel: str) -> str:
    """The folder of ``rel`` inside the report (for headings)."""
    return _dir(rel) or files.key


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
        out.append(Answer("suite", f"Suite {_label(files, rel)}", sentences, numbers, rel, card))
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
        if neg is not None:
            sentences.append(
                f"{_n(neg)} item{'s' if neg != 1 else ''} discriminate negatively (stronger models get them "
                "wrong more often than weaker ones): check their answer keys first; click an item to see it."
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
        out.append(Answer("audit", f"Audit {_label(files, rel)}", sentences, numbers, rel))
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


def validation_answers(files: SectionFiles) -> list[Answer]:
    """A validation result (``validate --out``: ``validate.json``; the demo: ``heldout.json``): held-out
    rank fidelity of the best selector, against random items of the same size."""
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
            f"the {row.get('selector')} selector keeps "
            f"{ret * 100:g} % of the items{kept} and ranks the held-out models at Spearman rho "
            f"{_f(rho or 0, 3)}" + (f" +- {_f(sd, 3)}" if sd is not None else "") + "."
        ]
        if rand_rho is not None:
            diff = (rho or 0) - rand_rho
            sentences.append(
                f"Random items of the same size reach rho {_f(rand_rho, 3)}: the selector "
                + (f"gains {_f(diff, 3)}." if diff > 0 else "is no better than random here.")
            )
        if not good:
            sentences.append("No selector reaches rho 0.95 at the retentions tried; the largest is shown.")
        numbers = [
            Number(
                "items kept (retention)",
                f"{ret * 100:g} %" + (f", floor {_n(floor)}" if floor else ""),
                "the smallest share that keeps rho at 0.95",
            ),
            Number("held-out rank fidelity (rho)", _f(rho or 0, 3), "1 = same order; 0.9 or more is good"),
        ]
        if rand_rho is not None:
            numbers.append(Number("random items, same size (rho)", _f(rand_rho, 3), "below the selector's"))
        if n_splits:
            numbers.append(Number("splits", _n(n_splits), "more splits, steadier numbers"))
        out.append(Answer("validation", f"Validation {_label(files, rel)}", sentences, numbers, rel))
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
        out.append(Answer("adaptive", f"Adaptive testing {_label(files, rel)}", sentences, numbers, rel))
    return out


# ------------------------------------------------------------------------------------------- estimate


def estimate_answers(files: SectionFiles) -> list[Answer]:
    """``estimate --out`` (``estimate.json``): how many models were estimated, how wide their intervals
    are."""
    out: list[Answer] = []
    for rel, e in files.named("estimate.json"):
        models = [m for m in (e.get("models") or []) if isinstance(m, dict)]
        if not models:
            continue
        widths = []
        for m in models:
            ci = (m.get("overall") or {}).get("interval") if isinstance(m.get("overall"), dict) else None
            if ci is None:
                ci = (m.get("suite") or {}).get("overall_ci")
            if isinstance(ci, list) and len(ci) == 2 and all(_num(x) is not None for x in ci):
                widths.append((float(ci[1]) - float(ci[0])) / 2)
        level = _num(e.get("level"))
        lvl = f"{level * 100:.0f} %" if level else "the"
        sentences = [
            f"{_n(len(models))} new model{'s' if len(models) != 1 else ''} estimated from their scores "
            "on the "
            f"suite (method {e.get('method')}, against {e.get('n_reference', '?')} reference models)."
        ]
        numbers = [Number("models estimated", _n(len(models)), "every model you ran")]
        if widths:
            widths.sort()
            med = widths[len(widths) // 2]
            sentences.append(f"Their overall scores carry {lvl} intervals of about +-{_f(med, 3)} (median).")
            numbers.append(Number(f"interval half-width ({lvl})", f"+-{_f(med, 3)}", "narrower is sharper"))
        out.append(Answer("estimate", f"Estimates {_label(files, rel)}", sentences, numbers, rel))
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
        sentences = [f"Across {len(names)} benchmarks on {d.get('n_models', '?')} models,"]
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
            Answer("redundancy", f"Benchmark redundancy {_label(files, rel)}", sentences, numbers, rel)
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
            Answer("redundancy", f"Dimension redundancy {_label(files, rel)}", sentences, numbers, rel)
        )
    for rel, d in files.named("instances.json"):
        res = d.get("all") if isinstance(d.get("all"), dict) else d
        sat = _num((res.get("saturation") or {}).get("srcc")) if isinstance(res, dict) else None
        if sat is None:
            continue
        thr = _num(res.get("threshold")) or 0.95
        sentences = [
            f"On {res.get('benchmark', 'the benchmark')}, a random {sat * 100:g} % of its "
            f"{res.get('n_items', '?')} items already rank the models at rho {thr:g} against all of them: "
            "the rest is largely redundant."
        ]
        numbers = [
            Number("items that suffice (share)", f"{sat * 100:g} %", f"small: few items reach rho {thr:g}"),
            Number("items in the benchmark", str(res.get("n_items", "?")), ""),
        ]
        out.append(Answer("redundancy", f"Item redundancy {_label(files, rel)}", sentences, numbers, rel))
    return out


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
        out.append(Answer("prism", f"Multi-axis scores {_label(files, rel)}", sentences, numbers, rel))
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


def compare_answers(files: SectionFiles) -> list[Answer]:
    """``compare --out`` (``compare.json``): per section, how many models are apart, the tie groups and the
    smallest difference the benchmark can detect."""
    out: list[Answer] = []
    for rel, c in files.named("compare.json"):
        rows = [r for r in (c.get("resolution") or []) if isinstance(r, dict)]
        ties = c.get("ties") if isinstance(c.get("ties"), dict) else {}
        params = c.get("parameters") if isinstance(c.get("parameters"), dict) else {}
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
                Answer("compare", f"Leaderboard {section} {_label(files, rel)}", sentences, numbers, rel)
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
