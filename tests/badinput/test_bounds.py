"""Issue 32 (points 2, 3 and 6), run through the bad-input corpus machinery (corpus.py, test_corpus.py):
every reader bounded (zip members, JSON depth, wide columns, JSON lines), hostile engine configs, and the
older cases (damaged panel metadata, prism inputs, invalid settings). Each case: exit code 2, one line
``benchsift: error: ...``, nothing on stdout, nothing written, the planted files unchanged. The input sizes
are small where a flag lowers the limit; benchmarks/bench_bombs.py measures the full-size bombs."""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest
from corpus import Case, Env
from test_corpus import test_case as run_case

MiB = 1 << 20
CASES: list[Case] = []


def case(*args: Any, **kwargs: Any) -> None:
    CASES.append(Case(*args, **kwargs))


HEADER = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m", "dataset": {}, "config": {}}}
SAMPLE = {"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}}


def _eval(env: Env, sample: bytes, *, method: int = zipfile.ZIP_DEFLATED) -> str:
    path = env.root / "log.eval"
    with zipfile.ZipFile(path, "w", method) as zf:
        zf.writestr("header.json", json.dumps(HEADER))
        zf.writestr("samples/1_epoch_1.json", sample)
    return "log.eval"


def _padded(n: int) -> bytes:
    """A valid sample JSON of about ``n`` bytes (one long string: compresses about 1000x)."""
    return json.dumps({**SAMPLE, "pad": "a" * n}).encode()


def _zstd_eval(env: Env, content: bytes, declared: int) -> str:
    """An .eval whose sample member is zstd (zip method 93) declaring ``declared`` bytes."""
    import zstandard

    path = env.root / "log.eval"
    members = []
    for name, data, size in (
        ("header.json", json.dumps(HEADER).encode(), None),
        ("samples/1_epoch_1.json", content, declared),
    ):
        members.append((name, zstandard.ZstdCompressor().compress(data), size or len(data), zlib.crc32(data)))
    out, central = io.BytesIO(), b""
    for name, packed, size, crc in members:
        offset, fname = out.tell(), name.encode()
        out.write(
            struct.pack(
                "<4s2B4HL2L2H", b"PK\x03\x04", 63, 0, 0, 93, 0, 0, crc, len(packed), size, len(fname), 0
            )
        )
        out.write(fname + packed)
        central += (
            struct.pack(
                "<4s4B4HL2L5H2L",
                b"PK\x01\x02",
                63,
                0,
                63,
                0,
                0,
                93,
                0,
                0,
                crc,
                len(packed),
                size,
                len(fname),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + fname
        )
    start = out.tell()
    out.write(central + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 2, 2, len(central), start, 0))
    path.write_bytes(out.getvalue())
    return "log.eval"


def _inspect(log: str, *extra: str) -> list[str]:
    return ["import", "inspect", log, "-o", "p.parquet", *extra]


# --- zip members: declared size and ratio capped, zstd streamed and stopped ----------------------------

case(
    "eval-member-over-size-limit",
    32,
    lambda e: _inspect(_eval(e, _padded(2 * MiB)), "--max-member-bytes", "1000000"),
    match=r"log.eval, member samples/1_epoch_1.json: decompresses to 2,097,\d+ bytes, over the limit of "
    r"1,000,000 bytes per member .*raise the limit with --max-member-bytes",
)
case(
    "eval-member-over-ratio",
    32,
    lambda e: _inspect(_eval(e, _padded(4 * MiB))),  # 4 MiB of one letter deflates about 1000x
    match=r"member samples/1_epoch_1.json: decompresses [\d,]+x .*over the limit of 200x .*--max-ratio",
)
case(
    "eval-zstd-member-lies-about-its-size",
    32,
    lambda e: _inspect(_zstd_eval(e, _padded(64 * MiB), declared=len(_padded(100)))),
    match=r"member samples/1_epoch_1.json: size or CRC-32 does not match the zip directory",
)
case(
    "eval-zstd-member-over-size-limit",
    32,
    lambda e: _inspect(
        _zstd_eval(e, _padded(3 * MiB), declared=len(_padded(3 * MiB))), "--max-member-bytes", "2000000"
    ),
    match=r"decompresses to 3,145,\d+ bytes, over the limit of 2,000,000 bytes",
)


def _xlsx_bomb(env: Env) -> list[str]:
    """A real workbook (openpyxl) whose worksheet is padded with 4 MiB of blanks: about 1000x."""
    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["index", "question", "answer", "prediction", "hit"])
    book.active.append([1, "q", "A", "A", 1])
    plain = io.BytesIO()
    book.save(plain)
    path = env.root / "m_MMBench_result.xlsx"
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                cut = data.index(b"<sheetData>") + len(b"<sheetData>")
                data = data[:cut] + b" " * (4 * MiB) + data[cut:]
            dst.writestr(info.filename, data)
    return ["import", "vlmevalkit", str(path), "--model", "m", "-o", "p.parquet"]


