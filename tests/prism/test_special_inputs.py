"""prism reads only regular files, within bounds (security review s31: t08, t09, t17, and the replies of t18).

A FIFO given as an item, artifact, record, review or config file used to block ``prism`` forever, and a
link to ``/dev/zero`` made it read until memory ran out; an items file without line breaks was read whole;
a review CSV with a deeply nested ``artifact`` cell or a cell over the ``csv`` module's field limit was an
internal error (exit 70). Each is now one line naming the file (and line), exit 2.

The FIFO tests run in this process behind :func:`fifo`, which unblocks a reader that waits on the FIFO
after a few seconds, so a regression fails its assertion instead of hanging the suite; the ``/dev/zero``
cases run the CLI in a child process with an address-space cap and a timeout.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
from pathlib import Path

import pytest
from hostile import fifo, run_capped

from benchsift._fileio import MAX_LINE_BYTES, bounded_lines, open_regular, read_regular
from benchsift._jsonutil import MAX_JSON_DEPTH
from benchsift.errors import FormatError, InputError
from benchsift.prism import engine
from benchsift.prism.adapters import adapt_record
from benchsift.prism.constraints import verify
from benchsift.prism.grade import read_run_records
from benchsift.prism.items import read_items, read_jsonl_records
from benchsift.prism.review import import_review
from benchsift.prism.stage_io import parse_json_object

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")

ITEM = {"id": "okvqa/1", "benchmark": "okvqa", "question": "How many?", "answers": ["1"]}
DEEP = "[" * 100_000 + "]" * 100_000


def _device(tmp_path: Path, name: str) -> Path:
    """``name`` in ``tmp_path``, a symbolic link to ``/dev/null`` (a device that reads empty, so a
    regression returns at once instead of reading ``/dev/zero`` until memory runs out)."""
    link = tmp_path / name
    link.symlink_to("/dev/null")
    return link


# --- the shared helpers (benchsift._fileio) -----------------------------------------------------------------


def test_open_regular_refuses_fifo_device_dir_missing(tmp_path: Path) -> None:
    with (
        fifo(tmp_path / "f.jsonl") as f,
        pytest.raises(InputError, match=r"f\.jsonl: is a FIFO, not a regular"),
    ):
        open_regular(f, "a JSON lines file").close()
    with pytest.raises(InputError, match=r"d\.jsonl: is a device, not a regular file; expected x"):
        open_regular(_device(tmp_path, "d.jsonl"), "x").close()
    with pytest.raises(InputError, match=r": is a directory, expected a file"):
        open_regular(tmp_path).close()
    with pytest.raises(InputError, match=r"nope: file not found \(expected y\)"):
        open_regular(tmp_path / "nope", "y").close()
    ok = tmp_path / "ok.txt"
    ok.write_bytes(b"abc")
    with open_regular(ok) as fh:
        assert fh.read() == b"abc"
    assert read_regular(ok, 3) == b"abc"
    with pytest.raises(FormatError, match=r"ok\.txt: larger than 2 bytes"):
        read_regular(ok, 2)


def test_bounded_lines_stops_at_the_cap(tmp_path: Path) -> None:
    p = tmp_path / "x.txt"
    p.write_bytes(b"ab\n" + b"c" * 10 + b"\nd")
    with open_regular(p) as fh, pytest.raises(FormatError, match=r"x\.txt, line 2: longer than 5 bytes"):
        list(bounded_lines(fh, str(p), 5))
    with open_regular(p) as fh:
        assert list(bounded_lines(fh, str(p), 11)) == [b"ab\n", b"c" * 10 + b"\n", b"d"]  # line end counts


# --- JSON lines files: items, artifacts, records, raw sources -----------------------------------------------


def test_jsonl_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    with (
        fifo(tmp_path / "items.jsonl") as f,
        pytest.raises(InputError, match=r"is a FIFO, not a regular file"),
    ):
        read_items(f)
    with fifo(tmp_path / "records.jsonl") as f, pytest.raises(InputError, match=r"is a FIFO"):
        read_run_records(f)


def test_jsonl_device_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"items\.jsonl: is a device, not a regular file"):
        read_jsonl_records(_device(tmp_path, "items.jsonl"))


def test_jsonl_line_over_the_cap_is_refused_unread(tmp_path: Path) -> None:
    p = tmp_path / "items.jsonl"
    with open(p, "wb") as fh:  # sparse: MAX_LINE_BYTES + 1 NUL bytes and no line break
        fh.truncate(MAX_LINE_BYTES + 1)
    with pytest.raises(FormatError, match=rf"items\.jsonl, line 1: longer than {MAX_LINE_BYTES:,} bytes"):
        read_jsonl_records(p)


def test_jsonl_lines_end_at_newline_only(tmp_path: Path) -> None:
    """``json.dumps(..., ensure_ascii=False)`` writes U+2028 and U+0085 raw: they stay inside their record
    (``str.splitlines`` used to cut the record there)."""
    p = tmp_path / "items.jsonl"
    rec = {**ITEM, "question": "a\u2028b\x85c"}
    p.write_text(json.dumps(rec, ensure_ascii=False) + "\r\n\n" + json.dumps(ITEM) + "\n", encoding="utf-8")
    assert read_jsonl_records(p) == [rec, ITEM]


def test_jsonl_not_utf8_names_the_line(tmp_path: Path) -> None:
    p = tmp_path / "items.jsonl"
    p.write_bytes(json.dumps(ITEM).encode() + b"\n" + b'{"id": "caf\xe9"}\n')
    with pytest.raises(FormatError, match=r"items\.jsonl: not a UTF-8 text file of JSON lines \(.* line 2\)"):
        read_jsonl_records(p)


# --- the review file (prism build --import-review) ----------------------------------------------------------


def _review(tmp_path: Path, artifact: str) -> Path:
    p = tmp_path / "review.csv"
    with open(p, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["item", "axis", "decision", "artifact"])
        w.writerow([ITEM["id"], "h", "fix", artifact])
    return p


def test_review_nested_artifact_is_one_line(tmp_path: Path) -> None:
    p = _review(tmp_path, "[" * 50_000 + "]" * 50_000)
    with pytest.raises(FormatError, match=r"review\.csv, line 2: column 'artifact': JSON nested more than "):
        import_review([], p, [])


def test_review_cell_over_the_csv_limit_is_one_line(tmp_path: Path) -> None:
    p = _review(tmp_path, "x" * 200_000)
    with pytest.raises(
        FormatError, match=r"review\.csv, line 2: not a readable CSV row \(a cell over 131,072"
    ):
        import_review([], p, [])


def test_review_fifo_and_device_are_refused(tmp_path: Path) -> None:
    with fifo(tmp_path / "review.csv") as f, pytest.raises(InputError, match=r"review\.csv: is a FIFO"):
        import_review([], f, [])
    with pytest.raises(InputError, match=r"r\.jsonl: is a device"):
        import_review([], _device(tmp_path, "r.jsonl"), [])


def test_review_bad_json_cell_still_named(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"review\.csv, line 2: column 'artifact' is not valid JSON"):
        import_review([], _review(tmp_path, "{not json"), [])


# --- the config file ----------------------------------------------------------------------------------------


def test_config_fifo_device_large_and_nested_are_refused(tmp_path: Path) -> None:
    with fifo(tmp_path / "models.toml") as f, pytest.raises(InputError, match=r"models\.toml: is a FIFO"):
        engine._config(f)
    with pytest.raises(InputError, match=r"z\.toml: is a device, not a regular file; expected a TOML config"):
        engine._config(_device(tmp_path, "z.toml"))
    big = tmp_path / "big.toml"
    big.write_text("# x\n" * (engine.MAX_CONFIG_BYTES // 4 + 1))
    with pytest.raises(InputError, match=r"big\.toml: .* bytes, over the 1,048,576 a config file may have"):
        engine._config(big)
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 50_000 + "]" * 50_000 + "\n")
    with pytest.raises(InputError, match=r"deep\.toml: not valid TOML \(nested too deeply"):
        engine._config(deep)


# --- model and judge replies --------------------------------------------------------------------------------


def test_deeply_nested_replies_are_invalid_not_a_crash() -> None:
    with pytest.raises(ValueError, match=rf"JSON nested more than {MAX_JSON_DEPTH} levels deep"):
        parse_json_object(DEEP)
    with pytest.raises(ValueError, match=r"JSON nested more than"):
        parse_json_object("```json\n" + DEEP + "\n```")
    assert parse_json_object('{"a": [1]}') == {"a": [1]}
    assert verify("format.json", DEEP) is False
    assert verify("format.json", '{"answer": "x"}') is True


# --- the CLI: nothing hangs or runs out of memory, exit 2, one line -----------------------------------------


def _cli(args: list[str], cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python -m benchsift *args`` in ``cwd`` under a 3 GB address-space cap, killed after ``timeout``."""
    return run_capped(args, cwd, 3 << 30, timeout)


