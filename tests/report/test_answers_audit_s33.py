"""The page's answers and figure files after the outside audit of the HTML pages (s33, defects 8-14): rank
figures of sections whose names differ only in other characters than ``[A-Za-z0-9_.-]``, the PRISM forest
caption's axes, the estimate's median interval width, the ``--pair`` answer, the validation gain with its
spread over the splits, and the wording of the redundancy, audit and heading texts. Each number is checked
against one computed here from the files the command wrote (or the panel)."""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.panel import Panel
from benchsift.report.answers import Answer, SectionFiles, section_answers
from benchsift.report.html import collect_report
from benchsift.report.leaderboard import _stem, _stems
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.simulate.verdicts import simulate_verdicts

runner = CliRunner()


def _numbers(answer: Answer) -> dict[str, str]:
    return {n.label: n.value for n in answer.numbers}


def _goods(answer: Answer) -> dict[str, str]:
    return {n.label: n.good for n in answer.numbers}


def _answers(folder: Path) -> list[Answer]:
    _, sections = collect_report(folder)
    return [a for s in sections for a in s.answers]


def _invoke(args: list[str]) -> None:
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output


def _logistic_panel(path: Path, benchmarks: list[str], n_models: int, per_bench: int, seed: int) -> Panel:
    """A complete 0/1 panel: ``per_bench`` items in each benchmark, 2PL-like with spread abilities."""
    rng = np.random.default_rng(seed)
    n_items = per_bench * len(benchmarks)
    theta = np.linspace(-1.5, 1.5, n_models)
    b = rng.normal(0.0, 1.0, n_items)
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - b[None, :]) * 1.7))
    scores = (rng.random((n_models, n_items)) < p).astype(float)
    items = pd.DataFrame(
        {
            "benchmark": [name for name in benchmarks for _ in range(per_bench)],
            "item": [f"q{i:03d}" for i in range(n_items)],
        }
    )
    panel = Panel(scores, [f"m{i:02d}" for i in range(n_models)], items)
    panel.save(path)
    return panel


@pytest.fixture(scope="module")
def small_panel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("panel") / "p.parquet"
    simulate_panel(SimulationConfig.unidimensional(n_models=40, n_items=300), random_state=3).panel.save(path)
    return path


# ------------------------------------------------------------------------------------------- defect 8


@pytest.mark.filterwarnings("ignore:Glyph .* missing from font:UserWarning")  # CJK names: no font here
def test_rank_figures_of_sections_named_alike_get_files_of_their_own(tmp_path: Path) -> None:
    names = ["数学", "物理", "A/B", "A B"]
    path = tmp_path / "collide.parquet"
    _logistic_panel(path, names, n_models=8, per_bench=10, seed=0)
    out = tmp_path / "cmp"
    _invoke(["compare", str(path), "--n-boot", "50", "--out", str(out)])
    svgs = sorted(p.name for p in out.glob("ranks_*.svg"))
    sections = [*names, "overall"]
    assert len(svgs) == len(sections)  # the old stems gave 3 files for 5 sections
    for name in sections:
        # the file each section's figure went to: a readable part plus 8 hex digits of sha256(name)
        if name == "overall":
            stem = "ranks_overall"
        else:
            readable = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "section"
            stem = f"ranks_{readable}_{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}"
        text = (out / f"{stem}.svg").read_text()
        assert f"Section {name}: one row per model" in text, name  # its own caption, not another's
    assert {_stem(n) for n in sections} == {s.removesuffix(".svg") for s in svgs}
    # the same name gives the same file; names of letters and digits keep their plain stem
    assert _stem("数学") == _stem("数学") != _stem("物理")
    assert _stem("MMMU_DEV-VAL.1") == "ranks_MMMU_DEV-VAL.1"
    # two names that differ in case are one file on a case-insensitive file system: both get the hash
    stems = _stems(["Ab", "ab", "cd"])
    assert len({s.casefold() for s in stems.values()}) == 3 and stems["cd"] == "ranks_cd"
    # a long name stays a valid file name (at most 255 bytes)
    assert len(_stem("x" * 400).encode()) < 100 and _stem("x" * 400) != _stem("x" * 401)


# ------------------------------------------------------------------------------------------- defect 9


