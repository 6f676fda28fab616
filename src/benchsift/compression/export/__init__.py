"""Export a suite to the harness that will run it: the file each tool reads to run exactly the suite's items.

==============  ===================================================  =====================================
``to``          what is written                                      how the tool runs it
==============  ===================================================  =====================================
``lm-eval``     ``lm_eval_samples.json``: ``{task: [doc indices]}``  ``lm_eval run ... --samples FILE``
``lmms-eval``   ``lmms_eval_tasks/``: a derived task per benchmark    ``lmms_eval ... --include_path DIR``
                (``include`` + a ``process_docs`` that subsets)
``inspect``     ``inspect_sample_ids/NNN.txt``: comma-separated ids  ``inspect eval TASK --sample-id ...``
``vlmevalkit``  ``LMUData/<BENCH>_benchsift.tsv`` (the subset of     ``python run.py --config config.json``
                the dataset TSV given) and ``config.json``
==============  ===================================================  =====================================

Item identity survives the round trip because each export uses the id the tool logs and the suite holds:
lm-eval's ``doc_id`` (the index of the document in the task's evaluation split), inspect's sample ``id``,
VLMEvalKit's ``index``; lmms-eval logs a subset's documents by position, which ``export.json`` maps back
(:func:`map_run_to_suite`, ``benchsift estimate --export DIR``). Ids the tool cannot
select without ambiguity are refused (see each module).
Every export also writes ``export.json``: the tool, the suite's fingerprint and, per benchmark, the items
and the name the harness will log them under, so ``benchsift estimate`` can check a run against it.
"""

from __future__ import annotations

from benchsift.compression.export.core import TOOLS, ExportResult, export_suite, load_export, map_run_to_suite

__all__ = [
    "TOOLS",
    "ExportResult",
    "export_suite",
    "load_export",
    "map_run_to_suite",
]