@pytest.mark.parametrize("which", ["items", "artifacts", "config"])
@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_cli_prism_run_special_inputs(tmp_path: Path, which: str, kind: str) -> None:
    files = {
        "items": tmp_path / "items.jsonl",
        "artifacts": tmp_path / "arts.jsonl",
        "config": tmp_path / "models.toml",
    }
    files["items"].write_text(json.dumps(ITEM) + "\n")
    files["artifacts"].write_text("")
    files["config"].write_text(
        '[[endpoint]]\nname = "m"\nbase_url = "http://127.0.0.1:9"\nmodel = "m"\nrole = "model"\n'
    )
    bad = tmp_path / f"bad{files[which].suffix}"
    if kind == "fifo":
        os.mkfifo(bad)
    else:
        bad.symlink_to("/dev/zero")
    files[which] = bad
    args = ["prism", "run", "--items", str(files["items"]), "--artifacts", str(files["artifacts"])]
    args += ["--config", str(files["config"]), "--out", "o.jsonl", "--quiet"]
    res = _cli(args, tmp_path)
    err = res.stderr.strip()
    what = "a FIFO" if kind == "fifo" else "a device"
    assert res.returncode == 2, err
    assert err.startswith("benchsift: error: ") and "\n" not in err, err
    assert f"bad{files[which].suffix}: is {what}, not a regular file" in err, err
    assert not (tmp_path / "o.jsonl").exists()


