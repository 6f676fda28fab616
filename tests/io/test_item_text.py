"""Importers keep the question, choices and answer key the harness logged as item metadata (issue 34):
lm-eval (``doc`` and ``target``), lmms-eval (``input`` and ``target``), inspect (``input`` and ``target``),
lighteval (``doc.query``, ``doc.choices``, ``doc.gold_index``), HELM (``scenario_state.json``'s instances)
and Every Eval Ever (``input.raw``, ``input.choices``, ``input.reference``), read from the tool-written
fixtures; the report's item view shows them, with HELM's image reference as a thumbnail inside the root."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from warned import warned

from benchsift.io import read_eee, read_helm, read_inspect, read_lighteval, read_lm_eval, read_lmms_eval
from benchsift.report.items import item_views

F = Path(__file__).resolve().parents[1] / "fixtures" / "io"


def _row(items: pd.DataFrame, benchmark: str, item: str) -> pd.Series:
    return items[(items["benchmark"] == benchmark) & (items["item"] == item)].iloc[0]


def test_lm_eval_keeps_doc_question_choices_and_target() -> None:
    panel = read_lm_eval(F / "lm_eval/real/logs/tree", filter="strict-match")
    items = panel.items
    gen, mc = _row(items, "arith_gen", "0"), _row(items, "arith_mc", "2")
    # samples_arith_gen line 1: doc.question "What is 2+2?", target "4"
    assert (gen["question"], gen["answer"]) == ("What is 2+2?", "4")
    assert json.loads(gen["choices"]) == ["3", "4", "5", "6"]
    # samples_arith_mc line 3: doc.question "What is 7-1?", target "0" (the index of choice "6")
    assert (mc["question"], mc["answer"]) == ("What is 7-1?", "0")
    assert json.loads(mc["choices"]) == ["6", "5", "8", "1"]
    view = item_views(panel, [("arith_mc", "2")])[("arith_mc", "2")]
    assert (view.question, view.key) == ("What is 7-1?", "0")
    assert view.choices == ["A. 6", "B. 5", "C. 8", "D. 1"]


def test_lmms_eval_keeps_input_and_target() -> None:
    logs = F / "lmms_eval/real/logs"
    panel = read_lmms_eval(
        [
            logs / "org__alpha/20261201_225730_samples_mmmu_val_local.jsonl",
            logs / "org__beta/20261201_225750_samples_mmmu_val_local.jsonl",
        ]
    )
    row = _row(panel.items, "mmmu_val_local", "1")
    assert (
        row["question"] == "Which organelle makes ATP?\n\nAnswer the question using a single word or phrase."
    )
    assert row["answer"] == "mitochondria"
    assert "choices" not in panel.items.columns  # lmms-eval logged none


def test_inspect_keeps_input_and_target() -> None:
    panel = read_inspect(F / "inspect/real/logs/ordinary")
    row = _row(panel.items, "arith", "q3")
    assert (row["question"], row["answer"]) == ("[q3] What is 7-1? Answer with a number.", "6")


def test_logged_text_is_bounded_and_chat_input_keeps_user_text() -> None:
    from benchsift.io._harness import ITEM_TEXT_CHARS, logged_item_text

    rec = {
        "input": [
            {"role": "system", "content": "be brief"},
            {
                "role": "user",
                "content": [
                    {"type": "image", "image": "data:image/png;base64,AAAA"},
                    {"type": "text", "text": "Q?"},
                ],
            },
        ],
        "choices": ["x", "y"],
        "target": ["B", "b"],
    }
    assert logged_item_text(rec) == ("Q?", '["x", "y"]', "B, b")
    question, choices, answer = logged_item_text({"doc": {"question": "w" * 5000}, "target": 3})
    assert question is not None and len(question) == ITEM_TEXT_CHARS and question.endswith("...")
    assert (choices, answer) == (None, "3")
    assert logged_item_text({"doc_id": 0}) == (None, None, None)


def test_lighteval_keeps_query_choices_and_gold_choice() -> None:
    panel = read_lighteval(F / "lighteval/real/out/details")
    # details_arith_mc|0: doc id 3, query "What is 8/2?", choices ["2", "16", "6", "4"], gold_index 3
    mc = _row(panel.items, "arith_mc|0", "3")
    assert (mc["question"], json.loads(mc["choices"]), mc["answer"]) == (
        "What is 8/2?",
        ["2", "16", "6", "4"],
        "4",
    )
    # the generative task: the one choice is the gold answer
    gen = _row(panel.items, "arith_gen|0", "1")
    assert (gen["question"], gen["answer"]) == ("What is 3*3?", "9")
    view = item_views(panel, [("arith_mc|0", "3")])[("arith_mc|0", "3")]
    assert (view.question, view.key) == ("What is 8/2?", "4")
    assert view.choices == ["A. 2", "B. 16", "C. 6", "D. 4"]


def test_helm_keeps_instance_text_with_option_letters() -> None:
    runs = F / "helm/real/out/benchmark_output/runs/v1"
    both = [runs / "simple_mcqa:model=scripted_alpha", runs / "simple_mcqa:model=scripted_beta"]
    panel = warned(read_helm, both, expect=["no main metric"])
    # scenario_state.json: id60 "Is 70 even or odd?", references Even (correct) / Odd, output_mapping A/B
    row = _row(panel.items, "simple_mcqa", "id60")
    assert (row["question"], json.loads(row["choices"]), row["answer"]) == (
        "Is 70 even or odd?", ["A. Even", "B. Odd"], "A"
    )  # fmt: skip
    assert _row(panel.items, "simple_mcqa", "id41")["answer"] == "B"  # 51 is odd
    assert "image" not in panel.items.columns  # a text scenario logs no media


def test_helm_image_reference_is_shown_only_inside_the_root(tmp_path: Path) -> None:
    from PIL import Image

    from benchsift.io.helm import _instance_text
    from benchsift.panel import Panel

    root = tmp_path / "images"
    root.mkdir()
    Image.new("RGB", (40, 30), (10, 20, 30)).save(root / "cat.png")
    outside = tmp_path / "secret.png"
    Image.new("RGB", (40, 30)).save(outside)
    (root / "link.png").symlink_to(outside)  # inside by name, outside once resolved
    texts = []
    for name in ("cat.png", "link.png"):
        # a VHELM instance: input.multimedia_content.media_objects with content_type and location
        instance = {
            "input": {
                "multimedia_content": {
                    "media_objects": [
                        {"text": "What animal?", "content_type": "text/plain"},
                        {"location": str(root / name), "content_type": "image/png"},
                    ]
                }
            },
            "references": [{"output": {"text": "cat"}, "tags": ["correct"]}],
            "id": name,
        }
        texts.append(_instance_text(instance, None))
    assert texts[0] == ("What animal?", '["cat"]', "cat", str(root / "cat.png"))
    items = pd.DataFrame({"benchmark": "v", "item": ["a", "b"], "image": [t[3] for t in texts]})
    views = item_views(Panel([[1.0, 0.0]], ["m"], items), [("v", "a"), ("v", "b")], images=root)
    assert views[("v", "a")].image.startswith("data:image/png;base64,")
    assert views[("v", "b")].image == "" and "outside the image root" in views[("v", "b")].image_note


def test_eee_keeps_input_raw_choices_and_reference() -> None:
    panel = read_eee(F / "eee/real/group/data/arith_mc_rev", filter="acc")
    # arith_mc_rev sample 0: input.raw "Q: What is 2+2?\nA:", choices ["3", "4", "5", "6"], reference ["1"]
    row = _row(panel.items, "arith_mc_rev", "0")
    assert row["question"] == "Q: What is 2+2?\nA:"
    assert (json.loads(row["choices"]), row["answer"]) == (["3", "4", "5", "6"], "1")


# The item view names the key as the choice it points to (issue 34, point 4): lm-eval and Every Eval Ever log
# a 0-based choice index, lighteval the choice's text, HELM a letter; each gold below is read by hand from the
# fixture's own field.


def test_lm_eval_key_index_is_shown_as_its_choice() -> None:
    panel = read_lm_eval(F / "lm_eval/real/logs/tree", filter="strict-match")
    views = item_views(panel, [("arith_mc", "0"), ("arith_mc", "2"), ("arith_gen", "0")])
    # samples_arith_mc line 1: choices ["3", "4", "5", "6"], target "1" (doc.answer 1, doc.target "4")
    assert views[("arith_mc", "0")].key_shown == "B. 4 (logged as 1: the choice's index counted from 0)"
    # line 3: choices ["6", "5", "8", "1"], target "0": choice "6", not "1" (the text "1" is choice D)
    assert views[("arith_mc", "2")].key_shown.startswith("A. 6 ")
    # the generative task logs the answer's text ("4"; choices ["3", "4", "5", "6"] in its doc)
    assert views[("arith_gen", "0")].key_shown == "B. 4"


def test_eee_reference_index_is_shown_as_its_choice() -> None:
    panel = read_eee(F / "eee/real/group/data/arith_mc_rev", filter="acc")
    # sample 0: input.choices ["3", "4", "5", "6"], input.reference ["1"]; 2+2 = 4 is choice B
    view = item_views(panel, [("arith_mc_rev", "0")])[("arith_mc_rev", "0")]
    assert view.key_shown == "B. 4 (logged as 1: the choice's index counted from 0)"


def test_lighteval_gold_text_is_shown_as_its_choice() -> None:
    panel = read_lighteval(F / "lighteval/real/out/details")
    # details_arith_mc|0 doc 3: choices ["2", "16", "6", "4"], gold_index 3: the text "4" is choice D,
    # not read as an index (4 is past the last index)
    view = item_views(panel, [("arith_mc|0", "3")])[("arith_mc|0", "3")]
    assert view.key_shown == "D. 4"


def test_helm_letter_key_is_shown_as_its_choice() -> None:
    runs = F / "helm/real/out/benchmark_output/runs/v1"
    both = [runs / "simple_mcqa:model=scripted_alpha", runs / "simple_mcqa:model=scripted_beta"]
    panel = warned(read_helm, both, expect=["no main metric"])
    views = item_views(panel, [("simple_mcqa", "id60"), ("simple_mcqa", "id41")])
    # id60 "Is 70 even or odd?": Even is tagged correct, mapped to A; id41 (51): Odd, B
    assert views[("simple_mcqa", "id60")].choices == ["A. Even", "B. Odd"]
    assert views[("simple_mcqa", "id60")].key_shown == "A. Even"
    assert views[("simple_mcqa", "id41")].key_shown == "B. Odd"


def test_inspect_letter_key_is_shown_as_its_choice() -> None:
    panel = read_inspect(F / "inspect/real/mc/logs")
    # mc/questions.jsonl m2: "What is 7-1?", choices ["6", "5", "8", "1"], target "A"; m3: 3*3, target "C"
    views = item_views(panel, [("arith_mc", "m2"), ("arith_mc", "m3")])
    assert views[("arith_mc", "m2")].choices == ["A. 6", "B. 5", "C. 8", "D. 1"]
    assert views[("arith_mc", "m2")].key_shown == "A. 6"
    assert views[("arith_mc", "m3")].key_shown == "C. 9"
    # the scripted answers (alpha B, A, B; beta B, D, C) scored by inspect's choice()
    assert panel.scores.tolist() == [[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]]


def test_key_that_reads_two_ways_is_shown_both_ways() -> None:
    from benchsift.report.items import key_choices

    # "1" with choices ["2", "1"]: index 1 is "1" too: one reading; with ["1", "2"]: two readings
    assert key_choices("1", ["2", "1"]) == [(1, "index")]
    assert key_choices("1", ["1", "2"]) == [(1, "index"), (0, "text")]
    assert key_choices("B", ["A. x", "B. y"]) == [(1, "letter")]
    assert key_choices("7", ["1", "2"]) == []


def test_logged_answers_are_named_by_choice_and_the_key_row_is_marked(tmp_path: Path) -> None:
    from benchsift.io import read_answers
    from benchsift.io.importing import import_files

    # lm-eval logs the most likely choice's index ("1"), Every Eval Ever the answer's text ("4"); both are
    # the key's choice B of item 0 (2+2, choices ["3", "4", "5", "6"], key index 1)
    for fmt, src, bench, opts in [
        ("lm-eval", F / "lm_eval/real/logs/tree", "arith_mc", {"filter": "strict-match"}),
        ("eee", F / "eee/real/data/arith_mc", "arith_mc", {}),
    ]:
        res = import_files(fmt, src, tmp_path / f"{fmt}.parquet", answers_out=tmp_path / f"{fmt}.csv", **opts)
        answers = read_answers(tmp_path / f"{fmt}.csv", res.panel)
        view = item_views(res.panel, [(bench, "0")], answers=answers)[(bench, "0")]
        logged = "1" if fmt == "lm-eval" else "4"
        right = int((res.panel.scores[:, res.panel.item_keys.index((bench, "0"))] == 1.0).sum())
        assert right >= 1
        assert view.key_answers == [f"{logged} = B"]
        assert (f"{logged} = B", right) in [(a, n) for a, n, _, _ in view.answer_counts]
