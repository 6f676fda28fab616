"""`benchsift prism analyze` on the paper's Table 2 reproduces the paper's own numbers.

The fixture ``tests/fixtures/prism/table2.csv`` is Table 2 of the PRISM-VLM paper (42 models: tier, the
five prior-benchmark accuracies, the seven axis means and the printed PScore); ``table2_ranges.csv`` is
its three Delta rows. Every expected value below is transcribed from the paper text, with the section
it comes from; tolerances cover the 3-decimal rounding of the printed axis means.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from benchsift.cli._common import BenchsiftGroup
from benchsift.cli.prism import app as prism_app
from benchsift.io.verdicts import AXES, load_axis_means
from benchsift.prism.analyses import (
    aggregator_comparison,
    axis_correlation_ci,
    ranking_variants,
    top_k_range_widening,
)

# the `prism` group wired like benchsift.cli.main (BenchsiftGroup: BenchsiftError -> exit 2)
root = typer.Typer(cls=BenchsiftGroup, pretty_exceptions_enable=False)
root.add_typer(prism_app, name="prism")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "prism"
TABLE2 = FIXTURES / "table2.csv"

# Sec. 5.3 / Table 6: Pearson r with q (arithmetic, geometric, harmonic) and the harmonic R^2.
PAPER_PEARSON_WITH_Q = {"arithmetic": 0.87, "geometric": 0.84, "harmonic": 0.79}
PAPER_R2_HARMONIC = 0.62
# Table 13 / App. E: dropping sc gives 0.89, dropping any other axis leaves rho >= 0.97.
PAPER_LOAO_SC = 0.89
PAPER_LOAO_OTHERS_MIN = 0.97
# Table 15 / App. E.1: mean effective weight of mq and sc; dominant-axis counts; q+c+vis share.
PAPER_WEIGHTS = {"mq": 0.29, "sc": 0.26}
PAPER_DOMINANT = {"q": 0, "if": 0, "h": 2, "mq": 26, "sc": 14, "c": 0, "vis": 0}
PAPER_QCVIS_WEIGHT = 0.26
# Table 16: sc std across models.
PAPER_SC_STD = 0.228
# Sec. 5.2 / Fig. 3 / App. E: Pearson correlations.
PAPER_CORR = {
    ("q", "mq"): 0.95,
    ("q", "c"): 0.85,
    ("q", "vis"): 0.84,
    ("sc", "q"): 0.20,
    ("sc", "c"): 0.16,
    ("sc", "vis"): 0.20,
    ("sc", "PScore"): 0.62,
}
PAPER_SC_MAX_ABS_R = 0.26
# Sec. 5.1: strongest / weakest model.
PAPER_TOP = ("Gemini 3 Flash", 0.719)
PAPER_BOTTOM = ("Gemma-3-4B", 0.065)
# Sec. 5.1 "Nominal range" and App. E Table 12: closed-API widening over GQA / Mantis / OK-VQA.
PAPER_CLOSED_WIDENING = 2.41  # "~241 % wider"
PAPER_TOP5_WIDENING = 1.31  # "+131 %"
# Table 17 / App. E.1 / App. E "Memorization-prone axis ablation".
PAPER_HIF2_RHO = 0.99
PAPER_ZERO_SC_RHO = 0.89
PAPER_FIVE_AXES_RHO = 0.99
PAPER_ALT_AGG_MIN_RHO = 0.94
PAPER_ARITH_MAX_RANK_SHIFT = 10
# Table 5: three models inside a 0.007 PScore window.
PAPER_TIE = ("Qwen3-VL-2B", "Gemini 2.0 Flash", "GPT-4.1 mini")


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return pd.read_csv(TABLE2).set_index("model")


def _analyze(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(root, ["prism", "analyze", "--axis-means", str(TABLE2), "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def summary() -> dict[str, Any]:
    return _analyze("--group", "tier", "--references", "gqa,mantis,okvqa")


def test_fixture_shape(table: pd.DataFrame) -> None:
    assert len(table) == 42
    assert (table["tier"] == "open-weight").sum() == 25 and (table["tier"] == "closed-api").sum() == 17
    assert table[list(AXES)].min().min() == pytest.approx(0.011)  # Sec. 3: minimum s_a = 0.011


def test_json_keys(summary: dict[str, Any], table: pd.DataFrame, check_summary_keys: Any) -> None:
    check_summary_keys(summary, set(AXES), set(table.index), False)
    assert set(summary["axis_spearman"]) == set(AXES) | {"PScore"}
    assert set(summary["axis_correlation_ci"]) == {"pearson", "spearman"}


def test_printed_pscore_reproduced_to_rounding(table: pd.DataFrame, summary: dict[str, Any]) -> None:
    s = table[list(AXES)].to_numpy()
    computed = np.array([summary["pscore"][m] for m in table.index])
    printed = table["pscore_printed"].to_numpy()
    # |dPScore| <= sum_a |dP/ds_a| * 0.0005 with dP/ds_a = P^2 / (|A| s_a^2), plus the printed rounding
    bound = 0.0005 * computed**2 / 7 * (1 / s**2).sum(axis=1) + 0.0005 + 1e-9
    assert np.all(np.abs(computed - printed) <= bound), pd.Series(computed - printed, index=table.index)
    # most models match to the printed third decimal outright
    assert np.mean(np.abs(computed - printed) <= 0.0005 + 1e-9) >= 0.75


def test_top_and_bottom(summary: dict[str, Any]) -> None:
    ps = pd.Series(summary["pscore"])
    assert ps.idxmax() == PAPER_TOP[0] and ps.max() == pytest.approx(PAPER_TOP[1], abs=0.001)
    assert ps.idxmin() == PAPER_BOTTOM[0] and ps.min() == pytest.approx(PAPER_BOTTOM[1], abs=0.002)


# What Table 2's printed means give for Table 6 (Pearson r of each aggregate with q; R^2 = r^2).
TABLE2_PEARSON_WITH_Q = {"arithmetic": 0.8607, "geometric": 0.8340, "harmonic": 0.7819}
TABLE2_R2_HARMONIC = 0.6113


def test_table6_aggregator_pearson_with_q(summary: dict[str, Any], table: pd.DataFrame) -> None:
    """Table 6 is reproduced to within 0.01 (R^2 0.015), not to the printed second decimal.

    No paper-faithful reading of Table 6 closes the gap: on Table 2's 42 rows, Pearson r with q is
    0.861 / 0.834 / 0.782 (arith. / geo. / harm.); Spearman gives 0.846 / 0.828 / 0.816, Kendall
    0.672 / 0.655 / 0.646, aggregating the six non-q axes 0.831 / 0.812 / 0.774, the printed PScore
    column 0.782, either tier alone 0.833 / 0.820 / 0.803 (open) and 0.861 / 0.799 / 0.700 (closed). The
    3-decimal rounding of the printed means moves r by at most +-0.002 (5000 uniform perturbations of
    +-0.0005), far below the 0.006-0.009 gap. The paper's R^2 = 0.62 is consistent with R^2 = r^2 for its
    own r = 0.79, as here (0.782^2 = 0.611), so Table 6 was most likely computed on axis means other than
    the ones printed in Table 2 (e.g. an earlier state of the pool); the ordering arithmetic > geometric
    > harmonic, the paper's claim, holds. The values Table 2 yields are pinned below as well."""
    r = summary["aggregator_pearson_with_q"]
    for k, v in TABLE2_PEARSON_WITH_Q.items():
        assert r[k] == pytest.approx(v, abs=5e-5)
    for k, v in PAPER_PEARSON_WITH_Q.items():
        assert r[k] == pytest.approx(v, abs=0.01)
    assert r["arithmetic"] > r["geometric"] > r["harmonic"]  # harmonic is the least q-correlated
    comp = aggregator_comparison(table[list(AXES)])
    assert comp.loc["harmonic", "r2"] == pytest.approx(PAPER_R2_HARMONIC, abs=0.015)
    assert comp.loc["harmonic", "r2"] == pytest.approx(TABLE2_R2_HARMONIC, abs=5e-5)


