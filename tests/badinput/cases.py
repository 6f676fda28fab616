"""The bad-input corpus: every case, grouped as in issue 12 (the group number is the issue's list item).

See corpus.py for what each outcome means and test_corpus.py for the one test that runs them.
"""

from __future__ import annotations

import base64
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from corpus import FOREIGN, Case, Env

CASES: list[Case] = []


def case(*args: Any, **kwargs: Any) -> None:
    CASES.append(Case(*args, **kwargs))


# --- group 1: image paths stay inside the image folder; only image files are read ----------------------


def _prism_run(items: Path, arts: Path, cfg: Path, images: str, *extra: str) -> list[str]:
    """``prism run`` of the q axis over ``items`` into ``records.jsonl``, quietly, plus ``extra``."""
    return [
        "prism",
        "run",
        "--items",
        str(items),
        "--artifacts",
        str(arts),
        "--config",
        str(cfg),
        "--images",
        images,
        "--axes",
        "q",
        "--out",
        "records.jsonl",
        "--quiet",
        *extra,
    ]


def _run(env: Env, images: list[list[str]], *extra: str) -> list[str]:
    items = env.items(images)
    arts = env.empty("artifacts.jsonl")
    cfg = env.config()
    return _prism_run(items, arts, cfg, str(env.images), *extra)


def _build(env: Env, images: list[list[str]]) -> list[str]:
    items = env.items(images)
    return [
        "prism",
        "build",
        "--items",
        str(items),
        "--config",
        str(env.config()),
        "--images",
        str(env.images),
        "--out",
        "artifacts.jsonl",
        "--quiet",
    ]


def _link(env: Env) -> str:
    (env.images / "link.png").symlink_to(env.secret)
    return "link.png"


def _fake_png(env: Env) -> str:
    env.write("images/fake.png", "this is text, not a PNG\n")
    return "fake.png"


def _dir_image(env: Env) -> str:
    (env.images / "sub.png").mkdir()
    return "sub.png"


def _sent_image(env: Env, res: Any) -> None:  # positive control: the server does see real images
    png = base64.b64encode((env.images / "shapes_000.png").read_bytes())
    assert any(png in b for b in env.server.bodies)


case(
    "run-parent-escape",
    1,
    lambda e: _run(e, [["shapes_000.png"], ["../secret.txt"]]),
    match="outside the image folder",
)
case("run-absolute", 1, lambda e: _run(e, [[str(e.secret)]]), match="must be relative to the image folder")
case("run-symlink-out", 1, lambda e: _run(e, [[_link(e)]]), match="outside the image folder")
case("run-not-an-image", 1, lambda e: _run(e, [[_fake_png(e)]]), match="not an image file")
case("run-directory", 1, lambda e: _run(e, [[_dir_image(e)]]), match="not a regular file")
case("run-missing", 1, lambda e: _run(e, [["nope.png"]]), match="not found")
case(
    "run-deep-escape", 1, lambda e: _run(e, [["a/../../../../etc/passwd"]]), match="outside the image folder"
)
case("build-parent-escape", 1, lambda e: _build(e, [["../secret.txt"]]), match="outside the image folder")
case("build-symlink-out", 1, lambda e: _build(e, [[_link(e)]]), match="outside the image folder")
case("build-not-an-image", 1, lambda e: _build(e, [[_fake_png(e)]]), match="not an image file")
case(
    "run-good-images",
    1,
    lambda e: _run(e, [["shapes_000.png"], ["shapes_001.png"]]),
    outcome="ok",
    writes=("records.jsonl", ".benchsift-manifest.json", "prism-cache.sqlite*"),
    check=_sent_image,
)


def _sources(env: Env, image: str, *extra: str) -> list[str]:
    raw = env.write(
        "okvqa.jsonl",
        json.dumps({"question_id": 1, "question": "q?", "answers": ["a"], "image": image}) + "\n",
    )
    return ["prism", "sources", "--raw", f"okvqa={raw}", "--no-sample", "--out", "items_out.jsonl", *extra]


case(
    "sources-etc-passwd",
    1,
    lambda e: _sources(e, "../../etc/passwd", "--images", str(e.images)),
    match="outside the image folder",
)
case("sources-absolute", 1, lambda e: _sources(e, "/etc/passwd"), match="must be relative")
case(
    "sources-inside",
    1,
    lambda e: _sources(e, "shapes_000.png", "--images", str(e.images)),
    outcome="ok",
    writes=("items_out.jsonl", ".benchsift-manifest.json"),
)


# --- group 2: output directories and files -----------------------------------------------------------

SUITE = ("suite/*",)


def _compress(out: str, *extra: str, panel: str = "panel.parquet") -> list[str]:
    return ["compress", panel, "--out", out, "--k", "2", "--json", *extra]


def _suite_written(folder: str) -> Any:
    def check(env: Env, res: Any) -> None:
        assert (env.root / folder / "items.csv").is_file()
        assert (env.root / folder / ".benchsift-manifest.json").is_file()

    return check


def _compress_into_data(env: Env) -> list[str]:
    env.panel("data/panel.parquet")
    env.write("data/notes.md", FOREIGN)
    return _compress("data", panel="data/panel.parquet")


def _compress_again(env: Env) -> list[str]:
    env.panel()
    assert env.invoke(_compress("suite")).exit_code == 0
    (env.root / "suite" / "mine.txt").write_text(FOREIGN)
    return _compress("suite", "--seed", "1")


def _compress_foreign_in_suite(env: Env, *extra: str) -> list[str]:
    env.panel()
    env.write("suite/items.csv", "my own items table\n")
    return _compress("suite", *extra)


def _check_forced(env: Env, res: Any) -> None:
    assert (env.root / "suite" / "items.csv").read_text() != "my own items table\n"


def _compress_user_edited(env: Env) -> list[str]:
    env.panel()
    assert env.invoke(_compress("suite")).exit_code == 0
    with open(env.root / "suite" / "items.csv", "a") as fh:
        fh.write("# a line I added\n")
    return _compress("suite")


def _umask_check(env: Env, res: Any) -> None:
    mask = os.umask(0)
    os.umask(mask)
    for p in (env.root / "suite").iterdir():
        assert p.stat().st_mode & 0o777 == 0o666 & ~mask, p


