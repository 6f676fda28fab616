"""Benchmark: ``benchsift compare`` (issue 35): speed against the strongest simple baseline, and the
acceptance checks on simulated leaderboards with known true scores.

**Speed.** All pairs of 168 models x 1,050 items (MMMU with ``--panel``, else a simulated panel of that
size) with 2,000 replicates. Both sides start from the same ``(B, N)`` resampling weights and compute the
same per-pair summaries (bootstrap SE, percentile interval, percentile p-value) and the Wald p-values,
timed alternately (``_timing.timed_pair``, min and median of ``--repeats``):

* benchsift: :func:`benchsift.stats.paired.paired_bootstrap_pairs` (one ``W @ X.T`` for the models, the pair
  differences streamed in blocks of at most 2M replicate values);
* baseline, ``model means, pairs in blocks`` (the strongest simple version, about ten lines, the ratio
  printed): one product over the models, ``R = (W @ X.T) / W.sum(1)`` (``(B, M)``), then per block of
  pairs (2M replicate values, as benchsift) the differences ``R.T[a] - R.T[b]``, their SD, the
  percentile interval from one ``np.partition`` (numpy's linear interpolation) and the percentile
  p-value from two counts;
* strawman, ``one W @ D over all pairs`` (labelled as such): the ``(N, P)`` matrix of all 14,028 pairs'
  item differences, ``W @ D / n`` in one product (``(B, P)``, 224 MB), ``np.quantile`` on the whole
  matrix: the baseline before issue 36, 14,028 / 168 times the product's work.

Both sides (and the strawman) compute the same outputs: their SEs, intervals and p-values are asserted
equal to 1e-12. Timed too: the same bootstrap with the weights
drawn block by block and never held whole (``WeightStream``, ``hold=0``, as a panel too large to hold is
run; its SEs asserted byte-equal), and the whole ``benchsift.compare`` call (t test, McNemar, Holm / BH,
rank intervals, tie groups, tables).

**Acceptance** (``simulate_leaderboard``: 0/1 items drawn afresh from a 2PL population; the truth is each
model's expected score over it). Each rate is printed with its Monte Carlo standard error:

1. rank-interval coverage: share of (model, panel) whose true rank lies in its 95 % rank interval
   (nominal 0.95; marginal per model), pooled and per model (min / max over the models), on a spread
   leaderboard, near-tied pairs, a dense one and an all near-tied one, with each interval's mean width
   over the number of models (on an exact tie the data do not tell a model's place, and pooled coverage
   equals it). compare's interval (:func:`benchsift.stats.rank_interval_pairwise`: one-sided, each
   direction at its own critical value, by steps) beside the one it replaced (the larger of the two
   critical values for both directions, ``critical="worst"``, 7acdf7f), on the same panels; the two-sided
   max-|t| steps of Mogstad et al. (2024); two yardsticks that show what no valid interval can go below:
   claims at a single one-sided test each (``t > z_0.95``, no allowance for multiplicity; valid only
   where one competitor is close) and the observed rank alone; the percentile interval of the bootstrap
   ranks; and the least coverage of any interval whose claims are each at least a one-sided 5 % test,
   ``1 - sum_k Phi(-z_0.95 - |delta_k| / se_k)`` from the true differences and standard errors. The MC
   se printed treats (model, panel) as independent (models of one panel are not, and 100 panels share
   one draw of resampling weights: read it as a lower bound);
2. false separation: under the global null (8 equal models) the share of panels with any pair separated
   after Holm (family-wise error) and after BH (under the global null the FDR equals it), nominal 0.05;
   on a leaderboard of 5 tied pairs among 10 models, Holm's family-wise error over the 5 null pairs and
   BH's false discovery proportion;
3. power curve: rejection rate of the level-0.05 bootstrap test of a pair at true differences from 0 to
   about 0.06, against the formula ``Phi(delta/se - z) + Phi(-delta/se - z)`` with the true se (a
   400,000-item draw), items independent and in clusters of 4 (cluster bootstrap).

    .venv/bin/python benchmarks/bench_compare.py [--panel mmmu.parquet] [--threads 2] [--repeats 3]
        [--reps 1000] [--boot 1000] [--only-speed | --skip-speed] [--only-rank-coverage] [--oracle-reps R]
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--panel", default=None, help="a panel file (MMMU: 168 x 1050); default simulated")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--boot", type=int, default=2000, help="replicates of the speed run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reps", type=int, default=1000, help="simulated panels per acceptance check")
    parser.add_argument("--sim-boot", type=int, default=1000, help="replicates per simulated panel")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-acceptance", action="store_true")
    parser.add_argument(
        "--only-speed", action="store_true", help="the speed part only (same as --skip-acceptance)"
    )
    parser.add_argument(
        "--only-rank-coverage", action="store_true", help="of the acceptance checks, the rank coverage only"
    )
    parser.add_argument(
        "--oracle-reps",
        type=int,
        default=5000,
        help="panels drawn from the truth for the oracle rank intervals of the rank-coverage check",
    )
    parser.add_argument(
        "--skip-rank-coverage",
        action="store_true",
        help="of the acceptance checks, all but the rank coverage",
    )
    args = parser.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)

    from _timing import load_average, machine_line, ratio_cell, timed, timed_pair
    from threadpoolctl import threadpool_limits

    print("benchsift compare: paired bootstrap leaderboards (issue 35)")
    print(machine_line())
    threadpool_limits(args.threads)
    if not args.skip_speed:
        speed(args, timed, timed_pair, ratio_cell)
    if not (args.skip_acceptance or args.only_speed):
        acceptance(args)
    print(f"load average after: {load_average()}")


def _whole_command(args, panel, B: int, timed):
    """Timing of ``benchsift compare PANEL --n-boot B --json`` as a user runs it: a fresh Python process
    (imports included), the panel read from its file (a simulated panel saved to a temporary one), the JSON
    written to /dev/null; ``--threads`` BLAS threads."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = args.panel
        if not path:
            path = str(Path(tmp) / "panel.parquet")
            panel.save(path)
        cmd = [sys.executable, "-m", "benchsift", "compare", path, "--n-boot", str(B), "--json"]

        def run() -> None:
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=dict(os.environ))

        return timed(run, args.repeats)