def test_prism_forest_caption_counts_the_axes_of_the_verdicts(tmp_path: Path) -> None:
    table = simulate_verdicts(6, 60, random_state=0).table
    table = table[table["axis"] != "sc"]  # six axes: q, if, h, mq, c, vis
    path = tmp_path / "verdicts.csv"
    table.to_csv(path, index=False)
    out = tmp_path / "prism"
    _invoke(["prism", "score", str(path), "--n-boot", "50", "--seed", "0", "--out", str(out)])
    result = json.loads((out / "result.json").read_text())
    axes = list(result["effective_weights"])
    assert len(axes) == 6 and set(axes) == set(table["axis"].unique())
    _, sections = collect_report(out)
    (forest,) = [f for s in sections for f in s.figures if "pscore_forest" in f.name]
    assert "seven" not in forest.caption
    assert f"harmonic mean of its six axis means ({', '.join(axes)})" in forest.caption


# ------------------------------------------------------------------------------------------ defect 10


def test_estimate_answer_gives_the_median_width_not_a_symmetric_half_width(
    small_panel: Path, tmp_path: Path
) -> None:
    panel = Panel.load(small_panel)
    build, new = panel.subset(models=list(range(30))), panel.subset(models=list(range(30, 40)))
    build.save(tmp_path / "build.parquet")
    new.to_long().to_csv(tmp_path / "new.csv", index=False)
    _invoke(["compress", str(tmp_path / "build.parquet"), "--out", str(tmp_path / "suite"), "--floor", "0"])
    est = tmp_path / "estimate"
    _invoke(
        ["estimate", str(tmp_path / "suite"), str(tmp_path / "new.csv"), "--out", str(est), "--n-boot", "200"]
    )
    doc = json.loads((est / "estimate.json").read_text())
    rows = [(m["overall"]["score"], *m["overall"]["interval"]) for m in doc["models"]]
    assert len(rows) == 10  # an even count: the median is the mean of the two middle widths
    widths = sorted(hi - lo for _, lo, hi in rows)
    median = (widths[4] + widths[5]) / 2
    (ans,) = _answers(est)
    text = " ".join(ans.sentences)
    assert f"intervals about {median:.3f} wide (the median over 10 models)" in text
    assert "+-" not in text and not any("+-" in n.value for n in ans.numbers)
    assert _numbers(ans)["interval width (95 %, median)"] == f"{median:.3f}"
    below = float(np.median([s - lo for s, lo, _ in rows]))
    above = float(np.median([hi - s for s, _, hi in rows]))
    assert f"a median {below:.3f} above the lower end and {above:.3f} below the upper end" in text


def test_estimate_answer_on_clipped_intervals() -> None:
    # three models, one interval clipped near 1 (asymmetric around its estimate)
    doc = {
        "method": "stack",
        "level": 0.95,
        "n_reference": 30,
        "models": [
            {"model": "a", "overall": {"score": 0.639, "interval": [0.490, 0.991]}},
            {"model": "b", "overall": {"score": 0.5, "interval": [0.4, 0.6]}},
            {"model": "c", "overall": {"score": 0.3, "interval": [0.17, 0.46]}},
        ],
    }
    (ans,) = section_answers(SectionFiles("top", {"estimate.json": doc}, {}, {}, "x"))
    text = " ".join(ans.sentences)
    # widths 0.501, 0.2, 0.29: median 0.29; the estimate lies 0.149, 0.1, 0.13 above the lower ends and
    # 0.352, 0.1, 0.16 below the upper ends
    assert "intervals about 0.290 wide (the median over 3 models)" in text and "+-" not in text
    assert "a median 0.130 above the lower end and 0.160 below the upper end" in text


# ------------------------------------------------------------------------------------------ defect 11


