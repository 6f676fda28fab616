"""lmms-eval: a derived task per benchmark that runs only the suite's documents.

lmms-eval (0.7) has no option to run chosen documents (``--limit`` takes the first ones). It does let a
task YAML ``include`` another task's YAML and set ``process_docs``, a function applied to the loaded
dataset before any document is run (``ConfigurableTask.download`` in ``lmms_eval/api/task.py``; ``include``
with an absolute path in ``lmms_eval/utils.py`` ``load_yaml_config``). So for each suite benchmark (an
lmms-eval task name) the export writes, into ``lmms_eval_tasks/``:

* ``<task>_benchsift.yaml``: ``include`` the task's own YAML (given with ``task_yaml``), ``task:
  <task>_benchsift``, ``process_docs: !function benchsift_subset.<function>``;
* ``benchsift_subset.py``: that function applies the task's own ``process_docs`` (read from its YAML with
  lmms-eval's ``load_yaml_config``) if it has one, then keeps the suite's documents, in increasing order.

lmms-eval logs as ``doc_id`` the position of a document in the processed dataset (``Task.doc_iterator``:
``enumerate(self.eval_docs)``), and its sample files keep no document field (the evaluation tracker drops
``doc``). So the logged id of the suite's ``k``-th document of a task is ``k``: ``export.json`` records, per
benchmark, the subset task's name and the suite's document indices in that order, and
:func:`~benchsift.compression.export.core.map_run_to_suite` turns a run's ``(<task>_benchsift, k)`` back into
``(task, index)`` (``benchsift estimate --export DIR``). Item ids must be document indices: non-negative
integers, as the importer writes ``doc_id``. lmms-eval applies ``process_docs`` to every split the task
configures, so the function refuses a split too short for the suite's largest index, and a task that takes
few-shot examples from another split would see that split subset too (VLM tasks in lmms-eval are zero-shot).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from benchsift._inputs import existing_file
from benchsift.compression.export._written import Written, check_per_benchmark, file_name
from benchsift.compression.export.lm_eval import doc_indices

FOLDER = "lmms_eval_tasks"
MODULE = "benchsift_subset"
SUFFIX = "_benchsift"
_YAML = (".yaml", ".yml")
_MODULE_TEXT = '''"""Written by ``benchsift export --to lmms-eval``: keep a suite's documents of each task."""

from lmms_eval.utils import load_yaml_config

KEEP = {keep}
ORIGINAL = {original}


def _subset(task, dataset):
    own = load_yaml_config(ORIGINAL[task]).get("process_docs")
    if own is not None:
        dataset = own(dataset)
    keep = KEEP[task]
    if keep and keep[-1] >= len(dataset):
        raise ValueError(
            f"benchsift suite: task {{task}} has {{len(dataset)}} documents here, the suite holds document "
            f"{{keep[-1]}}; is this the dataset the suite was built from?"
        )
    return dataset.select(keep)
'''


def write(items: dict[str, list[str]], tmp: Path, out: Path, task_yaml: dict[str, str | Path]) -> Written:
    """Write the derived task YAMLs and their ``process_docs`` module into ``tmp/lmms_eval_tasks``."""
    check_per_benchmark("lmms-eval", "`task_yaml` (the task's own YAML file)", task_yaml, items)
    names = {task: file_name("lmms-eval", task, f"{task}{SUFFIX}.yaml") for task in items}
    original = {}
    for task, path in task_yaml.items():
        p = existing_file(
            Path(path).resolve(), f"`task_yaml` for {task!r}: the task's own YAML", suffixes=_YAML
        )
        original[task] = str(p)
    keep = {task: doc_indices(task, ids) for task, ids in items.items()}
    folder = tmp / FOLDER
    folder.mkdir()
    module = _MODULE_TEXT.format(keep=json.dumps(keep), original=json.dumps(original))
    functions = [
        f"\n\ndef process_docs_{n}(dataset):\n    return _subset({json.dumps(t)}, dataset)\n"
        for n, t in enumerate(keep)
    ]
    (folder / f"{MODULE}.py").write_text(module + "".join(functions))
    files = [f"{FOLDER}/{MODULE}.py"]
    for n, task in enumerate(keep):
        name = f"{task}{SUFFIX}"
        (folder / names[task]).write_text(
            f"# written by benchsift export: {task} restricted to the suite's {len(keep[task])} documents\n"
            f"include: {json.dumps(original[task])}\n"
            f"task: {json.dumps(name)}\n"
            f"process_docs: !function {MODULE}.process_docs_{n}\n"
        )
        files.append(f"{FOLDER}/{names[task]}")
    tasks = ",".join(f"{t}{SUFFIX}" for t in keep)
    command = (
        f"python -m lmms_eval --model MODEL --model_args MODEL_ARGS --tasks {shlex.quote(tasks)} "
        f"--include_path {shlex.quote(str(out / FOLDER))} --log_samples --output_path RUNS"
    )
    return Written(
        files=files,
        items={t: [str(i) for i in v] for t, v in keep.items()},
        harness_names={t: f"{t}{SUFFIX}" for t in keep},
        logged_by_position=True,
        commands=[command],
        warnings=[],
    )