case(
    "compress-into-input-dir",
    2,
    _compress_into_data,
    outcome="ok",
    writes=("data/*",),
    check=_suite_written("data"),
)
case(
    "compress-out-dot",
    2,
    lambda e: [*_compress(".", panel=str(e.panel()))],
    outcome="ok",
    writes=("*.csv", "stages.md", "suite.json", "full_score.json", "index.html", ".benchsift-manifest.json"),
    check=_suite_written("."),
)


def _foreign_page(env: Env, argv: list[str]) -> list[str]:
    """A user's own ``out/index.html`` in the output folder: the command must refuse before it writes any
    of its files (compress, audit and the redundancy commands wrote theirs, then refused the page)."""
    env.panel()
    env.write("out/index.html", "<html>the user's own page</html>\n")
    return argv


for _name, _argv in (
    ("compress", ["compress", "panel.parquet", "--out", "out", "--k", "2"]),
    ("audit", ["audit", "panel.parquet", "--out", "out"]),
    ("redundancy", ["redundancy", "instances", "panel.parquet", "--repeats", "5", "--out", "out"]),
):
    case(
        f"{_name}-out-holds-a-foreign-page",
        2,
        lambda e, argv=_argv: _foreign_page(e, argv),
        match=r"out/index.html: exists and was not written by benchsift",
    )
case(
    "report-empty-folder",  # before: a page of 0 sections written, exit 0
    2,
    lambda e: (os.mkdir(e.root / "empty"), ["report", "empty"])[1],
    match=r"empty: no results of a benchsift command to report",
)
case("compress-rerun-own-files", 2, _compress_again, outcome="ok", writes=SUITE, check=_umask_check)
case(
    "compress-foreign-file-in-dir",
    2,
    _compress_foreign_in_suite,
    match="items.csv: exists and was not written by benchsift",
)
case(
    "compress-force-overwrites",
    2,
    lambda e: _compress_foreign_in_suite(e, "--force"),
    outcome="ok",
    writes=SUITE,
    check=_check_forced,
)
case("compress-user-edited-output", 2, _compress_user_edited, match="not written by benchsift")
case(
    "compress-out-is-a-file", 2, lambda e: (e.panel(), _compress("notes.md"))[1], match="notes.md: is a file"
)
case(
    "compress-out-under-a-file",
    2,
    lambda e: (e.panel(), _compress("notes.md/suite"))[1],
    match="is a file, not a dir",
)
case("compress-out-is-input-file", 2, lambda e: (e.panel(), _compress("panel.parquet"))[1], match="is a file")


def _wide_csv(env: Env) -> Path:
    return env.write("wide.csv", "item,m1,m2,m3\ni1,1,0,1\ni2,0,0,1\ni3,1,1,1\n")


def _import(env: Env, out: str, *extra: str) -> list[str]:
    return ["import", "wide", str(_wide_csv(env)), "--benchmark", "B", "-o", out, *extra]


case("import-o-dir", 2, lambda e: _import(e, "images"), match="images: is a directory")
case("import-o-dot", 2, lambda e: _import(e, "."), match="is a directory")
case("import-o-foreign", 2, lambda e: _import(e, "notes.md"), match="notes.md: exists and was not written")


def _import_long(env: Env, out: str, *extra: str) -> list[str]:
    src = env.write("long.csv", "model,benchmark,item,score,answer\nm1,B,i1,1,A\nm2,B,i1,0,B\n")
    return ["import", "long", str(src), "-o", out, *extra]


case(
    "import-answers-out-foreign",
    2,
    lambda e: _import_long(e, "p.parquet", "--answers-out", "notes.md"),
    match="notes.md: exists",
)
case("import-o-new-subdir", 2, lambda e: _import(e, "out/p.parquet"), outcome="ok", writes=("out/*",))
case(
    "import-o-force",
    2,
    lambda e: (e.write("old.parquet", FOREIGN), _import(e, "old.parquet", "--force"))[1],
    outcome="ok",
    writes=("old.parquet", ".benchsift-manifest.json"),
)
case(
    "simulate-o-foreign",
    2,
    lambda e: ["simulate", "-o", "notes.md", "--models", "4"],
    match="notes.md: exists",
)
case(
    "simulate-truth-dir",
    2,
    lambda e: ["simulate", "-o", "p.parquet", "--truth", "images"],
    match="is a directory",
)


def _score(env: Env, out: str, *extra: str) -> list[str]:
    env.verdicts()
    return ["prism", "score", "verdicts.csv", "--bootstrap", "50", "--out", out, "--json", *extra]


def _verdicts_kept(env: Env, res: Any) -> None:
    assert (env.root / "verdicts.csv").read_bytes() == env.assets["verdicts"].read_bytes()
    assert (env.root / "result.json").is_file()


case(
    "score-out-dot",
    2,
    lambda e: _score(e, "."),
    outcome="ok",
    writes=("*.csv", "result.json", "figures/*", "index.html", ".benchsift-manifest.json"),
    check=_verdicts_kept,
)
case(
    "score-foreign-in-out",
    2,
    lambda e: (e.write("res/leaderboard.csv", FOREIGN), _score(e, "res"))[1],
    match="leaderboard.csv: exists and was not written",
)
case("score-out-is-file", 2, lambda e: _score(e, "notes.md"), match="is a file")


def _dims(env: Env, out: str) -> list[str]:
    env.panel()
    env.write(f"{out}/notes.md", FOREIGN)
    return ["redundancy", "dimensions", "panel.parquet", "--out", out, "--json"]


def _dims_survive(env: Env, res: Any) -> None:
    assert (env.root / "red" / "notes.md").read_text() == FOREIGN
    assert (env.root / "red" / "dimensions.json").is_file()


case(
    "redundancy-foreign-survives",
    2,
    lambda e: _dims(e, "red"),
    outcome="ok",
    writes=("red/*",),
    check=_dims_survive,
)
case(
    "validate-figure-foreign",
    2,
    lambda e: (
        e.panel(),
        e.write("fig.png", FOREIGN),
        ["validate", "panel.parquet", "--splits", "2", "--figure", "fig"],
    )[2],
    match="fig.png: exists and was not",
)
case(
    "leftout-figure-dir",
    2,
    lambda e: (
        e.panel(),
        (e.root / "fig.svg").mkdir(),
        ["diagnose", "leftout", "panel.parquet", "--figure", "fig"],
    )[2],
    match="fig.svg: is a directory",
)


