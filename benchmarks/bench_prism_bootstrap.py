"""Benchmark: the PRISM-VLM item-level paired bootstrap (App. E) at the paper's size, against a count loop.

42 models x 6,238 items x 7 axes (simulated, 2 % unanswered), B = 2000 replicates, sc_B recomputed in
every replicate. Target: <= 10 s and <= 2 GB on 2 cores.

Both sides start from the same replicate index multisets (``bootstrap_indices``) and are timed the same
way (``_timing.timed_pair``: alternating, ``--repeats`` calls each, min and median shown):

* benchsift: the (B, N) count matrix from the indices (one ``np.bincount``) and
  :func:`benchsift.prism.bootstrap.paired_bootstrap` on it, which also computes the PScore CIs, rank CIs
  and all 861 pairwise p-values;
* baseline, ``count-vector loop``: what a competent user writes. The per-item numerator and denominator
  rows once (answered scores and the answered mask per axis, held-and-turn-0-correct over turn-0-correct
  for sc_B; stacked into one contiguous (2 M A, N) matrix, the fastest layout for a matrix-vector product),
  then for every one of the B replicates (all of them, nothing extrapolated) the count vector
  ``np.bincount(idx[b], minlength=N)``, the weighted sums ``ND @ c`` and the weighted means, then the
  harmonic mean, under one BLAS thread (its fastest setting). It computes only the PScore replicates, less
  than benchsift's call, so the ratio is conservative.

The baseline's B x M PScore replicates are asserted equal to benchsift's to ``TOL``. Memory: one more,
untimed, benchsift call under tracemalloc, and the process's peak RSS.

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
    parser.add_argument("--json", default=None, help="also write the rows (all repeat times) to this file")
    args = parser.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)

    import numpy as np
    from _timing import load_average, machine_line, ratio_cell, timed_pair
    from threadpoolctl import threadpool_info, threadpool_limits

    from benchsift.prism.bootstrap import paired_bootstrap
    from benchsift.simulate.verdicts import simulate_verdict_arrays
    from benchsift.stats import bootstrap_indices

    print("PRISM-VLM item-level paired bootstrap (App. E)")
    print(machine_line())
    threadpool_limits(args.threads)
    arrays, _, _ = simulate_verdict_arrays(args.models, args.items, unanswered_rate=0.02, random_state=0)
    M, N, A = arrays.scores.shape
    B = args.boot
    idx = bootstrap_indices(N, B, 123)  # the replicate index multisets, shared by both methods
    sc = arrays.axis_index("sc")
    t0_correct, flip_turn = arrays.sc_turn0_correct, arrays.sc_flip_turn
    assert t0_correct is not None and flip_turn is not None

    def ours() -> np.ndarray:
        flat = idx + (np.arange(B) * N)[:, None]
        W = np.bincount(flat.ravel(), minlength=B * N).reshape(B, N).astype(float)
        return paired_bootstrap(arrays, weights=W).samples

    def count_loop() -> np.ndarray:
        answered = ~np.isnan(arrays.scores)  # (M, N, A)
        num = np.where(answered, arrays.scores, 0.0).transpose(0, 2, 1).copy()  # (M, A, N)
        den = answered.transpose(0, 2, 1).astype(float)
        t0c = t0_correct == 1
        num[:, sc, :] = t0c & (flip_turn == 0)
        den[:, sc, :] = t0c
        # one contiguous (2 M A, N) matrix: numerators then denominators, one row per model and axis
        ND = np.concatenate([num.reshape(M * A, N), den.reshape(M * A, N)])
        out = np.empty((B, M))
        # One BLAS thread: B small matrix-vector products lose to thread start-up and spin-waiting (measured
        # ~2.5x faster than two threads on the 2-core machine), so this is the loop's strongest setting.
        with threadpool_limits(1):
            for b in range(B):
                c = np.bincount(idx[b], minlength=N).astype(float)
                v = ND @ c
                means = (v[: M * A] / v[M * A :]).reshape(M, A)
                out[b] = A / (1.0 / means).sum(axis=1)
        return out

    vec, loop = timed_pair(ours, count_loop, args.repeats)
    max_diff = float(np.max(np.abs(loop.result - vec.result)))
    assert max_diff < TOL, f"benchsift and the count loop PScore replicates differ by {max_diff}"

    tracemalloc.start()
    result = paired_bootstrap(
        arrays,
        weights=np.bincount((idx + (np.arange(B) * N)[:, None]).ravel(), minlength=B * N)
        .reshape(B, N)
        .astype(float),
    )
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    rss_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2  # Linux: KiB
    blas = ", ".join(f"{i.get('internal_api')} {i.get('num_threads')} threads" for i in threadpool_info())
    print(f"BLAS: {blas}")
    print(
        f"data    : {M} models x {N} items x {A} axes, 2 % unanswered, B = {B}, "
        f"sc_B recomputed per replicate, {result.separation.n_pairs} pairs; "
        f"min / median of {args.repeats} alternated calls"
    )
    print(f"{'method':<44}{'min / median s':>20}{'speed-up (min / median)':>28}")
    print(f"{'benchsift (counts, W @ NUM, summaries)':<44}{vec.cell():>20}{ratio_cell(vec, loop):>28}")
    print(f"{'count-vector loop, all B replicates':<44}{loop.cell():>20}{'1x':>28}")
    if loop.median < vec.median:
        print("benchsift is SLOWER than the count-vector loop in this run")
    print(f"max |PScore difference| over all {B} replicates: {max_diff:.2e} (asserted < {TOL:g})")
    print(
        f"peak traced numpy memory of the benchsift call: {peak / 1024**3:.2f} GB; "
        f"process peak RSS: {rss_gb:.2f} GB"
    )
    print(
        f"separation raw / BH / Bonferroni: {result.separation.raw:.3f} / {result.separation.bh:.3f} / "
        f"{result.separation.bonferroni:.3f}"
    )
    print(f"target: <= 10 s and <= 2 GB -> {'met' if vec.median <= 10 and rss_gb <= 2 else 'NOT met'}")
    print(f"load average after: {load_average()}")
    if args.json:
        rows = [{"workload": f"B={B}", "baseline": "count loop", "ours": vec.seconds, "base": loop.seconds}]
        with open(args.json, "w") as fh:
            json.dump({"script": "bench_prism_bootstrap", "rows": rows, "rss_gb": rss_gb}, fh)


if __name__ == "__main__":
    main()
