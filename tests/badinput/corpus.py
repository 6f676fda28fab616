"""The bad-input corpus: the machinery (an environment per case, the case record, the checks).

Each :class:`Case` builds its inputs in a fresh directory (the working directory of the command), plants a
secret file outside the image folder and a foreign file (one the user wrote) next to the inputs, runs one
``benchsift`` command in-process and states the expected outcome:

* ``refused``: exit code 2, stderr exactly one line ``benchsift: error: ...`` matching ``match``, nothing on
  stdout, no file or directory created, no pre-existing file changed;
* ``ok``: exit code 0, only the paths matching ``writes`` created or changed, then ``check``;
* ``exit=N`` with ``ok`` semantics for the files (an engine run that got nothing writes what it has).

Whatever the outcome, the secret never reaches the local model server.
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SECRET = b"TOP-SECRET 7f3c1e: the planted secret must never leave this machine\n"
FOREIGN = "my notes: benchsift must not touch this file\n"


@dataclass
class Env:
    """One case's world: ``root`` (the working directory), the server, the shared assets."""

    root: Path
    server: Any
    world: dict[str, Any]
    assets: dict[str, Path]
    invoke: Callable[[list[str]], Any] = field(repr=False, default=None)  # type: ignore[assignment]
    mark: int = 0  # the server's request count when the case's command starts (set by setup)

    @property
    def images(self) -> Path:
        return self.root / "images"

    @property
    def secret(self) -> Path:
        return self.root / "secret.txt"

    def plant(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.secret.write_bytes(SECRET)
        (self.root / "notes.md").write_text(FOREIGN)
        shutil.copytree(self.world["images"], self.images)

    def write(self, rel: str, text: str) -> Path:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return p

    def panel(self, rel: str = "panel.parquet") -> Path:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(self.assets["panel"], p)
        return p

    def verdicts(self, rel: str = "verdicts.csv") -> Path:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(self.assets["verdicts"], p)
        return p

    def items(self, images: list[list[str]] | None = None, rel: str = "items.jsonl") -> Path:
        """Canonical items of the world (one per image by default), with the given image lists."""
        names = sorted(p.name for p in self.images.glob("*.png"))
        facts = {f["index"]: (k, f) for k, f in self.world["facts"].items()}
        rows = []
        for i, imgs in enumerate(images if images is not None else [[n] for n in names]):
            key, f = facts[i]
            q = {
                0: f"How many {f['color']} {f['shape']}s are in the picture?",
                1: "What color are the shapes?",
            }
            rows.append(
                {
                    "id": f"okvqa/{1000 + i}",
                    "benchmark": "okvqa",
                    "question": q.get(f["kind"], "Are there more than 3 shapes?"),
                    "answers": [f["gold"]],
                    "images": imgs,
                }
            )
        return self.write(rel, "".join(json.dumps(r) + "\n" for r in rows))

    def config(
        self,
        rel: str = "engine.toml",
        *,
        body: str | None = None,
        models: tuple[str, ...] = ("correct",),
        url: str | None = None,
        key_env: str = "BENCHSIFT_TEST_KEY",
    ) -> Path:
        """An engine config pointing at the local server (or ``body`` verbatim, ``{url}`` filled in)."""
        if body is None:
            lines = [
                "timeout = 5",
                "max_attempts = 2",
                "retry_initial = 0.01",
                "",
                "[judges]",
                'gen = "gen"',
                "",
            ]
            for name, role in [(m, "model") for m in models] + [("gen", "judge")]:
                lines += [
                    "[[endpoint]]",
                    f'name = "{name}"',
                    f'base_url = "{url or "{url}"}"',
                    f'model = "{name}"',
                    f'api_key_env = "{key_env}"',
                    f'role = "{role}"',
                    "",
                ]
            body = "\n".join(lines)
        return self.write(rel, body.replace("{url}", self.server.url))

    def empty(self, rel: str) -> Path:
        return self.write(rel, "")


@dataclass(frozen=True)
class Case:
    """One corpus entry; ``setup(env)`` writes the inputs and returns the argv after ``benchsift``."""

    id: str
    group: int
    setup: Callable[[Env], list[str]]
    outcome: str = "refused"  # "refused" or "ok"
    match: str = ""  # a regular expression the one-line message must contain
    exit: int | None = None  # for "ok": the expected exit code (default 0)
    writes: tuple[str, ...] = ()  # for "ok": glob patterns (relative to root) of paths it may create/change
    check: Callable[[Env, Any], None] | None = None


def snapshot(root: Path) -> dict[str, tuple[str, int] | None]:
    """Every path under ``root``: files as (sha256, mode), directories as None."""
    out: dict[str, tuple[str, int] | None] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_dir() and not p.is_symlink():
            out[rel + "/"] = None
        elif p.is_file():
            out[rel] = (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mode)
        else:
            out[rel] = ("link", 0)
    return out


def changed(before: dict[str, Any], after: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """(created, modified, removed) paths between two snapshots."""
    created = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    modified = sorted(k for k in set(before) & set(after) if before[k] != after[k])
    return created, modified, removed


def allowed(path: str, patterns: tuple[str, ...]) -> bool:
    p = path.rstrip("/")
    return any(fnmatch.fnmatch(p, pat) or fnmatch.fnmatch(p + "/x", pat) for pat in patterns)


def secret_forms() -> list[bytes]:
    """The secret as it would travel: raw, or base64 (a data URL), at any of the three alignments."""
    forms = [SECRET, base64.b64encode(SECRET)]
    for k in (1, 2):
        enc = base64.b64encode(b"\0" * k + SECRET)
        forms.append(enc[4:-4])
    return forms