def _engine_out(env: Env, cmd: str, out: str) -> list[str]:
    items, arts, cfg = env.items(), env.empty("arts.jsonl"), env.config()
    if cmd == "sources":
        return ["prism", "sources", "--items", str(items), "--no-sample", "--out", out]
    if cmd == "build":
        return [
            "prism",
            "build",
            "--items",
            str(items),
            "--config",
            str(cfg),
            "--images",
            "images",
            "--out",
            out,
        ]
    if cmd == "run":
        return [
            "prism",
            "run",
            "--items",
            str(items),
            "--artifacts",
            str(arts),
            "--config",
            str(cfg),
            "--images",
            "images",
            "--out",
            out,
        ]
    recs = env.empty("recs.jsonl")
    return [
        "prism",
        "grade",
        "--items",
        str(items),
        "--artifacts",
        str(arts),
        "--records",
        str(recs),
        "--grader",
        "rules",
        "--out",
        out,
    ]


for _cmd in ("sources", "build", "run", "grade"):
    case(
        f"{_cmd}-out-foreign",
        2,
        lambda e, c=_cmd: _engine_out(e, c, "notes.md"),
        match="notes.md: exists and was not",
    )
    case(f"{_cmd}-out-dir", 2, lambda e, c=_cmd: _engine_out(e, c, "images"), match="images: is a directory")
case(
    "build-review-foreign",
    2,
    lambda e: [*_engine_out(e, "build", "a.jsonl"), "--review", "notes.md"],
    match="notes.md: exists",
)
case(
    "demo-foreign-survives",
    2,
    lambda e: (e.write("d/notes.md", FOREIGN), ["demo", "--out", "d", "--json"])[1],
    outcome="ok",
    writes=("d/*",),
    check=lambda e, r: (e.root / "d" / "notes.md").read_text() == FOREIGN or 1 / 0,
)


# --- group 4: engine runs that got nothing exit non-zero (code 3) after writing what they have ----------

os.environ.setdefault("BENCHSIFT_BAD_KEY", "sk-wrong-key")


def _run_with(env: Env, *extra: str, **config: Any) -> list[str]:
    items, arts = env.items(), env.empty("artifacts.jsonl")
    cfg = env.config(**config)
    env.mark = len(env.server.bodies)
    return _prism_run(items, arts, cfg, "images", *extra)


def _calls(n_requests: int, n_answered: int = 0) -> Any:
    def check(env: Env, res: Any) -> None:
        assert len(env.server.bodies) - env.mark == n_requests
        recs = [json.loads(x) for x in (env.root / "records.jsonl").read_text().splitlines()]
        assert len(recs) == 8 and sum(r["answered"] for r in recs) == n_answered

    return check


RUN_OUT = ("records.jsonl", ".benchsift-manifest.json")
case(
    "run-all-401",
    4,
    lambda e: _run_with(e, key_env="BENCHSIFT_BAD_KEY"),
    outcome="ok",
    exit=3,
    writes=RUN_OUT,
    check=_calls(1),
)
case(
    "run-closed-port",
    4,
    lambda e: _run_with(e, url="http://127.0.0.1:9/v1"),
    outcome="ok",
    exit=3,
    writes=RUN_OUT,
    check=_calls(0),
)


def _half_broken(env: Env, *extra: str) -> list[str]:
    items = env.items([[f"shapes_00{i}.png"] for i in range(4)])
    arts, cfg = env.empty("artifacts.jsonl"), env.config(models=("correct", "broken"))
    return _prism_run(items, arts, cfg, "images", "--json", *extra)


def _half_answered(env: Env, res: Any) -> None:
    recs = [json.loads(x) for x in (env.root / "records.jsonl").read_text().splitlines()]
    assert len(recs) == 8 and sum(r["answered"] for r in recs) == 4
    assert json.loads(res.stdout)["unanswered"] == 4  # the summary is still printed


case(
    "run-half-lost",
    4,
    _half_broken,
    outcome="ok",
    exit=3,
    writes=RUN_OUT + ("prism-cache.sqlite*",),
    check=_half_answered,
)
case(
    "run-half-lost-allowed",
    4,
    lambda e: _half_broken(e, "--max-lost", "0.5"),
    outcome="ok",
    writes=RUN_OUT + ("prism-cache.sqlite*",),
    check=_half_answered,
)
case("run-max-lost-2", 4, lambda e: _run_with(e, "--max-lost", "2"), match="--max-lost: expected a fraction")


def _build_bad_key(env: Env) -> list[str]:
    items, cfg = env.items(), env.config(key_env="BENCHSIFT_BAD_KEY")
    env.mark = len(env.server.bodies)
    return [
        "prism",
        "build",
        "--items",
        str(items),
        "--config",
        str(cfg),
        "--images",
        "images",
        "--out",
        "artifacts.jsonl",
        "--quiet",
    ]


case(
    "build-all-401",
    4,
    _build_bad_key,
    outcome="ok",
    exit=3,
    writes=("artifacts.jsonl", ".benchsift-manifest.json"),
    check=lambda e, r: len(e.server.bodies) - e.mark == 1 or 1 / 0,
)


def _grade_bad_key(env: Env) -> list[str]:
    items = env.items([["shapes_000.png"]])
    recs = env.write(
        "recs.jsonl",
        json.dumps(
            {
                "model": "m",
                "item": "okvqa/1000",
                "axis": "q",
                "prompt": "p",
                "response": "It is 1.",
                "answered": True,
            }
        )
        + "\n",
    )
    cfg = env.config(key_env="BENCHSIFT_BAD_KEY")
    return [
        "prism",
        "grade",
        "--items",
        str(items),
        "--artifacts",
        str(env.empty("a.jsonl")),
        "--records",
        str(recs),
        "--config",
        str(cfg),
        "--grader",
        "judge",
        "--out",
        "verdicts.csv",
        "--quiet",
    ]


case(
    "grade-judge-401",
    4,
    _grade_bad_key,
    outcome="ok",
    exit=3,
    writes=("verdicts.csv", ".benchsift-manifest.json"),
)


