"""Benchmark: the PRISM-VLM item-level paired bootstrap (App. E) at the paper's size.

42 models x 6,238 items x 7 axes (simulated, 2 % unanswered), B = 2000 replicates, sc_B recomputed in
every replicate, PScore CIs, rank CIs and all 861 pairwise p-values. Target: <= 10 s and <= 2 GB on 2 cores.

Baseline, in the same process and on the same resamples: a straightforward per-replicate loop that
gathers the drawn items (``scores[:, idx, :]``) and recomputes every axis mean and sc_B with NaN-aware
means. The loop runs on the first ``--loop-reps`` replicates only and its time is extrapolated to B
(linear in B); its PScore replicates are asserted equal to the vectorized ones.

    .venv/bin/python benchmarks/bench_prism_bootstrap.py [--threads 2] [--boot 2000] [--loop-reps 100]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
import tracemalloc


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--boot", type=int, default=2000)
    parser.add_argument("--loop-reps", type=int, default=100)
    parser.add_argument("--models", type=int, default=42)
    parser.add_argument("--items", type=int, default=6238)
    args = parser.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)

    import numpy as np
    from threadpoolctl import threadpool_info, threadpool_limits

    from benchsift.prism.bootstrap import paired_bootstrap
    from benchsift.simulate.verdicts import simulate_verdict_arrays
    from benchsift.stats import bootstrap_indices

    threadpool_limits(args.threads)
    arrays, _, _ = simulate_verdict_arrays(args.models, args.items, unanswered_rate=0.02, random_state=0)
    M, N, A = arrays.scores.shape
    idx = bootstrap_indices(N, args.boot, 123)  # the replicate index multisets, shared by both methods

    # vectorized: count matrix from the same indices, then the full bootstrap
    tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    flat = idx + (np.arange(args.boot) * N)[:, None]
    W = np.bincount(flat.ravel(), minlength=args.boot * N).reshape(args.boot, N).astype(float)
    result = paired_bootstrap(arrays, weights=W)
    t_vec, c_vec = time.perf_counter() - t0, time.process_time() - c0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del W

    # straightforward per-replicate loop on the first loop-reps replicates
    sc = arrays.axis_index("sc")
    assert arrays.sc_turn0_correct is not None and arrays.sc_flip_turn is not None
    reps = min(args.loop_reps, args.boot)
    loop = np.empty((reps, M))
    t0, c0 = time.perf_counter(), time.process_time()
    for b in range(reps):
        s = arrays.scores[:, idx[b], :]
        answered = ~np.isnan(s)
        means = np.where(answered, s, 0.0).sum(axis=1) / answered.sum(axis=1)
        t0c = arrays.sc_turn0_correct[:, idx[b]] == 1
        held = arrays.sc_flip_turn[:, idx[b]] == 0
        means[:, sc] = (t0c & held).sum(axis=1) / t0c.sum(axis=1)
        loop[b] = A / (1.0 / means).sum(axis=1)
    t_loop = (time.perf_counter() - t0) * args.boot / reps
    c_loop = (time.process_time() - c0) * args.boot / reps

    max_diff = float(np.max(np.abs(loop - result.samples[:reps])))
    assert max_diff < 1e-10, f"vectorized and loop PScore replicates differ by {max_diff}"

    rss_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2  # Linux: KiB
    blas = ", ".join(f"{i.get('internal_api')} {i.get('num_threads')} threads" for i in threadpool_info())
    print("PRISM-VLM item-level paired bootstrap (App. E)")
    print(
        f"machine : {platform.machine()} {platform.processor() or ''} | {os.cpu_count()} cpus visible | "
        f"python {sys.version.split()[0]} | numpy {np.__version__} | BLAS: {blas}"
    )
    print(
        f"data    : {M} models x {N} items x {A} axes, 2 % unanswered, B = {args.boot}, "
        f"sc_B recomputed per replicate, {result.separation.n_pairs} pairs"
    )
    print(f"{'method':<34}{'wall s':>10}{'cpu s':>10}{'speed-up (wall)':>17}")
    print(f"{'vectorized (W @ NUM, W @ DEN)':<34}{t_vec:>10.2f}{c_vec:>10.2f}{t_loop / t_vec:>16.1f}x")
    print(
        f"{'per-replicate loop (extrapolated)':<34}{t_loop:>10.2f}{c_loop:>10.2f}{1.0:>16.1f}x"
        f"   ({reps} replicates timed, x{args.boot / reps:.0f})"
    )
    print(f"max |PScore difference| over the {reps} shared replicates: {max_diff:.2e}")
    print(
        f"peak traced numpy memory of the vectorized call: {peak / 1024**3:.2f} GB; "
        f"process peak RSS: {rss_gb:.2f} GB"
    )
    print(
        f"separation raw / BH / Bonferroni: {result.separation.raw:.3f} / {result.separation.bh:.3f} / "
        f"{result.separation.bonferroni:.3f}"
    )
    print(f"target: <= 10 s and <= 2 GB -> {'met' if t_vec <= 10 and rss_gb <= 2 else 'NOT met'}")


if __name__ == "__main__":
    main()
