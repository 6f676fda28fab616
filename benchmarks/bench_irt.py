"""2PL (and graded-response) IRT fits: benchsift beside a numpy MML-EM baseline on the same simulated panels.

The baseline (issue 36) is the strongest simple fit a good numpy programmer writes in ~25 lines,
:func:`_irt_baseline.fit_numpy_2pl`: Bock-Aitkin EM on a fixed 81-node grid (step 0.1 on [-4, 4], N(0, 1)
weights), the E-step as BLAS products with a log-sum-exp posterior, two vectorised Newton steps per cycle over
all items, biserial starts, a floating log-normal slope prior, stop at a largest parameter change < 1e-4 (see
that module for why each choice). It runs under one BLAS thread, as ``TwoPL.fit`` does. girth's
``twopl_jml`` and ``twopl_mml`` are kept as *strawmen*: they loop over items in Python with scipy optimizers.

Issue 14 targets: on a simulated 200 x 3,000 2PL panel, benchsift's recovery RMSE of a, b and theta is at most
girth ``twopl_jml``'s, and the fit at least 10x faster, in the same run.

What it prints (every timing is min / median over ``--repeats`` runs, both sides alternated; load average
before and after each table):

1. **200 x 3,000** (``--seeds`` panels): benchsift (adaptive grid, the default), benchsift with the old fixed
   41-point Gauss-Hermite grid, benchsift with settings close to ``mirt``'s defaults (61 fixed nodes, no item
   priors), the numpy MML-EM baseline, and the strawman girth ``twopl_jml`` (abilities by
   ``girth.ability_mle`` on its items, as JML estimates them). Speed-up of every row over the baseline and
   over girth JML (``baseline / row``, min / median). Recovery per seed: RMSE of a, b (true vs fitted), theta
   (EAP for benchsift and the baseline, on its grid), and the
   theta RMSE after the best affine map of the estimates onto the truth ("aligned": what is left once the
   arbitrary location and scale of the latent trait are set aside; the raw theta RMSE of every fitter is
   dominated by how far the 200 true abilities' own mean and sd are from 0 and 1).
2. **200 x ``--mml-items``** (girth ``twopl_mml`` is slow: ~1 min at 300 items on this machine): benchsift,
   the numpy baseline, and the strawmen girth JML and girth MML (its own EAP abilities).
3. **Thread policy**: the body of benchsift's fit with one BLAS thread (what ``TwoPL.fit`` uses) against the
   default pool, on a complete panel and on one with 10 % missing cells (where the E-step is a BLAS matrix
   product).
4. **Graded response**: benchsift ``GradedResponse`` on a 3-level 200 x 1,000 panel (recovery of a, the
   thresholds and theta); girth ``grm_mml`` beside it on 200 x ``--grm-girth-items``.
5. With ``--panel FILE`` (e.g. the MMMU panel from ``benchsift import wide``): fit time and iterations on
   real responses.

Simulation: theta ~ N(0, 1), a ~ U(0.6, 2.2), b ~ N(0, 1) (graded: two sorted N(0, 1) thresholds per item).
girth is not a dependency of benchsift (``pip install girth``); without it the strawman rows are left out.
Usage: ``python benchmarks/bench_irt.py [--seeds 0,1,2] [--repeats 3] [--mml-items 300] [--panel FILE]``;
smallest: ``--seeds 0 --repeats 1 --skip-mml --grm-girth-items 20``.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from _irt_baseline import fit_numpy_2pl
from _timing import Timing, load_average, machine_line, ratio_cell, timed, timed_pair
from rich.console import Console
from rich.table import Table
from scipy.special import expit
from threadpoolctl import threadpool_limits

from benchsift.irt import GradedResponse, TwoPL


def simulate(n_resp: int, n_items: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_resp)
    a = rng.uniform(0.6, 2.2, n_items)
    b = rng.normal(0.0, 1.0, n_items)
    X = (rng.random((n_resp, n_items)) < expit(a * (theta[:, None] - b))).astype(float)
    return {"X": X, "theta": theta, "a": a, "b": b}


def simulate_graded(n_resp: int, n_items: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_resp)
    a = rng.uniform(0.6, 2.2, n_items)
    b = np.sort(rng.normal(0.0, 1.0, (n_items, 2)), axis=1)
    d = -a[:, None] * b
    p_at_least = expit(a[None, :, None] * theta[:, None, None] + d[None, :, :])
    cats = (rng.random((n_resp, n_items))[:, :, None] < p_at_least).sum(axis=2)
    return {"X": cats / 2.0, "cats": cats, "theta": theta, "a": a, "d": d}


def rmse(x: np.ndarray, y: np.ndarray) -> float:
    ok = np.isfinite(x) & np.isfinite(y)
    return float(np.sqrt(np.mean((x[ok] - y[ok]) ** 2)))


def aligned_rmse(est: np.ndarray, truth: np.ndarray) -> float:
    """RMSE after the least-squares affine map of ``est`` onto ``truth``."""
    ok = np.isfinite(est)
    design = np.column_stack([est[ok], np.ones(ok.sum())])
    coef = np.linalg.lstsq(design, truth[ok], rcond=None)[0]
    return rmse(design @ coef, truth[ok])


def fit_benchsift(X: np.ndarray, **kwargs: Any) -> dict[str, Any]:
    model = TwoPL(**kwargs).fit(X)
    return {"a": model.discrimination_, "b": model.difficulty_, "theta": model.theta_, "iters": model.n_iter_}


def fit_baseline(X: np.ndarray) -> dict[str, Any]:
    """The numpy MML-EM baseline (benchmarks/_irt_baseline.py), one BLAS thread like ``TwoPL.fit``."""
    with threadpool_limits(1):
        return fit_numpy_2pl(X)


BASELINE = "numpy MML-EM baseline, 81 fixed nodes"
GIRTH_JML = "girth twopl_jml (strawman: per-item loop)"
GIRTH_MML = "girth twopl_mml (strawman: per-item loop)"


def fit_girth_jml(X: np.ndarray) -> dict[str, Any]:
    import girth

    data = X.T.astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = girth.twopl_jml(data)
        theta = girth.ability_mle(data, out["Difficulty"], out["Discrimination"])
    return {"a": out["Discrimination"], "b": out["Difficulty"], "theta": theta, "iters": np.nan}


def fit_girth_mml(X: np.ndarray) -> dict[str, Any]:
    import girth

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = girth.twopl_mml(X.T.astype(int))
    return {"a": out["Discrimination"], "b": out["Difficulty"], "theta": out["Ability"], "iters": np.nan}


def recovery(fit: dict[str, Any], truth: dict[str, np.ndarray]) -> list[float]:
    return [
        rmse(fit["a"], truth["a"]),
        rmse(fit["b"], truth["b"]),
        rmse(fit["theta"], truth["theta"]),
        aligned_rmse(fit["theta"], truth["theta"]),
    ]


Fitter = Callable[[np.ndarray], dict[str, Any]]


def recovery_table(
    console: Console,
    title: str,
    fitters: dict[str, Fitter],
    panels: list[dict[str, np.ndarray]],
    repeats: int,
) -> dict[str, Timing]:
    """Time every fitter on the first panel (same repeats), then its recovery on every panel."""
    table = Table(title=title)
    for col in ("fitter", "seconds min / median", "speed-up vs baseline", "vs girth JML", "iters", "seed"):
        table.add_column(col, justify="right" if col != "fitter" else "left")
    for col in ("RMSE a", "RMSE b", "RMSE theta", "theta aligned"):
        table.add_column(col, justify="right")
    console.print(f"load average before: {load_average()}")
    times: dict[str, Timing] = {}
    names = list(fitters)
    # Alternate the fitters repeat by repeat so that a burst of load hits all of them alike.
    runs: dict[str, list[float]] = {n: [] for n in names}
    results: dict[str, Any] = {}
    for _ in range(max(1, repeats)):
        for name in names:
            t = timed(lambda fn=fitters[name]: fn(panels[0]["X"]), 1)  # type: ignore[misc]
            runs[name].append(t.seconds[0])
            results[name] = t.result
    for name in names:
        times[name] = Timing(tuple(runs[name]), results[name])
    baseline = times.get(BASELINE)
    reference = times.get(GIRTH_JML)
    means: dict[str, list[list[float]]] = {n: [] for n in names}
    for s, panel in enumerate(panels):
        for name in names:
            fit = results[name] if s == 0 else fitters[name](panel["X"])
            rec = recovery(fit, panel)
            means[name].append(rec)
            vs_base = ratio_cell(times[name], baseline) if (baseline is not None and s == 0) else ""
            speed = ratio_cell(times[name], reference) if (reference is not None and s == 0) else ""
            table.add_row(
                name,
                times[name].cell() if s == 0 else "",
                vs_base,
                speed,
                "" if np.isnan(fit["iters"]) else str(int(fit["iters"])),
                str(panel["seed"][0]),
                *(f"{v:.4f}" for v in rec),
            )
    if len(panels) > 1:
        for name in names:
            m = np.mean(means[name], axis=0)
            table.add_row(name, "", "", "", "", "mean", *(f"{v:.4f}" for v in m))
    console.print(table)
    console.print(f"load average after: {load_average()}")
    return times


def thread_table(console: Console, repeats: int, seed: int) -> None:
    table = Table(title="Thread policy: benchsift TwoPL.fit, 1 BLAS thread vs the default pool (200 x 3,000)")
    for col in ("panel", "1 thread: s min / median", "default pool: s min / median", "1 thread faster by"):
        table.add_column(col, justify="right")
    console.print(f"load average before: {load_average()}")
    base = simulate(200, 3000, seed)["X"]
    rng = np.random.default_rng(seed + 1)
    holes = base.copy()
    holes[rng.random(base.shape) < 0.1] = np.nan
    for label, X in (("complete", base), ("10 % missing", holes)):
        # TwoPL.fit runs its body (_fit) under one BLAS thread; time the body both ways to show why.
        def single(x: np.ndarray = X) -> Any:
            with threadpool_limits(1):
                return TwoPL()._fit(x)

        def pooled(x: np.ndarray = X) -> Any:
            return TwoPL()._fit(x)

        one, pool = timed_pair(single, pooled, repeats)
        table.add_row(label, one.cell(), pool.cell(), ratio_cell(one, pool))
    console.print(table)
    console.print(f"load average after: {load_average()}")


def graded_table(console: Console, repeats: int, seed: int, girth_items: int, have_girth: bool) -> None:
    table = Table(title="Graded response model, 3 levels (0, 0.5, 1)")
    cols = ("fitter", "models x items", "seconds min / median", "RMSE a", "RMSE thresholds", "RMSE theta")
    for col in cols:
        table.add_column(col, justify="right")
    console.print(f"load average before: {load_average()}")
    panel = simulate_graded(200, 1000, seed)
    t = timed(lambda: GradedResponse().fit(panel["X"]), repeats)
    g = t.result
    table.add_row(
        "benchsift GradedResponse",
        "200 x 1,000",
        t.cell(),
        f"{rmse(g.discrimination_, panel['a']):.4f}",
        f"{rmse(g.thresholds_[:, :2].ravel(), panel['d'].ravel()):.4f}",
        f"{rmse(g.theta_, panel['theta']):.4f}",
    )
    if have_girth:
        import girth

        small = simulate_graded(200, girth_items, seed)

        def ours() -> Any:
            return GradedResponse().fit(small["X"])

        def theirs() -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return girth.grm_mml(small["cats"].T + 1)

        mine, other = timed_pair(ours, theirs, repeats)
        # girth's thresholds are on the difficulty scale (b = -d / a); compare slopes and abilities.
        table.add_row(
            "benchsift GradedResponse",
            f"200 x {girth_items}",
            mine.cell(),
            f"{rmse(mine.result.discrimination_, small['a']):.4f}",
            f"{rmse(mine.result.thresholds_[:, :2].ravel(), small['d'].ravel()):.4f}",
            f"{rmse(mine.result.theta_, small['theta']):.4f}",
        )
        b_girth = np.asarray(other.result["Difficulty"])[:, :2]
        d_girth = -np.asarray(other.result["Discrimination"])[:, None] * b_girth
        table.add_row(
            "girth grm_mml",
            f"200 x {girth_items}",
            other.cell(),
            f"{rmse(np.asarray(other.result['Discrimination']), small['a']):.4f}",
            f"{rmse(d_girth.ravel(), small['d'].ravel()):.4f}",
            f"{rmse(np.asarray(other.result['Ability']), small['theta']):.4f}",
        )
    console.print(table)
    console.print(f"load average after: {load_average()}")


def panel_table(console: Console, path: str, repeats: int) -> None:
    from benchsift.panel import Panel

    X = np.asarray(Panel.load(path).scores, dtype=float)
    size = f"{X.shape[0]} x {X.shape[1]}, {np.isnan(X).mean():.1%} missing"
    table = Table(title=f"Real responses: {path} ({size})")
    for col in ("grid", "seconds min / median", "iters", "distinct abilities", "r(theta, raw mean)"):
        table.add_column(col, justify="right")
    raw = np.nanmean(X, axis=1)
    for label, kwargs in (("adaptive (default)", {}), ("fixed 41-point Gauss-Hermite", {"n_quadrature": 41})):
        t = timed(lambda kw=kwargs: TwoPL(**kw).fit(X), repeats)  # type: ignore[misc]
        m = t.result
        table.add_row(
            label,
            t.cell(),
            str(m.n_iter_),
            str(np.unique(m.theta_.round(6)).size),
            f"{np.corrcoef(m.theta_, raw)[0, 1]:.4f}",
        )
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated seeds of the 200 x 3,000 panels")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mml-items", type=int, default=300)
    parser.add_argument("--grm-girth-items", type=int, default=100)
    parser.add_argument("--panel", default=None, help="a saved panel to fit (optional)")
    parser.add_argument("--skip-mml", action="store_true", help="leave out the girth MML table")
    args = parser.parse_args()
    try:
        import girth  # noqa: F401

        have_girth = True
    except ImportError:
        have_girth = False

    console = Console(width=150)
    console.print(machine_line())
    seeds = [int(s) for s in args.seeds.split(",")]
    panels = []
    for s in seeds:
        panel = simulate(200, 3000, s)
        panel["seed"] = np.array([s])
        panels.append(panel)
    fitters: dict[str, Fitter] = {
        "benchsift TwoPL": fit_benchsift,
        "benchsift TwoPL, fixed 41-pt GH": lambda x: fit_benchsift(x, n_quadrature=41),
        # mirt's defaults: 61 fixed nodes (evenly spaced on [-6, 6] there; Gauss-Hermite here), no priors.
        "benchsift, 61 fixed nodes, no priors": lambda x: fit_benchsift(
            x, n_quadrature=61, a_prior="normal", prior_a_sd=np.inf, prior_d_sd=np.inf, float_priors=False
        ),
    }
    fitters[BASELINE] = fit_baseline
    if have_girth:
        fitters[GIRTH_JML] = fit_girth_jml
    else:
        console.print("girth is not installed (pip install girth): no strawman rows")
    recovery_table(console, "2PL recovery and time, 200 x 3,000", fitters, panels, args.repeats)

    if have_girth and not args.skip_mml:
        small = simulate(200, args.mml_items, seeds[0])
        small["seed"] = np.array([seeds[0]])
        recovery_table(
            console,
            f"2PL recovery and time, 200 x {args.mml_items} (girth MML's size)",
            {
                "benchsift TwoPL": fit_benchsift,
                BASELINE: fit_baseline,
                GIRTH_JML: fit_girth_jml,
                GIRTH_MML: fit_girth_mml,
            },
            [small],
            args.repeats,
        )
    thread_table(console, args.repeats, seeds[0])
    graded_table(console, args.repeats, seeds[0], args.grm_girth_items, have_girth)
    if args.panel:
        panel_table(console, args.panel, args.repeats)


if __name__ == "__main__":
    main()
