"""Build / held-out splits of a model panel (PRIMEBench section 5, Appendix D.3).

A split divides the panel's models into *build* models, which select the items, and *held-out* models, which
are scored. Two kinds:

* **random balanced** (:func:`random_splits`): ``n_splits`` independent random permutations of the models
  drawn from one seeded generator; the first ``floor(n / 2)`` models of each permutation build, the rest are
  held out (15/15 on the paper's 30 models). The same seed gives the same splits.
* **chronological** (:func:`chronological_split`): the models are ordered by release date (ties by panel
  row), models without a date sort last (they "belong to the newest release waves", D.3); the oldest
  ``n_build`` models build and the next ``n_heldout`` (default: all the rest) are held out. No undated model
  ever enters a build set: asking for more build models than there are dated ones is an error.
  :func:`chronological_splits` adds the sensitivity splits (10/20 and 20/10 on 30 models: a third and two
  thirds of the panel building).

Positions are row positions (int64) into the model axis the splits were made for (in the protocols: the
image-condition rows of the panel).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from benchsift._params import Interval, check_param, validate_params
from benchsift.errors import InputError
from benchsift.stats import check_random_state

__all__ = [
    "Split",
    "chronological_order",
    "chronological_split",
    "chronological_splits",
    "random_splits",
]


@dataclass(frozen=True)
class Split:
    """One split: sorted int64 row positions of the ``build`` and ``heldout`` models, and a ``name``."""

    name: str
    build: np.ndarray
    heldout: np.ndarray

    @property
    def n_build(self) -> int:
        return int(self.build.shape[0])

    @property
    def n_heldout(self) -> int:
        return int(self.heldout.shape[0])

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "build": self.build.tolist(), "heldout": self.heldout.tolist()}


@validate_params(
    {
        "n_models": [Interval(Integral, 2, None)],
        "n_splits": [Interval(Integral, 1, None)],
        "n_build": [Interval(Integral, 1, None), None],
    }
)
def random_splits(
    n_models: int,
    n_splits: int = 20,
    *,
    n_build: int | None = None,
    random_state: int | np.random.Generator | None = 0,
) -> list[Split]:
    """``n_splits`` random balanced build / held-out splits (PRIMEBench D.3: 20 random 15/15 splits).

    Each split is an independent uniform permutation of the ``n_models`` rows; the first ``n_build``
    (default ``floor(n_models / 2)``) build and the rest are held out, so build and held-out are disjoint
    and cover every model. Splits are drawn from one generator resolved once from ``random_state``.
    """
    n, k = int(n_models), int(n_splits)
    if n_build is None:
        nb = n // 2
    else:
        fewer = f"fewer than the {n} models (someone must be held out)"
        nb = int(check_param("n_build", n_build, [Interval(Integral, 1, n - 1, desc=fewer)]))
    rng = check_random_state(random_state)
    perms = np.argsort(rng.random((k, n)), axis=1)  # k independent uniform permutations, one call
    width = len(str(k))
    return [
        Split(
            name=f"random {s + 1:0{width}d}",
            build=np.sort(perms[s, :nb]).astype(np.int64),
            heldout=np.sort(perms[s, nb:]).astype(np.int64),
        )
        for s in range(k)
    ]


def _as_dates(release_dates: Any) -> pd.DatetimeIndex:
    try:
        return pd.DatetimeIndex(pd.to_datetime(pd.Series(release_dates), errors="raise"))
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"release_dates: expected dates (or NaT for unknown), could not parse: {exc}"
        ) from None


def chronological_order(release_dates: Any) -> tuple[np.ndarray, int]:
    """Row positions in release order (oldest first, ties by row), undated last; and the number dated."""
    dates = _as_dates(release_dates)
    dated = ~dates.isna()
    pos = np.arange(len(dates), dtype=np.int64)
    key = dates.asi8  # NaT is the smallest int64; only used for the dated rows
    dated_pos = pos[dated]
    order_dated = dated_pos[np.lexsort((dated_pos, key[dated]))]
    return np.concatenate([order_dated, pos[~dated]]), int(dated.sum())


@validate_params(
    {"n_build": [Interval(Integral, 1, None), None], "n_heldout": [Interval(Integral, 1, None), None]}
)
def chronological_split(
    release_dates: Any, n_build: int | None = None, n_heldout: int | None = None
) -> Split:
    """Build on the oldest ``n_build`` models, score the next ``n_heldout`` (PRIMEBench D.3).

    ``n_build`` defaults to ``min(floor(n / 2), n_dated)``; ``n_heldout`` to every remaining model (newer
    dated ones first, then the undated ones, which sort last). Raises
    :class:`~benchsift.errors.InputError` when ``n_build`` exceeds the number of dated models (no undated
    model may enter a build set) or when nobody is left to hold out.
    """
    order, n_dated = chronological_order(release_dates)
    n = order.shape[0]
    if n_dated == 0:
        raise InputError(
            "release_date: no model has a release date; a chronological split needs dated models (add "
            "them with benchsift import ... --models FILE)"
        )
    if n_build is None:
        nb = min(n // 2, n_dated)
    else:
        hi = min(n_dated, n - 1)
        dated = f"1 to {hi} (undated models never enter a build set: {n_dated} are dated; one is held out)"
        nb = int(check_param("n_build", n_build, [Interval(Integral, 1, hi, desc=dated)]))
    rest = n - nb
    if n_heldout is None:
        nh = rest
    else:
        left = f"1 to the {rest} models left after {nb} build"
        nh = int(check_param("n_heldout", n_heldout, [Interval(Integral, 1, rest, desc=left)]))
    return Split(
        name=f"chronological {nb}/{nh}",
        build=np.sort(order[:nb]),
        heldout=np.sort(order[nb : nb + nh]),
    )


def chronological_splits(release_dates: Any, *, sensitivity: bool = True) -> list[Split]:
    """The main chronological split, then (``sensitivity``) the one-third / two-thirds build splits.

    On ``n`` models with ``n_dated`` dated: main ``floor(n / 2)`` / rest; sensitivity ``round(n / 3)`` and
    ``round(2 n / 3)`` build models (10/20 and 20/10 on 30 models), each capped at ``n_dated`` and
    skipped when it repeats an earlier build size.
    """
    order, n_dated = chronological_order(release_dates)
    n = order.shape[0]
    main = chronological_split(release_dates)
    out = [main]
    if sensitivity:
        seen = {main.n_build}
        for nb in (round(n / 3), round(2 * n / 3)):
            nb = min(max(nb, 1), n_dated, n - 1)
            if nb not in seen:
                seen.add(nb)
                out.append(chronological_split(release_dates, n_build=nb))
    return out
