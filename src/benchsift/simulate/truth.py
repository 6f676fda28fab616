"""The ground truth returned next to a simulated panel.

Position conventions (every per-item array is aligned with ``panel.items``, every per-model array with the
image-condition rows of the panel):

* items: entry ``i`` of every per-item array (``item_discrimination``, ``all_correct``, ``embeddings_vl``
  rows, ...) describes ``panel.items.iloc[i]``, i.e. score column ``i``;
* models: row ``m`` of ``abilities`` describes panel row ``m``; the panel holds the ``n_models``
  image-condition rows first (rows ``0 .. n_models - 1``) and then one ``"text-only"`` row per model in
  ``text_only_models`` (same ``model`` id, in that order).

Item response model (PRIMEBench section 3 notation, 2PL form): for image-condition model ``m`` and item
``i``, ``eta_mi = sum_k item_trait_loading[i, k] * abilities[m, item_trait_index[i, k]]`` (three traits per
item: general, its category's trait, its benchmark/dimension-group specific trait) and
``P(correct) = sigmoid(item_discrimination[i] * (eta_mi - item_difficulty[i]))`` (see
:meth:`GroundTruth.image_probabilities`); graded benchmarks add logit noise instead of a Bernoulli draw.
Planted all-correct items are then set to 1 for every image-condition model, whatever ``P`` says.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from benchsift._fileio import atomic_path
from benchsift._inputs import existing_file
from benchsift.errors import FormatError

_FORMAT = "benchsift-simulation-truth/1"

# fields stored as JSON (dicts / lists of str); every other field is an ndarray
_JSON_FIELDS = (
    "trait_names",
    "benchmark_category",
    "central_benchmark",
    "graded_benchmarks",
    "text_only_models",
    "dimension_groups",
    "benchmark_specific_weight",
    "central_margin",
    "config",
    "contaminated_models",
)


# fields added with the audit plants; files written before them load with nothing planted
_PLANT_FIELDS = ("mislabelled", "contaminated", "contaminated_models")


@dataclass(frozen=True, eq=False)
class GroundTruth:
    """Known structure behind a :class:`~benchsift.simulate.SimulatedPanel`.

    Model side (``n_models`` image-condition models, panel rows ``0 .. n_models - 1``)
        trait_names: names of the ``n_traits`` latent traits: ``"general"``, one ``"category:<name>"`` per
            category, one ``"specific:<benchmark>:<group>"`` per benchmark dimension group.
        abilities: ``(n_models, n_traits)`` latent abilities (family offset + individual part; the general
            trait also carries the release-date drift and the parameter-count effect).
        factor_abilities, category_factor_loading: ``(n_models, K)`` broad factors and ``(n_categories, K)``
            unit loadings; the category traits are ``sqrt(1 - u) * factors @ loading.T`` plus their own part.
        release_date_true, params_true: the dates (``datetime64[ns]``) and parameter counts before the
            undated / unknown ones were hidden in ``panel.models``.
        text_only_models: model ids that also have a text-only row, in panel row order.
    Item side (``n_items``, aligned with ``panel.items``)
        item_discrimination, item_difficulty: 2PL ``a`` and ``b`` (blind-solvable items are made easier).
        item_trait_index, item_trait_loading: ``(n_items, 3)`` trait columns and loadings (sum of squares 1).
        item_cluster: latent content cluster (global id; clusters never span benchmarks).
        item_image: shared-image id of each item (global; None without shared images).
        image_response: ``(n_models, n_images)`` model x image logit effects (None without them).
        vision_dependence: in [0, 1], how much the item needs the image; ``1 - cos(E_text, E_VL)`` rises
            with it.
        all_correct: planted all-correct items (every image-condition model scores exactly 1).
        blind_solvable: planted blind-solvable items (text-only mean >= ``config['blind_beta_min']``; every
            other item's text-only mean is <= ``config['nonblind_beta_max']``).
        embeddings_vl, embeddings_text: ``(n_items, embedding_dim)`` float32 unit vectors.
    Benchmark side
        benchmark_category: {benchmark: category}.
        central_benchmark: {category: benchmark} planted most central benchmark (loads on no specific trait,
            higher discrimination), the one Stage 1 (PRIMEBench Eq. 3) should pick.
        benchmark_specific_weight: {benchmark: loading of its specific traits} (0 for central benchmarks).
        central_margin: {category: Eq. 3 correlation of the central benchmark minus the best other one, on
            the expected scores (the plant's margin); NaN for categories with fewer than three benchmarks,
            where Eq. 3 cannot tell a central benchmark apart (then the plant is only in the loadings).
        graded_benchmarks: benchmarks with continuous scores.
        dimension_groups: {benchmark: {dimension: group}} for benchmarks with planted correlated
            dimensions (item column ``dimension``; dimensions of one group share a specific trait). Central
            benchmarks are left out: their dimensions are exchangeable (one factor).
    Audit plants (:mod:`benchsift.audit`; empty unless the config's rates are above 0)
        mislabelled: items with a flipped key (stronger models answer them less often).
        contaminated: items the ``contaminated_models`` find easier than their ability says (the
            contamination signal of differential item functioning).
        contaminated_models: model ids (image-condition rows) with the advantage on ``contaminated`` items.
    config: the :class:`SimulationConfig` as a dict, plus ``"random_state"``.
    """

    trait_names: list[str]
    abilities: np.ndarray
    factor_abilities: np.ndarray
    category_factor_loading: np.ndarray
    release_date_true: np.ndarray
    params_true: np.ndarray
    text_only_models: list[str]
    item_discrimination: np.ndarray
    item_difficulty: np.ndarray
    item_trait_index: np.ndarray
    item_trait_loading: np.ndarray
    item_cluster: np.ndarray
    vision_dependence: np.ndarray
    all_correct: np.ndarray
    blind_solvable: np.ndarray
    embeddings_vl: np.ndarray
    embeddings_text: np.ndarray
    benchmark_category: dict[str, str]
    central_benchmark: dict[str, str]
    benchmark_specific_weight: dict[str, float]
    central_margin: dict[str, float]
    graded_benchmarks: list[str]
    dimension_groups: dict[str, dict[str, int]] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    item_image: np.ndarray | None = None
    image_response: np.ndarray | None = None
    mislabelled: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    contaminated: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    contaminated_models: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------ derived quantities
    @property
    def n_models(self) -> int:
        """Number of image-condition models."""
        return int(self.abilities.shape[0])

    @property
    def n_items(self) -> int:
        """Number of items."""
        return int(self.item_discrimination.shape[0])

    def item_eta(self) -> np.ndarray:
        """``(n_models, n_items)`` effective ability ``eta_mi`` (module docstring)."""
        eta = np.zeros((self.n_models, self.n_items))
        for k in range(self.item_trait_index.shape[1]):
            eta += self.abilities[:, self.item_trait_index[:, k]] * self.item_trait_loading[:, k]
        return eta

    def image_probabilities(self) -> np.ndarray:
        """``(n_models, n_items)`` 2PL probability of a correct image-condition answer,
        ``sigmoid(a_i (eta_mi - b_i))`` (for graded items: the score before logit noise). Planted
        all-correct items are overridden to 1 in the panel and are 1 here too."""
        logit = self.item_discrimination * (self.item_eta() - self.item_difficulty)
        if self.image_response is not None and self.item_image is not None:
            logit += self.image_response[:, self.item_image]
        p = 1.0 / (1.0 + np.exp(-logit))
        p[:, self.all_correct] = 1.0
        return p

    def delta_vl(self) -> np.ndarray:
        """PRIMEBench's vision-dependence score ``delta^VL_i = 1 - cos(E^L_i, E^VL_i)`` (section 4.3) of the
        simulated embeddings (both are unit vectors)."""
        cos = np.einsum(
            "ij,ij->i", self.embeddings_vl.astype(np.float64), self.embeddings_text.astype(np.float64)
        )
        return 1.0 - cos

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | Path) -> Path:
        """Write every field to one uncompressed ``.npz`` file (atomically; no pickles: dicts are stored as
        JSON)."""
        target = Path(path)
        arrays: dict[str, np.ndarray] = {}
        meta: dict[str, Any] = {"format": _FORMAT}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:  # optional arrays (shared images) are simply absent
                continue
            if f.name in _JSON_FIELDS:
                meta[f.name] = value
            elif f.name == "release_date_true":
                arrays[f.name] = np.asarray(value, dtype="datetime64[ns]").astype(np.int64)
            else:
                arrays[f.name] = np.asarray(value)
        arrays["_meta"] = np.array(json.dumps(meta))
        with atomic_path(target) as tmp, open(tmp, "wb") as fh:
            np.savez(fh, **arrays)  # type: ignore[arg-type]  # float noise: compression buys ~3 %, costs 10 s
        return target

    @classmethod
    def load(cls, path: str | Path) -> GroundTruth:
        """Read a file written by :meth:`save`."""
        source = existing_file(path, "a ground-truth file (.npz)")  # (a folder: "is a directory")
        _check_members(source)
        try:
            with np.load(source, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError) as exc:
            raise FormatError(f"{source}: not a simulation truth file (.npz): {exc}") from None
        if "_meta" not in arrays:
            raise FormatError(f"{source}: not a benchsift simulation truth file (no '_meta' entry)")
        meta = json.loads(str(arrays.pop("_meta")))
        if meta.get("format") != _FORMAT:
            raise FormatError(
                f"{source}: unsupported truth format {meta.get('format')!r}, expected {_FORMAT!r}"
            )
        kwargs: dict[str, Any] = {}
        n_items = int(arrays["item_discrimination"].shape[0]) if "item_discrimination" in arrays else 0
        for f in fields(cls):
            if f.name in _PLANT_FIELDS and f.name not in arrays and f.name not in meta:
                # written before the audit plants existed: no item was planted
                kwargs[f.name] = [] if f.name in _JSON_FIELDS else np.zeros(n_items, dtype=bool)
            elif f.name in _JSON_FIELDS:
                kwargs[f.name] = meta[f.name]
            elif f.name not in arrays and f.default is None:
                continue
            elif f.name == "release_date_true":
                kwargs[f.name] = arrays[f.name].astype("datetime64[ns]")
            else:
                kwargs[f.name] = arrays[f.name]
        return cls(**kwargs)

    def equals(self, other: GroundTruth) -> bool:
        """Field-by-field equality (arrays compared exactly, NaN equal to NaN)."""
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if a is None or b is None:
                if a is not b:
                    return False
                continue
            if isinstance(a, np.ndarray):
                if not isinstance(b, np.ndarray) or a.shape != b.shape or a.dtype != b.dtype:
                    return False
                if not np.array_equal(a, b, equal_nan=a.dtype.kind == "f"):
                    return False
            elif json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
                return False
        return True


def _check_members(source: Path) -> None:
    """Refuse, before a member is read, an ``.npz`` whose members unpack to more bytes than the file holds:
    :meth:`GroundTruth.save` stores them uncompressed (``np.savez``), so a compressed member (a deflate bomb:
    1.5 GiB from 1.5 MiB) is not one it wrote. A file that is not a zip archive passes (``np.load`` names
    the error)."""
    import zipfile

    try:
        with zipfile.ZipFile(source) as archive:
            members = archive.infolist()
    except (OSError, zipfile.BadZipFile):
        return
    unpacked = sum(info.file_size for info in members)
    if unpacked > source.stat().st_size or any(info.compress_type != zipfile.ZIP_STORED for info in members):
        raise FormatError(
            f"{source}: not a benchsift simulation truth file: its members unpack to {unpacked:,} bytes from "
            f"a {source.stat().st_size:,}-byte file (a truth file stores them uncompressed)"
        )