case(
    "xlsx-worksheet-over-ratio",
    32,
    _xlsx_bomb,
    match=r"m_MMBench_result.xlsx, member xl/worksheets/sheet1.xml: decompresses [\d,]+x .*save it as .csv",
)

# --- JSON nested too deep: one line, never RecursionError ----------------------------------------------

DEEP = 200_000


def _deep_json_log(env: Env) -> list[str]:
    doc = json.dumps({**HEADER, "samples": [{**SAMPLE, "metadata": "X"}]})
    env.write("log.json", doc.replace('"X"', "[" * DEEP + "]" * DEEP))
    return _inspect("log.json")


def _deep_jsonl(env: Env) -> list[str]:
    d = env.root / "lm" / "m"
    d.mkdir(parents=True)
    (d / "samples_arc_2024-01-01T00-00-00.jsonl").write_text(
        '{"doc_id": 0, "x": ' + "[" * DEEP + "]" * DEEP + "}\n"
    )
    return ["import", "lm-eval", str(d / "samples_arc_2024-01-01T00-00-00.jsonl"), "-o", "p.parquet"]


def _deep_panel_meta(env: Env) -> list[str]:
    return ["info", _panel_meta(env, b"[" * DEEP + b"]" * DEEP)]


case("json-log-nested-200k", 32, _deep_json_log, match=r"log.json: JSON nested more than 256 levels deep")
case(
    "eval-member-nested-200k",
    32,
    lambda e: _inspect(
        _eval(e, json.dumps(SAMPLE)[:-1].encode() + b', "m": ' + b"[" * DEEP + b"]" * DEEP + b"}")
    ),
    match=r"log.eval, member samples/1_epoch_1.json: JSON nested more than 256 levels deep",
)
case(
    "jsonl-line-nested-200k",
    32,
    _deep_jsonl,
    match=r"samples_arc_2024-01-01T00-00-00.jsonl, line 1: JSON nested more than 256 levels deep",
)
case("panel-metadata-nested-200k", 32, _deep_panel_meta, match=r"bad.parquet: panel metadata: JSON nested")


def _long_line(env: Env) -> list[str]:
    d = env.root / "lm" / "m"
    d.mkdir(parents=True)
    path = d / "samples_arc_2024-01-01T00-00-00.jsonl"
    path.write_bytes(b'{"doc_id": 0, "pad": "' + b"a" * (65 * MiB))
    return ["import", "lm-eval", str(path), "-o", "p.parquet"]


case("jsonl-line-over-64Mi", 32, _long_line, match=r"line 1: longer than 67,108,864 characters; refused")

# --- wide tables: a column cap, counted before parsing ---------------------------------------------------


def _wide(env: Env, n: int, name: str = "wide.csv", sep: str = ",") -> str:
    env.write(
        name, "item" + sep + sep.join(f"m{j}" for j in range(n - 1)) + "\ni1" + (sep + "1") * (n - 1) + "\n"
    )
    return name


case(
    "wide-1000001-columns",
    32,
    lambda e: ["import", "wide", _wide(e, 1_000_001), "-o", "p.parquet"],
    match=r"wide.csv: the header has more than 200,000 columns; refused .*--max-columns",
)
case(
    "wide-over-max-columns-flag",
    32,
    lambda e: ["import", "wide", _wide(e, 11), "-o", "p.parquet", "--max-columns", "10"],
    match=r"wide.csv: the header has more than 10 columns",
)
case(
    "wide-tsv-over-max-columns",
    32,
    lambda e: ["import", "wide", _wide(e, 30, "wide.tsv", "\t"), "-o", "p.parquet", "--max-columns", "20"],
    match=r"wide.tsv: the header has more than 20 columns",
)
case(
    "wide-quoted-separators-are-one-column",
    32,
    lambda e: [
        "import",
        "wide",
        str(e.write("q.csv", 'item,"a,b,c,d,e",m2\ni1,1,0\n')),
        "-o",
        "p.parquet",
        "--max-columns",
        "3",
    ],
    outcome="ok",
    writes=("p.parquet", ".benchsift-manifest.json"),
)
case(
    "wide-max-columns-not-a-count",
    32,
    lambda e: ["import", "wide", _wide(e, 3), "-o", "p.parquet", "--max-columns", "1"],
    match=r"--max-columns must be an integer of at least 2, got 1",
)

