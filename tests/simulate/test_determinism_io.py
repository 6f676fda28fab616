"""Seeds, input validation, the truth file and the `benchsift simulate` command."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import benchsift.simulate as simulate_pkg
from benchsift.cli.main import app
from benchsift.errors import FormatError, InputError
from benchsift.panel import Panel
from benchsift.simulate import GroundTruth, SimulationConfig, simulate_panel

runner = CliRunner()


def test_public_names() -> None:
    assert {"GroundTruth", "SimulatedPanel", "SimulationConfig", "simulate_panel"} <= set(
        simulate_pkg.__all__
    )


def test_same_seed_same_arrays() -> None:
    cfg = SimulationConfig.small(items_per_benchmark=200, missing_benchmark_rate=0.1)
    a = simulate_panel(cfg, random_state=7)
    b = simulate_panel(cfg, random_state=7)
    np.testing.assert_array_equal(a.panel.scores, b.panel.scores)
    pd.testing.assert_frame_equal(a.panel.models, b.panel.models)
    pd.testing.assert_frame_equal(a.panel.items, b.panel.items)
    assert a.truth.equals(b.truth)
    np.testing.assert_array_equal(a.truth.embeddings_vl, b.truth.embeddings_vl)
    # a Generator seeded alike gives the same panel as the int seed
    c = simulate_panel(cfg, random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(a.panel.scores, c.panel.scores)


def test_different_seed_different_arrays() -> None:
    cfg = SimulationConfig.small(items_per_benchmark=200)
    a = simulate_panel(cfg, random_state=1)
    b = simulate_panel(cfg, random_state=2)
    assert not np.array_equal(a.panel.scores, b.panel.scores, equal_nan=True)
    assert not a.truth.equals(b.truth)


@pytest.mark.parametrize(
    ("overrides", "name"),
    [
        ({"n_categories": 9}, "n_categories"),
        ({"n_models": 1}, "n_models"),
        ({"missing_rate": 1.5}, "missing_rate"),
        ({"n_text_only_models": 0}, "blind_solvable_rate"),
        ({"blind_beta_min": 0.4}, "nonblind_beta_max"),
        ({"n_dimensions": 2, "n_dimension_groups": 3}, "n_dimensions"),
        ({"min_items_per_benchmark": 1000}, "min_items_per_benchmark"),
    ],
)
def test_bad_config_names_the_parameter(overrides: dict, name: str) -> None:
    with pytest.raises(InputError, match=name):
        simulate_panel(SimulationConfig.small(**overrides))


def test_bad_seed_and_preset() -> None:
    with pytest.raises(InputError, match="random_state"):
        simulate_panel(SimulationConfig.small(), random_state=1.5)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="preset"):
        SimulationConfig.preset("huge")


def test_tiny_configurations() -> None:
    one = simulate_panel(
        SimulationConfig.small(
            n_benchmarks=1,
            n_categories=1,
            n_models=2,
            n_text_only_models=1,
            items_per_benchmark=60,
            min_items_per_benchmark=10,
        )
    )
    assert one.panel.shape == (3, 60)
    assert one.truth.central_benchmark == {"cat00": "bench00"}
    two = simulate_panel(SimulationConfig.small(n_benchmarks=2, n_categories=1, items_per_benchmark=60))
    assert np.isnan(two.truth.central_margin["cat00"])  # Eq. 3 cannot separate two benchmarks


def test_truth_roundtrip(tmp_path) -> None:
    sim = simulate_panel(SimulationConfig.small(items_per_benchmark=100), random_state=3)
    path = sim.truth.save(tmp_path / "truth.npz")
    back = GroundTruth.load(path)
    assert back.equals(sim.truth)
    assert back.central_benchmark == sim.truth.central_benchmark
    assert back.dimension_groups == sim.truth.dimension_groups
    np.testing.assert_array_equal(back.release_date_true, sim.truth.release_date_true)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(FormatError, match="junk.npz"):
        GroundTruth.load(tmp_path / "junk.npz")
    with pytest.raises(InputError, match="missing.npz"):
        GroundTruth.load(tmp_path / "missing.npz")
    # a compressed member (a deflate bomb: 64 MiB of zeros in a few kB) is refused before it is unpacked
    import zipfile

    with zipfile.ZipFile(tmp_path / "bomb.npz", "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("_meta.npy", b"\0" * (64 << 20))
    assert (tmp_path / "bomb.npz").stat().st_size < 1 << 20
    with pytest.raises(
        FormatError, match=r"bomb.npz: not a benchsift simulation truth file: its members unpack "
    ):
        GroundTruth.load(tmp_path / "bomb.npz")


def test_panel_survives_parquet(tmp_path) -> None:
    sim = simulate_panel(SimulationConfig.small(items_per_benchmark=100), random_state=3)
    back = Panel.load(sim.panel.save(tmp_path / "p.parquet"))
    np.testing.assert_array_equal(back.scores, sim.panel.scores)
    assert back.items["question"].tolist() == sim.panel.items["question"].tolist()
    assert back.models["model"].tolist() == sim.panel.models["model"].tolist()


def test_cli_simulate_json_and_files(tmp_path) -> None:
    out, truth = tmp_path / "p.parquet", tmp_path / "t.npz"
    args = [
        "simulate",
        "-o",
        str(out),
        "--truth",
        str(truth),
        "--models",
        "12",
        "--benchmarks",
        "4",
        "--categories",
        "2",
        "--items-per-benchmark",
        "80",
        "--seed",
        "5",
        "--json",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["n_models"], data["n_benchmarks"], data["n_categories"], data["n_items"]) == (12, 4, 2, 320)
    expected = simulate_panel(
        SimulationConfig.small(n_models=12, n_benchmarks=4, n_categories=2, items_per_benchmark=80),
        random_state=5,
    )
    np.testing.assert_array_equal(Panel.load(out).scores, expected.panel.scores)
    assert GroundTruth.load(truth).equals(expected.truth)
    assert data["n_all_correct"] == int(expected.truth.all_correct.sum())


def test_cli_simulate_table_and_error(tmp_path) -> None:
    out = tmp_path / "p.parquet"
    ok = runner.invoke(app, ["simulate", "-o", str(out), "--items-per-benchmark", "50"])
    assert ok.exit_code == 0, ok.output
    assert "central benchmarks" in ok.stdout
    bad_out = tmp_path / "bad.parquet"
    bad = runner.invoke(app, ["simulate", "-o", str(bad_out), "--categories", "20"])
    assert bad.exit_code == 2
    assert "n_categories" in bad.output and len(bad.output.strip().splitlines()) == 1
    assert not bad_out.exists()
    unknown = runner.invoke(app, ["simulate", "-o", str(bad_out), "--preset", "nope"])
    assert unknown.exit_code == 2 and not bad_out.exists()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"n_models": 40.5}, "simulation parameter n_models: expected an integer >= 2, got 40.5"),
        (
            {"missing_rate": "0.1"},
            "simulation parameter missing_rate: expected a number in [0, 0.5], got '0.1'",
        ),
        (
            {"contamination_by": "age"},
            "simulation parameter contamination_by: expected era or family, got 'age'",
        ),
        (
            {"params_range": (5.0, 1.0)},
            "simulation parameter params_range: expected a (low, high) pair with 0 < low <= high,"
            " got (5.0, 1.0)",
        ),
    ],
)
def test_declared_parameters_refuse_with_one_line(overrides: dict, message: str) -> None:
    """Each parameter against its declaration: a fractional count or a rate given as text is refused (it was
    truncated / parsed before), the message says what was expected and what was given."""
    with pytest.raises(InputError) as info:
        SimulationConfig.small(**overrides).validate()
    assert str(info.value) == message


def test_sized_names_its_own_parameters() -> None:
    """``sized`` (the options of ``benchsift simulate``) refuses a size by its own name, not the field's."""
    with pytest.raises(InputError) as info:
        SimulationConfig.sized("small", models=0)
    assert str(info.value) == "`models`: expected an integer >= 1 or None, got 0"
    with pytest.raises(InputError, match="^`benchmarks`: expected an integer >= 1 or None, got 0$"):
        SimulationConfig.sized("small", benchmarks=0)
    assert SimulationConfig.sized("small", models=5).n_models == 5
