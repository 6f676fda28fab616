"""Sweeps on other joblib backends: a real dask LocalCluster and a local Ray instance give the bytes of the
local run.

``benchsift.parallel.sweep_backend`` is the one switch; ``validate`` (random, end-to-end and same-model
protocols), ``redundancy instances`` (one benchmark and ``--each-benchmark``) and ``adaptive simulate``
must print byte-identical
JSON locally (``--n-jobs 1``, no pool), on local worker processes, on a dask cluster and on Ray, for the same
seed.
"""

from __future__ import annotations

import json

import joblib
import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.parallel import sweep_backend
from benchsift.redundancy import instance_redundancy
from benchsift.redundancy.instances import sampled_scores, selection_matrix
from benchsift.simulate import SimulationConfig, simulate_panel
from benchsift.stats.correlation import corr_with_vector

runner = CliRunner()


@pytest.fixture(scope="module")
def sim_panel() -> Panel:
    cfg = SimulationConfig.small(n_models=30, items_per_benchmark=60, min_items_per_benchmark=30)
    return simulate_panel(cfg, 0).panel


@pytest.fixture(scope="module")
def panel_file(sim_panel: Panel, tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(sim_panel.save(tmp_path_factory.mktemp("par") / "p.parquet"))


@pytest.fixture(scope="module")
def dask_address():
    from dask.distributed import LocalCluster  # in the test extra: .ci/run installs it

    # 2 worker processes of one thread: real inter-process transport, as on a cluster.
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def _cli(*args: str) -> str:
    """The command's ``--json`` output, as bytes, less the wall-clock ``seconds`` per selector (a timing,
    different on every run, also between two local ones)."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    if "seconds" in out:
        out["seconds"] = None
        return json.dumps(out, indent=2)
    return result.stdout


def test_instances_chunks_draw_exactly_the_sequential_stream(sim_panel: Panel) -> None:
    """Chunks on workers start from the PCG64 state advanced past earlier chunks: the same draws as one loop
    over the ratios (computed here by hand, in sequence, from one generator)."""
    sub = sim_panel.subset(items=sim_panel.items["benchmark"] == sim_panel.items["benchmark"].iloc[0])
    ratios, repeats = [0.1, 0.5, 1.0], 7
    rng = np.random.default_rng(11)
    scores = sub.scores
    obs = ~np.isnan(scores)
    zeroed = np.where(obs, scores, 0.0)
    observed = None if obs.all() else obs.astype(float)
    full = sub.model_means()
    m = scores.shape[1]
    expected = []
    for r in ratios:
        k = max(1, int(np.floor(r * m + 0.5)))
        if k == m:
            sampled = np.repeat(full[:, None], repeats, axis=1)
        else:
            sampled = sampled_scores(zeroed, observed, selection_matrix(m, k, repeats, rng))
        expected.append(corr_with_vector(sampled, full, "srcc"))
    gen = np.random.default_rng(11)
    for n_jobs, backend in [(1, None), (2, "threading"), (2, "loky")]:
        res = instance_redundancy(
            sub,
            ratios=ratios,
            repeats=repeats,
            metrics="srcc",
            random_state=11,
            keep_values=True,
            n_jobs=n_jobs,
            backend=backend,
            condition=None,
        )
        assert res.values is not None
        np.testing.assert_array_equal(res.values["srcc"], np.stack(expected))
    # a caller's Generator is left where the sequential loop leaves it
    instance_redundancy(
        sub,
        ratios=ratios,
        repeats=repeats,
        metrics="srcc",
        random_state=gen,
        n_jobs=2,
        backend="threading",
        condition=None,
    )
    assert gen.bit_generator.state == rng.bit_generator.state


def _blas_threads() -> list[int]:
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]


def test_threading_sweeps_run_on_one_blas_thread() -> None:
    """The tasks of a `threading` sweep share the process's BLAS setting, which OpenBLAS lets only the
    thread that set it change: before, a task's own one-thread block was ignored once the main thread had set
    the pools, its products ran on two BLAS threads, and `validate --backend threading` gave other numbers
    than the other backends (irt2pl: 0.97632 against 0.97619 at 10 %). Now the sweep holds one thread."""
    with threadpool_limits(limits=2, user_api="blas"):  # set by the main thread, as a user's session may
        before = _blas_threads()
        with sweep_backend("threading", n_jobs=2) as n_jobs:
            seen = joblib.Parallel(n_jobs=n_jobs)(joblib.delayed(_blas_threads)() for _ in range(6))
        assert seen == [[1] * len(before)] * 6
        assert _blas_threads() == before  # set back after the sweep
    assert before and all(t == 2 for t in before)


def test_backend_errors_are_one_line() -> None:
    with pytest.raises(InputError, match="`backend`: expected one of loky, threading, dask, ray"):
        with sweep_backend("spark"):
            pass
    with pytest.raises(InputError, match="`address` .* with `backend` dask or `backend` ray"):
        with sweep_backend("loky", address="tcp://127.0.0.1:1"):
            pass
    result = runner.invoke(app, ["redundancy", "instances", "x.parquet", "--address", "tcp://h:1"])
    assert result.exit_code == 2


VALIDATE = ["--selectors", "random,variance,anchorpoints", "--retentions", "0.1,0.3", "--splits", "4"]


@pytest.mark.parametrize(
    "protocol",
    ["random", "end-to-end", "same-model"],
)
def test_validate_on_dask_is_byte_identical(panel_file: str, dask_address: str, protocol: str) -> None:
    args = ["validate", panel_file, "--protocol", protocol, *VALIDATE, "--floor", "5", "--k", "2", "--json"]
    local = _cli(*args, "--seed", "3")
    assert _cli(*args, "--seed", "3", "--backend", "dask", "--address", dask_address) == local
    assert _cli(*args, "--seed", "3", "--backend", "loky", "--n-jobs", "2") == local
    assert _cli(*args, "--seed", "4") != local  # the seed does reach the tasks


def test_redundancy_instances_on_dask_is_byte_identical(panel_file: str, dask_address: str) -> None:
    for extra in (["--benchmark", "bench00"], ["--each-benchmark", "--compare-k", "10"]):
        args = ["redundancy", "instances", panel_file, *extra, "--repeats", "30", "--json"]
        local = _cli(*args, "--seed", "5")
        assert _cli(*args, "--seed", "5", "--backend", "dask", "--address", dask_address) == local
        assert _cli(*args, "--seed", "6") != local


def test_dask_without_address_starts_a_local_cluster(panel_file: str) -> None:
    args = ["redundancy", "instances", panel_file, "--benchmark", "bench01", "--repeats", "20", "--json"]
    local = _cli(*args)
    assert _cli(*args, "--backend", "dask", "--n-jobs", "2") == local


def test_adaptive_simulate_on_dask_is_byte_identical(panel_file: str, dask_address: str) -> None:
    """Three splits without the interval's calibration (its replays make each bank 4-6x slower to fit): the
    same bytes on dask, loky and locally, another seed other bytes; then one split with it: the same bytes
    on dask and locally."""
    args = ["adaptive", "simulate", panel_file, "--splits", "3", "--budget", "0.1", "--no-interval", "--json"]
    local = _cli(*args, "--seed", "2")
    assert _cli(*args, "--seed", "2", "--backend", "dask", "--address", dask_address) == local
    assert _cli(*args, "--seed", "2", "--backend", "loky", "--n-jobs", "2") == local
    assert _cli(*args, "--seed", "3") != local
    calibrated = ["adaptive", "simulate", panel_file, "--splits", "1", "--budget", "0.1", "--json"]
    local = _cli(*calibrated, "--seed", "2")
    assert json.loads(local)["results"][0]["coverage"] is not None  # the adaptive interval's coverage
    assert _cli(*calibrated, "--seed", "2", "--backend", "dask", "--address", dask_address) == local


@pytest.mark.slow
def test_sweeps_on_ray_are_byte_identical(panel_file: str) -> None:
    """Ray (in the test extra): ``--backend ray`` without an address starts a local Ray instance (2 CPUs)
    for the call and shuts it down; then one instance started here serves ``validate`` and ``adaptive
    simulate`` (``sweep_backend`` uses an initialised Ray as it is). Same seed, same bytes as locally."""
    import ray

    inst = ["redundancy", "instances", panel_file, "--benchmark", "bench00", "--repeats", "30", "--json"]
    local = _cli(*inst, "--seed", "5")
    assert _cli(*inst, "--seed", "5", "--backend", "ray", "--n-jobs", "2") == local
    assert not ray.is_initialized()  # the instance started for the call was shut down
    val = ["validate", panel_file, "--protocol", "random", *VALIDATE, "--floor", "5", "--k", "2", "--json"]
    ada = ["adaptive", "simulate", panel_file, "--splits", "3", "--budget", "0.1", "--no-interval", "--json"]
    local_val, local_ada = _cli(*val, "--seed", "3"), _cli(*ada, "--seed", "2")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert _cli(*val, "--seed", "3", "--backend", "ray") == local_val
        assert _cli(*ada, "--seed", "2", "--backend", "ray") == local_ada
    finally:
        ray.shutdown()
