"""The importers' warnings reach a notebook: a reader called without a ``notes`` list raises each warning line
as a ``ResultWarning`` ("<reader>: <line>"); given a list, it fills it and raises nothing; ``import_files``
raises its result's warnings. And ``estimate --from`` passes the importer's warnings on, but for a run of
part of a benchmark, which a run of an exported suite is by design."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest
from warned import raised

from benchsift.compression import estimate_new_models
from benchsift.errors import EstimateWarning, ResultWarning
from benchsift.io import read_lm_eval, read_vlmevalkit
from benchsift.io.importing import import_files
from benchsift.io.notes import SUBSET_RUN, subset_run, warning_lines

FIX = Path(__file__).resolve().parents[1] / "fixtures"
LIMITED = FIX / "io" / "lm_eval" / "EleutherAI__pythia-160m"
MME = FIX / "io" / "vlmevalkit" / "real" / "outputs"
ROUNDTRIP = FIX / "roundtrip"


def test_a_reader_without_a_list_raises_its_warnings_and_with_one_fills_it() -> None:
    notes: list[str] = []
    quiet, none = raised(read_lm_eval, LIMITED, filter="strict-match", notes=notes)
    assert none == []
    said = warning_lines(notes)
    assert any("a run with --limit 3" in w for w in said)
    loud, said_too = raised(read_lm_eval, LIMITED, filter="strict-match")
    assert said_too == [f"read_lm_eval: {w}" for w in dict.fromkeys(said)]
    assert loud.model_ids == quiet.model_ids and (loud.scores == quiet.scores).all()
    # the notes that are not warnings are not raised
    assert len(notes) > len(said)


def test_the_warning_points_at_the_caller() -> None:
    with pytest.warns(ResultWarning, match="^read_vlmevalkit: ") as rec:
        read_vlmevalkit(MME)
    assert any("MME" in str(w.message) for w in rec)
    assert {Path(w.filename).name for w in rec} == {Path(__file__).name}


def test_import_files_raises_what_its_result_says(tmp_path: Path) -> None:
    res, said = raised(import_files, "lm-eval", LIMITED, tmp_path / "p.parquet", filter="strict-match")
    assert res.warnings and said == [f"import_files: {w}" for w in dict.fromkeys(res.warnings)]


def test_subset_run_lines() -> None:
    assert subset_run(f"x: task 'a' is a run with --limit 3: ... has those 3 in the panel, {SUBSET_RUN}")
    assert not subset_run("x: holds 2 of the 3 documents the run evaluated ...; the file looks cut short")


def test_estimate_from_a_harness_passes_its_import_warnings_on(tmp_path: Path) -> None:
    """The exported suite's lm-eval run, one samples file cut at a line: the importer's "cut short" warning
    is among the estimate's warnings; the runs' "part of a benchmark" warnings (lm-eval ran the suite's
    documents only) are not."""
    logs = tmp_path / "logs"
    shutil.copytree(ROUNDTRIP / "logs" / "lm-eval", logs)
    samples = sorted((logs / "Aurora-m000").glob("samples_*.jsonl"))[0]
    lines = samples.read_text().splitlines(keepends=True)
    samples.write_text("".join(lines[:-2]))
    with warnings.catch_warnings():  # the edge warnings of the suite's held-out models: not the subject
        warnings.simplefilter("ignore", EstimateWarning)
        warnings.simplefilter("ignore", ResultWarning)
        res = estimate_new_models(ROUNDTRIP / "suite", logs, from_format="lm-eval", n_boot=50)
    imported = [w for w in res.warnings if w.startswith("lm-eval import: ")]
    assert any("looks cut short" in w for w in imported)  # (and its mean no longer the results json's)
    assert imported and all(samples.name in w for w in imported)
    assert not any(SUBSET_RUN in w for w in res.warnings)
    # the full run: nothing from the import
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EstimateWarning)
        warnings.simplefilter("ignore", ResultWarning)
        whole = estimate_new_models(
            ROUNDTRIP / "suite", ROUNDTRIP / "logs" / "lm-eval", from_format="lm-eval"
        )
    assert not [w for w in whole.warnings if w.startswith("lm-eval import: ")]
