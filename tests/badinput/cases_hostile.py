"""The bad-input corpus, issue 32: a folder handed to the user by someone else (planted manifests, symbolic
links), an environment that fails under a write, names that are formulas or terminal escapes.

The group number continues cases.py's (9: planted manifests). test_hostile.py runs these cases with the
same checks as test_corpus.py (exit code, one line, nothing written, planted files unchanged).
"""

from __future__ import annotations

import hashlib
import json
import os
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
