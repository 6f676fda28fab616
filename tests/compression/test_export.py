"""``export_suite`` / ``benchsift export``: each harness gets exactly the suite's items, under its own ids."""

from __future__ import annotations

import base64
import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.compression.export import ExportResult, export_suite
from benchsift.compression.export.core import EXPORT_FILE
from benchsift.compression.export.inspect_task import check_ids
from benchsift.compression.export.lm_eval import doc_indices
from benchsift.compression.pipeline import CompressionConfig, run_pipeline
from benchsift.compression.suite import Suite, load_suite, write_suite
from benchsift.errors import FloorWarning, FormatError, InputError
from benchsift.panel import Panel
from benchsift.simulate import SimulationConfig, simulate_panel


def _exp(suite: Suite, to: str, out: Path, **options: Any) -> ExportResult:
    """``export_suite`` with ``ids_from=to``: the simulated suite's ids are document indices (as every tool
    here numbers them) but a simulated panel, unlike an imported one, records no harness."""
    return export_suite(suite, to, out, ids_from=to, **options)


def _doc_id_panel() -> Panel:
    """A simulated panel whose item ids are document indices within each benchmark, as lm-eval logs them."""
    sim = simulate_panel(SimulationConfig.small(n_benchmarks=4, n_categories=2, items_per_benchmark=60), 3)
    items = sim.panel.items.copy()
    items["item"] = items.groupby("benchmark").cumcount().astype(str)
    return Panel(sim.panel.scores, sim.panel.models, items)


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Suite:
    panel = _doc_id_panel()
    with pytest.warns(FloorWarning, match="item floor of 100"):
        res = run_pipeline(panel, CompressionConfig(retention=0.2, k=2))
        out = tmp_path_factory.mktemp("suite") / "suite"
    write_suite(res, panel, out)
    return load_suite(out)


def _suite_items(suite: Suite) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for b, i in zip(suite.items["benchmark"], suite.items["item"], strict=True):
        out.setdefault(str(b), set()).add(str(i))
    return out


def test_lm_eval_samples_are_the_suite_items_sorted(suite: Suite, tmp_path: Path) -> None:
    res = _exp(suite, "lm-eval", tmp_path / "out")
    samples = json.loads((tmp_path / "out" / "lm_eval_samples.json").read_text())
    want = _suite_items(suite)
    assert set(samples) == set(want)
    for task, idx in samples.items():
        assert idx == sorted(idx) and len(set(idx)) == len(idx)  # lm-eval logs the right doc_id only sorted
        assert {str(i) for i in idx} == want[task]
    assert res.n_items == suite.n_items
    assert (
        "--samples" in res.commands[0] and str(tmp_path / "out" / "lm_eval_samples.json") in res.commands[0]
    )
    record = json.loads((tmp_path / "out" / EXPORT_FILE).read_text())
    assert record["tool"] == "lm-eval" and record["suite"]["n_items"] == suite.n_items
    assert sorted(res.files) == [EXPORT_FILE, "lm_eval_samples.json"]


def test_lm_eval_refuses_ids_that_are_not_doc_indices() -> None:
    assert doc_indices("t", ["10", "0", "3"]) == [0, 3, 10]
    for bad in ("007", "-1", "1.0", "a3", " 4", ""):
        with pytest.raises(InputError, match="not lm-eval doc_ids"):
            doc_indices("t", ["1", bad])


def test_inspect_sample_id_files(suite: Suite, tmp_path: Path) -> None:
    res = _exp(suite, "inspect", tmp_path / "out")
    mapping = json.loads((tmp_path / "out" / "inspect_sample_ids.json").read_text())
    want = _suite_items(suite)
    assert {k: set(v) for k, v in mapping.items()} == want
    assert len(res.commands) == len(want)
    for task, cmd in zip(mapping, res.commands, strict=True):
        assert cmd.startswith(f"inspect eval {task} ")
        name = cmd.split("$(cat ")[1].split(")")[0]
        ids = Path(name).read_text().strip().split(",")
        assert ids == mapping[task]


@pytest.mark.parametrize(
    ("ids", "why"),
    [
        (["a,b"], "comma"),
        (["q*"], "glob"),
        (["q[1]"], "glob"),
        ([" q1"], "space"),
        ([""], "empty"),
        (["7", "007"], "same sample"),
    ],
)
def test_inspect_refuses_ids_it_would_read_otherwise(ids: list[str], why: str) -> None:
    with pytest.raises(InputError, match=why):
        check_ids("task", ["ok", *ids])


def _png(n: int) -> str:
    return base64.b64encode(bytes([137, 80, 78, 71]) + bytes([n % 256]) * 80).decode()


