"""Benchmark: the PRISM-VLM item-level paired bootstrap (App. E) at the paper's size, against ``W @ ND.T``.

42 models x 6,238 items x 7 axes (simulated, 2 % unanswered), B = 2000 replicates, sc_B recomputed in
every replicate. Target: <= 10 s and <= 2 GB on 2 cores.

Both sides start from the seed and are timed the same way (``_timing.timed_pair``: alternating,
``--repeats`` calls each, min and median shown):

* benchsift: :func:`benchsift.prism.bootstrap.paired_bootstrap` with ``random_state=seed``: it draws the
  resamples in blocks and runs :func:`benchsift.stats.resample.paired_bootstrap_means` on them (distinct
  rows only,
  exact float32 sums for rational scores), then computes the PScore CIs, rank CIs and all 861 pairwise
  p-values;
* baseline, ``W @ ND.T`` (the strongest simple version, 10 lines): the same seed's index matrix
  (``default_rng(seed).integers``), the (B, N) count matrix by one ``np.bincount``, the per-item numerator
  and denominator rows stacked into one (2 M A, N) matrix, one float64 product ``W @ ND.T``, the ratio
  and the harmonic mean. It computes only the PScore replicates, less than benchsift's call, so the
  ratio is conservative.
* ``--strawman``: also the per-replicate count-vector loop (``ND @ bincount(idx[b])`` B times), which
  the README quoted before; labelled as a strawman.

The baseline's B x M PScore replicates are asserted equal to benchsift's to ``TOL`` (benchsift's sums are
exact; the baseline's float64 product rounds). Memory: one more, untimed, call of each side under
tracemalloc, and the process's peak RSS.

    .venv/bin/python benchmarks/bench_prism_bootstrap.py [--threads 2] [--boot 2000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tracemalloc

TOL = 1e-10


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--boot", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", type=int, default=42)
    parser.add_argument("--items", type=int, default=6238)
    parser.add_argument("--strawman", action="store_true", help="also time the per-replicate loop once")
    parser.add_argument("--json", default=None, help="also write the rows (all repeat times) to this file")
    args = parser.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)

    import numpy as np
    from _timing import load_average, machine_line, ratio_cell, timed_pair
    from threadpoolctl import threadpool_info, threadpool_limits

    from benchsift.prism.bootstrap import paired_bootstrap
    from benchsift.simulate.verdicts import simulate_verdict_arrays

    print("PRISM-VLM item-level paired bootstrap (App. E)")
    print(machine_line())
    threadpool_limits(args.threads)
    arrays, _, _ = simulate_verdict_arrays(args.models, args.items, unanswered_rate=0.02, random_state=0)
    M, N, A = arrays.scores.shape
    B, seed = args.boot, 123
    sc = arrays.axis_index("sc")
    t0_correct, flip_turn = arrays.sc_turn0_correct, arrays.sc_flip_turn
    assert t0_correct is not None and flip_turn is not None

    def ours() -> np.ndarray:
        return paired_bootstrap(arrays, B, seed).samples

    def stacked_rows() -> np.ndarray:
        """(2 M A, N): numerator rows then denominator rows, one per model and axis (sc_B: held-and-turn-0-
        correct over turn-0-correct)."""
        answered = ~np.isnan(arrays.scores)  # (M, N, A)
        num = np.where(answered, arrays.scores, 0.0).transpose(0, 2, 1).copy()  # (M, A, N)
        den = answered.transpose(0, 2, 1).astype(float)
        t0c = t0_correct == 1
        num[:, sc, :] = t0c & (flip_turn == 0)
        den[:, sc, :] = t0c
        return np.concatenate([num.reshape(M * A, N), den.reshape(M * A, N)])

    def matmul_baseline() -> np.ndarray:
        ND = stacked_rows()
        idx = np.random.default_rng(seed).integers(0, N, size=(B, N))
        W = np.bincount((idx + np.arange(B)[:, None] * N).ravel(), minlength=B * N).reshape(B, N)
        v = W.astype(float) @ ND.T  # (B, 2 M A): every replicate's weighted sums in one product
        means = (v[:, : M * A] / v[:, M * A :]).reshape(B, M, A)
        return A / (1.0 / means).sum(axis=2)

    def count_loop() -> np.ndarray:  # strawman: one matrix-vector product per replicate
        ND = stacked_rows()
        idx = np.random.default_rng(seed).integers(0, N, size=(B, N))
        out = np.empty((B, M))
        with threadpool_limits(1):  # its fastest setting on 2 cores
            for b in range(B):
                v = ND @ np.bincount(idx[b], minlength=N).astype(float)
                out[b] = A / (1.0 / (v[: M * A] / v[M * A :]).reshape(M, A)).sum(axis=1)
        return out

    vec, base = timed_pair(ours, matmul_baseline, args.repeats)
    max_diff = float(np.max(np.abs(base.result - vec.result)))
    assert max_diff < TOL, f"benchsift and the W @ ND.T baseline PScore replicates differ by {max_diff}"
    loop = None
    if args.strawman:
        _, loop = timed_pair(ours, count_loop, 1)
        assert float(np.max(np.abs(loop.result - vec.result))) < TOL

    peaks = {}
    for name, fn in (("benchsift", ours), ("baseline", matmul_baseline)):
        tracemalloc.start()
        fn()
        peaks[name] = tracemalloc.get_traced_memory()[1] / 1024**3
        tracemalloc.stop()
    result = paired_bootstrap(arrays, B, seed)

    rss_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2  # Linux: KiB
    blas = ", ".join(f"{i.get('internal_api')} {i.get('num_threads')} threads" for i in threadpool_info())
    print(f"BLAS: {blas}")
    print(
        f"data    : {M} models x {N} items x {A} axes, 2 % unanswered, B = {B}, "
        f"sc_B recomputed per replicate, {result.separation.n_pairs} pairs; "
        f"min / median of {args.repeats} alternated calls"
    )
    print(f"{'method':<48}{'min / median s':>20}{'speed-up (min / median)':>28}{'peak GB':>10}")
    print(
        f"{'benchsift paired_bootstrap (draws, CIs, p)':<48}{vec.cell():>20}{ratio_cell(vec, base):>28}"
        f"{peaks['benchsift']:>10.2f}"
    )
    print(f"{'baseline: W @ ND.T, PScore only':<48}{base.cell():>20}{'1x':>28}{peaks['baseline']:>10.2f}")
    if loop is not None:
        print(f"{'strawman: per-replicate count loop (1 call)':<48}{loop.cell():>20}{'':>28}")
    if base.median < vec.median:
        print("benchsift is SLOWER than the W @ ND.T baseline in this run")
    print(f"max |PScore difference| over all {B} replicates: {max_diff:.2e} (asserted < {TOL:g})")
    print(f"process peak RSS: {rss_gb:.2f} GB")
    print(
        f"separation raw / BH / Bonferroni: {result.separation.raw:.3f} / {result.separation.bh:.3f} / "
        f"{result.separation.bonferroni:.3f}"
    )
    print(f"target: <= 10 s and <= 2 GB -> {'met' if vec.median <= 10 and rss_gb <= 2 else 'NOT met'}")
    print(f"load average after: {load_average()}")
    if args.json:
        rows = [{"workload": f"B={B}", "baseline": "W @ ND.T", "ours": vec.seconds, "base": base.seconds}]
        with open(args.json, "w") as fh:
            json.dump({"script": "bench_prism_bootstrap", "rows": rows, "rss_gb": rss_gb}, fh)


if __name__ == "__main__":
    main()
