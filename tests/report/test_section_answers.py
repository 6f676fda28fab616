"""Each section's answer (:mod:`benchsift.report.answers`), the ``--out`` folders ``report`` reads, and item
views (:mod:`benchsift.report.items`): numbers checked against the files the commands wrote."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from scipy import stats
from typer.testing import CliRunner

from benchsift._fileio import atomic_path
from benchsift.cli.main import app
from benchsift.panel import Panel
from benchsift.report.answers import Answer, Number, SectionFiles, register_summariser, section_answers
from benchsift.report.html import collect_report, write_report
from benchsift.report.items import MAX_IMAGE_BYTES, item_views, thumbnail
from benchsift.simulate import SimulationConfig, simulate_panel

runner = CliRunner()


def _numbers(answer: Answer) -> dict[str, str]:
    return {n.label: n.value for n in answer.numbers}


def test_demo_suite_answer_is_what_suite_json_says(demo_dir: tuple[Path, dict[str, Any]]) -> None:
    out, _ = demo_dir
    suite = json.loads((out / "compression" / "suite" / "suite.json").read_text())
    _, sections = collect_report(out)
    sec = next(s for s in sections if s.key == "compression")
    (ans,) = [a for a in sec.answers if a.kind == "suite"]
    n, pool = suite["n_items_suite"], suite["input"]["n_items"]
    fs = suite["full_score"]
    got = _numbers(ans)
    assert got["items kept"] == f"{n:,} of {pool:,}"
    assert got["rank fidelity (rho, in-panel: optimistic)"] == f"{suite['rho_suite_vs_stage0']:.2f}"
    assert got["expected estimate error (MAE)"] == f"{fs['cv_mae_overall'][fs['method']]:.3f}"
    assert f"keeps {n:,} of {pool:,} items ({100 * n / pool:.1f} %)" in ans.sentences[0]
    # The suite card: one export command per harness, naming the suite's folder.
    assert [tool for tool, _ in ans.card] == ["lm-eval", "lmms-eval", "inspect", "vlmevalkit"]
    assert all(f"benchsift export {out}/compression/suite --to {t}" in c for t, c in ans.card)


def test_demo_audit_answer_counts_the_flags(demo_dir: tuple[Path, dict[str, Any]]) -> None:
    out, _ = demo_dir
    audit = json.loads((out / "audit" / "audit.json").read_text())
    _, sections = collect_report(out)
    (ans,) = next(s for s in sections if s.key == "audit").answers
    n_items = sum(b["n_items"] for b in audit["benchmarks"].values())
    got = _numbers(ans)
    assert got["items flagged"] == f"{len(audit['items']):,} of {n_items:,}"
    assert got["negatively discriminating"] == str(audit["flag_counts"]["negative-discrimination"])
    assert got["duplicate pairs"] == str(len(audit["duplicates"]))


def test_every_demo_section_opens_with_an_answer(demo_dir: tuple[Path, dict[str, Any]]) -> None:
    out, _ = demo_dir
    _, sections = collect_report(out)
    for s in sections:
        assert s.answers, s.key
        assert all(a.sentences and 3 <= len(a.numbers) <= 5 for a in s.answers[:1]), s.key
        assert all(n.label and n.value for a in s.answers for n in a.numbers), s.key


def test_a_new_command_plugs_in_its_own_summariser(tmp_path: Path) -> None:
    from benchsift._fileio import atomic_path
    from benchsift.report import answers

    with atomic_path(tmp_path / "compare.json") as tmp:
        tmp.write_text(json.dumps({"winner": "m1"}))

    def compare(files: SectionFiles) -> list[Answer]:
        return [
            Answer(
                "compare", "Comparison", [f"{d['winner']} wins."], [Number("winner", d["winner"], "")], rel
            )
            for rel, d in files.named("compare.json")
        ]

    before = list(answers.SUMMARISERS)
    try:
        register_summariser("compare", compare)
        _, (sec,) = collect_report(tmp_path)
        assert [a.sentences for a in sec.answers] == [["m1 wins."]]
        assert "m1 wins." in write_report(tmp_path).read_text()
    finally:
        answers.SUMMARISERS[:] = before
    assert section_answers(SectionFiles("x", {"compare.json": {"winner": "m1"}}, {}, {}, "x")) == []


@pytest.fixture(scope="module")
def small_panel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("panel") / "p.parquet"
    simulate_panel(SimulationConfig.unidimensional(n_models=40, n_items=300), random_state=3).panel.save(path)
    return path


def test_suite_card_gives_the_held_out_rank_fidelity(small_panel: Path, tmp_path: Path) -> None:
    out = tmp_path / "suite"
    r = runner.invoke(
        app,
        ["compress", str(small_panel), "--retention", "0.2", "--floor", "0", "--holdout", "0.3",
         "--seed", "2", "--out", str(out)],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    held = json.loads((out / "holdout.json").read_text())
    per = pd.read_csv(out / "holdout.csv")
    _, sections = collect_report(out)
    (ans,) = [a for s in sections for a in s.answers if a.kind == "suite"]
    got = _numbers(ans)
    rho = stats.spearmanr(per["estimate"], per["truth"]).statistic  # scipy on the per-model table
    assert got["rank fidelity on held-out models (rho)"] == f"{rho:.2f}" == f"{held['rank_rho']:.2f}"
    assert not any("in-panel" in label for label in got)
    assert got["estimate error on held-out models (MAE)"] == f"{held['mae']:.3f}"
    text = " ".join(ans.sentences)
    assert f"On {held['n_held']} held-out models" in text
    rand = stats.spearmanr(per["random_subset_mean"], per["truth"]).statistic
    assert f"random items rank them at rho {rand:.2f}" in text
    assert 3 <= len(ans.numbers) <= 5


def test_validate_out_is_a_section_with_the_held_out_answer(small_panel: Path, tmp_path: Path) -> None:
    out = tmp_path / "validate"
    r = runner.invoke(
        app,
        [
            "validate", str(small_panel), "--splits", "3", "--selectors", "random,variance",
            "--retentions", "0.1,0.3", "--floor", "0", "--out", str(out),
        ],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    doc = json.loads((out / "validate.json").read_text())
    assert doc["protocol"] == "random" and len(doc["results"]) == 4
    table = pd.read_csv(out / "results.csv")
    assert len(table) == 4 and (out / "selector_retention.svg").is_file() and (out / "index.html").is_file()
    _, (sec,) = collect_report(out)
    (ans,) = sec.answers
    best = {}
    for row in doc["results"]:
        if row["retention"] not in best or row["rho_mean"] > best[row["retention"]]["rho_mean"]:
            best[row["retention"]] = row
    good = [r for r in sorted(best) if best[r]["rho_mean"] >= 0.95]
    ret = good[0] if good else max(best)
    assert _numbers(ans)["held-out rank fidelity (rho)"] == f"{best[ret]['rho_mean']:.3f}"
    rand = next(x for x in doc["results"] if x["selector"] == "random" and x["retention"] == ret)
    assert _numbers(ans)["random items, same size (rho)"] == f"{rand['rho_mean']:.3f}"
    # results.csv and the JSON's results are the same records: one table on the page
    names = [t.name for t in sec.tables]
    assert "results.csv" in names and "validate.json: results" not in names


def test_adaptive_simulate_out(small_panel: Path, tmp_path: Path) -> None:
    out = tmp_path / "adaptive"
    r = runner.invoke(app, ["adaptive", "simulate", str(small_panel), "--splits", "2", "--out", str(out)])
    assert r.exit_code == 0, r.output
    doc = json.loads((out / "adaptive.json").read_text())
    _, (sec,) = collect_report(out)
    (ans,) = sec.answers
    got = _numbers(ans)
    for row in doc["results"]:
        assert got[f"{row['method']}: rank fidelity (rho)"] == f"{row['rho_mean']:.2f}"
    n = doc["results"][0]["n_items"]
    assert got["items per model"] == (f"{int(n)}" if float(n).is_integer() else f"{n:.1f}")


def test_estimate_out_and_one_report_over_a_working_folder(small_panel: Path, tmp_path: Path) -> None:
    panel = Panel.load(small_panel)
    build, new = panel.subset(models=list(range(30))), panel.subset(models=list(range(30, 40)))
    work = tmp_path / "work"
    work.mkdir()
    build.save(work / "build.parquet")
    new.to_long().to_csv(work / "new.csv", index=False)  # the user's own files in the working folder
    for cmd in (
        ["compress", str(work / "build.parquet"), "--out", str(work / "suite"), "--floor", "0"],
        [
            "estimate",
            str(work / "suite"),
            str(work / "new.csv"),
            "--out",
            str(work / "estimate"),
            "--n-boot",
            "200",
        ],
        ["audit", str(work / "build.parquet"), "--out", str(work / "audit")],
    ):
        r = runner.invoke(app, cmd)
        assert r.exit_code == 0, r.output
    doc = json.loads((work / "estimate" / "estimate.json").read_text())
    assert len(doc["models"]) == 10 and (work / "estimate" / "estimate.csv").is_file()
    r = runner.invoke(app, ["report", str(work), "--panel", str(work / "build.parquet"), "--json"])
    assert r.exit_code == 0, r.output
    contents = json.loads(r.stdout)
    # the folder's own section holds the panel benchsift saved; new.csv (written by pandas) is left out
    assert [s["name"] for s in contents["sections"]] == ["work", "audit", "estimate", "suite"]
    assert contents["not_benchsift"] == 1
    est = next(s for s in contents["sections"] if s["name"] == "estimate")
    assert est["answers"][0].startswith("10 new models estimated")
    assert contents["items"] > 0
    text = (work / "index.html").read_text()
    assert "new.csv" not in text


def _png(path: Path, size: tuple[int, int] = (40, 30)) -> None:
    Image.new("RGB", size, (200, 30, 30)).save(path)


def test_thumbnail_stays_inside_the_image_root(tmp_path: Path) -> None:
    root = tmp_path / "images"
    (root / "sub").mkdir(parents=True)
    _png(root / "sub" / "a.png")
    outside = tmp_path / "secret.png"
    _png(outside)
    (root / "link.png").symlink_to(outside)
    uri, why = thumbnail(root, "sub/a.png")
    assert uri.startswith("data:image/png;base64,") and why == ""
    for name in ("../secret.png", "link.png", str(outside)):
        uri, why = thumbnail(root, name)
        assert uri == "" and "outside the image root" in why, name
    uri, why = thumbnail(root, "missing.png")
    assert uri == "" and "not found" in why
    big = root / "big.png"
    with big.open("wb") as fh:
        fh.truncate(MAX_IMAGE_BYTES + 1)
    uri, why = thumbnail(root, "big.png")
    assert uri == "" and "larger than" in why
    # A large image is scaled down to the thumbnail size.
    _png(root / "wide.png", (1600, 400))
    uri, _ = thumbnail(root, "wide.png")
    import base64
    import io

    with Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))) as im:
        assert im.size == (320, 80)


def test_item_view_shows_the_item_and_how_strength_relates_to_it(tmp_path: Path) -> None:
    # 10 models of rising strength; item "k" is right for the 5 weakest only (a wrong key's pattern).
    n = 10
    scores = np.zeros((n, 3))
    scores[:, 0] = np.arange(n) >= 3  # a good item: the stronger models get it
    scores[:, 1] = np.arange(n) < 5  # the suspect item
    scores[:, 2] = np.linspace(0, 1, n) > 0.2
    models = [f"m{i}" for i in range(n)]
    items = pd.DataFrame(
        {
            "benchmark": ["b"] * 3,
            "item": ["g", "k", "h"],
            "question": ["Q good", "Which colour?", "Q h"],
            "choices": ['["red", "blue"]'] * 3,
            "answer": ["A", "B", "A"],
            "image": ["a.png", "../x.png", ""],
        }
    )
    panel = Panel(scores, models, items)
    root = tmp_path / "img"
    root.mkdir()
    _png(root / "a.png")
    views = item_views(panel, [("b", "k"), ("b", "g"), ("b", "zz")], images=root)
    assert list(views) == [("b", "k"), ("b", "g")]  # page order; unknown items left out
    k = views[("b", "k")]
    assert (k.question, k.choices, k.key) == ("Which colour?", ["A. red", "B. blue"], "B")
    assert k.key_shown == "B. blue"
    assert k.image == "" and "outside the image root" in k.image_note
    assert views[("b", "g")].image.startswith("data:image/png")
    # strength order: m9 (mean 1 of 3... ) strongest; the 2 strongest fall in the top quintile
    means = scores.mean(axis=1)
    order = np.argsort(-means, kind="stable")
    top = order[:2]
    assert k.quintiles[0] == ("strongest 20 %", f"{scores[top, 1].mean():.2f}")
    assert k.strong_wrong == [models[m] for m in order if scores[m, 1] == 0][:8]
    assert k.weak_right == [models[m] for m in order[::-1] if scores[m, 1] == 1][:8]
    assert k.mean == pytest.approx(0.5) and (k.n_models, k.n_scored) == (10, 10)


def test_audit_out_links_flags_to_item_views(tmp_path: Path) -> None:
    sim = simulate_panel(SimulationConfig.unidimensional(n_models=60, n_items=200), random_state=5).panel
    scores = sim.scores.copy()
    scores[:, :5] = 1.0 - scores[:, :5]  # five mis-keyed items
    items = sim.items.assign(question=[f"question {i}" for i in range(sim.n_items)])
    path = tmp_path / "p.parquet"
    Panel(scores, sim.models, items).save(path)
    out = tmp_path / "audit"
    r = runner.invoke(app, ["audit", str(path), "--out", str(out)])
    assert r.exit_code == 0, r.output
    text = (out / "index.html").read_text()
    flagged = pd.read_csv(out / "items.csv", dtype={"item": str})
    negative = flagged[flagged["flags"].str.contains("negative-discrimination")]
    assert len(negative) >= 3 and set(negative["item"]) <= set(items["item"].iloc[:5])
    index = json.loads(
        text.split('<script type="application/json" id="item-index">', 1)[1].split("</script>")[0]
    )
    assert len(index) == len(flagged)  # every flagged item has its view
    for item in negative["item"]:
        anchor = index[f"0\x1f{items['benchmark'].iloc[0]}\x1f{item}"]  # panel 0: the one audit gave
        block = text.split(f'<article class="item" id="{anchor}">', 1)[1].split("</article>")[0]
        assert f"question {items['item'].tolist().index(item)}" in block
    assert os.path.getsize(out / "index.html") < 5_000_000


def test_compare_out_opens_with_its_tie_groups_and_resolution(small_panel: Path, tmp_path: Path) -> None:
    out = tmp_path / "compare"
    r = runner.invoke(app, ["compare", str(small_panel), "--n-boot", "200", "--out", str(out)])
    assert r.exit_code == 0, r.output
    doc = json.loads((out / "compare.json").read_text())
    (row,) = doc["resolution"]
    _, (sec,) = collect_report(out)
    (ans,) = sec.answers
    got = _numbers(ans)
    assert got["tie groups"] == str(row["n_groups"])
    assert got["minimum detectable difference"] == f"{row['mdd']:.3f}"
    assert got["pairs told apart (holm)"] == f"{row['separated_holm'] * 100:.0f} %"
    assert got["largest tie group"] == str(row["largest_group"])
    top = doc["ties"][row["section"]][0]
    assert f"Top group: {top}." in ans.sentences


def test_page_shows_the_names_its_csv_neutralised_for_spreadsheets(tmp_path: Path) -> None:
    from benchsift.workflows.outputs import write_command_dir

    names = ["=SUM(1,1)", "@cmd", "'quoted", "-x+1", "plain"]
    frame = pd.DataFrame({"model": names, "-score": [0.5, -0.25, 1.0, 0.0, 0.75]})
    write_command_dir(tmp_path / "o", "thing", {"n": 5}, {"scores": frame})
    written = (tmp_path / "o" / "scores.csv").read_text()
    assert "'=SUM(1,1)" in written and "''quoted" in written and "'-score" in written
    _, (sec,) = collect_report(tmp_path / "o")
    (table,) = [t for t in sec.tables if t.name.endswith("scores.csv")]
    assert table.columns == ["model", "-score"]
    assert [row[0] for row in table.rows] == names
    assert [row[1] for row in table.rows] == ["0.5", "-0.25", "1.0", "0.0", "0.75"]


def test_item_view_shows_what_the_models_answered(tmp_path: Path) -> None:
    # 10 models of rising strength (m9 strongest). Item "k" has key B; the 5 strongest answered A (scored 0),
    # the 5 weakest answered B (scored 1): the strongest agree on another answer than the key.
    n = 10
    strength = np.arange(n)
    ladder = [strength >= t for t in range(1, 10)]  # 9 items that order the models by strength
    scores = np.column_stack([strength >= 3, strength < 5, *ladder]).astype(float)
    models = [f"m{i}" for i in range(n)]
    names = ["g", "k", *(f"h{t}" for t in range(1, 10))]
    items = pd.DataFrame({"benchmark": "b", "item": names, "answer": ["C", "B", *["A"] * 9]})
    panel = Panel(scores, models, items)
    rows = []
    for i in range(n):
        row = {"model": models[i], "benchmark": "b"}
        rows.append({**row, "item": "g", "prediction": "C" if i >= 3 else "D"})
        if i != 4:  # m4 logged no answer for k
            rows.append({**row, "item": "k", "prediction": "B" if i < 5 else "A"})
    rows.append({"model": "other", "benchmark": "b", "item": "k", "prediction": "A"})  # not in the panel
    answers = tmp_path / "answers.csv"
    pd.DataFrame(rows).to_csv(answers, index=False)
    out = tmp_path / "out"
    out.mkdir()
    with atomic_path(out / "flags.csv") as tmp:  # written as benchsift writes (listed in the manifest)
        tmp.write_text("benchmark,item\nb,k\n")
    panel_path = tmp_path / "p.parquet"
    panel.save(panel_path)
    page, _ = collect_report(out, panel=panel, answers=answers, answer_column="prediction")
    (k,) = page["items"]
    # A: m5..m9 (5 models, the 2 strongest among them, score 0); B: m0..m3 (4 models, score 1)
    assert k.answer_counts == [("A", 5, 2, "0.00"), ("B", 4, 0, "1.00")]
    assert k.n_unanswered == 1
    assert k.answers[0] == ("m9", "A", "0") and k.answers[-1] == ("m0", "B", "1")
    assert any("model run(s) not in the panel" in w for w in page["warnings"])
    # the CLI: --answers with --panel; the page shows the answer table with the key marked
    r = runner.invoke(
        app,
        ["report", str(out), "--panel", str(panel_path), "--answers", str(answers), "--answer-column",
         "prediction"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    text = (out / "index.html").read_text()
    assert "What the models answered" in text
    assert '<tr class="keyrow"><td>B (key)</td><td>4</td><td>0</td><td>1.00</td></tr>' in text
    # without a panel there is nothing to align the answers with: one line, exit 2
    bare = tmp_path / "bare"
    bare.mkdir()
    r = runner.invoke(app, ["report", str(bare), "--answers", str(answers)])
    assert r.exit_code == 2 and "--panel" in r.output
