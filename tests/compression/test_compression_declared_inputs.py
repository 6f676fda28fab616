"""The protocols, diagnostics, Stage 2 and the export declare their arguments once (``_params``
declarations and ``_inputs`` checks): each broken one is refused with one line naming the argument, what was
expected and what was given, before any work. The expected lines are written out from the declarations."""

from __future__ import annotations

import numpy as np
import pytest

from benchsift.compression.diagnostics.aggregate_stage3 import aggregate_stage3
from benchsift.compression.diagnostics.leftout import leftout_prediction
from benchsift.compression.diagnostics.shelf_life import shelf_life
from benchsift.compression.frontier import capability_frontier
from benchsift.compression.protocols.end_to_end import end_to_end
from benchsift.compression.protocols.specs import check_retentions, check_selectors
from benchsift.compression.protocols.splits import chronological_split, random_splits
from benchsift.compression.protocols.stage2_heldout import stage2_heldout
from benchsift.compression.selectors.base import check_selector_input
from benchsift.compression.selectors.budget import largest_remainder_shares
from benchsift.compression.stages.prune import stage2_prune
from benchsift.errors import DegenerateError, InputError
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel


@pytest.fixture(scope="module")
def panel() -> Panel:
    cfg = SimulationConfig.sized("small", models=8, benchmarks=3, items_per_benchmark=20)
    return simulate_panel(cfg, random_state=0).panel


def _msg(err: pytest.ExceptionInfo[BaseException]) -> str:
    text = str(err.value)
    assert "\n" not in text
    return text


def test_protocol_parameters(panel: Panel) -> None:
    with pytest.raises(InputError) as err:
        stage2_heldout(panel, scoring="median")  # type: ignore[arg-type]
    assert _msg(err) == "`scoring`: expected one of mean, weighted, selector, got 'median'"
    with pytest.raises(InputError) as err:
        stage2_heldout(panel, min_heldout=1)
    assert _msg(err) == "`min_heldout`: expected an integer >= 2, got 1"
    with pytest.raises(InputError) as err:
        end_to_end(panel, k=0)
    assert _msg(err) == "`k`: expected a positive number of categories, got 0"
    with pytest.raises(InputError) as err:
        end_to_end(panel, floor=-5)
    assert _msg(err) == "`floor`: expected an integer >= 0, got -5"


def test_selector_and_retention_lists() -> None:
    with pytest.raises(InputError) as err:
        check_selectors(["vaw", "random", "VAW"])
    assert _msg(err) == "`selectors`: duplicate selectors ['vaw']"
    with pytest.raises(InputError) as err:
        check_retentions([])
    assert _msg(err) == "`retentions`: expected at least one retention"
    with pytest.raises(InputError) as err:
        check_selectors([3])  # type: ignore[list-item]
    assert _msg(err) == "selector: expected a selector name or an ItemSelector, got 3"


def test_stage2_prune_arguments(panel: Panel) -> None:
    with pytest.raises(InputError) as err:
        stage2_prune(panel, retention=0.5, embeddings="emb.npy")  # type: ignore[arg-type]
    assert _msg(err) == "`embeddings`: expected an ItemEmbeddings or None, got 'emb.npy'"
    with pytest.raises(InputError) as err:
        stage2_prune(panel, retention=0.5, n_jobs=0)
    assert _msg(err) == "`n_jobs`: expected an integer >= 1 or None, got 0"
    with pytest.raises(InputError) as err:
        stage2_prune(panel, retention=0.5, selector="random", variant="shares")
    assert _msg(err) == "`variant` 'shares' applies to the built-in VAW selector only, not to 'random'"


def test_selector_scores_name_the_cell() -> None:
    scores = np.zeros((3, 4))
    scores[2, 1] = 1.25
    with pytest.raises(InputError) as err:
        check_selector_input(scores, 2)
    assert _msg(err) == "scores: model row 2, item column 1 is 1.25; expected a value in [0, 1] or NaN"
    with pytest.raises(InputError) as err:
        check_selector_input(np.zeros(4), 2)
    assert _msg(err) == "scores: expected a 2-D (n_models, n_items) array, got shape (4,)"


def test_splits_bounds_come_from_the_data() -> None:
    with pytest.raises(InputError) as err:
        random_splits(10, 2, n_build=10)
    assert _msg(err) == "`n_build`: expected fewer than the 10 models (someone must be held out), got 10"
    dates = ["2024-01-01", "2024-02-01", "2024-03-01", None, None]
    with pytest.raises(InputError) as err:
        chronological_split(dates, n_build=4)
    assert _msg(err) == (
        "`n_build`: expected 1 to 3 (undated models never enter a build set: 3 are dated; one is held out), "
        "got 4"
    )
    with pytest.raises(InputError) as err:
        chronological_split(dates, n_build=2, n_heldout=4)
    assert _msg(err) == "`n_heldout`: expected 1 to the 3 models left after 2 build, got 4"


def test_aggregate_diagnostics_arguments() -> None:
    X = np.random.default_rng(1).random((6, 4))
    with pytest.raises(InputError) as err:
        aggregate_stage3(X, benchmarks=["a", "b", "c"])
    assert _msg(err) == "benchmarks: expected 4 names (one per column), got 3"
    with pytest.raises(InputError) as err:
        aggregate_stage3(X, min_coverage=5)
    assert _msg(err) == "`min_coverage`: expected 1 to 4 benchmarks a model must cover, got 5"
    X[:4, 1:] = np.nan  # rows 0-3 cover 1 benchmark
    with pytest.raises(DegenerateError) as few:
        aggregate_stage3(X, min_coverage=2)
    assert _msg(few) == (
        "models covering at least 2 benchmarks: 2 found, at least 3 needed (z-scores and rho)"
    )
    with pytest.raises(InputError) as err:
        leftout_prediction(np.zeros((6, 3)), targets=["B1", "b2"])
    assert (
        _msg(err)
        == "targets: unknown benchmark(s) 'b2' (did you mean 'B2'?); expected some of ['B0', 'B1', 'B2']"
    )
    with pytest.raises(InputError) as err:
        leftout_prediction(np.zeros((6, 3)), sizes=[0, 5])
    assert _msg(err) == "`sizes`: expected positive training sizes, got [0, 5]"
    dates = [f"2024-0{m}-01" for m in range(1, 7)]
    with pytest.raises(InputError) as err:
        shelf_life(np.zeros((6, 3)), k=1, release_dates=dates, n_build=7)
    assert _msg(err) == "`n_build`: expected between 3 and the 6 dated models, got 7"
    with pytest.raises(InputError) as err:
        shelf_life(np.zeros((6, 3)), k=1, release_dates=dates[:5])
    assert _msg(err) == "release_dates: expected 6 dates (one per model row), got 5"


def test_frontier_and_shares(panel: Panel) -> None:
    with pytest.raises(InputError) as err:
        capability_frontier(panel, band=(0.6, 0.2), gain=0.1)
    assert _msg(err) == "`band`: expected (low, high) with 0 <= low <= high <= 1, got (0.6, 0.2)"
    with pytest.raises(InputError) as err:
        capability_frontier(panel, gain=1.5)
    assert _msg(err) == "`gain`: expected a per-step accuracy gain in [0, 1] or None, got 1.5"
    with pytest.raises(InputError) as err:
        largest_remainder_shares(3, [2, -1])
    assert _msg(err) == "sizes: entry 1 is -1; expected a value >= 0"
    with pytest.raises(InputError) as err:
        largest_remainder_shares(-1, [2, 1])
    assert _msg(err) == "`total`: expected an integer >= 0, got -1"
