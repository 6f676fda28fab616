"""``benchsift import FORMAT INPUT... -o PANEL``: a loadable panel; bad input -> exit 2, one line, no file."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from benchsift.cli.importers import app
from benchsift.errors import FormatError, InputError
from benchsift.io.registry import FORMATS, get_reader, import_panel
from benchsift.panel import Panel

runner = CliRunner()


def _ok(args: list[str]) -> dict:  # type: ignore[type-arg]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_every_format_writes_a_panel(tmp_path: Path, fixtures: Path) -> None:
    eval_file = tmp_path / "chartqa.eval"
    with zipfile.ZipFile(eval_file, "w") as zf:
        src = fixtures / "inspect" / "chartqa_eval"
        for m in sorted(src.rglob("*.json")):
            zf.write(m, m.relative_to(src).as_posix())
    cases = {
        "long": [str(fixtures / "long" / "scores.csv"), "--models", str(fixtures / "long" / "models.csv")],
        "wide": [str(fixtures / "wide" / "mini_mmmu.csv"), "--benchmark", "MMMU"],
        "lmms-eval": [str(fixtures / "lmms_eval" / "llava-hf__llava-1.5-7b-hf")],
        "lm-eval": [str(fixtures / "lm_eval" / "EleutherAI__pythia-160m"), "--filter", "strict-match"],
        "vlmevalkit": [
            str(p) for p in sorted((fixtures / "vlmevalkit").glob("*/*")) if p.parent.name != "real"
        ],
        "inspect": [str(fixtures / "inspect" / "2024-09-01T10-00-00+00-00_mmmu-multiple-choice_Hc9xk2.json")],
        "aggregate": [str(fixtures / "aggregate" / "leaderboard.csv")],
        "eee": [str(fixtures / "eee" / "real" / "data")],
        "lighteval": [str(fixtures / "lighteval" / "real" / "out")],
        "helm": [str(fixtures / "helm" / "real" / "out" / "benchmark_output" / "runs" / "v1")],
    }
    assert set(cases) == set(FORMATS)
    for fmt, args in cases.items():
        out = tmp_path / f"{fmt}.parquet"
        data = _ok([fmt, *args, "-o", str(out)])
        panel = Panel.load(out)
        assert data["format"] == fmt
        assert data["n_items"] == panel.n_items and data["n_model_runs"] == panel.n_models
        image = panel.scores[panel.image_rows]  # text-only runs apart
        obs = image[~np.isnan(image)]
        assert data["mean_score"] == pytest.approx(obs.mean())
    wide = Panel.load(tmp_path / "wide.parquet")
    assert wide.model_ids == ["GPT4o", "InternVL2-8B", "llava_v1.5_7b"]
    assert wide.mean_score == pytest.approx(7 / 11)
    eval_out = tmp_path / "inspect_eval.parquet"
    _ok(["inspect", str(eval_file), "-o", str(eval_out), "--model", "claude"])
    np.testing.assert_allclose(Panel.load(eval_out).scores, [[0.5, 0.5, 0.0]])


def test_human_summary(tmp_path: Path, fixtures: Path) -> None:
    out = tmp_path / "p.parquet"
    result = runner.invoke(
        app, ["aggregate", str(fixtures / "aggregate" / "leaderboard.csv"), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "OCRBench" in result.stdout and "rescaled" in result.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["long", "long/missing_column.csv"], "missing column 'item'"),
        (["long", "long/nonnumeric.csv"], "line 3: score 'wrong' is not a number"),
        (["long", "long/conflict.csv"], "line 4: conflicting duplicate scores"),
        (["long", "long/empty.csv"], "empty file"),
        (["wide", "wide/nonnumeric.csv"], "line 3: score in column 'm2' 'yes' is not a number"),
        (["lm-eval", "lm_eval"], "several filters"),
        (
            ["long", "long/scores.csv", "--rescale", "sometimes"],
            "--rescale: expected one of auto, known, none, got 'sometimes'",
        ),
        (["long", "long/scores.csv", "--scale", "MMStar"], "--scale 'MMStar'"),
    ],
)
def test_errors_exit_2_one_line_nothing_written(
    tmp_path: Path, fixtures: Path, args: list[str], fragment: str
) -> None:
    out = tmp_path / "p.parquet"
    argv = [args[0], str(fixtures / args[1]), *args[2:], "-o", str(out)]
    result = runner.invoke(app, argv)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("benchsift: error: ")
    assert fragment in lines[0]
    option_problem = fragment.startswith("--")
    assert option_problem or str(fixtures / args[1]) in lines[0]  # a file problem names the file
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_existing_output_untouched_on_error(tmp_path: Path, fixtures: Path) -> None:
    out = tmp_path / "p.parquet"
    out.write_bytes(b"previous")
    result = runner.invoke(app, ["long", str(fixtures / "long" / "conflict.csv"), "-o", str(out)])
    assert result.exit_code == 2
    assert out.read_bytes() == b"previous"


def test_unknown_format(tmp_path: Path, fixtures: Path) -> None:
    scores = fixtures / "long" / "scores.csv"
    result = runner.invoke(app, ["parquet-magic", str(scores), "-o", str(tmp_path / "p")])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines == [
        f"benchsift: error: {scores}: unknown format 'parquet-magic'; expected one of {list(FORMATS)}"
    ]
    assert not (tmp_path / "p").exists()

    with pytest.raises(FormatError, match=r"unknown format 'parquet-magic'; expected one of \['long'"):
        get_reader("parquet-magic")
    with pytest.raises(InputError, match=r"format 'lm-eval' does not take option\(s\) \['orient'\]"):
        import_panel("lm-eval", fixtures / "lm_eval", orient="models-rows")


def test_registered_in_main_cli(tmp_path: Path, fixtures: Path) -> None:
    from benchsift.cli.main import app as main_app

    out = tmp_path / "p.parquet"
    result = runner.invoke(
        main_app, ["import", "wide", str(fixtures / "wide" / "mini_mmmu.csv"), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    info = runner.invoke(main_app, ["info", str(out), "--json"])
    assert info.exit_code == 0, info.output
    data = json.loads(info.stdout)
    assert (data["n_models"], data["n_items"]) == (3, 4)
    assert data["mean_score"] == pytest.approx(7 / 11)


def test_bad_condition_option(tmp_path: Path, fixtures: Path) -> None:
    out = tmp_path / "p.parquet"
    result = runner.invoke(
        app, ["wide", str(fixtures / "wide" / "mini_mmmu.csv"), "--condition", "blind", "-o", str(out)]
    )
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == "benchsift: error: --condition: expected image or text-only or None, got 'blind'"
    )
    assert not out.exists()


REAL_INSPECT = Path(__file__).resolve().parents[1] / "fixtures" / "io" / "inspect" / "real" / "logs"


def test_inspect_folders_warnings_in_json(tmp_path: Path) -> None:
    """Real inspect-ai logs: folders accepted, warnings (all-errored, unfinished) listed under "warnings"."""
    out = tmp_path / "p.parquet"
    subs = ["ordinary", "all_errored", "unfinished"]
    data = _ok(["inspect", *[str(REAL_INSPECT / s) for s in subs], "-o", str(out)])
    assert data["n_models"] == 4
    assert len(data["warnings"]) == 2
    assert any("every sample errored" in w for w in data["warnings"])
    assert any("status 'started'" in w for w in data["warnings"])
    assert not any(w.startswith("warning: ") for w in data["warnings"])
    data = _ok(["inspect", str(REAL_INSPECT / "epochs_max"), "--reducer", "max", "-o", str(out)])
    assert data["warnings"] == []
    result = runner.invoke(
        app, ["inspect", str(REAL_INSPECT / "epochs_max"), "--reducer", "mean", "-o", str(out)]
    )
    assert result.exit_code == 2
    assert "scorer 'match': unknown epoch reducer 'mean'; expected max" in result.output


def test_info_per_model_coverage_and_unmatched_metadata(tmp_path: Path) -> None:
    """Real inspect logs: the all-errored model has coverage 0 and a warning; a models side file's row
    naming no model of the panel is listed."""
    from benchsift.cli.main import app as main_app

    out = tmp_path / "p.parquet"
    _ok(["inspect", str(REAL_INSPECT / "ordinary"), str(REAL_INSPECT / "all_errored"), "-o", str(out)])
    side = tmp_path / "models.csv"
    side.write_text("model,family\nmockllm/alpha,mock\nmockllm/gamma,mock\nmockllm/alhpa,typo\n")
    result = runner.invoke(main_app, ["info", str(out), "--models", str(side), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    runs = {r["model"]: r for r in data["models"]}
    assert runs["mockllm/gamma"]["coverage"] == 0.0 and runs["mockllm/gamma"]["mean_score"] is None
    assert runs["mockllm/gamma"]["benchmarks_without_scores"] == ["arith"]
    assert runs["mockllm/alpha"]["n_scored"] == 6
    assert runs["mockllm/alpha"]["mean_score"] == pytest.approx(1 / 3)
    assert data["models_file"]["unmatched_rows"] == [{"row": 2, "model": "mockllm/alhpa"}]
    assert data["models_file"]["models_without_row"] == ["mockllm/beta"]
    assert any("match no model" in w and "alhpa" in w for w in data["warnings"])
    assert any("'mockllm/gamma'" in w and "no score" in w for w in data["warnings"])
    text = runner.invoke(main_app, ["info", str(out)])
    assert text.exit_code == 0 and "mockllm/beta" in text.output