# --- raw source records (prism sources --raw) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "why"),
    [
        ({"id": "m1", "question": "q?", "options": "foo(", "answer": "A"}, "SyntaxError"),
        ({"id": "m1", "question": "q?", "options": "[" * 300 + "]" * 300, "answer": "A"}, "SyntaxError"),
        (
            {"id": "m1", "question": "q?", "options": "", "answer": 5, "question_type": "open"},
            "AttributeError",
        ),
    ],
)
def test_raw_record_of_the_wrong_shape_is_one_line(record: dict[str, object], why: str) -> None:
    with pytest.raises(FormatError, match=rf"mmmu record 0: not a mmmu record .*\({why}: "):
        adapt_record("mmmu", record, 0)


def test_refcoco_image_fifo_and_bad_bbox(tmp_path: Path) -> None:
    rec = {"question_id": 7, "answer": "a cat", "image": "coco.png", "bbox": [1, 2, 3, 4]}
    with (
        fifo(tmp_path / "coco.png"),
        pytest.raises(InputError, match=r"image path 'coco\.png' is not a regular file"),
    ):
        adapt_record("refcocog", rec, 0, tmp_path)
    with pytest.raises(FormatError, match=r"bbox \['a', 2, 3, 4\] is not four numbers"):
        adapt_record("refcocog", {**rec, "bbox": ["a", 2, 3, 4]}, 0, tmp_path)