def _dataset_tsv(path: Path, suite: Suite, bench: str) -> pd.DataFrame:
    """A dataset TSV as VLMEvalKit keeps one (``index``, ``image`` base64 or another row's index, question,
    options, answer), over items 0..max+5 of ``bench``, written with VLMEvalKit's quoting."""
    n = 6 + max(
        int(i) for b, i in zip(suite.items["benchmark"], suite.items["item"], strict=True) if b == bench
    )
    image = [_png(i) if i % 3 else str(i + 1) for i in range(n)]  # rows 0, 3, ... point at the next row
    df = pd.DataFrame(
        {
            "index": [str(i) for i in range(n)],
            "image": image,
            "question": [f"What is {i}?\twith a tab" if i == 5 else f"What is {i}?" for i in range(n)],
            "A": ["yes"] * n,
            "B": ["no"] * n,
            "answer": ["A" if i % 2 else "B" for i in range(n)],
            "hint": ["" if i % 4 else "nan" for i in range(n)],
        }
    )
    df.to_csv(path, sep="\t", index=False, quoting=csv.QUOTE_ALL)
    return df


def test_vlmevalkit_subset_tsv_and_config(suite: Suite, tmp_path: Path) -> None:
    benches = sorted(_suite_items(suite))
    tsvs = {b: tmp_path / f"{b}.tsv" for b in benches}
    full = {b: _dataset_tsv(tsvs[b], suite, b) for b in benches}
    res = _exp(
        suite,
        "vlmevalkit",
        tmp_path / "out",
        dataset_tsv=tsvs,
        dataset_class=dict.fromkeys(benches, "ImageMCQDataset"),
    )
    config = json.loads((tmp_path / "out" / "config.json").read_text())
    want = _suite_items(suite)
    for b in benches:
        assert config["data"][b] == {"class": "ImageMCQDataset", "dataset": f"{b}_benchsift"}
        sub = pd.read_csv(
            tmp_path / "out" / "LMUData" / f"{b}_benchsift.tsv", sep="\t", dtype=str, keep_default_na=False
        )
        assert set(sub["index"]) == want[b] and len(sub) == len(want[b])
        src = full[b].set_index("index")
        for _, row in sub.iterrows():
            i = int(row["index"])
            expect_image = src.at[str(i + 1), "image"] if i % 3 == 0 else src.at[row["index"], "image"]
            assert row["image"] == expect_image  # a reference to another row is replaced by its image
            for col in ("question", "A", "B", "answer", "hint"):
                assert row[col] == src.at[row["index"], col]  # text passes unchanged (tabs, "nan")
    assert res.harness_names == {b: b for b in benches}


def test_vlmevalkit_needs_its_inputs(suite: Suite, tmp_path: Path) -> None:
    benches = sorted(_suite_items(suite))
    tsvs = {b: tmp_path / f"{b}.tsv" for b in benches}
    for b in benches:
        _dataset_tsv(tsvs[b], suite, b)
    classes = dict.fromkeys(benches, "MMMUDataset")
    with pytest.raises(InputError, match="needs `dataset_tsv`"):
        _exp(suite, "vlmevalkit", tmp_path / "a", dataset_class=classes)
    with pytest.raises(InputError, match="needs `dataset_class`"):
        _exp(suite, "vlmevalkit", tmp_path / "a", dataset_tsv=tsvs)
    # the library names its parameter, the command line its flag
    args = [
        "export",
        str(suite.path),
        "--to",
        "vlmevalkit",
        "--ids-from",
        "vlmevalkit",
        "-o",
        str(tmp_path / "cli"),
    ]
    r = CliRunner().invoke(app, [*args, *(f"--dataset-class={b}=MMMUDataset" for b in benches)])
    assert r.exit_code == 2 and "vlmevalkit export needs --dataset-tsv for benchmark(s)" in r.output
    with pytest.raises(InputError, match="not a class name"):
        _exp(
            suite,
            "vlmevalkit",
            tmp_path / "a",
            dataset_tsv=tsvs,
            dataset_class={**classes, benches[0]: "x y"},
        )
    short = pd.read_csv(tsvs[benches[0]], sep="\t", dtype=str).iloc[:5]
    short.to_csv(tsvs[benches[0]], sep="\t", index=False)
    with pytest.raises(InputError, match="not in its 'index' column"):
        _exp(suite, "vlmevalkit", tmp_path / "a", dataset_tsv=tsvs, dataset_class=classes)
    pd.DataFrame({"index": ["1", "1"], "question": ["a", "b"]}).to_csv(
        tsvs[benches[0]], sep="\t", index=False
    )
    with pytest.raises(FormatError, match="more than once"):
        _exp(suite, "vlmevalkit", tmp_path / "a", dataset_tsv=tsvs, dataset_class=classes)
    assert not (tmp_path / "a").exists()  # nothing written on a refusal


