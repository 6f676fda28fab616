"""``compare_instance_redundancy``: all models, the top-K and the bottom-K (redundancy paper Sec. 2.5)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from benchsift import Panel
from benchsift.errors import InputError
from benchsift.redundancy import (
    InstanceRedundancy,
    InstanceRedundancyComparison,
    analyse_instances,
    compare_instance_redundancy,
    instance_redundancy,
    instance_redundancy_by_benchmark,
)
from benchsift.redundancy.comparison import model_groups, undefined_values
from benchsift.redundancy.instance_analysis import curves
from benchsift.redundancy.selection import overall_scores

RATIOS = [0.1, 0.5, 1.0]


def test_model_groups() -> None:
    assert model_groups(None) == [(None, None)]
    assert model_groups(4) == [(None, None), (4, None), (None, 4)]


def test_each_group_is_the_single_run_with_its_models(planted) -> None:  # type: ignore[no-untyped-def]
    panel, _ = planted
    cmp = compare_instance_redundancy(panel, 10, ratios=RATIOS, repeats=8, metrics="srcc", random_state=3)
    assert list(cmp.results) == ["all", "top-10", "bottom-10"]
    for (top, bottom), res in zip(model_groups(10), cmp.results.values(), strict=True):
        alone = instance_redundancy(
            panel, ratios=RATIOS, repeats=8, metrics="srcc", top_k=top, bottom_k=bottom, random_state=3
        )
        np.testing.assert_array_equal(res.mean["srcc"], alone.mean["srcc"])
        np.testing.assert_array_equal(res.sd["srcc"], alone.sd["srcc"])
        assert res.n_models == alone.n_models
    # the groups hold the models they name: the 10 best / worst by overall score
    overall = np.asarray(overall_scores(panel), dtype=float)
    order = np.argsort(-overall, kind="stable")
    top = cmp.results["top-10"]
    assert top.n_models == 10 and set(top.selection.positions) == set(order[:10])
    assert set(cmp.results["bottom-10"].selection.positions) == set(order[-10:])
    # at A = 100 % every sample is the whole benchmark: rho = 1 exactly, in every group
    assert all(r.mean["srcc"][-1] == 1.0 for r in cmp.results.values())
    # the closer the models, the less an item subset agrees with the full ranking (Sec. 2.5)
    assert cmp.results["all"].mean["srcc"][0] > cmp.results["top-10"].mean["srcc"][0]


def test_dict_frame_and_notes(planted) -> None:  # type: ignore[no-untyped-def]
    panel, _ = planted
    cmp = compare_instance_redundancy(panel, 5, ratios=RATIOS, repeats=4, metrics="srcc,plcc", random_state=0)
    d = cmp.to_dict()
    assert list(d) == ["all", "top-5", "bottom-5"]
    assert d["top-5"] == cmp.results["top-5"].to_dict()
    frame = cmp.to_frame()
    assert frame.index.names == ["selection", "ratio"]
    pd.testing.assert_frame_equal(frame.loc["bottom-5"], cmp.results["bottom-5"].to_frame())
    assert cmp.notes == cmp.results["all"].notes
    assert repr(cmp).startswith("InstanceRedundancyComparison(k=5, each_benchmark=False")
    assert len(repr(cmp)) < 400 and "<pre>" in cmp._repr_html_()


def _two_benchmarks() -> Panel:
    """Benchmark ``C`` constant (every model the same score on every item): its curve is undefined."""
    rng = np.random.default_rng(1)
    ability = rng.normal(size=12)
    live = (rng.random((12, 20)) < 1 / (1 + np.exp(-(ability[:, None] - rng.normal(size=20))))).astype(float)
    scores = np.hstack([live, np.ones((12, 6))])
    items = pd.DataFrame({"benchmark": ["L"] * 20 + ["C"] * 6, "item": [f"i{k}" for k in range(26)]})
    return Panel(scores, [f"m{i}" for i in range(12)], items)


def test_each_benchmark_and_undefined_per_benchmark() -> None:
    panel = _two_benchmarks()
    cmp = compare_instance_redundancy(
        panel, 4, each_benchmark=True, ratios=RATIOS, repeats=5, metrics="srcc", random_state=2
    )
    assert list(cmp.results) == ["all", "top-4", "bottom-4"]
    alone = instance_redundancy_by_benchmark(
        panel, ratios=RATIOS, repeats=5, metrics="srcc", top_k=4, random_state=2
    )
    np.testing.assert_array_equal(cmp.results["top-4"].mean["srcc"], alone.mean["srcc"])
    # C's curve is undefined in each group: named with the group and the benchmark
    for label in cmp.results:
        assert any(u.startswith(f"{label}: C: ") for u in cmp.undefined)
    assert cmp.results["all"].included["srcc"] == ["L"]


def test_analyse_instances_runs_the_analysis_its_options_name(planted) -> None:  # type: ignore[no-untyped-def]
    panel, _ = planted
    opts = dict(ratios=RATIOS, repeats=4, metrics="srcc", random_state=2)
    one = analyse_instances(panel, top_k=10, **opts)  # type: ignore[arg-type]
    assert isinstance(one, InstanceRedundancy)
    assert one.to_dict() == instance_redundancy(panel, top_k=10, **opts).to_dict()  # type: ignore[arg-type]
    assert list(curves(one)) == ["top-10"] and undefined_values(one) == one.undefined
    each = analyse_instances(panel, each_benchmark=True, **opts)  # type: ignore[arg-type]
    assert each.to_dict() == instance_redundancy_by_benchmark(panel, **opts).to_dict()  # type: ignore[arg-type]
    assert list(curves(each)) == ["all"]
    cmp = analyse_instances(panel, compare_k=10, **opts)  # type: ignore[arg-type]
    assert cmp.to_dict() == compare_instance_redundancy(panel, 10, **opts).to_dict()  # type: ignore[arg-type]
    assert list(curves(cmp)) == ["all", "top-10", "bottom-10"]
    assert isinstance(cmp, InstanceRedundancyComparison) and undefined_values(cmp) == cmp.undefined


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"compare_k": 5, "top_k": 5},
            "compare_k=5, top_k=5, bottom_k=None: expected either `compare_k` or `top_k` / `bottom_k`, "
            "not both",
        ),
        (
            {"each_benchmark": True, "benchmark": "b0"},
            "each_benchmark=True, benchmark='b0': expected either `each_benchmark`",
        ),
        (
            {"benchmarks": ["b0"]},
            "benchmarks=['b0'], each_benchmark=False: expected `benchmarks` only with `each_benchmark`",
        ),
    ],
)
def test_analyse_instances_refuses_contradicting_options(planted, options, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match=re.escape(message)):
        analyse_instances(planted[0], **options)
