"""Spectral energy, components for an energy level, participation ratio, top-k energy."""

from __future__ import annotations

import numpy as np
import pytest

from benchsift.errors import DegenerateError, InputError
from benchsift.stats import zscore
from benchsift.stats.spectrum import components_for_energy, participation_ratio, spectral_energy, top_k_energy


def orthonormal(n: int, k: int, seed: int) -> np.ndarray:
    q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(n, k)))
    return q


def known_spectrum(sigma: list[float], n: int = 30, k: int = 10) -> np.ndarray:
    """U diag(sigma) V^T with orthonormal U, V: the singular values are exactly ``sigma`` (then zeros)."""
    r = len(sigma)
    return orthonormal(n, r, 0) @ np.diag(sigma) @ orthonormal(k, r, 1).T


def test_rank_one() -> None:
    X = np.outer(np.arange(1.0, 7.0), [1.0, 2.0, 0.5])
    frac = spectral_energy(X)
    np.testing.assert_allclose(frac, [1.0, 0.0, 0.0], atol=1e-12)
    assert components_for_energy(X, 0.95) == 1
    assert components_for_energy(X, 1.0) == 1
    assert participation_ratio(X) == pytest.approx(1.0, abs=1e-6)
    assert top_k_energy(X, 1) == pytest.approx(1.0, abs=1e-12)


def test_rank_two_known_values() -> None:
    X = known_spectrum([3.0, 1.0])
    # energies 9 and 1 of 10
    np.testing.assert_allclose(spectral_energy(X)[:3], [0.9, 0.1, 0.0], atol=1e-12)
    assert components_for_energy(X, 0.9) == 1
    assert components_for_energy(X, 0.95) == 2
    assert top_k_energy(X, 1) == pytest.approx(0.9, abs=1e-12)
    assert top_k_energy(X, 5) == pytest.approx(1.0, abs=1e-12)
    # over singular values (PRIMEBench App. F.4): (3 + 1)^2 / (9 + 1); over eigenvalues: 10^2 / (81 + 1)
    assert participation_ratio(X) == pytest.approx(16 / 10, abs=1e-6)
    assert participation_ratio(X, values="eigen") == pytest.approx(100 / 82, abs=1e-9)


def test_flat_spectrum_and_center() -> None:
    X = known_spectrum([2.0, 2.0, 2.0, 2.0])
    assert participation_ratio(X) == pytest.approx(4.0, abs=1e-6)
    assert components_for_energy(X, 0.95) == 4
    # a constant offset is one extra component unless centred
    Y = known_spectrum([3.0]) + 0.1
    assert spectral_energy(Y)[1] > 0.1
    assert components_for_energy(Y, 0.99) == 2
    assert components_for_energy(Y, 0.99, center=True) == 1
    centred = Y - Y.mean(axis=0)
    np.testing.assert_allclose(spectral_energy(Y, center=True), spectral_energy(centred), atol=1e-12)


def test_low_rank_recovery_from_noisy_scores() -> None:
    # parameter recovery: 3 latent traits + small noise, z-normalised as in the paper -> 3 components
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 3)) @ rng.normal(size=(3, 18)) + 0.05 * rng.normal(size=(60, 18))
    assert components_for_energy(zscore(X, axis=0), 0.95) == 3


def test_degenerate_and_bad_input() -> None:
    Z = np.zeros((4, 3))
    assert np.isnan(spectral_energy(Z)).all()
    assert np.isnan(participation_ratio(Z))
    assert np.isnan(top_k_energy(Z, 2))
    with pytest.raises(DegenerateError):
        components_for_energy(Z)
    with pytest.raises(InputError, match="row 1, column 2"):
        spectral_energy(np.array([[1.0, 2.0, 3.0], [1.0, 2.0, np.nan]]))
    with pytest.raises(InputError, match="level"):
        components_for_energy(np.eye(3), 0)
    with pytest.raises(InputError, match="k"):
        top_k_energy(np.eye(3), 0)
    with pytest.raises(InputError, match="values"):
        participation_ratio(np.eye(3), values="sigma")  # type: ignore[arg-type]