def test_unknown_tool_and_foreign_options(suite: Suite, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown export target"):
        _exp(suite, "helm", tmp_path / "x")
    with pytest.raises(InputError, match="for vlmevalkit"):
        _exp(suite, "lm-eval", tmp_path / "x", dataset_class={"b": "C"})


def test_cli_export_json_and_refusal(suite: Suite, tmp_path: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(
        app,
        [
            "export",
            str(suite.path),
            "--to",
            "lm-eval",
            "-o",
            str(tmp_path / "o"),
            "--ids-from",
            "lm-eval",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["n_items"] == suite.n_items and out["tool"] == "lm-eval"
    assert sum(b["n_items"] for b in out["benchmarks"].values()) == suite.n_items
    r = runner.invoke(
        app,
        ["export", str(suite.path), "--to", "vlmevalkit", "-o", str(tmp_path / "v"), "--dataset-tsv", "nope"],
    )
    assert r.exit_code == 2 and "expected BENCHMARK=VALUE" in r.output
    # a suite whose ids are not lm-eval doc ids is refused, with nothing written
    items = suite.items.copy()
    items["item"] = "q" + items["item"].astype(str)
    items.to_csv(tmp_path / "items.csv", index=False)
    bad = tmp_path / "bad"
    bad.mkdir()
    for name in ("suite.json", "reference_scores.csv"):
        (bad / name).write_bytes((suite.path / name).read_bytes())
    ref = pd.read_csv(bad / "reference_scores.csv", dtype=str)
    ref["item"] = "q" + ref["item"]
    ref.to_csv(bad / "reference_scores.csv", index=False)
    items.to_csv(bad / "items.csv", index=False)
    r = runner.invoke(
        app, ["export", str(bad), "--to", "lm-eval", "-o", str(tmp_path / "o2"), "--ids-from", "lm-eval"]
    )
    assert r.exit_code == 2 and "not lm-eval doc_ids" in r.output
    assert not (tmp_path / "o2").exists()


def test_estimate_warns_on_runs_that_are_not_the_suite(suite: Suite) -> None:
    from benchsift.compression.estimate import estimate_new_models, ranking_suite_warning

    items = suite.items[["benchmark", "item", "category"]]
    X = np.where(np.arange(suite.n_items) % 2 == 0, 1.0, 0.0)[None, :]
    X[0, :3] = np.nan
    res = estimate_new_models(suite, Panel(X, ["new"], items), n_boot=50)
    n = suite.n_items
    want = f"model 'new' has scores for {n - 3} of the suite's {n} items; estimates use those"
    assert res.warnings == [want, ranking_suite_warning(suite)]  # (a VAW suite: chosen to rank models)
    assert res.to_dict()["warnings"] == res.warnings


def test_lmms_eval_subset_tasks(suite: Suite, tmp_path: Path) -> None:
    benches = sorted(_suite_items(suite))
    yamls = {}
    for b in benches:
        yamls[b] = tmp_path / "tasks" / f"{b}.yaml"
        yamls[b].parent.mkdir(exist_ok=True)
        yamls[b].write_text(f"task: {b}\n")
    res = _exp(suite, "lmms-eval", tmp_path / "out", task_yaml=yamls)
    folder = tmp_path / "out" / "lmms_eval_tasks"
    source = (folder / "benchsift_subset.py").read_text()
    compile(source, "benchsift_subset.py", "exec")  # the module lmms-eval imports is valid Python
    keep_line = next(ln for ln in source.splitlines() if ln.startswith("KEEP = "))
    keep = json.loads(keep_line.removeprefix("KEEP = "))
    want = _suite_items(suite)
    assert {t: {str(i) for i in v} for t, v in keep.items()} == want
    assert all(v == sorted(v) for v in keep.values())
    for n, b in enumerate(benches):
        text = (folder / f"{b}_benchsift.yaml").read_text()
        assert f"include: {json.dumps(str(yamls[b].resolve()))}" in text
        assert f'task: "{b}_benchsift"' in text
        assert f"process_docs: !function benchsift_subset.process_docs_{n}" in text
        assert f"def process_docs_{n}(dataset):\n    return _subset({json.dumps(b)}, dataset)" in source
    assert "--include_path" in res.commands[0] and f"{benches[0]}_benchsift" in res.commands[0]
    with pytest.raises(InputError, match="needs `task_yaml`"):
        _exp(suite, "lmms-eval", tmp_path / "x", task_yaml={benches[0]: yamls[benches[0]]})
    with pytest.raises(InputError, match=r"nope\.yaml: no such file \(expected `task_yaml` for "):
        _exp(suite, "lmms-eval", tmp_path / "x", task_yaml={**yamls, benches[0]: tmp_path / "nope.yaml"})
    with pytest.raises(InputError, match="for lmms-eval"):
        _exp(suite, "inspect", tmp_path / "x", task_yaml=yamls)


def test_ids_numbered_by_another_tool_are_refused(tmp_path: Path) -> None:
    """A suite records which harness numbered its items (``id_source``, set by the import); an export to
    another harness would select other documents, and a suite that records none needs ``ids_from``."""
    panel = _doc_id_panel()
    long = panel.to_long()
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    from benchsift.io import import_panel
    from benchsift.io.registry import ID_SOURCE

    plain = import_panel("long", [path])
    assert ID_SOURCE not in plain.items.columns  # a plain table says nothing of the ids
    items = panel.items.copy()
    items[ID_SOURCE] = "vlmevalkit"  # as import_panel("vlmevalkit", ...) records it
    tagged = Panel(panel.scores, panel.models, items)
    with pytest.warns(FloorWarning, match="item floor of 100"):
        res = run_pipeline(tagged, CompressionConfig(retention=0.2, k=2))
    write_suite(res, tagged, tmp_path / "suite")
    suite = load_suite(tmp_path / "suite")
    assert set(suite.items[ID_SOURCE]) == {"vlmevalkit"}
    with pytest.raises(InputError, match="are vlmevalkit's ids; lm-eval numbers its documents"):
        export_suite(suite, "lm-eval", tmp_path / "a")
    with pytest.raises(InputError, match="not 'lm-eval' as `ids_from` says"):
        export_suite(suite, "lm-eval", tmp_path / "a", ids_from="lm-eval")
    runner = CliRunner()
    r = runner.invoke(app, ["export", str(suite.path), "--to", "inspect", "-o", str(tmp_path / "b")])
    assert r.exit_code == 2 and "are vlmevalkit's ids" in r.output
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    with pytest.warns(FloorWarning, match="item floor of 100"):
        res2 = run_pipeline(panel, CompressionConfig(retention=0.2, k=2))
    write_suite(res2, panel, tmp_path / "plain")
    with pytest.raises(InputError, match="does not record which tool numbered"):
        export_suite(tmp_path / "plain", "inspect", tmp_path / "c")
    done = export_suite(tmp_path / "plain", "inspect", tmp_path / "c", ids_from="inspect")
    assert done.warnings == [
        "the suite does not record which tool numbered its items; taken as inspect's ids, as `ids_from` says"
    ]


@pytest.mark.parametrize("bad", ["../../victim", "a/b", "x" * 250, ".hidden"])
def test_benchmark_names_that_are_not_file_names_are_refused(bad: str, suite: Suite, tmp_path: Path) -> None:
    # lmms-eval and VLMEvalKit name a file after each benchmark; the name comes from the suite's items.csv,
    # so it is not a path: before, "../../victim" wrote victim_benchsift.yaml two folders above the output
    # (over a user's file of that name, without --force) and 250 characters gave an OSError (exit 70)
    panel = _doc_id_panel()
    first = sorted(_suite_items(suite))[0]  # a benchmark the suite keeps
    items = panel.items.copy()
    items["benchmark"] = items["benchmark"].where(items["benchmark"] != first, bad)
    renamed = Panel(panel.scores, panel.models, items)
    with pytest.warns(FloorWarning):
        res = run_pipeline(renamed, CompressionConfig(retention=0.2, k=2))
    write_suite(res, renamed, tmp_path / "suite")
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    victim = tmp_path / "victim_benchsift.yaml"
    victim.write_text("the user's own file\n")
    task = tmp_path / "task.yaml"
    task.write_text("task: x\n")
    benches = sorted(_suite_items(load_suite(tmp_path / "suite")))
    assert bad in benches
    out = work / "exp"
    with pytest.raises(InputError, match=r"suite benchmark .*and lmms-eval names a file after it; rename"):
        _exp(load_suite(tmp_path / "suite"), "lmms-eval", out, task_yaml=dict.fromkeys(benches, task))
    tsv = {b: task for b in benches}
    with pytest.raises(InputError, match=r"suite benchmark .*and vlmevalkit names a file after it"):
        _exp(
            load_suite(tmp_path / "suite"),
            "vlmevalkit",
            out,
            dataset_tsv=tsv,
            dataset_class=dict.fromkeys(benches, "MMMUDataset"),
        )
    assert victim.read_text() == "the user's own file\n"
    others = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.parts[-2:][0] != "suite")
    assert others == ["a", "a/b", "suite", "task.yaml", "victim_benchsift.yaml"]  # nothing written
    assert not out.exists()
    r = CliRunner().invoke(
        app,
        [
            "export",
            str(tmp_path / "suite"),
            "--to",
            "lmms-eval",
            "--ids-from",
            "lmms-eval",
            *[a for b in benches for a in ("--task-yaml", f"{b}={task}")],
            "-o",
            str(out),
        ],
    )
    assert r.exit_code == 2 and r.output.startswith("benchsift: error: suite benchmark")
    assert len(r.output.strip().splitlines()) == 1 and not out.exists()
