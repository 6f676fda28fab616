"""The diagnostics' parameters are declared once (validate_params): one line naming the parameter, what
was expected and what was given, before any work."""

from __future__ import annotations

import numpy as np
import pytest

from benchsift.compression.diagnostics import aggregate_stage3, leftout_prediction
from benchsift.compression.diagnostics.spectrum import spectrum
from benchsift.errors import InputError

X = np.random.default_rng(0).random((12, 4))


def test_spectrum_names_its_own_parameters() -> None:
    with pytest.raises(InputError, match=r"^`top_k`: expected an integer >= 1, got 0$"):
        spectrum(X, top_k=0)  # was reported as top_k_energy's `k`
    with pytest.raises(InputError, match=r"^`level`: expected a number in \(0, 1\], got 1.5$"):
        spectrum(X, level=1.5)
    with pytest.raises(InputError, match=r"^`missing`: expected impute or complete, got 'drop'$"):
        spectrum(X, missing="drop")  # type: ignore[arg-type]


def test_aggregate_stage3_says_which_parameter() -> None:
    with pytest.raises(InputError, match=r"^`n_boot`: expected an integer >= 2, got 0$"):
        aggregate_stage3(X, ks=(2,), n_boot=0)
    with pytest.raises(InputError, match=r"^`level`: expected a number in \(0, 1\), got 1$"):
        aggregate_stage3(X, ks=(2,), level=1)


def test_leftout_declared() -> None:
    with pytest.raises(InputError, match=r"^`n_splits`: expected an integer >= 1, got 2.5$"):
        leftout_prediction(X, n_splits=2.5)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^`alpha`: expected a ridge penalty >= 0, got inf$"):
        leftout_prediction(X, alpha=float("inf"))
