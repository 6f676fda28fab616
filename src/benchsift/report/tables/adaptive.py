"""Tables of ``benchsift adaptive bank|next|simulate`` (:mod:`benchsift.adaptive`)."""

from __future__ import annotations

import os

import numpy as np
from rich.table import Table

from benchsift.adaptive import AdaptiveSimulation, ItemBank, NextItems
from benchsift.report.console import DataTable

__all__ = ["render_bank", "render_next", "render_simulation"]


def render_bank(bank: ItemBank, out: os.PathLike[str] | str) -> Table:
    """The bank written: its IRT model, a new model's ability prior, items, benchmarks, reference models, the
    largest out-of-fold misfit of its curve, its error at the edge (:attr:`ItemBank.edge_error`, with the root
    mean square :attr:`ItemBank.edge_rms` where measured), the measured budgets at which the whole budget is
    given spread (:meth:`ItemBank.designs`) and the 95 % interval's multiples of the standard error per
    calibrated budget, inside the range / at the edge (:meth:`ItemBank.interval_scales`); ``+ EM curves`` and
    their edge error where the bank keeps them (:attr:`ItemBank.beyond`)."""
    table = DataTable(title=f"Item bank written to {out}")
    cols = (
        "model",
        "ability prior",
        "items",
        "benchmarks",
        "reference models",
        "misfit (rms)",
        "edge error",
        "whole budget spread",
        "95 % interval: se x (inner / edge)",
    )
    for col in cols:
        table.add_column(col)
    misfit = "not measured" if bank.misfit_var is None else f"{float(np.sqrt(np.max(bank.misfit_var))):.3f}"
    edge = "not measured" if bank.edge_error is None else f"{bank.edge_error:+.3f}"
    if bank.edge_error is not None and bank.edge_rms is not None:
        edge += f" (rms {bank.edge_rms:.3f})"
    if bank.beyond is not None and bank.beyond.edge_error is not None:
        edge += f"; EM curves {bank.beyond.edge_error:+.3f}"
    rows = bank.designs()
    spread = [f"{r['items']}" for r in rows if r["spread"]]
    table.add_row(
        bank.kind if bank.beyond is None else f"{bank.kind} + EM curves",
        bank.prior,
        str(bank.n_items),
        str(len(bank.benchmarks)),
        str(len(bank.reference_models)),
        misfit,
        edge,
        "not measured" if not rows else ("never" if not spread else "at " + ", ".join(spread) + " items"),
        _scales(bank),
    )
    return table


def _scales(bank: ItemBank) -> str:
    """``2.4 / 2.6 at 21 items; ...`` (``*``: too few scores, 95 % not guaranteed), or ``not calibrated``."""
    rows = bank.interval_scales()
    if not rows:
        return "not calibrated"
    return "; ".join(
        f"{r['scale_inner']:.1f} / {r['scale_edge']:.1f}{'*' if r['short'] else ''} at {r['items']} items"
        for r in rows
    )


def render_next(res: NextItems, title: str) -> Table:
    """Per model: items answered, ability (sd), rank and interval, overall estimate and its interval (at the
    result's level, where the bank was calibrated), next items or stop."""
    table = DataTable(title=title)
    level = f"{res.interval_level:.0%}"
    for col in (
        "model",
        "answered",
        "ability (sd)",
        "rank [interval]",
        f"overall est. [{level}]",
        "next / stop",
    ):
        table.add_column(col)
    for row in res.to_dict()["models"]:
        nxt = ", ".join(f"{k['benchmark']}/{k['item']}" for k in row["next"]) or f"stop: {row['stop']}"
        lo, hi = row["rank_interval"]
        table.add_row(
            row["model"],
            str(row["n_answered"]),
            f"{row['theta']:.2f} ({row['se']:.2f})",
            f"{row['rank']:.0f} [{lo:.0f}, {hi:.0f}]",
            f"{row['estimates']['overall']:.3f}"
            + (
                ""
                if row["overall_interval"] is None
                else " [{:.3f}, {:.3f}]".format(*row["overall_interval"])
            ),
            nxt,
        )
    return table


def render_simulation(res: AdaptiveSimulation, title: str) -> Table:
    """Adaptive vs static vs random: items, rank Spearman and score MAE (mean and sd over splits), and the
    95 % intervals' coverage and mean width where the method has one."""
    table = DataTable(title=title)
    for col in ("method", "items", "rank Spearman (sd)", "score MAE (sd)", "95 % interval: coverage (width)"):
        table.add_column(col)
    for r in res.rows():
        table.add_row(
            r["method"],
            f"{r['n_items']:.0f}",
            f"{r['rho_mean']:.3f} ({_sd(r['rho_sd'], 3)})",
            f"{r['mae_mean']:.4f} ({_sd(r['mae_sd'], 4)})",
            "-" if not np.isfinite(r["coverage"]) else f"{r['coverage']:.2f} ({r['width']:.3f})",
        )
    return table


def _sd(value: float, digits: int) -> str:
    """An sd over splits: ``-`` where it is undefined (one split), never ``nan``."""
    return f"{value:.{digits}f}" if np.isfinite(value) else "-"