def test_table13_leave_one_axis_out(summary: dict[str, Any]) -> None:
    loao = summary["leave_one_axis_out"]
    assert loao["sc"] == pytest.approx(PAPER_LOAO_SC, abs=0.005)
    assert min(v for a, v in loao.items() if a != "sc") >= PAPER_LOAO_OTHERS_MIN
    assert min(loao.items(), key=lambda kv: kv[1])[0] == "sc"


def test_table15_effective_weights_and_dominant_axes(summary: dict[str, Any], table: pd.DataFrame) -> None:
    w = summary["effective_weights"]
    for a, v in PAPER_WEIGHTS.items():
        assert w[a] == pytest.approx(v, abs=0.005)
    assert w["q"] + w["c"] + w["vis"] == pytest.approx(PAPER_QCVIS_WEIGHT, abs=0.005)
    assert sum(w.values()) == pytest.approx(1.0)
    assert summary["dominant_axis_counts"] == PAPER_DOMINANT
    assert table["sc"].std(ddof=0) == pytest.approx(PAPER_SC_STD, abs=0.0005)


def test_range_rows(summary: dict[str, Any]) -> None:
    printed = pd.read_csv(FIXTURES / "table2_ranges.csv").set_index("row")
    for a in AXES:
        assert summary["ranges"][a] == pytest.approx(printed.loc["overall", a], abs=0.0015)
    assert summary["ranges"]["PScore"] == pytest.approx(printed.loc["overall", "pscore"], abs=0.003)
    by_group = summary["ranges_by_group"]
    for row in ("open-weight", "closed-api", "overall"):
        for a in [*AXES, "gqa", "mantis", "okvqa"]:
            assert by_group[row][a] == pytest.approx(printed.loc[row, a], abs=0.0015), (row, a)
        assert by_group[row]["PScore"] == pytest.approx(printed.loc[row, "pscore"], abs=0.003), row


