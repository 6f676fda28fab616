"""Figures 3-4 and the rich tables of the validation report render and write files, without warnings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from rich.console import Console

import benchsift.compression.diagnostics as diagnostics
import benchsift.compression.protocols as protocols
from benchsift.report.compression_figures import save_figure
from benchsift.report.validation_figures import (
    checkpoint_figure,
    end_to_end_table,
    frame_table,
    leftout_figure,
    retention_table,
    selector_retention_figure,
    split_table,
)


def _summary() -> pd.DataFrame:
    rows = []
    for s, base in (("vaw", 0.9), ("variance", 0.88)):
        for r in (0.02, 0.05, 0.1):
            rows.append(
                {
                    "selector": s,
                    "retention": r,
                    "rho_mean": base + r,
                    "rho_sd": 0.01,
                    "rho_min": base,
                    "rho_max": base + 0.1,
                    "wins": 1,
                    "no_stage3": 0.95,
                    "beats_stage3_only": 2,
                }
            )
    return pd.DataFrame(rows)


def test_figures_are_written(tmp_path: Path) -> None:
    paths = save_figure(selector_retention_figure(_summary()), tmp_path / "fig3")
    leftout = pd.DataFrame(
        {"target": ["A", "B"], "models": [50, 40], "M=1": [0.2, 0.3], "M=8": [0.1, np.nan]}
    )
    paths += save_figure(leftout_figure(leftout), tmp_path / "fig4a")
    ckpt = pd.DataFrame(
        {
            "variant_set": ["a", "b"],
            "n": [8, 12],
            "ceiling": [0.95, 0.8],
            "passes": [True, False],
            "vaw@0.05": [0.9, 0.7],
            "variance@0.05": [0.85, 0.6],
        }
    )
    paths += save_figure(checkpoint_figure(ckpt, 0.05), tmp_path / "fig4b")
    assert all(p.is_file() and p.stat().st_size > 0 for p in paths) and len(paths) == 6


def test_tables_mark_best_and_second() -> None:
    console = Console(record=True, width=200, force_terminal=True)
    console.print(retention_table(_summary(), "t10"))
    console.print(split_table(_summary(), 0.05, "t11"))
    console.print(end_to_end_table(_summary(), {"mean": 0.9, "sd": 0.05}, 0.05, "t12"))
    console.print(
        frame_table(pd.DataFrame({"x": ["a", "b", "c"], "v": [0.1, 0.3, 0.2]}), "t", highlight=["v"])
    )
    text = console.export_text(styles=True)
    assert "\x1b[1m0.300" in text  # bold best
    assert "\x1b[4m0.200" in text  # underlined second


def test_public_names_are_exported() -> None:
    for module in (protocols, diagnostics):
        assert sorted(module.__all__) == sorted(set(module.__all__))
        for name in module.__all__:
            assert getattr(module, name) is not None


def test_demo_validation_section(tmp_path: Path) -> None:
    """`benchsift demo` section: the selector-vs-retention plot (Fig. 3) and the Table 10 data."""
    from benchsift.workflows.demo_validation import RETENTIONS, SELECTORS, run_demo_section

    summary = run_demo_section(tmp_path, 0, Console(quiet=True)).payload
    out = tmp_path / "validation"
    for name in ("selector_retention.png", "selector_retention.svg", "heldout_summary.csv", "heldout.json"):
        assert (out / name).stat().st_size > 0
    keys = {"selector", "retention", "rho_mean", "rho_sd", "rho_min", "rho_max", "wins"}
    assert len(summary["results"]) == len(SELECTORS) * len(RETENTIONS)
    assert all(set(r) == keys for r in summary["results"])
    assert set(summary["best_selector"]) == {f"{r:g}" for r in RETENTIONS}
    table = pd.read_csv(out / "heldout_summary.csv")
    assert np.isfinite(table["rho_mean"]).all()
