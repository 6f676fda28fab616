"""Seeds: one place that turns a user's ``seed`` into a :class:`numpy.random.Generator`."""

from __future__ import annotations

import numbers

import numpy as np

from benchsift.errors import InputError

__all__ = ["SeedLike", "check_random_state"]

SeedLike = int | np.integer | np.random.Generator | None


def check_random_state(seed: SeedLike) -> np.random.Generator:
    """Return a :class:`numpy.random.Generator` for ``seed``.

    - ``None``: a fresh generator seeded from the operating system (not reproducible);
    - an int (``>= 0``): ``np.random.default_rng(seed)``, so the same seed gives the same stream;
    - a ``Generator``: returned as is (not copied), so a caller can pass one generator down a pipeline.

    Anything else (floats, bools, the legacy ``RandomState``) raises :class:`~benchsift.errors.InputError`.
    """
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool | np.bool_):
        raise InputError(f"random_state: expected an int >= 0, None or numpy Generator, got bool {seed!r}")
    if isinstance(seed, numbers.Integral):
        if int(seed) < 0:
            raise InputError(f"random_state: expected an int >= 0, got {int(seed)}")
        return np.random.default_rng(int(seed))
    raise InputError(
        f"random_state: expected an int >= 0, None or numpy Generator, got {type(seed).__name__} {seed!r}"
    )