def speed(args, timed, timed_pair, ratio_cell) -> None:
    import numpy as np
    from _timing import load_average

    import benchsift
    from benchsift.io import read_scores
    from benchsift.simulate import simulate_leaderboard
    from benchsift.stats import WeightStream, bootstrap_weights
    from benchsift.stats.paired import paired_bootstrap_pairs, wald_pvalue

    if args.panel:
        panel = read_scores(args.panel)
        what = f"{args.panel}"
    else:
        theta = np.random.default_rng(0).normal(0.0, 1.0, 168)
        panel = simulate_leaderboard(theta, 1050, random_state=0).panel
        what = "simulated (168 models, N(0,1) abilities)"
    X = panel.scores
    M, N = X.shape
    B = args.boot
    W = bootstrap_weights(N, B, 123)
    ia, ib = np.triu_indices(M, 1)
    q = (0.025, 0.975)
    assert not np.isnan(X).any(), "the speed run takes a complete panel (the baseline has no missing items)"

    mean = X.mean(axis=1)
    step = max(1, 2_000_000 // B)  # pairs per block: 2M replicate values, benchsift's block

    def ours():
        pb = paired_bootstrap_pairs(X, W)
        return pb.se, pb.low, pb.high, pb.p_percentile, wald_pvalue(mean[ia] - mean[ib], pb.se)

    pos = np.array(q) * (B - 1)  # numpy's linear quantile: between order statistics k and k + 1
    k = np.floor(pos).astype(int)
    k1, t = np.minimum(k + 1, B - 1), pos - k

    def baseline():  # the strongest simple baseline: one product over the models, pairs in blocks
        R = (W @ X.T) / W.sum(axis=1, keepdims=True)  # (B, M): every model's replicate mean
        Rt = np.ascontiguousarray(R.T)  # (M, B): a pair's replicates are two contiguous rows
        se, lo, hi, pp = (np.empty(ia.size) for _ in range(4))
        for s in range(0, ia.size, step):
            D = Rt[ia[s : s + step]] - Rt[ib[s : s + step]]  # (pairs, B) replicate mean differences
            se[s : s + step] = D.std(axis=1, ddof=1)
            part = np.partition(D, np.unique(np.r_[k, k1]), axis=1)
            lo[s : s + step], hi[s : s + step] = (part[:, k] + t * (part[:, k1] - part[:, k])).T
            le, ge = (D <= 0).sum(axis=1), (D >= 0).sum(axis=1)
            pp[s : s + step] = np.minimum(1.0, 2.0 * np.minimum(le, ge) / B)
        return se, lo, hi, pp, wald_pvalue(mean[ia] - mean[ib], se)

    def strawman():  # before issue 36: every pair's item differences through one product
        D = (X[ia] - X[ib]).T  # (N, P)
        R = (W @ D) / W.sum(axis=1, keepdims=True)  # (B, P): every pair's replicate mean difference
        se = R.std(axis=0, ddof=1)
        lo, hi = np.quantile(R, q, axis=0)
        pp = np.minimum(1.0, 2.0 * np.minimum((R <= 0).sum(axis=0), (R >= 0).sum(axis=0)) / B)
        return se, lo, hi, pp, wald_pvalue(D.mean(axis=0), se)

    ours(), baseline()  # warm-up, not timed (scipy's import in wald_pvalue, caches)
    t_ours, t_base = timed_pair(ours, baseline, args.repeats)
    t_ours2, t_straw = timed_pair(ours, strawman, args.repeats)
    for side, other in (("the baseline", t_base), ("the strawman", t_straw)):
        for name, a, b in zip(
            ("se", "low", "high", "p_percentile", "p"), t_ours.result, other.result, strict=True
        ):
            diff = float(np.max(np.abs(a - b)))
            assert diff < 1e-12, f"{name}: benchsift and {side} differ by {diff}"

    def streamed():  # the same replicates (seed 123) drawn in blocks and never held whole (hold=0)
        return paired_bootstrap_pairs(X, WeightStream(N, B, 123), hold=0)

    t_stream = timed(streamed, args.repeats)
    assert t_stream.result.se.tobytes() == t_ours.result[0].tobytes(), "streamed weights changed the SEs"
    t_full = timed(lambda: benchsift.compare(panel, n_boot=B, random_state=0), args.repeats)
    t_cli = _whole_command(args, panel, B, timed)
    P = ia.size
    print(f"\nspeed: {what}: {M} models x {N} items, {P} pairs, B = {B}, {args.threads} threads")
    print(f"{'method':<52}{'min / median s':>18}{'speed-up':>16}")
    label = "benchsift paired_bootstrap_pairs (streamed)"
    print(f"{label:<52}{t_ours.cell():>18}{ratio_cell(t_ours, t_base):>16}")
    print(f"{'baseline: W @ X.T over the models, pairs in blocks':<52}{t_base.cell():>18}{'1x':>16}")
    label = "strawman: one W @ D over all pairs (224 MB)"
    print(f"{label:<52}{t_straw.cell():>18}{ratio_cell(t_ours2, t_straw):>16}")
    label = "benchsift, weights streamed (WeightStream, hold=0)"
    print(f"{label:<52}{t_stream.cell():>18}{ratio_cell(t_stream, t_base):>16}")
    print(f"{'benchsift.compare (the library call, end to end)':<52}{t_full.cell():>18}{'':>16}")
    label = "whole command: benchsift compare PANEL --json"
    print(f"{label:<52}{t_cli.cell():>18}{'':>16}")
    print(
        "    (speed-up: baseline / benchsift, min-ratio / median-ratio; the strawman row: strawman / "
        "benchsift, from its own alternated pair; not the headline)"
    )
    print(
        "    (the whole command: a fresh process, imports, reading the panel, compare, the JSON on "
        f"/dev/null; issue 35's bar: at most 10 s on 2 cores; load {load_average()})"
    )
    res = t_full.result
    row = res.resolution.iloc[0]
    print(
        f"compare: MDD {row['mdd']:.4f} (adjacent {row['mdd_adjacent']:.4f}), separated after Holm "
        f"{row['separated_holm']:.1%}, BH {row['separated_bh']:.1%}, {row['n_groups']} tie groups"
    )


def _stacked(theta, n, reps, rng, boot, chunk=100, **kw):
    """``reps`` independent panels stacked as rows, in chunks of ``chunk`` panels that share one fresh
    draw of resampling weights (item or, with clusters, cluster bootstrap): yields ``(sims, X, W)``."""
    import numpy as np

    from benchsift.simulate import simulate_leaderboard
    from benchsift.stats import bootstrap_weights, cluster_bootstrap_weights

    for start in range(0, reps, chunk):
        sims = [
            simulate_leaderboard(theta, n, random_state=rng, **kw) for _ in range(min(chunk, reps - start))
        ]
        W = cluster_bootstrap_weights(sims[0].clusters, boot, rng) if kw else bootstrap_weights(n, boot, rng)
        yield sims, np.vstack([s.scores for s in sims]), W


def _two_sided(Z, rest):  # the 2(M-1) one-sided hypotheses left (Romano-Wolf over max |t|)
    import numpy as np

    up, down = rest
    return float(
        np.quantile(
            np.maximum(np.where(~up, Z, -np.inf).max(1), np.where(~down, -Z, -np.inf).max(1)),
            0.95,
            method="higher",
        )
    )


def _claims_interval(x, S, crit):
    """Rank intervals from claims ``t_k > c``: ``crit`` a constant (0: the observed rank alone), None
    (z_0.95: each claim a one-sided test at 0.05, no allowance for multiplicity), or a function of the
    centred replicates and the claims so far (step-down until no new claim)."""
    import numpy as np

    M = x.size
    out = np.zeros((M, 2))
    for j in range(M):
        k = np.flatnonzero(np.arange(M) != j)
        D = S[:, k] - S[:, [j]]
        se = D.std(axis=0, ddof=1)
        t = (x[k] - x[j]) / se
        Z = (D - (x[k] - x[j])) / se
        if crit is None or not callable(crit):
            c = 1.6448536269514722 if crit is None else float(crit)
            up, down = t > c, t < -c
        else:
            up, down = np.zeros(k.size, bool), np.zeros(k.size, bool)
            while True:
                c = crit(Z, (up, down))
                nu, nd = up | (t > c), down | (t < -c)
                if (nu == up).all() and (nd == down).all():
                    break
                up, down = nu, nd
        out[j] = 1 + up.sum(), M - down.sum()
    return out


def _pairwise_bound(theta, n):
    """Per model: ``1 - sum_k Phi(-z_0.95 - |delta_k| / se_k)`` over its competitors, true ``delta`` and
    ``se`` (a 200,000-item draw, scaled to ``n`` items). A miss needs a competitor claimed on the wrong
    side; an interval whose claims are each at least a one-sided 5 % test (as any valid one must be
    where that competitor is the only close one) makes one with probability at most
    ``Phi(-z_0.95 - |delta_k| / se_k)``: so this is the least coverage any valid interval can have."""
    import numpy as np
    from scipy.stats import norm

    from benchsift.simulate import simulate_leaderboard

    big = simulate_leaderboard(theta, 200_000, random_state=7)
    C = np.cov(big.scores)
    v = np.diag(C)
    se = np.sqrt(np.maximum(v[:, None] + v[None, :] - 2 * C, 1e-300) / n)
    tau = np.abs(big.true_scores[:, None] - big.true_scores[None, :]) / se
    miss = norm.cdf(-1.6448536269514722 - tau)
    np.fill_diagonal(miss, 0.0)
    return 1.0 - miss.sum(axis=1)


def _oracle_errors(theta, n, reps, seed):
    """``(reps, M)`` errors ``observed rank - true rank`` of ``reps`` panels drawn afresh from the truth
    (``simulate_leaderboard``, the same design as the checked panels, their own seed): the true sampling
    distribution of each model's observed rank (average ranks, 1 = best)."""
    import numpy as np

    from benchsift.simulate import simulate_leaderboard
    from benchsift.stats.ranks import rank_average

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(reps):
        sim = simulate_leaderboard(theta, n, random_state=rng)
        out.append(rank_average(-sim.scores.mean(axis=1)) - sim.true_ranks)
    return np.array(out)


def _oracle_interval(E, level, shortest):
    """The oracle's rank interval from the true error distribution ``E`` (:func:`_oracle_errors`): for
    each model the error range ``[e_lo, e_hi]`` holding ``level`` of it (equal tails: the ``(1-level)/2``
    quantile rounded down and the ``(1+level)/2`` one rounded up; ``shortest``: the shortest window of the
    sorted errors that holds ``ceil(level * reps)`` of them), and the interval of an observed rank ``r``
    is ``[r - e_hi, r - e_lo]`` rounded outward into ``[1, M]``. It knows what no data-driven interval
    can: the truth's spread of the observed rank, so it holds the true rank with probability at least
    ``level`` (up to its Monte Carlo error) at the least width a pivot interval can have."""
    import numpy as np

    R, M = E.shape
    lo, hi = np.empty(M), np.empty(M)
    for m in range(M):
        e = np.sort(E[:, m])
        if shortest:
            w = int(np.ceil(level * R))
            i = int(np.argmin(e[w - 1 :] - e[: R - w + 1]))
            lo[m], hi[m] = e[i], e[i + w - 1]
        else:
            lo[m] = np.quantile(e, (1 - level) / 2, method="lower")
            hi[m] = np.quantile(e, (1 + level) / 2, method="higher")

    def interval(x):
        r = rank_of(x)
        return np.column_stack([np.clip(np.floor(r - hi), 1, M), np.clip(np.ceil(r - lo), 1, M)])

    return interval


def rank_of(x):
    from benchsift.stats.ranks import rank_average

    return rank_average(-x)


def _mc(p: float, n: int) -> str:
    return f"{p:.4f} (MC se {(p * (1 - p) / n) ** 0.5:.4f}, n = {n})"


def acceptance(args) -> None:
    import numpy as np

    from benchsift.simulate import simulate_leaderboard
    from benchsift.stats import bh_adjust, holm_adjust, paired_power, rank_interval_pairwise
    from benchsift.stats.paired import paired_bootstrap_pairs, wald_pvalue
    from benchsift.stats.ranks import rank_interval

    rng = np.random.default_rng(2026)
    R, Bs = args.reps, args.sim_boot
    t0 = time.perf_counter()

    def pairs_of(M: int, reps: int):
        ia, ib = np.triu_indices(M, 1)
        off = (np.arange(reps) * M)[:, None]
        return (ia[None, :] + off).reshape(-1), (ib[None, :] + off).reshape(-1)

    print(f"\nacceptance on simulated leaderboards ({R} panels per check, B = {Bs} each, seed 2026)")
    # 1. rank-interval coverage
    n = 500
    configs = {
        "spread: 10 models, theta -1..1 evenly": np.linspace(-1.0, 1.0, 10),
        "near ties: 5 pairs 0.02 apart in theta": np.repeat(np.linspace(-1.0, 1.0, 5), 2)
        + np.tile([0.02, 0.0], 5),
        "dense: 10 models 0.05 apart in theta": np.linspace(-0.225, 0.225, 10),
        "all near-tied: 10 models 0.005 apart": np.arange(10) * 0.005,
    }
    rules = {
        "compare's (each direction, steps)": lambda x, S: rank_interval_pairwise(x, S, 0.95),
        "worst direction for both (7acdf7f)": lambda x, S: rank_interval_pairwise(x, S, 0.95, "worst"),
        "two-sided max|t| steps (Mogstad et al.)": lambda x, S: _claims_interval(x, S, _two_sided),
        "single claim at z_0.95, no multiplicity": lambda x, S: _claims_interval(x, S, None),
        "observed rank alone": lambda x, S: _claims_interval(x, S, 0.0),
        "percentile of bootstrap ranks": lambda x, S: rank_interval(S, 0.95),
    }
    for c, (label, theta) in enumerate(configs.items() if not args.skip_rank_coverage else ()):
        M = theta.size
        E = _oracle_errors(theta, n, args.oracle_reps, 9000 + c)
        tails, short = _oracle_interval(E, 0.95, False), _oracle_interval(E, 0.95, True)
        rules_c: dict[str, Any] = {
            **rules,
            "ORACLE: true rank errors, equal tails": lambda x, S, f=tails: f(x),
            "ORACLE: true rank errors, shortest 95 %": lambda x, S, f=short: f(x),
        }
        hits: dict[str, list[Any]] = {k: [] for k in rules_c}
        widths: dict[str, list[Any]] = {k: [] for k in rules_c}
        for sims, X, W in _stacked(theta, n, R, rng, Bs):
            pb = paired_bootstrap_pairs(X, W, pairs=pairs_of(M, 1))  # only the model means are needed
            for r, s in enumerate(sims):
                S = pb.means[:, r * M : (r + 1) * M]
                for k, rule in rules_c.items():
                    ci = rule(s.scores.mean(axis=1), S)
                    hits[k].append((ci[:, 0] <= s.true_ranks) & (s.true_ranks <= ci[:, 1]))
                    widths[k].append(ci[:, 1] - ci[:, 0] + 1)
        bound = _pairwise_bound(theta, n)
        print(
            f"rank coverage, {label}, n = {n} (nominal 0.95; pooled, then per model min / max; mean width / "
            f"{M}, which pooled coverage equals on an exact tie):"
        )
        for k, h in hits.items():
            per = np.mean(h, axis=0)
            cell = _mc(float(np.mean(h)), R * M) if k.startswith("compare") else f"{float(np.mean(h)):.4f}"
            print(
                f"    {k:<42} {cell}; per model {per.min():.3f} / {per.max():.3f}; "
                f"width / M {float(np.mean(widths[k])) / M:.3f}"
            )
        print(
            f"    forced: 1 - sum_k Phi(-z_0.95 - |delta_k| / se_k), the least coverage of an interval whose "
            f"claims are each at least a one-sided 5 % test: pooled {bound.mean():.4f}, per model "
            f"{bound.min():.3f} / {bound.max():.3f}"
        )
    if args.only_rank_coverage:
        print(f"acceptance checks: {time.perf_counter() - t0:.0f} s")
        return

    def pvalues(theta, n, **kw):
        M = len(theta)
        out = []
        for sims, X, W in _stacked(theta, n, R, rng, Bs, **kw):
            a, b = pairs_of(M, len(sims))
            pb = paired_bootstrap_pairs(X, W, pairs=(a, b))
            out.append(wald_pvalue(X[a].mean(1) - X[b].mean(1), pb.se).reshape(len(sims), -1))
        return np.vstack(out)

    # 2. false separation
    M, n = 8, 400
    p = pvalues(np.zeros(M), n)
    fwer_holm = float(np.mean([(holm_adjust(r) <= 0.05).any() for r in p]))
    fwer_bh = float(np.mean([(bh_adjust(r) <= 0.05).any() for r in p]))
    print(f"global null, {M} equal models, n = {n}: any pair separated after Holm {_mc(fwer_holm, R)}")
    print(
        f"    after BH {_mc(fwer_bh, R)}; per pair uncorrected {float(np.mean(p <= 0.05)):.4f}; nominal 0.05"
    )
    theta = np.repeat(np.linspace(-1.0, 1.0, 5), 2)
    M = theta.size
    p = pvalues(theta, n)
    ia, ib = np.triu_indices(M, 1)
    null = theta[ia] == theta[ib]
    holm_any, fdp = [], []
    for r in p:
        rej_h, rej_b = holm_adjust(r) <= 0.05, bh_adjust(r) <= 0.05
        holm_any.append(bool((rej_h & null).any()))
        fdp.append(float((rej_b & null).sum() / max(1, rej_b.sum())))
    print(
        f"5 tied pairs among {M} models, n = {n}: Holm family-wise error over the 5 null pairs "
        f"{_mc(float(np.mean(holm_any)), R)}; BH false discovery rate {np.mean(fdp):.4f} "
        f"(MC se {np.std(fdp) / np.sqrt(R):.4f}); nominal 0.05"
    )
    # 3. power curve
    cases: tuple[tuple[str, dict[str, Any]], ...] = (
        ("independent items", {}),
        ("clusters of 4 (cluster bootstrap)", {"cluster_size": 4, "cluster_sd": 0.5, "interaction_sd": 0.5}),
    )
    for label, kw in cases:
        worst = 0.0
        rows = []
        for dtheta in (0.0, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6):
            th = np.array([dtheta, 0.0])
            emp = float(np.mean(pvalues(th, n, **kw) <= 0.05))
            big = simulate_leaderboard(th, 400_000, random_state=7, **kw)
            d = big.scores[0] - big.scores[1]
            sums = np.bincount(big.clusters, weights=d - d.mean())
            var_mean = float(np.sum(sums**2)) / d.size**2  # Var of the mean of 400,000 items, clusters whole
            se = float(np.sqrt(var_mean * d.size / n))
            delta = float(big.true_scores[0] - big.true_scores[1])
            pred = float(paired_power(delta, se))
            worst = max(worst, abs(emp - pred))
            rows.append(f"delta {delta:.4f}: simulated {emp:.3f}, formula {pred:.3f}")
        print(f"power curve, {label}, n = {n}, {R} pairs per point: largest gap {worst:.3f} (MC se <= 0.016)")
        for line in rows:
            print("    " + line)
    print(f"acceptance checks: {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
