"""Spectrum of the z-normalised model x category (or x benchmark) matrix (PRIMEBench Fig. 2, App. F.4, H.4).

For the matrix :math:`S` of per-model group means, every column is z-normalised across models
(:math:`z_{m,g} = (s_{m,g} - \\bar s_g) / \\mathrm{sd}_g`, ddof 0), so a column's energy is the number of
models. With singular values :math:`\\sigma_j` the energy fractions are :math:`\\sigma_j^2 / \\sum_l
\\sigma_l^2`; the table reports the number of components reaching 95 % energy, the participation ratio
:math:`(\\sum_j \\sigma_j)^2 / \\sum_j \\sigma_j^2` (F.4, over the singular values) and the top-5 energy
(Table 19). The spectrum needs a complete matrix, so (``missing="impute"``, default) a missing cell is
set to its column mean after z-scoring (``z = 0``) and counted in ``n_imputed``; ``missing="complete"``
keeps only the models scored on every group instead. A group no model was scored on (in an era) or with
a constant column is dropped and named in ``dropped``.

:func:`era_spectra` recomputes the spectrum per release era (Table 19); models without a release date are
left out, or form their own row with ``include_undated``. :func:`spectrum_report` is the whole table
(the panel's row, then one per era), what ``benchsift diagnose spectrum`` prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, Literal

import numpy as np
import pandas as pd

from benchsift._inputs import check_array, check_length
from benchsift._params import Interval, Options, validate_params
from benchsift.compression.pipeline import pooled_category_means
from benchsift.errors import MIN_MODELS, DegenerateError, InputError
from benchsift.panel import Panel
from benchsift.results import Result
from benchsift.stats import zscore
from benchsift.stats.spectrum import components_for_energy, participation_ratio, spectral_energy, top_k_energy

__all__ = [
    "SpectrumReport",
    "SpectrumResult",
    "era_spectra",
    "group_matrix",
    "panel_spectrum",
    "spectrum",
    "spectrum_report",
    "spectrum_table",
]

Missing = Literal["impute", "complete"]


@dataclass(frozen=True, repr=False)
class SpectrumResult(Result):
    """One row of PRIMEBench Table 19 (NaN values when the matrix has no usable energy, with a note)."""

    label: str
    n_models: int
    n_groups: int
    components: float
    participation_ratio: float
    top_k_energy: float
    energy: np.ndarray = field(repr=False)
    n_imputed: int = 0
    dropped: tuple[str, ...] = ()
    level: float = 0.95
    top_k: int = 5
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "models": self.n_models,
            "groups": self.n_groups,
            "components_for_energy": self.components,
            "level": self.level,
            "participation_ratio": self.participation_ratio,
            f"top_{self.top_k}_energy": self.top_k_energy,
            "energy": self.energy.tolist(),
            "n_imputed": self.n_imputed,
            "dropped": list(self.dropped),
            "note": self.note,
        }

    def to_frame(self) -> pd.DataFrame:
        """This spectrum as one row of Table 19 (the keys of :meth:`to_dict` but the energy curve)."""
        return pd.DataFrame([{k: v for k, v in self.to_dict().items() if not isinstance(v, list)}]).set_index(
            "label"
        )


_MISSING = Options(["impute", "complete"])


@validate_params(
    {
        "level": [Interval(Real, 0, 1, closed="right")],
        "top_k": [Interval(Integral, 1, None)],
        "missing": [_MISSING],
    }
)
def spectrum(
    X: np.ndarray,
    *,
    groups: Sequence[str] | None = None,
    level: float = 0.95,
    top_k: int = 5,
    missing: Missing = "impute",
    label: str = "all",
) -> SpectrumResult:
    """Spectrum of the column-z-normalised ``X`` (models x groups, NaN = missing); see the module doc."""
    A = check_array("X", X, ndim=2, what="a (models x groups) matrix")
    names = [str(g) for g in groups] if groups is not None else [f"G{j}" for j in range(A.shape[1])]
    check_length("groups", names, A.shape[1], "names (one per column)")
    empty = np.asarray(np.isnan(A).all(axis=0), dtype=bool).reshape(A.shape[1])
    if missing == "complete" and empty.any():
        # a group nobody was scored on would leave no complete model: it is dropped first (issue 12)
        A = np.where(empty[None, :], 0.0, A)
    if missing == "complete":
        A = A[~np.isnan(A).any(axis=1)]
    else:
        A = A[~np.isnan(A).all(axis=1)]
    Z = zscore(A, axis=0) if A.shape[0] else A
    keep = ~np.isnan(Z).all(axis=0) if Z.shape[0] else np.zeros(A.shape[1], dtype=bool)
    # a column constant over its observed models is all-NaN after zscore -> dropped
    dropped = tuple(n for n, k in zip(names, np.asarray(keep).tolist(), strict=True) if not k)
    Z = Z[:, keep]
    n_imputed = int(np.isnan(Z).sum())
    Z = np.where(np.isnan(Z), 0.0, Z)
    n_models, n_groups = Z.shape

    def undefined(note: str) -> SpectrumResult:
        nan = float("nan")
        return SpectrumResult(
            label, n_models, n_groups, nan, nan, nan, np.empty(0), n_imputed, dropped, level, top_k, note=note
        )

    if n_models < MIN_MODELS or n_groups < 2:
        # one column has one component holding all the energy whatever the data: not a measurement; nor
        # have two models (z-scored, the second row is minus the first: rank 1 whatever the data)
        return undefined(f"fewer than {MIN_MODELS} models or fewer than 2 usable groups: spectrum undefined")
    try:
        comps = float(components_for_energy(Z, level))
    except DegenerateError:
        return undefined("zero energy: spectrum undefined")
    return SpectrumResult(
        label=label,
        n_models=n_models,
        n_groups=n_groups,
        components=comps,
        participation_ratio=participation_ratio(Z),
        top_k_energy=top_k_energy(Z, int(top_k)),
        energy=spectral_energy(Z),
        n_imputed=n_imputed,
        dropped=dropped,
        level=float(level),
        top_k=int(top_k),
    )


@validate_params({"by": [Options(["category", "benchmark"])]})
def group_matrix(panel: Panel, by: str = "category") -> tuple[np.ndarray, list[str]]:
    """Per image-condition model: the item-pooled category means (``by="category"``, a missing category is
    the benchmark) or the benchmark means (``by="benchmark"``)."""
    if by == "benchmark":
        image = panel.image_panel() if not panel.image_rows.all() else panel
        g = image.benchmark_means()
        return np.asarray(g.means, dtype=np.float64), [str(x) for x in g.groups]
    return pooled_category_means(panel)  # by == "category"


def panel_spectrum(
    panel: Panel, by: str = "category", *, level: float = 0.95, top_k: int = 5, missing: Missing = "impute"
) -> SpectrumResult:
    """Spectrum of ``panel``'s model x ``by`` matrix (PRIMEBench Fig. 2 / F.4)."""
    X, names = group_matrix(panel, by)
    res = spectrum(X, groups=names, level=level, top_k=top_k, missing=missing)
    if res.note:
        raise DegenerateError(
            f"spectrum by {by}: {res.n_models} model(s) and {res.n_groups} usable column(s) ({res.note}); "
            f"it needs at least {MIN_MODELS} models (two z-scored models mirror each other: one component "
            "whatever the data) and 2 non-constant columns"
        )
    return res