# --- group 3: a percentage scale is detected only when the values are consistent with it ----------------


def _long01(env: Env, stray: str, n: int = 20) -> list[str]:
    rows = ["model,benchmark,item,score"]
    rows += [f"m{m},B,i{i},{(i + m) % 2}" for m in range(3) for i in range(n)]
    rows[7] = rows[7].rsplit(",", 1)[0] + f",{stray}"
    src = env.write("long.csv", "\n".join(rows) + "\n")
    return ["import", "long", str(src), "-o", "p.parquet"]


def _wide01(env: Env, stray: str) -> list[str]:
    rows = ["item,m1,m2,m3"] + [f"i{i},{i % 2},{(i + 1) % 2},1" for i in range(12)]
    rows[5] = f"i4,{stray},0,1"
    return [
        "import",
        "wide",
        str(env.write("wide.csv", "\n".join(rows) + "\n")),
        "--benchmark",
        "B",
        "-o",
        "p.parquet",
    ]


def _means(expected: dict[str, float]) -> Any:
    def check(env: Env, res: Any) -> None:
        from benchsift.panel import Panel

        p = Panel.load(env.root / "p.parquet")
        import numpy as np

        got = dict(zip(p.model_ids, np.nanmean(p.scores, axis=1).round(6), strict=True))
        assert got == expected, got

    return check


case(
    "long-01-with-a-2",
    3,
    lambda e: _long01(e, "2"),
    match=r"long.csv, line 8: benchmark 'B': score 2.0 above 1",
)
case("long-01-with-1.5", 3, lambda e: _long01(e, "1.5"), match=r"line 8: .*score 1.5 above 1, but only")
case(
    "wide-01-with-a-2", 3, lambda e: _wide01(e, "2"), match=r"score 2.0 above 1, but only \d+% of its nonzero"
)
case(
    "long-percentages",
    3,
    lambda e: [
        "import",
        "long",
        str(e.write("pct.csv", "model,benchmark,item,score\na,B,x,45.5\nb,B,x,80\nc,B,x,0\n")),
        "-o",
        "p.parquet",
    ],
    outcome="ok",
    writes=("p.parquet", ".benchsift-manifest.json"),
    check=_means({"a": 0.455, "b": 0.8, "c": 0.0}),
)
case(
    "long-0-100-items",
    3,
    lambda e: [
        "import",
        "long",
        str(
            e.write(
                "pct.csv",
                "model,benchmark,item,score\n"
                + "".join(f"a,B,i{i},{100 if i < 3 else 0}\n" for i in range(10)),
            )
        ),
        "-o",
        "p.parquet",
    ],
    outcome="ok",
    writes=("p.parquet", ".benchsift-manifest.json"),
    check=_means({"a": 0.3}),
)
case(
    "long-01-declared-100",
    3,
    lambda e: [*_long01(e, "2"), "--scale", "B=100"],
    outcome="ok",
    writes=("p.parquet", ".benchsift-manifest.json"),
)


# --- group 5: ordinary mistakes get one line, never a traceback -----------------------------------------

BASE_EP = (
    '[[endpoint]]\nname = "m"\nbase_url = "{url}"\nmodel = "correct"\napi_key_env = "BENCHSIFT_TEST_KEY"\n'
)


def _run_cfg(env: Env, body: str, *extra: str) -> list[str]:
    items, arts = env.items(), env.empty("artifacts.jsonl")
    cfg = env.config(body=body)
    return _prism_run(items, arts, cfg, "images", *extra)


for _id, _body, _match in (
    (
        "toml-timeout-string",
        'timeout = "fast"\n' + BASE_EP,
        r"engine.toml: top level: 'timeout' must be a valid number",
    ),
    ("toml-judges-string", 'judges = "gen"\n' + BASE_EP, r"engine.toml: top level: 'judges' must be a table"),
    (
        "toml-cache-int",
        "cache = 5\n" + BASE_EP,
        r"engine.toml: top level: 'cache' must be a valid string, got 5",
    ),
    ("toml-not-toml", "this is = = not toml\n", r"engine.toml: not valid TOML"),
    ("toml-no-endpoint", "timeout = 5\n", r"engine.toml: expected at least one \[\[endpoint\]\] table"),
    ("toml-invalid-url", BASE_EP.replace("{url}", "not a url"), r"#1 \('m'\): 'base_url' must be an http"),
    ("toml-unknown-key", BASE_EP + "colour = 1\n", r"unknown keys \['colour'\]"),
):
    case(_id, 5, lambda e, b=_body: _run_cfg(e, b), match=_match)


