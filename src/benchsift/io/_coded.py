"""The importers' side of the one long-table builder (:mod:`benchsift.panel.long`): pandas' missing-value
texts, which a CSV reader reads as missing, and the rescaling step the importers give the builder
(:func:`benchsift.io.rescale.rescale_codes`; a DataFrame given to :meth:`benchsift.panel.Panel.from_long`
is not rescaled)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from benchsift.io.rescale import RescaleMode, ScaleMap, rescale_codes

if TYPE_CHECKING:
    from collections.abc import Callable

#: pandas' default missing-value texts (``read_csv(keep_default_na=True)``, documented in its ``na_values``).
PANDAS_NA = (
    "",
    "#N/A",
    "#N/A N/A",
    "#NA",
    "-1.#IND",
    "-1.#QNAN",
    "-NaN",
    "-nan",
    "1.#IND",
    "1.#QNAN",
    "<NA>",
    "N/A",
    "NA",
    "NULL",
    "NaN",
    "None",
    "n/a",
    "nan",
    "null",
)


def rescaler(
    mode: RescaleMode, scales: ScaleMap | None, notes: list[str] | None
) -> Callable[[np.ndarray, np.ndarray, list[str], Callable[[int], str]], np.ndarray]:
    """The builder's ``rescale`` step (:func:`benchsift.panel.long._coded.assemble_coded`): the scores
    rescaled per benchmark by :func:`~benchsift.io.rescale.rescale_codes` with ``mode`` and ``scales``, its
    notes added to ``notes``."""

    def rescale(
        scores: np.ndarray, codes: np.ndarray, names: list[str], where: Callable[[int], str]
    ) -> np.ndarray:
        return rescale_codes(scores, codes, names, where=where, mode=mode, scales=scales, notes=notes)

    return rescale
