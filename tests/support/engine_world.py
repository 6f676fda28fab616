"""Test world for the engine: counted coloured shapes drawn with numpy, saved as PNG, with raw records.

Item i (0 <= i < n) shows ``1 + i % 7`` shapes of colour ``COLORS[i % 5]`` and shape
``SHAPES[(i // 5) % 3]``; its question asks, by ``i % 4``, for the count, the colour, whether there
are more than 3 shapes (OK-VQA schema records) or, multiple choice, which shape is shown (AI2D schema).
A few pixels in the corner encode i, so every image is distinct.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from fake_server import API_KEY, COLORS, SHAPES

RGB = {
    "red": (1, 0, 0),
    "blue": (0, 0, 1),
    "green": (0, 0.7, 0),
    "orange": (1, 0.6, 0),
    "purple": (0.5, 0, 0.6),
}
UNCOUNTABLE = {3, 17}
GEN_GLITCH = {1, 11, 21}
GEN_BROKEN = {7}


def draw(count: int, color: str, shape: str, tag: int, size: int = 96) -> np.ndarray:
    img = np.ones((size, size, 3))
    yy, xx = np.mgrid[0:size, 0:size]
    for k in range(count):
        cy, cx = 14 + (k // 3) * 28, 14 + (k % 3) * 28
        if shape == "circle":
            mask = (yy - cy) ** 2 + (xx - cx) ** 2 <= 81
        elif shape == "square":
            mask = (abs(yy - cy) <= 8) & (abs(xx - cx) <= 8)
        else:
            mask = (yy - cy >= -8) & (yy - cy <= 8) & (abs(xx - cx) <= (yy - cy + 8) / 2)
        img[mask] = RGB[color]
    bits = [(tag >> b) & 1 for b in range(8)]
    img[size - 1, :8] = np.array(bits, dtype=float)[:, None] * 0.5
    return img


def item_facts(i: int) -> dict[str, Any]:
    return {"index": i, "count": 1 + i % 7, "color": COLORS[i % 5], "shape": SHAPES[(i // 5) % 3]}


def make_world(root: Path, n: int = 50) -> dict[str, Any]:
    """Write images, raw OK-VQA/AI2D records and the server's world; return paths and facts."""
    img_dir = root / "images"
    img_dir.mkdir(parents=True, exist_ok=True)
    world: dict[str, dict[str, Any]] = {}
    okvqa: list[dict[str, Any]] = []
    ai2d: list[dict[str, Any]] = []
    facts: dict[str, dict[str, Any]] = {}
    for i in range(n):
        f = item_facts(i)
        name = f"shapes_{i:03d}.png"
        plt.imsave(img_dir / name, draw(f["count"], f["color"], f["shape"], i))
        sha = hashlib.sha256((img_dir / name).read_bytes()).hexdigest()
        world[sha] = {
            **f,
            "uncountable": i in UNCOUNTABLE,
            "gen_glitch": i in GEN_GLITCH,
            "gen_broken": i in GEN_BROKEN,
        }
        kind = i % 4
        rec: dict[str, Any]
        if kind == 3:
            rec = {
                "question": "Which shape is shown?",
                "options": list(SHAPES),
                "answer": str(SHAPES.index(f["shape"])),
                "image": name,
            }
            item_id = f"ai2d/{len(ai2d)}"
            ai2d.append(rec)
            gold = "ABC"[SHAPES.index(f["shape"])]
        else:
            q, gold = {
                0: (f"How many {f['color']} {f['shape']}s are in the picture?", str(f["count"])),
                1: ("What color are the shapes?", f["color"]),
                2: ("Are there more than 3 shapes?", "yes" if f["count"] > 3 else "no"),
            }[kind]
            rec = {
                "question_id": 1000 + i,
                "question": q,
                "answers": [gold] * 10,
                "image": name,
                "question_type": "other",
                "answer_type": "other",
            }
            item_id = f"okvqa/{1000 + i}"
            okvqa.append(rec)
        facts[item_id] = {**f, "gold": gold, "kind": kind}
    for name, rows in (("okvqa.jsonl", okvqa), ("ai2d.jsonl", ai2d)):
        (root / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    (root / "world.json").write_text(json.dumps(world))
    return {"root": root, "images": img_dir, "world": world, "facts": facts}


def write_config(
    path: Path,
    url: str,
    models: list[str],
    *,
    judge: bool = True,
    timeout: float = 5.0,
    concurrency: int = 16,
    extra: str = "",
    name_suffix: str = "",
) -> Path:
    """A models TOML for the scripted server; ``name_suffix`` lengthens the models' endpoint names (the
    server scripts by the ``model`` field, which stays the short name)."""
    lines = [f"timeout = {timeout}", "max_attempts = 4", "retry_initial = 0.01", extra, ""]
    if judge:
        lines += ["[judges]", 'gen = "gen"', 'grade = "judge"', 'audit = "judge2"', ""]
    eps = [(m + name_suffix, m, "model") for m in models] + [
        ("gen", "gen", "judge"),
        ("judge", "judge", "judge"),
        ("judge2", "judge", "judge"),
    ]
    for name, model, role in eps:
        lines += [
            "[[endpoint]]",
            f'name = "{name}"',
            f'base_url = "{url}"',
            f'model = "{model}"',
            'api_key_env = "BENCHSIFT_TEST_KEY"',
            f"concurrency = {concurrency}",
            f'role = "{role}"',
            "",
        ]
    path.write_text("\n".join(lines))
    return path


def invoke(*args: str) -> dict[str, Any]:
    """Run a ``prism`` engine command with ``--json`` in-process; its JSON summary (the key never shown)."""
    import typer
    from typer.testing import CliRunner

    from benchsift.cli.prism_engine import register

    app = typer.Typer()
    register(app)
    res = CliRunner().invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    assert API_KEY not in res.output
    return json.loads(res.stdout)


def run_args(items: Path, arts: Path, images: Path, config: Path, out: Path, *extra: str) -> list[str]:
    """The arguments of ``prism run`` over one world."""
    return [
        "run",
        "--items",
        str(items),
        "--artifacts",
        str(arts),
        "--images",
        str(images),
        "--config",
        str(config),
        "--out",
        str(out),
        *extra,
    ]


__all__ = [
    "API_KEY",
    "GEN_BROKEN",
    "GEN_GLITCH",
    "UNCOUNTABLE",
    "draw",
    "invoke",
    "item_facts",
    "make_world",
    "run_args",
    "write_config",
]


def prepare_run(
    world: dict[str, Any], tmp: Path, url: str, models: list[str], n: int, **cfg_kw: Any
) -> tuple[Path, Path, Path]:
    """A config of ``models`` served at ``url``, the first ``n`` source items of the world and their built
    artifacts (``prism sources`` and ``prism build``): ``(config, items, artifacts)`` for ``prism run``."""
    cfg = write_config(tmp / "models.toml", url, models, **cfg_kw)
    items = tmp / "items.jsonl"
    raw = [f"okvqa={world['root'] / 'okvqa.jsonl'}", f"ai2d={world['root'] / 'ai2d.jsonl'}"]
    invoke("sources", "--raw", raw[0], "--raw", raw[1], "--no-sample", "--out", str(items))
    items.write_text("\n".join(items.read_text().splitlines()[:n]) + "\n")
    arts = tmp / "artifacts.jsonl"
    invoke(
        "build",
        "--items",
        str(items),
        "--images",
        str(world["images"]),
        "--config",
        str(cfg),
        "--out",
        str(arts),
    )
    return cfg, items, arts