def _truncated_panel(env: Env) -> str:
    data = env.assets["panel"].read_bytes()
    (env.root / "panel.parquet").write_bytes(data[: len(data) // 2])
    return "panel.parquet"


case(
    "compress-truncated-parquet",
    5,
    lambda e: ["compress", _truncated_panel(e), "--out", "s"],
    match=r"panel.parquet: not a (parquet|benchsift)",
)
case(
    "validate-truncated-parquet",
    5,
    lambda e: ["validate", _truncated_panel(e)],
    match=r"panel.parquet: not a",
)
case(
    "diagnose-truncated-parquet",
    5,
    lambda e: ["diagnose", "families", _truncated_panel(e)],
    match=r"panel.parquet: not a",
)
case("info-truncated-parquet", 5, lambda e: ["info", _truncated_panel(e)], match=r"panel.parquet: not a")
case(
    "sources-seeds-letters",
    5,
    lambda e: ["prism", "sources", "--items", str(e.items()), "--seeds", "a,b", "--out", "o.jsonl"],
    match=r"--seeds: expected comma-separated integers",
)
case("validate-n-jobs-0", 5, lambda e: ["validate", str(e.panel()), "--n-jobs", "0"], match=r"--n-jobs")


def _cache_file(env: Env, content: bytes) -> list[str]:
    (env.root / "c.sqlite").write_bytes(content)
    return _run_cfg(env, BASE_EP, "--cache", "c.sqlite")


case(
    "cache-not-sqlite",
    5,
    lambda e: _cache_file(e, b"hello, I am a text file\n"),
    match=r"c.sqlite: not an SQLite file",
)
case(
    "cache-empty-file", 8, lambda e: _cache_file(e, b""), match=r"c.sqlite: empty file, not a response cache"
)
case(
    "cache-corrupt",
    5,
    lambda e: _cache_file(e, b"SQLite format 3\x00" + b"\xff" * 200),
    match=r"c.sqlite: corrupt response cache",
)


def _user_database(env: Env, tables: list[str]) -> list[str]:
    """A user's own SQLite database at the cache path: benchsift must neither change nor use it."""
    conn = sqlite3.connect(env.root / "c.sqlite")
    for sql in tables:
        conn.execute(sql)
    conn.execute(
        "INSERT INTO responses VALUES ('k', 'e', 'q', 'a', 0)"
        if "endpoint" in tables[0]
        else "INSERT INTO responses VALUES (1, 'the user''s row')"
    )
    conn.commit()
    conn.close()
    return _run_cfg(env, BASE_EP, "--cache", "c.sqlite")


_CACHE_RESPONSES = (
    "CREATE TABLE responses (key TEXT, endpoint TEXT, request TEXT, response TEXT, created REAL)"
)
case(
    "cache-user-database-responses-table",  # before: turned to WAL, given a leases table, then exit 70
    5,
    lambda e: _user_database(e, ["CREATE TABLE responses (id INTEGER, note TEXT)"]),
    match=r"c.sqlite: table 'responses' has columns \['id', 'note'\], not a benchsift response cache's",
)
case(
    "cache-user-database-more-tables",  # a cache's responses table beside a table of the user's own
    5,
    lambda e: _user_database(e, [_CACHE_RESPONSES, "CREATE TABLE important (x TEXT)"]),
    match=r"c.sqlite: an SQLite file but not a benchsift response cache \(its tables: important, responses; "
    r"important not a cache table\); nothing changed",
)
case(
    "cache-is-dir",
    5,
    lambda e: (os.mkdir(e.root / "c.sqlite"), _run_cfg(e, BASE_EP, "--cache", "c.sqlite"))[1],
    match=r"c.sqlite: is a directory",
)


def _suite(env: Env) -> None:
    env.panel()
    assert env.invoke(["compress", "panel.parquet", "--out", "suite", "--k", "2"]).exit_code == 0


case(
    "estimate-empty-new-scores",
    5,
    lambda e: (_suite(e), e.empty("new.csv"), ["estimate", "suite", "new.csv"])[2],
    match=r"new.csv: (empty|no)",
)


def _forged_full_score(key: str, value: Any) -> Any:
    """A suite whose full_score.json has ``key`` forged to ``value`` (issue 20: every reader refuses a
    damaged file in one line, in bounded time: a level above 1 used to loop for ever)."""

    def setup(env: Env) -> list[str]:
        _suite(env)
        path = env.root / "suite" / "full_score.json"
        doc = json.loads(path.read_text())
        doc[key] = value
        path.write_text(json.dumps(doc))
        return ["estimate", "suite", "panel.parquet"]

    return setup


NOT_A_MODEL = r"full_score.json: not a benchsift full-score model \("
case(
    "estimate-forged-full-score",
    5,
    _forged_full_score("cv_mae_shift", [0.1, 0.2]),
    match=NOT_A_MODEL + r"expected an object of per-method lists, got list\)",
)
case(
    "estimate-forged-full-score-level",
    5,
    _forged_full_score("level", 1.5),
    match=NOT_A_MODEL + r"level: expected a coverage between 0 and 1, got 1.5\)",
)
case(
    "spectrum-bad-eras",
    5,
    lambda e: ["diagnose", "spectrum", str(e.panel()), "--eras", "2024-13-45"],
    match=r"--eras: '2024-13-45' is not a date",
)
case(
    "leftout-alpha-negative",
    5,
    lambda e: ["diagnose", "leftout", str(e.panel()), "--alpha", "-1"],
    match=r"--alpha: expected a ridge penalty >= 0, got -1.0",
)


def _grade_recs(env: Env, rec: dict[str, Any], art: str = "") -> list[str]:
    items = env.items([["shapes_000.png"]])
    recs = env.write("recs.jsonl", json.dumps(rec) + "\n")
    arts = env.write("a.jsonl", art)
    return [
        "prism",
        "grade",
        "--items",
        str(items),
        "--artifacts",
        str(arts),
        "--records",
        str(recs),
        "--grader",
        "rules",
        "--out",
        "verdicts.csv",
        "--quiet",
    ]


case(
    "grade-record-without-response",
    5,
    lambda e: _grade_recs(e, {"model": "m", "item": "okvqa/1000", "axis": "q", "answered": True}),
    match=r"recs.jsonl, record 1: missing field 'response'",
)
case(
    "grade-artifact-data-null",
    5,
    lambda e: _grade_recs(
        e,
        {"model": "m", "item": "okvqa/1000", "axis": "h", "answered": True, "response": "x"},
        json.dumps({"item": "okvqa/1000", "axis": "h", "status": "ok", "data": None}) + "\n",
    ),
    match=r"a.jsonl, record 1: .*'data'",
)
case(
    "usage-error-one-line",
    5,
    lambda e: ["compress", str(e.panel()), "--out", "s", "--k", "two"],
    match=r"Invalid value for '--k'.*\(see benchsift compress --help\)",
)


# --- group 6: invalid settings are refused --------------------------------------------------------------

for _id, _body, _match in (
    ("toml-timeout-0", "timeout = 0\n" + BASE_EP, r"'timeout' must be greater than 0, got 0"),
    ("toml-timeout-negative", "timeout = -3\n" + BASE_EP, r"'timeout' must be greater than 0, got -3"),
    ("toml-endpoint-timeout-0", BASE_EP + "timeout = 0\n", r"#1 \('m'\): 'timeout' must be greater than 0"),
    (
        "toml-max-attempts-0",
        "max_attempts = 0\n" + BASE_EP,
        r"'max_attempts' must be greater than or equal to 1",
    ),
    (
        "toml-retry-initial-negative",
        "retry_initial = -0.5\n" + BASE_EP,
        r"'retry_initial' must be greater than or",
    ),
    (
        "toml-concurrency-true",
        BASE_EP + "concurrency = true\n",
        r"'concurrency' must be a valid integer, got True",
    ),
    ("toml-timeout-nan", "timeout = nan\n" + BASE_EP, r"'timeout' must be a finite number"),
):
    case(_id, 6, lambda e, b=_body: _run_cfg(e, b), match=_match)

case(
    "build-max-reasks-negative",
    6,
    lambda e: [*_engine_out(e, "build", "a.jsonl"), "--max-reasks", "-1"],
    match=r"--max-reasks: expected an integer >= 0",
)
case(
    "run-unknown-axis",
    6,
    lambda e: _run_cfg(e, BASE_EP, "--axes", "q,colour"),
    match=r"--axes: unknown axis 'colour'",
)


def _audit(env: Env, *extra: str) -> list[str]:
    env.verdicts("a.csv")
    env.verdicts("b.csv")
    return ["prism", "audit", "a.csv", "b.csv", *extra]


case(
    "audit-threshold-2",
    6,
    lambda e: _audit(e, "--threshold", "2"),
    match=r"--threshold: expected a number in \[-1, 1\]",
)
case(
    "stage3-min-coverage-negative",
    6,
    lambda e: ["diagnose", "stage3", str(e.panel()), "--k", "2", "--min-coverage", "-1"],
    match=r"--min-coverage: expected 1 to 6 benchmarks a model must cover, got -1",
)
case(
    "analyze-unknown-axis",
    6,
    lambda e: [
        "prism",
        "analyze",
        "--axis-means",
        str(e.write("m.csv", "model,q,h\na,0.5,0.6\nb,0.7,0.2\nc,0.1,0.3\n")),
        "--axes",
        "q,h,zz",
    ],
    match=r"zz",
)
case(
    "score-alpha-2",
    6,
    lambda e: ["prism", "score", str(e.verdicts()), "--alpha", "2"],
    match=r"alpha: expected a number strictly between 0 and 1, got 2.0",
)
case(
    "estimate-level-2",
    6,
    lambda e: (_suite(e), ["estimate", "suite", "panel.parquet", "--level", "2"])[1],
    match=r"level",
)
case(
    "estimate-n-boot-0",
    6,
    lambda e: (_suite(e), ["estimate", "suite", "panel.parquet", "--n-boot", "0"])[1],
    match=r"--n-boot: expected an int >= 1, got 0",
)
case(
    "redundancy-benchmarks-level",
    6,
    lambda e: ["redundancy", "benchmarks", str(e.panel()), "--level", "domain"],
    match=r"--level must be auto, benchmark or item, got 'domain'",
)


# --- group 7: degenerate data is refused with the reason -------------------------------------------------


def _small_panel(
    env: Env,
    n_models: int,
    *,
    nan_models: int = 0,
    n_bench: int = 3,
    n_items: int = 12,
    categories: bool = True,
) -> str:
    """A long table of ``n_models`` models (the last ``nan_models`` with no score), saved as a panel."""
    import numpy as np
    import pandas as pd

    from benchsift.panel import Panel

    rng = np.random.default_rng(0)
    rows = []
    for m in range(n_models):
        for b in range(n_bench):
            for i in range(n_items):
                score = float("nan") if m >= n_models - nan_models else float(rng.random() < 0.3 + 0.1 * m)
                row = {"model": f"m{m}", "benchmark": f"B{b}", "item": f"i{i}", "score": score}
                if categories:
                    row["category"] = f"C{b % 2}" if n_bench > 1 else "C0"
                rows.append(row)
    Panel.from_long(pd.DataFrame(rows)).save(env.root / "small.parquet")
    return "small.parquet"


for _n, _nan in ((1, 0), (2, 0), (4, 2)):
    case(
        f"compress-{_n}-models-{_nan}-empty",
        7,
        lambda e, n=_n, k=_nan: ["compress", _small_panel(e, n, nan_models=k), "--out", "s", "--k", "1"],
        match=rf"compress: image-condition models with scores: {_n - _nan} found, at least 3 needed",
    )
case(
    "instances-2-models",
    7,
    lambda e: ["redundancy", "instances", _small_panel(e, 2), "--repeats", "5"],
    match=r"instance redundancy on the panel: models with scores: 2 found, at least 3 needed",
)
case(
    "instances-threshold-above-one",
    7,
    lambda e: ["redundancy", "instances", _small_panel(e, 5), "--repeats", "5", "--threshold", "1.5"],
    match=r"--threshold must be at most 1 \(SRCC, PLCC, R\^2 and Kendall's tau never exceed 1",
)
case(
    "dimensions-one-dimension",
    7,
    lambda e: ["redundancy", "dimensions", _small_panel(e, 5, n_bench=1), "--benchmark", "B0"],
    match=r"dimensions \('category'\): 1 found, at least 2 needed",
)
case(
    "benchmarks-one-benchmark",
    7,
    lambda e: ["redundancy", "benchmarks", _small_panel(e, 5, n_bench=1), "--level", "benchmark"],
    match=r"cross-benchmark redundancy: benchmarks: 1 found, at least 2 needed",
)
case(
    "benchmarks-one-benchmark-auto",
    7,
    lambda e: ["redundancy", "benchmarks", _small_panel(e, 5, n_bench=1)],
    match=r"single benchmark \('B0', 12 items\) and it needs at least 2; .*pass --level 'item'",
)
case(
    "stage3-one-benchmark",
    7,
    lambda e: ["diagnose", "stage3", _small_panel(e, 5, n_bench=1), "--k", "1"],
    match=r"Stage 3 on benchmark means: benchmarks: 1 found, at least 2 needed",
)
case(
    "spectrum-one-category",
    7,
    lambda e: ["diagnose", "spectrum", _small_panel(e, 5, n_bench=1)],
    match=r"spectrum by category: 5 model\(s\) and 1 usable column\(s\)",
)
case(
    "benchmarks-2-models",
    7,
    lambda e: ["redundancy", "benchmarks", _small_panel(e, 2)],
    match=r"models with scores: 2 found, at least 3 needed",
)
case(
    "families-none",
    7,
    lambda e: ["diagnose", "families", _small_panel(e, 5)],
    match=r"family agreement: families with >= 4 models: 0 found, at least 2 needed",
)
case(
    "spectrum-1-model",
    7,
    lambda e: ["diagnose", "spectrum", _small_panel(e, 1)],
    match=r"spectrum by category: 1 model\(s\)",
)
case(
    "audit-4-models",
    7,
    lambda e: ["audit", _small_panel(e, 4), "--out", "a", "--json"],
    match=r"image-condition models: 4 found, at least 5 needed",
)
case(
    "audit-dif-by-release-date-without-dates",
    7,
    lambda e: ["audit", _small_panel(e, 6), "--dif-by", "release_date", "--out", "a"],
    match=r"DIF by release era: no model has a release_date",
)
case(
    "audit-alpha-above-1",
    7,
    lambda e: ["audit", _small_panel(e, 6), "--alpha", "1.5", "--json"],
    match=r"--alpha: expected a number in \(0, 1\), got 1.5",
)
case(
    "score-budget-above-items",
    7,
    lambda e: ["prism", "score", str(e.verdicts()), "--bootstrap", "20", "--budget", "100000"],
    match=r"--budget 100000: a matched budget must not exceed the \d+ items",
)


# --- group 8: the smaller items --------------------------------------------------------------------------

case(
    "engine-refusal-leaves-no-cache",
    8,
    lambda e: _build(e, [["shapes_000.png"], ["missing.png"]]),
    match=r"image file .*missing.png not found",
)
case(
    "long-path-message-one-line",
    8,
    lambda e: ["info", str(e.write("a" * 60 + "/" + "b" * 60 + "/panel.parquet", "not a parquet\n"))],
    match=r"^benchsift: error: .*b{60}/panel.parquet: not a parquet file",
)


def _ragged(env: Env) -> list[str]:
    src = env.write("new.csv", "model,benchmark,item,score\nm1,B,i1,1\nm2,B,i1\nm3,B,i1,0\n")
    return ["diagnose", "families", str(src)]


case("ragged-csv-row", 8, _ragged, match=r"new.csv, line 3: 3 fields, the header has 4")


def _umask_import(env: Env, res: Any) -> None:
    mask = os.umask(0)
    os.umask(mask)
    assert (env.root / "p.parquet").stat().st_mode & 0o777 == 0o666 & ~mask


case(
    "output-follows-umask",
    8,
    lambda e: _import(e, "p.parquet"),
    outcome="ok",
    writes=("p.parquet", ".benchsift-manifest.json"),
    check=_umask_import,
)


def _info_panel(env: Env) -> list[str]:
    import pandas as pd

    from benchsift.panel import Panel

    rows = [
        {"model": "a", "benchmark": "B", "item": f"i{i}", "score": float(i < 2), "condition": "image"}
        for i in range(4)
    ]
    rows += [
        {"model": "a", "benchmark": "B", "item": f"i{i}", "score": 1.0, "condition": "text-only"}
        for i in range(4)
    ]
    Panel.from_long(pd.DataFrame(rows)).save(env.root / "small.parquet")
    return ["info", "small.parquet", "--json"]


def _info_mean(env: Env, res: Any) -> None:
    out = json.loads(res.stdout)
    assert out["mean_score"] == 0.5 and out["mean_score_text_only"] == 1.0, out


case("info-mean-image-only", 8, _info_panel, outcome="ok", check=_info_mean)


def _stage3_no_family(env: Env, res: Any) -> None:
    out = json.loads(res.stdout)
    assert out["notes"] and "one stratum" in out["notes"][0]
    assert all(r["ci_high"] - r["ci_low"] > 0 for r in out["rows"]), out["rows"]


case(
    "stage3-no-families-ci",
    8,
    lambda e: ["diagnose", "stage3", _small_panel(e, 12, n_bench=6), "--k", "1", "--n-boot", "200", "--json"],
    outcome="ok",
    check=_stage3_no_family,
)


def _leftout_independent(env: Env, res: Any) -> None:
    both = json.loads(res.stdout)
    alone = json.loads(
        env.invoke(
            [
                "diagnose",
                "leftout",
                "small.parquet",
                "--targets",
                "B0",
                "--sizes",
                "2,4",
                "--splits",
                "5",
                "--json",
            ]
        ).stdout
    )
    assert both["mae"]["B0"] == alone["mae"]["B0"]


case(
    "leftout-targets-independent",
    8,
    lambda e: [
        "diagnose",
        "leftout",
        _small_panel(e, 8, n_bench=4),
        "--targets",
        "B0,B1",
        "--sizes",
        "2,4",
        "--splits",
        "5",
        "--json",
    ],
    outcome="ok",
    check=_leftout_independent,
)


def _spectrum_empty_bench(env: Env) -> list[str]:
    import pandas as pd

    from benchsift.panel import Panel

    _small_panel(env, 6, n_bench=3, categories=False)
    p = Panel.load(env.root / "small.parquet")
    long = p.to_long()
    long.loc[long["benchmark"] == "B2", "score"] = float("nan")
    Panel.from_long(pd.DataFrame(long)).save(env.root / "small.parquet")
    return ["diagnose", "spectrum", "small.parquet", "--by", "benchmark", "--missing", "complete", "--json"]


case(
    "spectrum-complete-empty-benchmark",
    8,
    _spectrum_empty_bench,
    outcome="ok",
    check=lambda e, r: json.loads(r.stdout)["spectra"][0]["models"] == 6 or 1 / 0,
)


# --- every remaining command at least once (group 2: the output rule; groups 5-6: bad options) -----------

_IO = Path(__file__).resolve().parents[1] / "fixtures" / "io"
for _fmt, _src in (
    ("lmms-eval", "lmms_eval/llava-hf__llava-1.5-7b-hf"),
    ("lm-eval", "lm_eval/EleutherAI__pythia-160m"),
    ("vlmevalkit", "vlmevalkit/GPT4o/GPT4o_MMStar_openai_result.csv"),
    ("inspect", "inspect/2024-09-01T10-00-00+00-00_mmmu-multiple-choice_Hc9xk2.json"),
    ("aggregate", "aggregate/leaderboard.csv"),
):
    case(
        f"import-{_fmt}-o-dir",
        2,
        lambda e, f=_fmt, s=_src: ["import", f, str(_IO / s), "-o", "images"],
        match=r"images: is a directory",
    )
    case(
        f"import-{_fmt}-o-foreign",
        2,
        lambda e, f=_fmt, s=_src: ["import", f, str(_IO / s), "-o", "notes.md"],
        match=r"notes.md: exists and was not written by benchsift",
    )
case(
    "shelf-life-min-coverage",
    6,
    lambda e: ["diagnose", "shelf-life", str(e.panel()), "--k", "2", "--min-coverage", "99"],
    match=r"--min-coverage: expected 1 to 6 benchmarks",
)
case(
    "checkpoints-bad-regex",
    5,
    lambda e: ["diagnose", "checkpoints", str(e.panel()), "--variants", "("],
    match=r"--variants: not a valid regular expression",
)
case(
    "checkpoints-figure-foreign",
    2,
    lambda e: (
        e.write("cp.svg", FOREIGN),
        ["diagnose", "checkpoints", str(e.panel()), "--variants", "m1", "--figure", "cp"],
    )[1],
    match=r"cp.svg: exists and was not written",
)
case(
    "estimate-ragged-new-scores",
    8,
    lambda e: (
        _suite(e),
        e.write("new.csv", "model,benchmark,item,score\nx,B0,i1\n"),
        ["estimate", "suite", "new.csv"],
    )[2],
    match=r"new.csv, line 2: 3 fields, the header has 4",
)
case(
    "analyze-out-is-file",
    2,
    lambda e: [
        "prism",
        "analyze",
        "--axis-means",
        str(e.write("m.csv", "model,q,h\na,0.5,0.6\nb,0.7,0.2\nc,0.1,0.3\n")),
        "--axes",
        "q,h",
        "--out",
        "notes.md",
    ],
    match=r"notes.md: is a file",
)
case(
    "audit-out-foreign",
    2,
    lambda e: (e.write("au/result.json", FOREIGN), _audit(e, "--out", "au"))[1],
    match=r"result.json: exists and was not written",
)
case(
    "import-long-ragged-row",
    8,
    lambda e: [
        "import",
        "long",
        str(e.write("long.csv", "model,benchmark,item,score\nm1,B,i1,1\nm1,B,i2\nm2,B,i1,0\n")),
        "-o",
        "p.parquet",
    ],
    match=r"long.csv, line 3: 3 fields, the header has 4",
)


def _bank(env: Env) -> Path:
    """An item bank written by the library (not the command under test) beside the panel."""
    from benchsift.adaptive import fit_bank
    from benchsift.panel import Panel

    path = env.root / "bank.json"
    if not path.exists():
        fit_bank(Panel.load(env.panel())).save(path)
    return path


# --- adaptive testing: the same rules (output file, degenerate data, bad bank file) -------------------


case(
    "adaptive-bank-over-foreign-file",
    2,
    lambda e: ["adaptive", "bank", str(e.panel()), "-o", "notes.md"],
    match=r"notes.md: exists and was not written",
)
case(
    "adaptive-bank-out-is-dir",
    2,
    lambda e: (
        os.makedirs(e.root / "bankdir", exist_ok=True),
        ["adaptive", "bank", str(e.panel()), "-o", "bankdir"],
    )[1],
    match=r"bankdir: is a directory",
)
case(
    "adaptive-next-not-a-bank",
    5,
    lambda e: ["adaptive", "next", str(e.write("bank.json", '{"format": "something else"}')), str(e.panel())],
    match=r"bank.json: format 'something else', expected 'benchsift-item-bank/1'",
)
case(
    "adaptive-next-batch-zero",
    6,
    lambda e: (
        ["adaptive", "bank", str(e.panel()), "-o", "bank.json"],
        ["adaptive", "next", str(_bank(e)), str(e.panel()), "--batch", "0"],
    )[1],
    match=r"batch: expected an int >= 1, got 0",
)
case(
    "adaptive-simulate-too-few-models",
    7,
    lambda e: [
        "adaptive",
        "simulate",
        str(e.write("tiny.csv", "model,benchmark,item,score\nm1,B,i1,1\nm2,B,i1,0\nm3,B,i1,1\nm1,B,i2,0\n")),
    ],
    match=r"at least 5 build and 3 held-out models",
)


def _poisoned_cache(env: Env) -> list[str]:
    """A run's cache whose stored answers another program overwrote: the next run is refused in one line
    (it was an internal error, exit 70), its records not written, the cache left as it was."""
    import sqlite3

    argv = _run(env, [["shapes_000.png"]], "--cache", "c.sqlite")
    assert env.invoke(argv).exit_code == 0
    con = sqlite3.connect(env.root / "c.sqlite")
    con.execute("UPDATE responses SET response = '[1]'")
    con.commit()
    con.close()
    os.remove(env.root / "records.jsonl")
    return argv


case(
    "run-poisoned-cache",
    5,
    _poisoned_cache,
    match=r"c.sqlite: corrupt response cache \(a stored answer is not an object of a text, a finish reason",
)


def _forged_bank(key: str, value: Any) -> Any:
    """``adaptive next`` over a bank file whose ``key`` is forged to ``value`` (a function: of the bank's JSON
    document) (issue 20: every reader refuses a damaged file in one line; a null reference_theta was an
    IndexError, exit 70, and abilities of 1e300 were used as they stood, exit 0)."""

    def setup(env: Env) -> list[str]:
        doc = json.loads(_bank(env).read_text())
        doc[key] = value(doc) if callable(value) else value
        forged = env.write("forged.json", json.dumps(doc))
        return ["adaptive", "next", str(forged), str(env.panel())]

    return setup


FORGED_BANK = r"forged.json: not a benchsift item bank \(reference_theta: expected \d+ finite abilities in "
case(
    "adaptive-next-forged-bank-abilities",
    5,
    _forged_bank("reference_theta", None),
    match=FORGED_BANK + r"\[-20, 20\], one per reference model, got null\)",
)
case(
    "adaptive-next-forged-bank-huge-abilities",
    5,
    _forged_bank("reference_theta", lambda doc: [1e300] * len(doc["reference_theta"])),
    match=FORGED_BANK + r"\[-20, 20\], one per reference model, got 1e\+300 at \[0\]\)",
)
case(
    "leftout-splits-beyond-memory",
    5,
    lambda e: ["diagnose", "leftout", str(e.panel()), "--splits", "1000000000000"],
    match=r"not enough memory for this command \(Unable to allocate .* TiB .*\): a smaller input, or smaller "
    r"counts \(--n-boot, --repeats, --splits, sizes\), need less",
)