# --- damaged panel metadata: one line, exit 2 (was 70) -------------------------------------------------


def _panel_meta(env: Env, raw: bytes) -> str:
    import pyarrow.parquet as pq

    table = pq.read_table(env.panel())
    meta = dict(table.schema.metadata or {})
    meta[b"benchsift"] = raw
    pq.write_table(table.replace_schema_metadata(meta), env.root / "bad.parquet")
    return "bad.parquet"


def _meta_edit(env: Env, edit: Any) -> str:
    import pyarrow.parquet as pq

    meta = json.loads(pq.read_schema(env.assets["panel"]).metadata[b"benchsift"])
    return _panel_meta(env, json.dumps(edit(meta)).encode())


case(
    "panel-meta-bad-json",
    32,
    lambda e: ["info", _panel_meta(e, b"{not json")],
    match=r"damaged panel metadata \(not valid JSON",
)
case(
    "panel-meta-a-list",
    32,
    lambda e: ["info", _panel_meta(e, b"[1, 2]")],
    match=r"a JSON list, expected an object",
)
case(
    "panel-meta-no-models",
    32,
    lambda e: ["info", _meta_edit(e, lambda m: {k: v for k, v in m.items() if k != "models"})],
    match=r"'models' is not a list of model records",
)
case(
    "panel-meta-extra-model",
    32,
    lambda e: ["info", _meta_edit(e, lambda m: {**m, "models": [*m["models"], {"model": "ghost"}]})],
    match=r"(\d+) models in the metadata, \d+ score columns in the file; no column \['score:\d+'\]",
)
case(
    "panel-meta-extra-model-compress",
    32,
    lambda e: [
        "compress",
        _meta_edit(e, lambda m: {**m, "models": [*m["models"], {"model": "ghost"}]}),
        "--out",
        "s",
    ],
    match=r"bad.parquet: damaged panel metadata",
)

# --- prism inputs and settings that were accepted --------------------------------------------------------


def _sources_raw(env: Env, raw: bytes) -> list[str]:
    (env.root / "okvqa.jsonl").write_bytes(raw)
    return ["prism", "sources", "--raw", "okvqa=okvqa.jsonl", "--no-sample", "--out", "items_out.jsonl"]


case(
    "sources-latin1-raw",
    32,
    lambda e: _sources_raw(
        e,
        json.dumps({"question_id": 1, "question": "caf\u00e9?", "answers": ["a"]}, ensure_ascii=False).encode(
            "latin-1"
        )
        + b"\n",
    ),
    match=r"okvqa.jsonl: not a UTF-8 text file of JSON lines",
)
case(
    "sources-binary-raw",
    32,
    lambda e: _sources_raw(e, bytes(range(256))),
    match=r"okvqa.jsonl: not a UTF-8 text file",
)


def _build_items(env: Env, text: str) -> list[str]:
    env.write("items.jsonl", text)
    cfg = env.config()
    return [
        "prism",
        "build",
        "--items",
        "items.jsonl",
        "--config",
        str(cfg),
        "--images",
        str(env.images),
        "--out",
        "a.jsonl",
        "--quiet",
    ]


case(
    "build-empty-items",
    32,
    lambda e: _build_items(e, ""),
    match=r"items.jsonl: no items \(the file holds no JSON lines\)",
)
case("build-blank-items", 32, lambda e: _build_items(e, "\n  \n"), match=r"items.jsonl: no items")


def _grade(env: Env, answered: Any) -> list[str]:
    items = env.items([["shapes_000.png"]])
    rec = {"model": "m", "item": "okvqa/1000", "axis": "q", "answered": answered, "response": "x"}
    env.write("recs.jsonl", json.dumps(rec) + "\n")
    env.write("a.jsonl", "")
    return [
        "prism",
        "grade",
        "--items",
        str(items),
        "--artifacts",
        "a.jsonl",
        "--records",
        "recs.jsonl",
        "--grader",
        "rules",
        "--out",
        "v.csv",
        "--quiet",
    ]


for _label, _value in (("maybe", "maybe"), ("string-false", "false"), ("one", 1), ("null", None)):
    case(
        f"grade-answered-{_label}",
        32,
        lambda e, v=_value: _grade(e, v),
        match=r"recs.jsonl, record 1: 'answered' must be true or false, got "
        + json.dumps(_value).replace("null", "None").replace('"', "'"),
    )


def _labels(env: Env, judge: str, human: str) -> list[str]:
    env.write("labels.csv", "axis,judge,human\nq,1,1\nq,0,0\nq," + judge + "," + human + "\n")
    return ["prism", "audit", "--labels", "labels.csv"]