def test_range_widening_closed_api(summary: dict[str, Any], table: pd.DataFrame) -> None:
    assert summary["range_widening"]["closed-api"] == pytest.approx(PAPER_CLOSED_WIDENING, abs=0.03)
    t = table.copy()
    t["PScore"] = pd.Series(summary["pscore"])
    top = top_k_range_widening(t, "PScore", ["gqa", "mantis", "okvqa"], [5], mask=t["tier"] == "closed-api")
    assert top["widening"].iloc[0] == pytest.approx(PAPER_TOP5_WIDENING, abs=0.05)


def test_axis_correlations(summary: dict[str, Any]) -> None:
    c = summary["axis_correlation"]
    for (a, b), v in PAPER_CORR.items():
        assert c[a][b] == pytest.approx(v, abs=0.01), (a, b)
    sc_abs = [abs(c["sc"][a]) for a in AXES if a != "sc"]
    assert max(sc_abs) == pytest.approx(PAPER_SC_MAX_ABS_R, abs=0.01)
    # sc is the most orthogonal axis
    max_abs = {a: max(abs(c[a][b]) for b in AXES if b != a) for a in AXES}
    assert min(max_abs.items(), key=lambda kv: kv[1])[0] == "sc"


def test_table17_alternative_aggregators_and_reweightings(table: pd.DataFrame) -> None:
    means = table[list(AXES)]
    comp = aggregator_comparison(means)
    for agg in ("arithmetic", "geometric", "min"):
        assert comp.loc[agg, "spearman_vs_harmonic"] >= PAPER_ALT_AGG_MIN_RHO
        assert comp.loc[agg, "top"][0] == PAPER_TOP[0]  # the leader is identical throughout
    assert "GPT-5 mini" in comp.loc["min", "top"][:4]  # min-aggregation promotes GPT-5 mini
    assert "GPT-5 mini" not in comp.loc["harmonic", "top"][:4]
    assert comp.loc["arithmetic", "max_rank_shift"] == PAPER_ARITH_MAX_RANK_SHIFT
    var = ranking_variants(
        means, {"h+if x2": {"h": 2, "if": 2}, "no sc": {"sc": 0}, "five": {"q": 0, "c": 0}}
    )
    assert var.loc["h+if x2", "spearman_vs_harmonic"] == pytest.approx(PAPER_HIF2_RHO, abs=0.005)
    assert set(var.loc["h+if x2", "top"][:4]) == set(comp.loc["harmonic", "top"][:4])  # same top four
    assert var.loc["no sc", "spearman_vs_harmonic"] == pytest.approx(PAPER_ZERO_SC_RHO, abs=0.005)
    assert var.loc["five", "spearman_vs_harmonic"] == pytest.approx(PAPER_FIVE_AXES_RHO, abs=0.005)
    assert var.loc["five", "top"][0] == PAPER_TOP[0]


def test_table5_near_tie_window(summary: dict[str, Any]) -> None:
    ps = [summary["pscore"][m] for m in PAPER_TIE]
    assert max(ps) - min(ps) <= 0.0075


def test_load_axis_means_picks_known_axes() -> None:
    means, extra = load_axis_means(TABLE2)
    assert list(means.columns) == list(AXES)
    assert "pscore_printed" in extra.columns and "tier" in extra.columns


# App. E "Bootstrap CIs on inter-axis correlations" (B = 2000): 95 % CIs of key Pearson correlations.
PAPER_CORR_CI = {
    ("q", "mq"): (0.93, 0.98),
    ("sc", "q"): (-0.07, 0.47),
    ("sc", "c"): (-0.15, 0.46),
    ("sc", "vis"): (-0.04, 0.44),
    ("sc", "PScore"): (0.37, 0.79),
}


def test_correlation_bootstrap_cis(table: pd.DataFrame) -> None:
    """Resampling the 42 models (B = 2000) reproduces the paper's CIs up to Monte Carlo and rounding error."""
    lo, hi = axis_correlation_ci(table[list(AXES)], 2000, 0)
    for (a, b), (plo, phi) in PAPER_CORR_CI.items():
        assert lo.loc[a, b] == pytest.approx(plo, abs=0.04), (a, b)
        assert hi.loc[a, b] == pytest.approx(phi, abs=0.04), (a, b)
