"""Where benchsift's sweeps run: one joblib backend for every sweep, on this machine or on a cluster.

Every embarrassingly parallel sweep of benchsift (the held-out protocols of ``validate``: splits x
selectors; the ``same-model`` and ``end-to-end`` protocols; the repeats of ``redundancy instances`` and its
benchmarks under ``--each-benchmark``) dispatches its tasks through ``joblib.Parallel``. :func:`sweep_backend`
is the single switch that chooses where those tasks run:

* ``None`` (default): joblib's own setting, i.e. ``n_jobs`` local worker processes (``n_jobs=1``: in this
  process, no pool), or whatever an enclosing ``joblib.parallel_config`` chose;
* ``"loky"`` / ``"threading"``: local worker processes / threads (``n_jobs`` of them, default all cores);
* ``"dask"``: a ``dask.distributed`` cluster, the one at ``address`` (``tcp://host:8786``, a scheduler
  started with ``dask scheduler`` / ``dask worker``, or any deployment of dask-jobqueue, dask-kubernetes...)
  or, without an address, a ``LocalCluster`` started for the call and closed after it (``n_jobs`` worker
  processes of one thread each, default all cores);
* ``"ray"``: a Ray cluster, the one at ``address`` (``ray://host:10001`` or ``auto``) or, without an
  address, a local Ray instance started for the call and shut down after it.

The dask and ray backends are joblib's own (``joblib.parallel_config(backend="dask")``, joblib's
``_dask`` module driving the ``distributed.Client``; ``ray.util.joblib.register_ray``), so nothing about a
task changes with the backend: each task carries its own seed, results are gathered in task order, and the
same seed gives the same bytes on every backend (tested on a real ``LocalCluster``). On ``"threading"`` the
whole sweep runs with one BLAS thread (``benchsift._threads.single_thread``, entered by the calling thread):
the tasks share the process's one BLAS setting, and OpenBLAS ignores a change of it from a worker thread once
the main thread has set it, so the tasks' own one-thread blocks could not hold it. dask and ray are
optional extras (``pip install 'benchsift[dask]'`` / ``'benchsift[ray]'``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any

from benchsift._params import Check, Options, validate_params
from benchsift._schema import Rule, check_rules
from benchsift._threads import single_thread
from benchsift.errors import InputError

if TYPE_CHECKING:
    import joblib

BACKENDS: tuple[str, ...] = ("loky", "threading", "dask", "ray")
"""The backends :func:`sweep_backend` accepts."""


_NONZERO = Check(lambda n: isinstance(n, int) and not isinstance(n, bool) and n != 0, "a non-zero integer")


#: an address names a cluster, which only the dask and ray backends have
_ADDRESS = (
    Rule(
        ("address", "backend"),
        lambda address, backend: address is None or backend in ("dask", "ray"),
        "`address` (of a dask or ray cluster) only with `backend` dask or `backend` ray",
    ),
)


@validate_params({"backend": [Options(BACKENDS), None]})
def check_backend(backend: str | None, address: str | None = None) -> str | None:
    """The backend name checked (``None`` stays ``None``); ``address`` only with dask or ray."""
    check_rules(_ADDRESS, {"address": address, "backend": backend})
    return backend


def ordered_parallel(n_jobs: int | None) -> joblib.Parallel:
    """``joblib.Parallel`` giving results in task order as they finish (``return_as="generator"``, so a
    progress bar moves), or all at the end on a backend that cannot stream them (Ray's)."""
    import joblib  # imported on use: the CLI imports this module to name the backends in its help

    try:
        return joblib.Parallel(n_jobs=n_jobs, return_as="generator")
    except ValueError:
        return joblib.Parallel(n_jobs=n_jobs)


def _local_workers(n_jobs: int | None) -> int:
    if n_jobs is None or n_jobs < 1:
        return max(1, os.cpu_count() or 1)
    return int(n_jobs)


@contextmanager
@validate_params({"n_jobs": [_NONZERO, None]})
def sweep_backend(
    backend: str | None = None, address: str | None = None, n_jobs: int | None = None
) -> Iterator[int | None]:
    """Run the ``joblib.Parallel`` sweeps inside on ``backend``; yields the ``n_jobs`` to give them.

    Parameters
    ----------
    backend
        ``None``, ``"loky"``, ``"threading"``, ``"dask"`` or ``"ray"`` (see the module docstring).
    address
        Address of a running dask scheduler (``tcp://host:8786``) or Ray cluster (``ray://host:10001``,
        ``auto``); ``None`` starts a local one for the duration of the block (dask, ray).
    n_jobs
        Workers: with ``backend=None`` passed through unchanged (joblib's meaning, ``None``: the enclosing
        ``joblib.parallel_config``'s, else one); with a backend, the number of concurrent tasks (``None``:
        every worker of the cluster, all cores for a local pool) and the size of a local cluster started here.

    Yields
    ------
    int or None
        The ``n_jobs`` to pass to ``joblib.Parallel`` inside the block.
    """
    check_backend(backend, address)
    if backend is None:
        yield n_jobs
        return
    import joblib

    jobs = -1 if n_jobs is None else int(n_jobs)
    with ExitStack() as stack:
        if backend == "dask":
            client = stack.enter_context(_dask_client(address, n_jobs))
            stack.enter_context(joblib.parallel_config(backend="dask", n_jobs=jobs, client=client))
        elif backend == "ray":
            stack.enter_context(_ray_session(address, n_jobs))
            stack.enter_context(joblib.parallel_config(backend="ray", n_jobs=jobs))
        else:
            if backend == "threading":  # module docstring: one BLAS thread for the whole sweep
                stack.enter_context(single_thread())
            stack.enter_context(joblib.parallel_config(backend=backend, n_jobs=jobs))
        yield None


@contextmanager
def _dask_client(address: str | None, n_jobs: int | None) -> Iterator[Any]:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise InputError("`backend` dask needs dask.distributed: pip install 'benchsift[dask]'") from None
    if address is not None:
        try:
            client = Client(address, timeout=30, set_as_default=False)
        except OSError as exc:
            raise InputError(f"`address` {address}: cannot reach a dask scheduler there ({exc})") from None
        with client:
            yield client
        return
    cluster = LocalCluster(
        n_workers=_local_workers(n_jobs),
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",  # a free port: never collides with another cluster on 8787
    )
    with cluster, Client(cluster, set_as_default=False) as client:
        yield client


@contextmanager
def _ray_session(address: str | None, n_jobs: int | None) -> Iterator[None]:
    try:
        import ray
        from ray.util.joblib import register_ray
    except ImportError:
        raise InputError("`backend` ray needs ray: pip install 'benchsift[ray]'") from None
    register_ray()
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address is not None:
            kwargs["address"] = address
        else:
            kwargs["num_cpus"] = _local_workers(n_jobs)
        try:
            ray.init(**kwargs)
        except ConnectionError as exc:
            raise InputError(f"`address` {address}: cannot reach a Ray cluster there ({exc})") from None
        started = True
    try:
        yield
    finally:
        if started:
            ray.shutdown()