def test_compare_pair_answers_first_with_the_pairs_numbers(tmp_path: Path) -> None:
    path = tmp_path / "p.parquet"
    panel = _logistic_panel(path, ["bench0", "bench1"], n_models=12, per_bench=60, seed=1)
    out = tmp_path / "cmp"
    _invoke(
        ["compare", str(path), "--n-boot", "200", "--pair", "m05,m08", "--power", "0.8", "--out", str(out)]
    )
    table = pd.read_csv(out / "pair_power.csv")
    answers = _answers(out)
    first = answers[0]
    assert first.kind == "compare" and first.heading in ("Pair m08 vs m05", "Pair m05 vs m08")
    assert all(not a.heading.endswith(" top") for a in answers)  # the section key is not repeated
    row = table[table["section"] == "overall"].iloc[0]
    a, b = row["model_a"], row["model_b"]
    # the difference on the items both answered, from the panel itself
    sa, sb = panel.scores[panel.model_ids.index(a)], panel.scores[panel.model_ids.index(b)]
    both = ~np.isnan(sa) & ~np.isnan(sb)
    delta = float(np.mean(sa[both] - sb[both]))
    assert delta == pytest.approx(row["delta"])
    got = _numbers(first)
    assert got[f"difference {a} - {b} (overall)"] == f"{delta:.4f}"
    assert got["p (overall)"] == f"{row['p']:.2g}"
    za, zp = stats.norm.ppf(0.975), stats.norm.ppf(0.8)
    r = abs(delta) / row["se"]
    power = stats.norm.cdf(r - za) + stats.norm.cdf(-r - za)
    assert got["power now (overall)"] == f"{power:.2f}"
    need = math.ceil(int(both.sum()) * ((za + zp) * row["se"] / abs(delta)) ** 2)
    assert got["items needed for power 0.8 (overall)"] == f"{need:,}"
    text = " ".join(first.sentences)
    for _, r_ in table.iterrows():  # every section of the pair is told
        assert f"{r_['section']}: {r_['model_a']} scores {r_['delta']:.4f} above {r_['model_b']}" in text
        assert f"{int(r_['items_needed']):,} items would give power 0.8" in text
    verdict = "told apart" if row["p"] <= 0.05 else "not told apart"
    assert f"p = {row['p']:.2g} for this pair alone: {verdict} at alpha 0.05" in text
    # without --pair there is no pair answer
    plain = tmp_path / "plain"
    _invoke(["compare", str(path), "--n-boot", "50", "--out", str(plain)])
    assert all(not a.heading.startswith("Pair") for a in _answers(plain))


# ------------------------------------------------------------------------------------------ defect 12


def _validate_doc(sel: list[float], rand: list[float], ret: float = 0.05, wins: int = 2) -> dict[str, Any]:
    def row(name: str, v: list[float], w: int) -> dict[str, Any]:
        return {"selector": name, "retention": ret, "rho_mean": float(np.mean(v)),
                "rho_sd": float(np.std(v, ddof=1)), "wins": w}  # fmt: skip

    return {
        "protocol": "random",
        "results": [row("vaw", sel, wins), row("random", rand, len(sel) - wins)],
        "splits": [{"name": f"random {k + 1}"} for k in range(len(sel))],
        "macro_rho": {"vaw": {str(ret): sel}, "random": {str(ret): rand}},
        "params": {"n_items": 1000, "floor": 0},
    }


def test_validation_gain_within_its_spread_is_no_clear_gain() -> None:
    # the demo's case: the selector's mean is 0.002 above random's, the paired differences spread by ~0.02
    sel = [0.94, 0.96, 0.95, 0.965, 0.945]
    rand = [0.95, 0.93, 0.975, 0.94, 0.955]
    d = np.subtract(sel, rand)
    (ans,) = section_answers(SectionFiles("top", {"validate.json": _validate_doc(sel, rand)}, {}, {}, "x"))
    text = " ".join(ans.sentences)
    assert abs(d.mean()) < d.std(ddof=1)
    assert "no clear gain" in text and "gains" not in text
    spread = f"{d.mean():+.3f} +- {d.std(ddof=1):.3f}"
    assert spread in text and f"above random on {int((d > 0).sum())} of them" in text
    assert _numbers(ans)["gain over random (mean +- sd over splits)"] == spread


def test_validation_out_reports_the_paired_gain_with_its_spread(small_panel: Path, tmp_path: Path) -> None:
    out = tmp_path / "validate"
    _invoke(
        ["validate", str(small_panel), "--splits", "4", "--selectors", "random,variance,vaw",
         "--retentions", "0.02,0.05", "--floor", "0", "--out", str(out)]
    )  # fmt: skip
    doc = json.loads((out / "validate.json").read_text())
    (ans,) = _answers(out)
    best: dict[float, dict[str, Any]] = {}
    for row in doc["results"]:
        if row["retention"] not in best or row["rho_mean"] > best[row["retention"]]["rho_mean"]:
            best[row["retention"]] = row
    assert all(r["rho_mean"] < 0.95 for r in best.values())  # no selector reaches 0.95 here
    ret = max(best)
    row = best[ret]
    goods = _goods(ans)
    assert "smallest share that keeps rho at 0.95" not in goods["items kept (retention)"]
    assert "none tried does" in goods["items kept (retention)"]
    text = " ".join(ans.sentences)
    if row["selector"] == "random":
        assert "Random items do as well as every selector tried here." in text
        return
    sel = np.array(doc["macro_rho"][row["selector"]][str(ret)])
    rand = np.array(doc["macro_rho"]["random"][str(ret)])
    d = sel - rand
    spread = f"{d.mean():+.3f} +- {d.std(ddof=1):.3f}"
    assert _numbers(ans)["gain over random (mean +- sd over splits)"] == spread
    assert f"{spread} (paired difference, mean +- sd over 4 splits; above random on {(d > 0).sum()}" in text
    assert ("the selector gains" in text) == (d.mean() > d.std(ddof=1))
    # picked post hoc among the selectors tried: said, with the splits it was best on
    assert "the highest mean of the 2 selectors tried, picked after seeing these same splits" in text
    assert f"it is the best on {row['wins']} of the 4 splits" in text


