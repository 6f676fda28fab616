"""What an item's category means, and the grouping the compression uses where it is missing.

An item's **category** is what the user wrote in the items table's ``category`` column (a subject area such
as "Science"; PRIMEBench Sec. 3 groups benchmarks into categories), and nothing else: an item without one
has a *missing* category. So :attr:`~benchsift.panel.Panel.categories` lists the categories given (missing
ones skipped), :meth:`~benchsift.panel.Panel.category_means` averages over the items that have one, and
``panel.items["category"]`` keeps NaN where none was given.

The compression (PRIMEBench Stages 1-3) must put every item in some group, so there an item without a
category stands in a group of its own named after its benchmark: that grouping is
:func:`category_or_benchmark` (also :attr:`Panel.category_or_benchmark
<benchsift.panel.Panel.category_or_benchmark>`), and it is what the compression's results call their
categories (``CompressionResult.categories``, ``Suite.categories``, the ``category`` column of a suite's
items). Before 0.3 the same grouping was also called ``item_categories``
(``benchsift.compression.stages.representatives``) and ``effective_categories``
(``benchsift.compression.stages.prune``); both still work, with a :class:`FutureWarning`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["category_or_benchmark"]


def category_or_benchmark(items: pd.DataFrame) -> np.ndarray:
    """Each item's category, or its benchmark's name where the category is missing (object array of str).

    ``items`` is a panel's items table (``panel.items``; a table without a ``category`` column gives the
    benchmark names). This is the grouping of the compression, not an item's category (which stays missing
    where none was given; see the module docstring).
    """
    bench = items["benchmark"].astype(str)
    if "category" not in items.columns:
        return bench.to_numpy(dtype=object)
    cat = items["category"]
    return cat.where(cat.notna(), bench).astype(str).to_numpy(dtype=object)
