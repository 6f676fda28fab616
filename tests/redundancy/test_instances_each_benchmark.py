"""Per-benchmark instance redundancy and its average (redundancy paper Sec. 2.2, Figs. 5-6)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from benchsift import Panel
from benchsift.cli.main import app
from benchsift.errors import InputError
from benchsift.redundancy import instance_redundancy, instance_redundancy_by_benchmark
from benchsift.redundancy.instances import saturation_ratio
from benchsift.redundancy.instances_by_benchmark import benchmark_seed

runner = CliRunner()
RATIOS = [0.1, 0.3, 0.6, 1.0]
SIZES = {"A": 30, "B": 20, "C": 12}


def _multi_panel(seed: int = 0, constant: str | None = None) -> Panel:
    """Three benchmarks whose model orders differ (ability on B is reversed), so top-K differs per benchmark.

    With ``constant`` named, that benchmark's items are answered the same by every model (undefined curve).
    """
    rng = np.random.default_rng(seed)
    n_models = 10
    ability = np.linspace(-1.5, 1.5, n_models)
    per_bench = {"A": ability, "B": -ability, "C": np.roll(ability, 3)}
    cols, bench = [], []
    for name, n in SIZES.items():
        p = 1 / (1 + np.exp(-(per_bench[name][:, None] - rng.normal(size=n)[None, :])))
        block = (rng.random(p.shape) < p).astype(float)
        if name == constant:
            block[:] = block[0]
        cols.append(block)
        bench += [name] * n
    scores = np.hstack(cols)
    scores[2, 4] = np.nan  # one missing cell in A
    items = pd.DataFrame({"benchmark": bench, "item": [f"q{j}" for j in range(scores.shape[1])]})
    return Panel(scores, [f"m{i}" for i in range(n_models)], items)


def test_average_is_the_mean_of_separate_per_benchmark_runs():
    panel = _multi_panel()
    res = instance_redundancy_by_benchmark(panel, ratios=RATIOS, repeats=9, random_state=5)
    assert res.benchmarks == ("A", "B", "C")
    curves = {m: [] for m in res.metrics}
    for b in res.benchmarks:
        assert res.random_states[b] == benchmark_seed(5, b)
        alone = instance_redundancy(
            panel, benchmark=b, ratios=RATIOS, repeats=9, random_state=benchmark_seed(5, b)
        )
        assert alone.to_dict() == res.per_benchmark[b].to_dict()
        assert alone.n_items == SIZES[b]
        for m in res.metrics:
            curves[m].append(alone.mean[m])
    for m in res.metrics:
        stack = np.array(curves[m])
        assert res.included[m] == ["A", "B", "C"]
        np.testing.assert_allclose(res.mean[m], stack.mean(axis=0), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(res.sd[m], stack.std(axis=0, ddof=1), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(res.mean[m][-1], 1.0)  # ratio 1.0 is the whole benchmark everywhere
        assert res.saturation[m] == saturation_ratio(np.array(RATIOS), res.mean[m], 0.95)
    assert res.undefined == []
    # Each benchmark is analysed on its own: no pooling note.
    assert not any("pooled" in n for n in res.notes)


def test_top_k_is_chosen_per_benchmark():
    panel = _multi_panel()
    res = instance_redundancy_by_benchmark(panel, ratios=RATIOS, repeats=3, top_k=4, random_state=0)
    chosen = {}
    for b in res.benchmarks:
        means = panel.select_benchmarks(b).model_means()
        expected = [f"m{i}" for i in np.argsort(-means, kind="stable")[:4]]
        sel = res.per_benchmark[b].selection
        assert sel.mode == "top" and sel.models == expected
        assert res.per_benchmark[b].n_models == 4
        chosen[b] = set(sel.models)
    assert chosen["A"] != chosen["B"]  # B's ability order is reversed
    assert res.selection == "top-4"
    low = instance_redundancy_by_benchmark(panel, ratios=RATIOS, repeats=3, bottom_k=3, random_state=0)
    for b in low.benchmarks:
        means = panel.select_benchmarks(b).model_means()
        assert low.per_benchmark[b].selection.models == [
            f"m{i}" for i in np.argsort(means, kind="stable")[:3]
        ]
    with pytest.raises(InputError, match="benchmark 'A'"):
        instance_redundancy_by_benchmark(panel, ratios=RATIOS, repeats=2, top_k=11, random_state=0)


def test_deterministic_per_seed_and_independent_of_other_benchmarks():
    panel = _multi_panel()
    kw = {"ratios": RATIOS, "repeats": 6, "metrics": "srcc,r2"}
    one = instance_redundancy_by_benchmark(panel, random_state=11, **kw)
    assert one.to_dict() == instance_redundancy_by_benchmark(panel, random_state=11, **kw).to_dict()
    other = instance_redundancy_by_benchmark(panel, random_state=12, **kw)
    assert not np.array_equal(one.per_benchmark["A"].mean["srcc"], other.per_benchmark["A"].mean["srcc"])
    sub = instance_redundancy_by_benchmark(panel, benchmarks=["C", "A"], random_state=11, **kw)
    assert sub.benchmarks == ("C", "A")
    assert sub.per_benchmark["A"].to_dict() == one.per_benchmark["A"].to_dict()
    assert benchmark_seed(11, "A") != benchmark_seed(11, "B")
    gen = instance_redundancy_by_benchmark(panel, random_state=np.random.default_rng(3), **kw)
    again = instance_redundancy_by_benchmark(panel, random_state=np.random.default_rng(3), **kw)
    assert gen.random_state is None and gen.to_dict() == again.to_dict()


def test_undefined_benchmark_is_reported_not_averaged():
    panel = _multi_panel(constant="C")
    res = instance_redundancy_by_benchmark(panel, ratios=RATIOS, repeats=4, random_state=1)
    assert res.per_benchmark["C"].undefined
    for m in res.metrics:
        assert res.included[m] == ["A", "B"]
        stack = np.array([res.per_benchmark[b].mean[m] for b in ("A", "B")])
        np.testing.assert_allclose(res.mean[m], stack.mean(axis=0), rtol=1e-12)
    assert any("'C' left out" in u for u in res.undefined)
    only_c = instance_redundancy_by_benchmark(panel, benchmarks="C", ratios=RATIOS, repeats=2, random_state=1)
    assert all(only_c.saturation[m] is None and np.isnan(only_c.mean[m]).all() for m in only_c.metrics)


def test_input_errors():
    panel = _multi_panel()
    with pytest.raises(InputError, match="unknown benchmark"):
        instance_redundancy_by_benchmark(panel, benchmarks=["A", "Z"], repeats=2)
    with pytest.raises(InputError):
        instance_redundancy_by_benchmark(panel, top_k=2, bottom_k=2, repeats=2)
    with pytest.raises(InputError):
        instance_redundancy_by_benchmark(panel, ratios=[0.0, 0.5], repeats=2)


@pytest.fixture
def panel_file(tmp_path):
    return _multi_panel().save(tmp_path / "panel.parquet")


def _invoke(args: list[str]):
    return runner.invoke(app, ["redundancy", "instances", *args])


def test_cli_each_benchmark_json_shape(panel_file):
    args = [str(panel_file), "--each-benchmark", "--ratios", "0.1,0.5,1.0", "--repeats", "4"]
    args += ["--metric", "srcc,r2", "--seed", "3", "--top-k", "5", "--json"]
    result = _invoke(args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["benchmarks"] == ["A", "B", "C"] and out["ratios"] == [0.1, 0.5, 1.0]
    assert set(out["per_benchmark"]) == {"A", "B", "C"}
    lib = instance_redundancy(
        _multi_panel(),
        benchmark="B",
        ratios=[0.1, 0.5, 1.0],
        repeats=4,
        metrics="srcc,r2",
        top_k=5,
        random_state=benchmark_seed(3, "B"),
    )
    assert out["per_benchmark"]["B"] == json.loads(json.dumps(lib.to_dict()))
    avg = out["average"]
    assert set(avg["metrics"]) == {"srcc", "r2"} and set(avg["saturation"]) == {"srcc", "r2"}
    for m in ("srcc", "r2"):
        assert set(avg["metrics"][m]) == {"mean", "sd_across_benchmarks"}
        assert len(avg["metrics"][m]["mean"]) == 3 and len(avg["metrics"][m]["sd_across_benchmarks"]) == 3
        per = np.array([out["per_benchmark"][b]["metrics"][m]["mean"] for b in "ABC"])
        np.testing.assert_allclose(avg["metrics"][m]["mean"], per.mean(axis=0))
    assert out["selection"] == "top-5"
    sub = _invoke([*args, "--benchmarks", "C,A"])
    assert sub.exit_code == 0, sub.output
    assert json.loads(sub.stdout)["benchmarks"] == ["C", "A"]


def test_cli_each_benchmark_errors(panel_file):
    both = _invoke([str(panel_file), "--each-benchmark", "--benchmark", "A", "--repeats", "2", "--json"])
    assert both.exit_code == 2 and "--each-benchmark" in both.output and "not both" in both.output
    alone = _invoke([str(panel_file), "--benchmarks", "A,B", "--repeats", "2", "--json"])
    assert alone.exit_code == 2 and "--each-benchmark" in alone.output
    unknown = _invoke([str(panel_file), "--each-benchmark", "--benchmarks", "A,Z", "--repeats", "2"])
    assert unknown.exit_code == 2 and "unknown benchmark" in unknown.output


def test_cli_each_benchmark_table_and_files(panel_file, tmp_path):
    out_dir = tmp_path / "out"
    args = [
        str(panel_file),
        "--each-benchmark",
        "--ratios",
        "0.2,0.6,1.0",
        "--repeats",
        "3",
        "--metric",
        "srcc",
    ]
    result = _invoke([*args, "--out", str(out_dir)])
    assert result.exit_code == 0, result.output
    for name in ("A", "B", "C", "average (3 benchmarks)"):
        assert name in result.stdout
    saved = json.loads((out_dir / "instances_each.json").read_text())
    assert set(saved) >= {"benchmarks", "ratios", "per_benchmark", "average"}
    assert (out_dir / "instances_each_curve_srcc.png").stat().st_size > 0
    assert (out_dir / "instances_each_curve_srcc.svg").stat().st_size > 0
    cmp = _invoke([*args, "--compare-k", "4", "--json"])
    assert cmp.exit_code == 0, cmp.output
    assert set(json.loads(cmp.stdout)) == {"all", "top-4", "bottom-4"}
