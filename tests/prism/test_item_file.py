"""Item files: every field of the wrong type is one line naming the record and the field (audit s32, F03/F04).

Before, ``Item.from_dict`` converted what it got: an ``options`` string was split into its characters (the
model was asked ``A. r B. e C. d ...``), ``"letter_answer": "no"`` was true, a null question was sent as
the text ``None``; ``"images": 5``, ``"options": 7``, ``"meta": [1, 2]`` and an eleventh option were an
internal error (exit 70).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchsift.cli.main import app
from benchsift.errors import FormatError
from benchsift.prism.items import Item, read_items

BASE = {"id": "okvqa/1", "benchmark": "okvqa", "question": "Which colour?", "answers": ["A"]}

BAD = [
    ({"options": "red; blue", "letter_answer": True}, r"'options' must be a list of .*, got str \"red"),
    ({"options": 7, "letter_answer": True}, r"'options' must be a list of strings or numbers, got int 7"),
    ({"options": [str(i) for i in range(11)]}, r"'options' has 11 entries; at most 10 \(letters A-J\)"),
    ({"letter_answer": "no"}, r"'letter_answer' must be true or false, got str \"no\""),
    ({"options_in_question": 1}, r"'options_in_question' must be true or false, got int 1"),
    ({"question": None}, r"'question' must be a string, got NoneType null"),
    ({"question": ["a"]}, r"'question' must be a string, got list"),
    ({"benchmark": ""}, r"'benchmark' must be a non-empty string, got str"),
    ({"id": None}, r"'id' must be a non-empty string or an integer, got NoneType null"),
    ({"id": True}, r"'id' must be a non-empty string or an integer, got bool true"),
    ({"images": 5}, r"'images' must be a list of strings \(or one string\), got int 5"),
    ({"images": ["a.png", 3]}, r"'images' must be a list of strings"),
    ({"meta": [1, 2]}, r"'meta' must be a JSON object or null, got list \[1, 2\]"),
    ({"category": 3}, r"'category' must be a string or null, got int 3"),
    ({"domain": ""}, r"'domain' must be a non-empty string or null"),
    (
        {"options": ["red", "blue"], "letter_answer": True, "answers": ["C"]},
        r"'letter_answer' is true but answer 'C' is not one of the 2 options' letters A-B",
    ),
]


@pytest.mark.parametrize(("change", "message"), BAD)
def test_a_wrongly_typed_field_is_one_line_naming_it(tmp_path: Path, change: dict, message: str) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(BASE) + "\n" + json.dumps({**BASE, "id": "okvqa/2", **change}) + "\n")
    with pytest.raises(FormatError, match=rf"items\.jsonl, record 2: {message}"):
        read_items(path)


def test_what_an_item_file_may_hold_reads_as_written(tmp_path: Path) -> None:
    """The accepted shorthands: an integer id, numeric options, one image as a string, one answer as a
    string, nulls for the optional fields; a letter answer in either case."""
    rec = {
        "id": 7,
        "benchmark": "mmstar",
        "question": "How many?",
        "answers": "b",
        "options": [1, 2.5, "three"],
        "letter_answer": True,
        "images": "x.png",
        "domain": None,
        "category": None,
        "meta": None,
    }
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    (item,) = read_items(path)
    assert item == Item(
        id="7",
        benchmark="mmstar",
        domain="General-VQA",
        question="How many?",
        answers=["b"],
        images=["x.png"],
        options=["1", "2.5", "three"],
        letter_answer=True,
    )
    assert item.prompt == "How many?\nOptions: A. 1 B. 2.5 C. three\nAnswer with the letter."


def test_the_cli_refuses_the_item_file_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "items.jsonl").write_text(json.dumps({**BASE, "options": "red; blue"}) + "\n")
    (tmp_path / "m.toml").write_text(
        '[[endpoint]]\nname = "a"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\napi_key_env = ""\n'
    )
    (tmp_path / "arts.jsonl").write_text("")
    before = sorted(p.name for p in tmp_path.iterdir())
    args = ["prism", "run", "--items", "items.jsonl", "--artifacts", "arts.jsonl", "--config", "m.toml"]
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path)
        res = CliRunner().invoke(app, [*args, "--out", "r.jsonl", "--axes", "q", "--quiet"])
    assert res.exit_code == 2, res.output
    assert res.output.strip().splitlines() == [
        "benchsift: error: items.jsonl, record 1: 'options' must be a list of strings or numbers, "
        'got str "red; blue"'
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == before
