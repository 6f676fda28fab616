"""The engine commands against a scripted judge on 127.0.0.1 (audit s32):

* F06: an item without an image leaves the image-only axes h / c / vis (their generation prompts show J_gen
  only the image): no request for them, status ``dropped``, one warning (terminal and ``--json``);
* F05: ``prism build`` counts a judged artifact whose every reply was invalid as lost, as ``prism grade``
  counts a verdict the judge did not give, and both say what was lost (exit 3);
* F01: ``[endpoint.budgets]`` refuses an unknown name; ``judge`` and ``gen`` set the judges' budgets;
* F09b: an image path outside ``--images`` is refused naming the item file.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from benchsift.cli._common import BenchsiftGroup
from benchsift.cli.prism import app as prism_app
from benchsift.prism.build import NO_IMAGE, read_artifacts
from benchsift.prism.engine import StageResult
from benchsift.prism.sources import Item, write_items

root = typer.Typer(cls=BenchsiftGroup, pretty_exceptions_enable=False)
root.add_typer(prism_app, name="prism")

#: what each generation prompt (Figs. 5-9) asks for, by a phrase of the prompt
GEN_KINDS = {
    "hallucination trap": "h",
    "extra questions": "mq",
    "false-hint pressure": "sc",
    "counting question about an image": "c",
    "forced-choice vision-discrimination": "vis",
}
H_FIELDS = {
    "absent_entity": "absent_entity",
    "misleading_premise": "false_premise",
    "uncertain_image": "ambiguity_source",
}


def gen_reply(prompt: str) -> str:
    """A valid J_gen reply to a generation prompt, else a valid grading-judge reply (Figs. 11-17: every
    verdict field at once, one ``verdicts`` entry per bundled question)."""
    kind = next((k for phrase, k in GEN_KINDS.items() if phrase in prompt), None)
    if kind is None:
        n = len(re.findall(r"^\s+Gold: ", prompt, re.M)) or 1
        keys = {"verdict": 1, "hallucinated": 0, "changed": 0, "adopted": 0, "choice": "A", "extracted": 4}
        return json.dumps({**keys, "verdicts": [1] * n, "reason": "x"})
    if kind == "h":
        sub = re.search(r"requested_sub_type: (\w+)", prompt).group(1)  # type: ignore[union-attr]
        return json.dumps(
            {"sub_type": sub, "question": "What colour is the dragon?", H_FIELDS[sub]: "a dragon"}
        )
    if kind == "mq":
        return json.dumps(
            {"extras": [{"question": "Is it day?", "gold": "yes"}, {"question": "Any?", "gold": "no"}]}
        )
    if kind == "sc":
        return json.dumps({"wrong_answer": "purple"})
    if kind == "c":
        return json.dumps({"question": "How many cars?", "gold_count": 4, "object": "cars"})
    return json.dumps(
        {
            "true_caption": "Four red cars.",
            "fake_caption": "Four blue cars.",
            "swapped_detail": {"original": "red", "fake": "blue"},
        }
    )


class ScriptedJudge:
    """An OpenAI-compatible server: model ``gen`` replies as J_gen, ``garbage`` never with JSON, any other
    model answers "The answer is blue."; every request is recorded (model, max_tokens, image attached,
    first user text)."""

    def __init__(self) -> None:
        self.log: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                first = next(m for m in req["messages"] if m["role"] == "user")["content"]
                parts = first if isinstance(first, list) else [{"type": "text", "text": first}]
                text = next(p["text"] for p in parts if p["type"] == "text")
                with outer.lock:
                    outer.log.append(
                        {
                            "model": req["model"],
                            "max_tokens": req.get("max_tokens"),
                            "image": any(p["type"] == "image_url" for p in parts),
                            "text": text,
                        }
                    )
                if req["model"] == "gen":
                    reply = gen_reply(text)
                elif req["model"] == "garbage":
                    reply = "Sure! Here is my verdict: it looks fine."
                else:
                    reply = "The answer is blue."
                choice = {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply},
                    "finish_reason": "stop",
                }
                body = json.dumps({"id": "x", "model": req["model"], "choices": [choice]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def requests(self, model: str) -> list[dict[str, Any]]:
        with self.lock:
            return [r for r in self.log if r["model"] == model]


@pytest.fixture()
def judge_server() -> Iterator[ScriptedJudge]:
    srv = ScriptedJudge()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def _config(path: Path, url: str, *, gen: str, grade: str, budgets: dict[str, str] | None = None) -> Path:
    """Endpoints ``gen`` / ``garbage`` (judges) and ``alpha`` (an evaluee); ``budgets``: endpoint name ->
    its ``[endpoint.budgets]`` inline table."""
    lines = ["max_attempts = 2", "retry_initial = 0.01", "[judges]", f'gen = "{gen}"', f'grade = "{grade}"']
    for name, role in (("gen", "judge"), ("garbage", "judge"), ("alpha", "model")):
        lines += [
            "[[endpoint]]",
            f'name = "{name}"',
            f'base_url = "{url}"',
            f'model = "{name}"',
            f'role = "{role}"',
        ]
        if budgets and name in budgets:
            lines.append(f"budgets = {budgets[name]}")
    path.write_text("\n".join(lines) + "\n")
    return path


def _world(tmp: Path, n_image: int, n_text: int) -> tuple[Path, Path]:
    """An item file of ``n_image`` items with an image each and ``n_text`` without, and the image folder."""
    images = tmp / "img"
    images.mkdir()
    items = []
    for i in range(n_image):  # a PNG signature is what the image reader checks
        (images / f"p{i}.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes([i]) * 32)
        items.append(
            Item(f"vqa/{i}", "okvqa", "General-VQA", f"What colour is car {i}?", ["red"], [f"p{i}.png"])
        )
    for i in range(n_text):
        items.append(Item(f"txt/{i}", "mmmu", "Math & Sci.", f"Text question {i} about physics?", [f"a{i}"]))
    path = tmp / "items.jsonl"
    write_items(items, path)
    return path, images


def _cmd(*args: str) -> Result:
    return CliRunner().invoke(root, ["prism", *args])


def _build(items: Path, images: Path, cfg: Path, out: Path, *extra: str) -> Result:
    return _cmd(
        "build",
        "--items",
        str(items),
        "--images",
        str(images),
        "--config",
        str(cfg),
        "--out",
        str(out),
        *extra,
    )


def _run(items: Path, images: Path, arts: Path, cfg: Path, out: Path, *extra: str) -> Result:
    args = ["--items", str(items), "--artifacts", str(arts), "--images", str(images), "--config", str(cfg)]
    return _cmd("run", *args, "--out", str(out), *extra)


def test_imageless_items_leave_the_image_only_axes(judge_server: ScriptedJudge, tmp_path: Path) -> None:
    items, images = _world(tmp_path, 2, 3)
    cfg = _config(tmp_path / "m.toml", judge_server.url, gen="gen", grade="gen")
    arts = tmp_path / "arts.jsonl"
    r = _build(items, images, cfg, arts, "--json")
    assert r.exit_code == 0, r.output
    sent = judge_server.requests("gen")
    kinds = [next(k for p, k in GEN_KINDS.items() if p in s["text"]) for s in sent]
    # h, c, vis asked for the two items with an image only, each with its image; mq, sc for all five
    assert sorted(kinds) == sorted(["h", "c", "vis"] * 2 + ["mq", "sc"] * 5)
    assert all(s["image"] for s, k in zip(sent, kinds, strict=True) if k in ("h", "c", "vis"))
    by_key = {(a.item, a.axis): a for a in read_artifacts(arts)}
    for i in range(3):
        for axis in ("h", "c", "vis"):
            a = by_key[(f"txt/{i}", axis)]
            assert a.status == "dropped" and a.data is None and a.error == NO_IMAGE and a.attempts == 0
        assert by_key[(f"txt/{i}", "sc")].status == "ok" and by_key[(f"txt/{i}", "mq")].status == "ok"
    assert all(by_key[(f"vqa/{i}", ax)].status == "ok" for i in range(2) for ax in ("h", "c", "vis"))
    doc = json.loads(r.stdout)
    assert doc["dropped"] == 9 and doc["failed"] == 0
    assert len(doc["warnings"]) == 1
    assert doc["warnings"][0].startswith("3 of 5 items have no image: they left the h, c, vis axes")
    # the terminal says it once too
    cache = tmp_path / "prism-cache.sqlite"
    r = _build(items, images, cfg, arts, "--cache", str(cache))
    assert r.exit_code == 0, r.output
    assert r.output.count("3 of 5 items have no image") == 1
    # prism run asks no model h / c / vis of an imageless item
    recs = tmp_path / "recs.jsonl"
    r = _run(items, images, arts, cfg, recs, "--sc-rules", "--json")
    assert r.exit_code == 0, r.output
    ran = {(d["item"], d["axis"]) for d in map(json.loads, recs.read_text().splitlines())}
    assert {ax for it, ax in ran if it.startswith("txt/")} == {"q", "if", "mq", "sc"}
    assert {ax for it, ax in ran if it.startswith("vqa/")} == {"q", "if", "h", "mq", "sc", "c", "vis"}


def test_build_and_grade_count_invalid_judge_replies_alike(
    judge_server: ScriptedJudge, tmp_path: Path
) -> None:
    items, images = _world(tmp_path, 3, 0)
    arts = tmp_path / "arts.jsonl"
    bad = _config(tmp_path / "bad.toml", judge_server.url, gen="garbage", grade="garbage")
    r = _build(items, images, bad, arts, "--quiet")
    assert r.exit_code == 3, r.output  # was 0: every judged artifact failed
    assert (
        "prism build: the judge's replies were invalid for 15 of 15 artifacts; first cause: invalid after 3 "
        "attempts:" in r.output
    )
    assert "nothing was answered" not in r.output
    assert all(a.status == "failed" for a in read_artifacts(arts) if a.axis != "if")  # written all the same
    good = _config(tmp_path / "good.toml", judge_server.url, gen="gen", grade="garbage")
    assert _build(items, images, good, arts, "--quiet").exit_code == 0
    recs = tmp_path / "recs.jsonl"
    r = _run(items, images, arts, good, recs, "--sc-rules", "--quiet")
    assert r.exit_code == 0, r.output
    r = _cmd(
        "grade", "--items", str(items), "--artifacts", str(arts), "--records", str(recs),
        "--config", str(good), "--out", str(tmp_path / "v.csv"), "--quiet", "--json",
    )  # fmt: skip
    assert r.exit_code == 3, r.output
    m = re.search(
        r"prism grade: the judge's replies were invalid for (\d+) of (\d+) verdicts; first cause", r.output
    )
    assert m is not None and m.group(1) == m.group(2) and int(m.group(1)) > 0, r.output
    assert "nothing was answered" not in r.output


def test_incomplete_says_what_was_lost_and_keeps_run_wording() -> None:
    out = Path("x")
    causes = ["invalid after 3 attempts: e"] * 2 + ["judge call failed: 500"]
    build = StageResult("build", out, {}, lost=3, total=10, errors=causes, unit="artifacts", invalid=2)
    assert build.incomplete(0.1) == (
        "the judge's replies were invalid for 2 of 10 artifacts and the judge's calls got no answer for 1 of "
        "10 artifacts (3 of 10 lost, > --max-lost 0.1); first cause: invalid after 3 attempts: e"
    )
    assert build.incomplete(0.3) is None
    run = StageResult("run", out, {}, lost=4, total=4, errors=["m: HTTP 400"] * 4)
    assert run.incomplete(0.1) == "nothing was answered; first cause: m: HTTP 400"


def test_budgets_of_judges_and_models_are_sent(judge_server: ScriptedJudge, tmp_path: Path) -> None:
    items, images = _world(tmp_path, 2, 0)
    budgets = {"gen": "{gen = 77, judge = 50}", "alpha": "{q = 33, mq = 99}"}
    cfg = _config(tmp_path / "m.toml", judge_server.url, gen="gen", grade="gen", budgets=budgets)
    arts, recs = tmp_path / "arts.jsonl", tmp_path / "recs.jsonl"
    assert _build(items, images, cfg, arts, "--quiet").exit_code == 0
    assert {r["max_tokens"] for r in judge_server.requests("gen")} == {77}  # was 1024
    n = len(judge_server.requests("gen"))
    r = _run(items, images, arts, cfg, recs, "--quiet")
    assert r.exit_code == 0, r.output
    alpha = judge_server.requests("alpha")
    q = [a["max_tokens"] for a in alpha if a["text"] == "What colour is car 0?"]
    assert sorted(q) == [33] + [512] * (len(q) - 1)  # q; sc's turns show the question too, at 512
    assert {a["max_tokens"] for a in alpha if a["text"].startswith("Answer each of the following")} == {99}
    r = _cmd(
        "grade", "--items", str(items), "--artifacts", str(arts), "--records", str(recs),
        "--config", str(cfg), "--out", str(tmp_path / "v.csv"), "--quiet",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    graded = judge_server.requests("gen")[n:]  # the sc turns of run and the grading calls
    assert any("changed its answer" in g["text"] for g in graded)  # run's sc judge
    assert any("semantically equivalent" in g["text"] for g in graded)  # grade's q judge
    assert {g["max_tokens"] for g in graded} == {50}  # was 384


def test_unknown_budget_name_is_refused(judge_server: ScriptedJudge, tmp_path: Path) -> None:
    items, images = _world(tmp_path, 1, 0)
    cfg = _config(
        tmp_path / "m.toml",
        judge_server.url,
        gen="gen",
        grade="gen",
        budgets={"alpha": "{quality = 100, q = 7}"},
    )
    arts = tmp_path / "arts.jsonl"
    r = _build(items, images, cfg, arts)
    assert r.exit_code == 2
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert lines == [
        f"benchsift: error: {cfg}: [[endpoint]] #3 ('alpha'): 'budgets' has unknown names ['quality'] "
        "(allowed: q, if, h, mq, sc, c, vis, judge, gen), got {'quality': 100, 'q': 7}"
    ]
    assert not arts.exists() and judge_server.log == []


def test_budget_names_are_the_axes_and_the_judges() -> None:
    from benchsift.clients.config import BUDGET_NAMES
    from benchsift.prism.axes import AXES

    assert BUDGET_NAMES == (*AXES, "judge", "gen")


def test_image_outside_the_folder_names_the_item_file(judge_server: ScriptedJudge, tmp_path: Path) -> None:
    items, images = _world(tmp_path, 1, 0)
    items.write_text(
        json.dumps(
            {
                "id": "x1",
                "benchmark": "mmstar",
                "question": "Q?",
                "answers": ["A"],
                "images": ["../secret.png"],
            }
        )
        + "\n"
    )
    cfg = _config(tmp_path / "m.toml", judge_server.url, gen="gen", grade="gen")
    arts = tmp_path / "arts.jsonl"
    r = _build(items, images, cfg, arts)
    assert r.exit_code == 2
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1
    assert lines[0].startswith(
        f"benchsift: error: {items}: item x1: image path '../secret.png' leads outside"
    )
    assert not arts.exists() and judge_server.log == []
