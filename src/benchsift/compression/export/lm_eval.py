"""lm-evaluation-harness: ``--samples FILE``, a JSON object ``{task: [doc indices]}``.

lm-eval (from 0.4.9; ``lm_eval/_cli/run.py`` and ``lm_eval/config/evaluate_config.py`` of 0.4.13 read the
argument as JSON or as the path of a JSON file) evaluates, per task, only the documents at those indices of
the task's evaluation split (``Task.doc_iterator`` in ``lm_eval/api/task.py``) and logs each one's
``doc_id``, which benchsift's lm-eval importer reads as the item id. The logged id is
``indices[position among the selected documents]`` (``lm_eval/evaluator.py``, ``doc_id_true``), which is
the document's own index only when the indices are in increasing order, so they are written sorted.

An item id must therefore be a document index: a non-negative decimal integer without leading zeros, as
the importer writes it. Anything else (an id from VLMEvalKit's ``index`` column, a hash, ``"007"``) is
refused: lm-eval could only run some other document under that number.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from benchsift.compression.export._written import Written, write_lists
from benchsift.errors import InputError

FILE = "lm_eval_samples.json"
_DOC_ID = re.compile(r"(0|[1-9][0-9]*)\Z")


def doc_indices(benchmark: str, items: list[str]) -> list[int]:
    """The sorted document indices of ``items``; a non-index id is an :class:`InputError`."""
    bad = [i for i in items if not _DOC_ID.match(i)]
    if bad:
        raise InputError(
            f"suite benchmark {benchmark!r}: item id(s) {bad[:3]} are not lm-eval doc_ids (non-negative "
            "integers without leading zeros, the index in the task's evaluation split); a suite built from "
            "another tool's ids cannot select lm-eval documents"
        )
    return sorted(int(i) for i in items)


def write(items: dict[str, list[str]], tmp: Path, out: Path) -> Written:
    """Write ``lm_eval_samples.json`` into ``tmp`` (its final home is ``out``)."""
    samples = {bench: doc_indices(bench, ids) for bench, ids in items.items()}
    write_lists(tmp / FILE, samples)
    tasks = ",".join(samples)
    command = (
        f"lm_eval run --model MODEL --model_args MODEL_ARGS --tasks {shlex.quote(tasks)} "
        f"--samples {shlex.quote(str(out / FILE))} --log_samples --output_path RUNS"
    )
    return Written(
        files=[FILE],
        items={b: [str(i) for i in v] for b, v in samples.items()},
        harness_names={b: b for b in samples},
        commands=[command],
        warnings=[],
    )