# ------------------------------------------------------------------------------------- defects 13, 14


def test_item_redundancy_on_the_panel_and_on_a_panel_with_no_redundancy(tmp_path: Path) -> None:
    big = tmp_path / "big.parquet"
    _logistic_panel(big, ["b0", "b1", "b2"], n_models=20, per_bench=350, seed=2)
    out = tmp_path / "red"
    _invoke(["redundancy", "instances", str(big), "--repeats", "5", "--seed", "0", "--out", str(out)])
    d = json.loads((out / "instances.json").read_text())
    res = d.get("all", d)
    (ans,) = _answers(out)
    text = " ".join(ans.sentences)
    sat = res["saturation"]["srcc"]
    k = res["sample_sizes"][res["ratios"].index(sat)]
    assert "None" not in text
    assert (
        f"On the panel (all its benchmarks), a random {sat * 100:g} % of its 1,050 items ({k:,} items)"
        in text
    )
    assert _numbers(ans)["items in the panel"] == "1,050"
    assert ans.heading == "Item redundancy"
    # four items: the share that ranks the models as all do is most or all of them: not "largely redundant"
    for seed, k_want, said in ((1, 4, "none of it is redundant"), (0, 3, "little of it is redundant")):
        rng = np.random.default_rng(seed)
        tiny = tmp_path / f"tiny{seed}.parquet"
        items = pd.DataFrame({"benchmark": "b", "item": list("abcd")})
        Panel(rng.integers(0, 2, (6, 4)).astype(float), [f"m{i}" for i in range(6)], items).save(tiny)
        out = tmp_path / f"tiny{seed}"
        _invoke(["redundancy", "instances", str(tiny), "--repeats", "10", "--seed", "0", "--out", str(out)])
        res = json.loads((out / "instances.json").read_text())
        res = res.get("all", res)
        sat = res["saturation"]["srcc"]
        assert res["sample_sizes"][res["ratios"].index(sat)] == k_want and sat > 0.5
        (ans,) = _answers(out)
        text = " ".join(ans.sentences)
        assert "largely redundant" not in text and said in text, text


def test_audit_answer_with_no_negatively_discriminating_item(tmp_path: Path) -> None:
    # a Guttman panel: a stronger model gets every item a weaker one gets, so no item discriminates negatively
    rng = np.random.default_rng(0)
    ability, difficulty = np.linspace(-2, 2, 30), rng.uniform(-2, 2, 40)
    scores = (ability[:, None] > difficulty[None, :]).astype(float)
    items = pd.DataFrame({"benchmark": "b", "item": [f"q{i}" for i in range(40)]})
    path = tmp_path / "g.parquet"
    Panel(scores, [f"m{i}" for i in range(30)], items).save(path)
    out = tmp_path / "audit"
    _invoke(["audit", str(path), "--out", str(out)])
    assert json.loads((out / "audit.json").read_text())["flag_counts"]["negative-discrimination"] == 0
    (ans,) = _answers(out)
    text = " ".join(ans.sentences)
    assert "0 items discriminate" not in text and "check their answer keys" not in text
    assert "No item discriminates negatively" in text
    assert _numbers(ans)["negatively discriminating"] == "0"


def test_demo_headings_do_not_repeat_the_section_key(demo_dir: tuple[Path, dict[str, Any]]) -> None:
    out, _ = demo_dir
    _, sections = collect_report(out)
    red = next(s for s in sections if s.key == "redundancy")
    assert [a.heading for a in red.answers] == [
        "Benchmark redundancy",
        "Dimension redundancy",
        "Item redundancy",
    ]
    for s in sections:
        for a in s.answers:
            if a.kind == "panel":  # "The panel": the demo's own section, not a result's heading
                continue
            twice = rf"(?i)\b{re.escape(s.key)}\b.*\b{re.escape(s.key)}\b"  # "Audit audit"
            assert not re.search(twice, a.heading) and f"{s.key}/" not in a.heading, (s.key, a.heading)
    loop = next(s for s in sections if s.key == "loop")
    assert [a.heading for a in loop.answers if a.kind == "suite"] == ["Suite (suite)"]