for _bad in ("yes", "no", "2", "7"):
    case(
        f"audit-label-{_bad}",
        32,
        lambda e, b=_bad: _labels(e, "1", b),
        match=rf"labels.csv, line 4: 'human' label '{_bad}' is not a verdict; expected 0 or 1",
    )
case(
    "audit-judge-label-text",
    32,
    lambda e: _labels(e, "pass", "1"),
    match=r"'judge' label 'pass' is not a verdict",
)
case(
    "audit-labels-0-1-spellings",
    32,
    lambda e: _labels(e, "1.0", " 0"),
    outcome="ok",
)


def _panel(env: Env) -> str:
    env.panel()
    return "panel.parquet"


for _t in ("-1", "0", "-0.5"):
    case(
        f"instances-threshold-{_t}",
        32,
        lambda e, t=_t: ["redundancy", "instances", _panel(e), "--repeats", "5", "--threshold", t],
        match=r"--threshold must be above 0",
    )


def _k_clamped(env: Env, res: Any) -> None:
    out = json.loads(res.stdout)
    assert any(w.startswith("k=50 exceeds the 3 categories left after Stage 0") for w in out["warnings"]), out


case(
    "compress-k-above-categories-warns",
    32,
    lambda e: ["compress", _panel(e), "--out", "s", "--k", "50", "--json"],
    outcome="ok",
    writes=("s/*", "s", ".benchsift-manifest.json"),
    check=_k_clamped,
)

# --- engine configs: keys and base URLs refused at load, never echoed -------------------------------------


def _prism_run(env: Env, *, url: str | None = None, key_env: str = "BENCHSIFT_TEST_KEY") -> list[str]:
    """``prism run`` of one q item with the endpoint config ``env.config(url=, key_env=)``."""
    items = env.items([["shapes_000.png"]])
    cfg = env.config(url=url, key_env=key_env)
    return [
        "prism", "run", "--items", str(items), "--artifacts", str(env.empty("arts.jsonl")), "--config",
        str(cfg), "--images", str(env.images), "--axes", "q", "--out", "records.jsonl", "--quiet",
    ]  # fmt: skip


def _run_with_key(env: Env, key: str, monkeypatch_env: dict[str, str]) -> list[str]:
    monkeypatch_env["BENCHSIFT_BAD_KEY"] = key
    return _prism_run(env, key_env="BENCHSIFT_BAD_KEY")


KEYS = {
    "key-trailing-lf": "sk-good-key\n",
    "key-crlf-inside": "sk-go\r\nod-key",
    "key-trailing-crlf": "sk-good-key\r\n",
}
PENDING_ENV: dict[str, str] = {}
for _id, _key in KEYS.items():
    case(
        _id,
        32,
        lambda e, k=_key: _run_with_key(e, k, PENDING_ENV),
        match=r"endpoint 'correct': the key in environment variable BENCHSIFT_BAD_KEY \(api_key_env\) "
        r"(ends with|holds) a",
    )


def _run_url(env: Env, url: str) -> list[str]:
    return _prism_run(env, url=url)


for _n, _url in enumerate(
    ("http://user:hunter2@127.0.0.1:9/v1", "http://hunter2@127.0.0.1:9/v1", "https://:hunter2@h.example/v1")
):
    case(
        f"base-url-credentials-{_n}",
        32,
        lambda e, u=_url: _run_url(e, u),
        match=r"'base_url' must not hold credentials \(user:password@\).*got '[a-z]+://\*\*\*@",
    )


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bounds_case(
    case: Case, tmp_path: Path, server: Any, world: dict, assets: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    PENDING_ENV.clear()
    original = case.setup

    def setup(env: Env) -> list[str]:  # the setup may ask for environment variables: set them for the run
        argv = original(env)
        for k, v in PENDING_ENV.items():
            monkeypatch.setenv(k, v)
        return argv

    run_case(
        Case(case.id, case.group, setup, case.outcome, case.match, case.exit, case.writes, case.check),
        tmp_path,
        server,
        world,
        assets,
        monkeypatch,
    )


@pytest.mark.parametrize("key", sorted(set(KEYS.values())))
def test_a_bad_key_is_never_echoed(
    key: str, tmp_path: Path, server: Any, world: dict, assets: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from benchsift.cli.main import app

    env = Env(tmp_path / "work", server, world, assets, None)  # type: ignore[arg-type]
    env.plant()
    monkeypatch.chdir(env.root)
    argv = _run_with_key(env, key, {})
    monkeypatch.setenv("BENCHSIFT_BAD_KEY", key)
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 2 and "good" not in res.stderr and "key\\n" not in res.stderr, res.stderr
