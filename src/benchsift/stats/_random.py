"""Seeds: one place that turns a user's ``seed`` into a :class:`numpy.random.Generator`."""

from __future__ import annotations

import numbers

import numpy as np

from benchsift._params import ConstraintLike, Interval, check_param

__all__ = ["SeedLike", "check_random_state"]

SeedLike = int | np.integer | np.random.Generator | None
#: what a seed may be: an integer >= 0 (no bool), a numpy Generator, or None
_SEED: list[ConstraintLike] = [Interval(numbers.Integral, 0, None), np.random.Generator, None]


def check_random_state(seed: SeedLike) -> np.random.Generator:
    """Return a :class:`numpy.random.Generator` for ``seed``.

    - ``None``: a fresh generator seeded from the operating system (not reproducible);
    - an int (``>= 0``): ``np.random.default_rng(seed)``, so the same seed gives the same stream;
    - a ``Generator``: returned as is (not copied), so a caller can pass one generator down a pipeline.

    Anything else (floats, bools, the legacy ``RandomState``) raises :class:`~benchsift.errors.InputError`.
    """
    check_param("random_state", seed, _SEED, quote=False)
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(int(seed))
