"""One name per concept (issue 37 point 4): ``random_state`` for every seed, ``n_boot`` for every bootstrap
count, one meaning of an item's category, the image-run mask from the panel.

The old names keep working until 0.3 with a FutureWarning (the warning a notebook shows) and give the
same numbers; files and ``--json`` keep their keys (``"seed"``), as the CLI keeps ``--seed``.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from typer.testing import CliRunner
from warned import calling

from benchsift.adaptive import fit_bank, next_items
from benchsift.cli._common import as_options
from benchsift.cli.main import app
from benchsift.clients import RetryPolicy
from benchsift.compression import CompressionConfig, run_pipeline
from benchsift.compression.stages.prune import effective_categories
from benchsift.compression.stages.representatives import item_categories
from benchsift.errors import InputError
from benchsift.panel import Panel
from benchsift.panel.categories import category_or_benchmark
from benchsift.redundancy import instance_redundancy, instance_redundancy_by_benchmark
from benchsift.simulate.verdicts import simulate_verdicts


def _panel(n_models: int = 40, n_items: int = 60, seed: int = 0) -> Panel:
    """A 2PL panel of three benchmarks; ``B2`` has no category (``None``), ``B0`` and ``B1`` do."""
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n_models)
    a, b = rng.uniform(0.5, 2.5, n_items), rng.normal(0.0, 1.0, n_items)
    x = (rng.random((n_models, n_items)) < expit(a * (theta[:, None] - b))).astype(float)
    bench = np.repeat(["B0", "B1", "B2"], n_items // 3)
    items = pd.DataFrame(
        {
            "benchmark": bench,
            "item": [str(i) for i in range(n_items)],
            "category": np.where(bench == "B0", "Science", np.where(bench == "B1", "Art", None)),
        }
    )
    return Panel(x, [f"m{j}" for j in range(n_models)], items)


# ---------------------------------------------------------------------------------------------- seeds
def test_compression_config_takes_random_state_and_the_old_seed_with_a_future_warning() -> None:
    new = CompressionConfig(retention=0.2, random_state=3)
    with pytest.warns(FutureWarning, match=r"^CompressionConfig: `seed` is now called `random_state`; "):
        old = CompressionConfig(retention=0.2, seed=3)
    assert old == new and new.random_state == 3
    with pytest.warns(FutureWarning, match="`seed` is now called `random_state`"):
        assert new.seed == 3
    # the suite file keeps its key: parameters written as before
    params = new.to_dict()
    assert params["seed"] == 3 and "random_state" not in params
    assert list(params).index("seed") == list(CompressionConfig.__dataclass_fields__).index("random_state")
    with pytest.raises(InputError, match=r"^`random_state`: expected an int >= 0, got -1$"):
        CompressionConfig(random_state=-1)
    with pytest.raises(InputError, match="give `random_state` only"):
        CompressionConfig(seed=1, random_state=1)


def test_a_random_state_message_names_the_cli_flag_seed() -> None:
    assert (
        as_options("`random_state`: expected an int >= 0, got -1") == "--seed: expected an int >= 0, got -1"
    )
    assert as_options("`max_lost` and `random_state`") == "--max-lost and --seed"


def test_next_items_random_state_and_the_old_seed_give_the_same_items() -> None:
    panel = _panel(60, 90)
    bank = fit_bank(panel)
    X = np.full((2, bank.n_items), np.nan)
    new = next_items(bank, X, ["a", "b"], batch=5, random_state=7)
    with pytest.warns(FutureWarning, match=r"^next_items: `seed` is now called `random_state`"):
        old = next_items(bank, X, ["a", "b"], batch=5, seed=7)
    assert old.items == new.items
    other = next_items(bank, X, ["a", "b"], batch=5, exposure=10.0, random_state=8)
    assert other.items != new.items  # the seed is used: another one draws other items


def test_instance_redundancy_records_random_state_and_json_keeps_seed() -> None:
    panel = _panel()
    res = instance_redundancy(panel, ratios=[0.2, 0.5], repeats=3, random_state=5)
    assert res.random_state == 5 and res.to_dict()["seed"] == 5
    with pytest.warns(FutureWarning, match=r"^InstanceRedundancy: `seed` is now called `random_state`"):
        assert res.seed == 5
    each = instance_redundancy_by_benchmark(panel, ratios=[0.2, 0.5], repeats=3, random_state=5)
    assert each.random_state == 5 and each.to_dict()["seed"] == 5
    assert set(each.random_states) == {"B0", "B1", "B2"}
    with pytest.warns(FutureWarning, match="`seeds` is now called `random_states`"):
        assert each.seeds == each.random_states


# ------------------------------------------------------------------------------------------- n_boot
def test_prism_score_takes_n_boot_and_the_old_bootstrap_flag(tmp_path) -> None:
    path = tmp_path / "verdicts.csv"
    simulate_verdicts(4, 60, random_state=0).table.to_csv(path, index=False)
    runner = CliRunner()
    new = runner.invoke(app, ["prism", "score", str(path), "--n-boot", "30", "--json"])
    old = runner.invoke(app, ["prism", "score", str(path), "--bootstrap", "30", "--json"])
    other = runner.invoke(app, ["prism", "score", str(path), "--n-boot", "31", "--json"])
    assert new.exit_code == old.exit_code == other.exit_code == 0, new.output
    assert json.loads(new.stdout) == json.loads(old.stdout)
    assert json.loads(new.stdout) != json.loads(other.stdout)  # the count reaches the bootstrap


# ----------------------------------------------------------------------------------------- category
def test_an_items_category_is_the_one_given_and_the_compression_groups_by_category_or_benchmark() -> None:
    panel = _panel()
    # the category: what the items table says, missing where it says nothing
    assert panel.categories == ["Science", "Art"]
    assert panel.category_means().groups == ["Science", "Art"]
    assert panel.items["category"].isna().sum() == 20
    # the compression's grouping: the benchmark stands in for a missing category
    groups = panel.category_or_benchmark
    assert groups.tolist() == ["Science"] * 20 + ["Art"] * 20 + ["B2"] * 20
    assert category_or_benchmark(panel.items).tolist() == groups.tolist()
    assert (
        category_or_benchmark(panel.items.drop(columns="category")).tolist()
        == ["B0"] * 20 + ["B1"] * 20 + ["B2"] * 20
    )
    # the old names of that grouping: the same array, with a FutureWarning
    with pytest.warns(FutureWarning, match="item_categories is now called category_or_benchmark"):
        assert item_categories(panel).tolist() == groups.tolist()
    with pytest.warns(FutureWarning, match="effective_categories is now called category_or_benchmark"):
        assert effective_categories(panel.items).tolist() == groups.tolist()
    # and the compression's results call those groups their categories
    res = calling(run_pipeline, panel, CompressionConfig(retention=None, k=None, full_score=False))
    assert set(res.categories) == {"Science", "Art", "B2"}


def test_image_rows_is_the_mask_of_the_image_panel() -> None:
    panel = _panel(6, 9)
    models = pd.DataFrame({"model": ["a", "a", "b", "c", "c", "d"]})
    models["condition"] = ["image", "text-only", "image", "image", "text-only", "image"]
    mixed = Panel(panel.scores, models, panel.items)
    assert mixed.image_rows.tolist() == [True, False, True, True, False, True]
    assert np.array_equal(mixed.scores[mixed.image_rows], mixed.image_panel().scores)
    assert mixed.text_only_rows.tolist() == [not x for x in mixed.image_rows]


def test_retry_policy_takes_random_state_and_the_old_seed() -> None:
    new = RetryPolicy(initial=0.5, random_state=3)
    with pytest.warns(FutureWarning, match=r"^RetryPolicy: `seed` is now called `random_state`"):
        old = RetryPolicy(initial=0.5, seed=3)
    assert old == new and old.delay(2, "k", None) == new.delay(2, "k", None)
    assert new.delay(2, "k", None) != RetryPolicy(initial=0.5, random_state=4).delay(2, "k", None)
    with pytest.warns(FutureWarning, match="`seed` is now called `random_state`"):
        assert new.seed == 3
