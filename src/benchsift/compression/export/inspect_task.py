"""inspect-ai: ``inspect eval TASK --sample-id ID,ID,...`` (or ``eval(task, sample_id=[...])``).

inspect splits the option on commas and strips each id (``parse_sample_id`` in
``inspect_ai/_util/samples.py``), then keeps the samples whose id matches any of them with ``fnmatch``
after normalising both (``sample_id_filter`` in ``inspect_ai/_eval/task/util.py``;
``normalise_sample_id`` in ``inspect_ai/dataset/_util.py`` turns a digit string into a zero-padded number).
The log records each sample's ``id``, which benchsift's inspect importer reads as the item id.

So an id is refused when inspect would read it as something else: one holding a comma, a glob character
(``*``, ``?``, ``[``, ``]``, which would match other samples), leading or trailing space, an empty id, or two
suite ids of one task that normalise to the same pattern (``"7"`` and ``"007"``).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from benchsift.compression.export._written import Written, write_lists
from benchsift.errors import InputError

FOLDER = "inspect_sample_ids"
FILE = "inspect_sample_ids.json"
_GLOB = set("*?[]")


def _normalised(sample_id: str) -> str:
    """inspect's ``normalise_sample_id`` on a string id (digit strings compare as numbers)."""
    return str(int(sample_id)).zfill(20) if sample_id.isdigit() else sample_id


def check_ids(task: str, items: list[str]) -> None:
    """Refuse ids that ``--sample-id`` would split, strip, glob or conflate (see the module docstring)."""
    for i in items:
        why = None
        if i == "":
            why = "is empty"
        elif "," in i:
            why = "holds a comma (inspect splits --sample-id on commas)"
        elif i != i.strip():
            why = "has leading or trailing space (inspect strips it)"
        elif _GLOB & set(i):
            why = "holds a glob character * ? [ ] (inspect matches ids with fnmatch: it would select others)"
        if why:
            raise InputError(f"suite benchmark {task!r}: item id {i!r} {why}; it cannot be selected exactly")
    seen: dict[str, str] = {}
    for i in items:
        key = _normalised(i)
        if key in seen:
            raise InputError(
                f"suite benchmark {task!r}: item ids {seen[key]!r} and {i!r} are the same sample to inspect "
                "(digit ids compare as numbers)"
            )
        seen[key] = i


def write(items: dict[str, list[str]], tmp: Path, out: Path) -> Written:
    """Write one comma-separated id file per task and ``inspect_sample_ids.json`` into ``tmp``."""
    (tmp / FOLDER).mkdir()
    files, commands = [FILE], []
    for n, (task, ids) in enumerate(items.items()):
        check_ids(task, ids)
        name = f"{FOLDER}/{n:03d}.txt"
        (tmp / name).write_text(",".join(ids) + "\n")
        files.append(name)
        commands.append(
            f"inspect eval {shlex.quote(task)} --model MODEL --log-dir RUNS "
            f'--sample-id "$(cat {shlex.quote(str(out / name))})"'
        )
    write_lists(tmp / FILE, items)
    return Written(
        files=files, items=dict(items), harness_names={t: t for t in items}, commands=commands, warnings=[]
    )