def _era_labels(dates: pd.Series, boundaries: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    for b in boundaries:
        try:
            pd.Timestamp(b)
        except (ValueError, TypeError):
            raise InputError(f"`eras`: {b!r} is not a date (expected YYYY-MM-DD)") from None
    bounds = pd.to_datetime(pd.Series(list(boundaries)))
    if not bounds.is_monotonic_increasing:
        raise InputError(f"boundaries: expected increasing dates, got {list(boundaries)}")
    fmt = [b.strftime("%b %Y") for b in bounds]
    names = [f"before {fmt[0]}"]
    names += [f"{fmt[i - 1]} - {fmt[i]}" for i in range(1, len(fmt))]
    names.append(f"from {fmt[-1]}")
    d = pd.to_datetime(dates).to_numpy()
    idx = np.searchsorted(bounds.to_numpy(), d, side="right")
    out = np.array([names[i] for i in idx], dtype=object)
    out[pd.isna(d)] = "undated"
    return out, names


def era_spectra(
    panel: Panel,
    by: str = "benchmark",
    *,
    boundaries: Sequence[str] = ("2024-06-01", "2025-01-01"),
    include_undated: bool = False,
    level: float = 0.95,
    top_k: int = 5,
    missing: Missing = "impute",
) -> list[SpectrumResult]:
    """One spectrum per release era of the image-condition models (PRIMEBench H.4, Table 19).

    Eras are ``[-inf, b_1), [b_1, b_2), ..., [b_n, inf)`` of ``release_date``; a group with no score in an
    era is dropped for that era.
    """
    X, names = group_matrix(panel, by)
    models = panel.models[panel.image_rows]
    eras, names_in_order = _era_labels(models["release_date"], boundaries)
    order = [e for e in names_in_order if (eras == e).any()]
    if include_undated and (eras == "undated").any():
        order.append("undated")
    out = []
    for era in order:
        rows = eras == era
        sub = X[rows]
        cols = ~np.isnan(sub).all(axis=0)
        out.append(
            spectrum(
                sub[:, cols],
                groups=[n for n, c in zip(names, cols, strict=True) if c],
                level=level,
                top_k=top_k,
                missing=missing,
                label=str(era),
            )
        )
    return out


def spectrum_table(results: Sequence[SpectrumResult]) -> pd.DataFrame:
    """PRIMEBench Table 19 layout: era, models, groups, components for 95 %, PR, top-5 (%)."""
    return pd.DataFrame(
        {
            "era": [r.label for r in results],
            "models": [r.n_models for r in results],
            "groups": [r.n_groups for r in results],
            "components_95": [r.components for r in results],
            "participation_ratio": [r.participation_ratio for r in results],
            "top5_energy_pct": [100.0 * r.top_k_energy for r in results],
            "imputed": [r.n_imputed for r in results],
        }
    )


@dataclass(frozen=True, repr=False)
class SpectrumReport(Result):
    """Result of :func:`spectrum_report`: the rows of PRIMEBench Table 19.

    Attributes
    ----------
    by:
        ``"category"`` or ``"benchmark"``: the matrix's columns.
    spectra:
        The whole panel's spectrum, then one per era (when eras were given).
    """

    by: str
    spectra: tuple[SpectrumResult, ...]

    def to_dict(self) -> dict[str, Any]:
        """``{"by": ..., "spectra": [each spectrum's to_dict()]}``."""
        return {"by": self.by, "spectra": [r.to_dict() for r in self.spectra]}

    def to_frame(self) -> pd.DataFrame:
        """The table in Table 19's layout (:func:`spectrum_table`)."""
        return spectrum_table(self.spectra)


@validate_params({"by": [Options(["category", "benchmark"])], "missing": [_MISSING]})
def spectrum_report(
    panel: Panel,
    by: str = "category",
    *,
    eras: Sequence[str] | None = None,
    include_undated: bool = False,
    missing: Missing | str = "impute",
) -> SpectrumReport:
    """The panel's spectrum (:func:`panel_spectrum`) and, with ``eras``, one per release era
    (:func:`era_spectra`): PRIMEBench F.4 / H.4, Table 19.

    Parameters
    ----------
    panel:
        Item-level or aggregate score panel.
    by:
        ``"category"`` or ``"benchmark"``: the matrix's columns.
    eras:
        Era boundaries as dates (``YYYY-MM-DD``, increasing); ``None`` or empty: the panel's row only.
    include_undated:
        With ``eras``: add an era of the models without a release date.
    missing:
        ``"impute"`` (a missing cell is z = 0) or ``"complete"`` (complete models only).
    """
    how: Missing = "impute" if missing == "impute" else "complete"
    spectra = [panel_spectrum(panel, by, missing=how)]
    if eras:
        spectra += era_spectra(panel, by, boundaries=eras, include_undated=include_undated, missing=how)
    return SpectrumReport(by, tuple(spectra))
