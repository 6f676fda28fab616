"""VLMEvalKit: a subset of the benchmark's dataset TSV, run through ``run.py --config config.json``.

VLMEvalKit runs a dataset from ``$LMUData/<name>.tsv``. An official name cannot hold a subset: its class
checks the file's md5 and downloads the full TSV over it when they differ (``ImageBaseDataset.prepare_tsv``
in ``vlmeval/dataset/image_base.py``). So the subset is written as ``LMUData/<BENCH>_benchsift.tsv`` and
``config.json`` runs it under the benchmark's own name with the benchmark's own class (``run.py``
``build_dataset_from_config``: ``{"data": {BENCH: {"class": CLASS, "dataset": "<BENCH>_benchsift"}}}``): the
class prompts and scores the items as in the full benchmark, the result files carry the benchmark's name
(the config key), and their ``index`` column is the item id benchsift's VLMEvalKit importer reads.

The TSV is read as text and written as VLMEvalKit's own ``dump`` writes TSVs (tab-separated, every field
quoted), so values pass unchanged. VLMEvalKit lets a row's ``image`` hold another row's ``index`` instead
of the base64 image (at most 64 characters; ``ImageBaseDataset.__init__``); such a reference is replaced
by the image it points to, since the row it points to may not be in the subset.
"""

from __future__ import annotations

import csv
import json
import shlex
from pathlib import Path

import pandas as pd

from benchsift._inputs import existing_file
from benchsift.compression.export._written import Written, check_per_benchmark, file_name
from benchsift.errors import FormatError, InputError

DATA = "LMUData"
CONFIG = "config.json"
SUFFIX = "_benchsift"
_REF_MAX = 64  # VLMEvalKit: an ``image`` of at most 64 characters is the index of the row holding the image


def subset_table(path: Path, benchmark: str, items: list[str]) -> pd.DataFrame:
    """The rows of the dataset TSV at ``path`` whose ``index`` is one of ``items``, in the file's order."""
    existing_file(path, f"dataset TSV for {benchmark!r}")
    try:
        df = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise FormatError(f"{path}: not a readable TSV ({' '.join(str(exc).split())[:120]})") from None
    if "index" not in df.columns:
        raise FormatError(f"{path}: no 'index' column (expected a VLMEvalKit dataset TSV)")
    if "question" not in [c.lower() for c in df.columns]:
        raise FormatError(f"{path}: no 'question' column (expected a VLMEvalKit dataset TSV)")
    index = df["index"].str.strip()
    dup = index[index.duplicated()]
    if len(dup):
        raise FormatError(f"{path}: index {dup.iloc[0]!r} appears more than once; items would be ambiguous")
    missing = sorted(set(items) - set(index))
    if missing:
        raise InputError(
            f"{path}: {len(missing)} suite item(s) of {benchmark!r} are not in its 'index' column "
            f"(first: {missing[:3]}); is this the benchmark's TSV?"
        )
    keep = index.isin(set(items)).to_numpy()
    sub = df.loc[keep].copy()
    if "image" in df.columns:
        by_index = dict(zip(index, df["image"], strict=True))
        refs = sub["image"].map(lambda v: 0 < len(v) <= _REF_MAX)
        for pos in sub.index[refs.to_numpy()]:
            target = by_index.get(sub.at[pos, "image"].strip())
            if target is None or len(target) <= _REF_MAX:
                raise FormatError(
                    f"{path}: row index {index[pos]!r}: image refers to {sub.at[pos, 'image']!r}, "
                    "which is not a row holding an image"
                )
            sub.at[pos, "image"] = target
    return sub


def write(
    items: dict[str, list[str]], tmp: Path, out: Path, tsv: dict[str, str | Path], classes: dict[str, str]
) -> Written:
    """Write the subset TSVs under ``LMUData/`` and ``config.json`` into ``tmp``."""
    check_per_benchmark("vlmevalkit", "`dataset_tsv`", tsv, items)
    check_per_benchmark("vlmevalkit", "`dataset_class`", classes, items)
    for bench, cls in classes.items():
        if not cls.isidentifier():
            raise InputError(f"`dataset_class` for {bench!r}: {cls!r} is not a class name")
    tsv_names = {bench: file_name("vlmevalkit", bench, f"{bench}{SUFFIX}.tsv") for bench in items}
    (tmp / DATA).mkdir()
    files, data = [], {}
    for bench, ids in items.items():
        name = f"{bench}{SUFFIX}"
        sub = subset_table(Path(tsv[bench]), bench, ids)
        rel = f"{DATA}/{tsv_names[bench]}"
        sub.to_csv(tmp / rel, sep="\t", index=False, encoding="utf-8", quoting=csv.QUOTE_ALL)
        files.append(rel)
        data[bench] = {"class": classes[bench], "dataset": name}
    config = {"model": {"MODEL": {"class": "MODEL_CLASS"}}, "data": data}
    (tmp / CONFIG).write_text(json.dumps(config, indent=2) + "\n")
    files.append(CONFIG)
    command = (
        f"LMUData={shlex.quote(str(out / DATA))} python run.py --config {shlex.quote(str(out / CONFIG))} "
        "--work-dir RUNS   # first set the model entry of config.json"
    )
    return Written(
        files=files,
        items={b: list(v) for b, v in items.items()},
        harness_names={b: b for b in items},
        commands=[command],
        warnings=[],
    )
