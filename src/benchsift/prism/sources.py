"""Source items: where they come from and the R x K sampling (PRISM-VLM Sec. 4).

An :class:`Item` is one source question: id, benchmark, domain, question, gold answer(s), options and
image file(s) (:mod:`benchsift.prism.items`). Items come from

* a canonical JSONL file (one :meth:`Item.to_dict` per line) with image paths relative to an image
  folder (:func:`read_items` / :func:`write_items`);
* a JSONL file of raw records in a source benchmark's own schema plus an image folder
  (:func:`read_raw_jsonl`, through the benchmark's adapter, :mod:`benchsift.prism.adapters`);
* Hugging Face ``datasets`` (optional extra ``benchsift[hf]``, imported lazily; :func:`load_hf`).

Sampling (Sec. 4, App. A): each of R = 5 seeds {0, 1, 42, 1234, 2026} draws K = 100 items per benchmark
without replacement (``numpy.random.default_rng(seed).choice``); the union is deduplicated within a
benchmark, in order of first draw. Item ids are ``"<benchmark>/<source id>"``, so an item shared by two
benchmarks (the 25 BLINK-Counting items that recur in BLINK) stays two rows, as in the paper.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift._params import Interval, check_param
from benchsift.errors import InputError
from benchsift.prism.adapters import ADAPTERS, Adapter, adapt_record, read_raw_jsonl
from benchsift.prism.items import DOMAINS, Item, check_item_images, read_items, write_items

__all__ = [
    "ADAPTERS",
    "DOMAINS",
    "PAPER_SEEDS",
    "Adapter",
    "Item",
    "adapt_record",
    "check_item_images",
    "domain_counts",
    "load_hf",
    "read_items",
    "read_raw_jsonl",
    "sample_items",
    "write_items",
]

PAPER_SEEDS: tuple[int, ...] = (0, 1, 42, 1234, 2026)


def load_hf(
    benchmark: str, image_dir: Path, *, limit: int | None = None, split: str | None = None
) -> list[Item]:
    """All items of ``benchmark`` from the Hugging Face Hub (needs ``pip install benchsift[hf]``).

    Every config of the adapter is read (the 30 MMMU subjects, the 14 BLINK subtasks), from the
    adapter's split unless ``split`` is given.
    """
    try:
        import datasets
    except ImportError as err:
        raise InputError(
            "loading from the Hugging Face Hub needs the 'datasets' package: pip install 'benchsift[hf]'"
        ) from err
    if benchmark not in ADAPTERS:
        raise InputError(f"unknown benchmark {benchmark!r} (known: {sorted(ADAPTERS)})")
    ad = ADAPTERS[benchmark]
    items: list[Item] = []
    index = 0
    use_split = split or ad.split
    for config in ad.hf_configs:
        ds = datasets.load_dataset(ad.hf_path, config, split=use_split)
        lookup: dict[str, Any] = {}
        if benchmark == "gqa":  # GQA keeps images in a separate config keyed by imageId
            imgs = datasets.load_dataset(ad.hf_path, "testdev_balanced_images", split=use_split)
            lookup = {r["id"]: r["image"] for r in imgs}
        for rec in ds:
            if lookup:
                rec = {**rec, "image": lookup.get(rec["imageId"])}
            item = adapt_record(benchmark, rec, index, image_dir)
            index += 1
            if item is not None:
                items.append(item)
            if limit is not None and len(items) >= limit:
                return items
    return items


# --- sampling -------------------------------------------------------------------------------------


def sample_items(items: Sequence[Item], k: int = 100, seeds: Sequence[int] = PAPER_SEEDS) -> list[Item]:
    """The deduplicated union over ``seeds`` of ``k`` items drawn per benchmark (PRISM-VLM App. A).

    For each benchmark (pool in file order) and seed s: ``default_rng(s).choice(n, min(k, n),
    replace=False)``; the union keeps first-draw order, seed by seed. Benchmarks keep their order of
    first appearance.
    """
    check_param("k", k, [Interval(Integral, 1, None, noun="a number of items per benchmark per seed")])
    by_bench: dict[str, list[Item]] = {}
    for it in items:
        by_bench.setdefault(it.benchmark, []).append(it)
    out: list[Item] = []
    for pool in by_bench.values():
        n = len(pool)
        draws = np.concatenate(
            [np.random.default_rng(int(s)).choice(n, size=min(k, n), replace=False) for s in seeds]
        )
        _, first = np.unique(draws, return_index=True)
        out.extend(pool[j] for j in draws[np.sort(first)])
    return out


def domain_counts(pool: Sequence[Item], sampled: Sequence[Item]) -> pd.DataFrame:
    """Per-benchmark pool size and unique sampled items, with a subtotal row per domain (Table 8)."""
    pool_n = pd.Series([it.benchmark for it in pool]).value_counts()
    samp = pd.DataFrame(
        {"benchmark": [it.benchmark for it in sampled], "domain": [it.domain for it in sampled]}
    )
    rows = []
    order = list(dict.fromkeys(it.domain for it in sampled))
    for dom in order:
        sub = samp[samp["domain"] == dom]
        benches = list(dict.fromkeys(sub["benchmark"]))
        for b in benches:
            rows.append(
                {
                    "domain": dom,
                    "benchmark": b,
                    "pool": int(pool_n.get(b, 0)),
                    "items": int((sub["benchmark"] == b).sum()),
                }
            )
        rows.append(
            {
                "domain": dom,
                "benchmark": "(domain unique)",
                "pool": int(sum(pool_n.get(b, 0) for b in benches)),
                "items": len(sub),
            }
        )
    rows.append(
        {
            "domain": "Total",
            "benchmark": f"{samp['benchmark'].nunique()} benchmarks",
            "pool": len(pool),
            "items": len(samp),
        }
    )
    return pd.DataFrame(rows, columns=["domain", "benchmark", "pool", "items"])
