"""What a protocol sweep runs: the selectors and retentions, checked once at the protocol's entry point.

The paper's defaults (PRIMEBench section 5), the selector specs (a registered name or an
:class:`~benchsift.compression.selectors.base.ItemSelector`), their labels and the fresh selector each
selection builds. Shared by :mod:`~benchsift.compression.protocols.stage2_heldout`, ``end_to_end``,
``same_model`` and :mod:`benchsift.compression.diagnostics.checkpoints`.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any

from benchsift._inputs import check_distinct
from benchsift._params import ConstraintLike, Interval, Options, check_param
from benchsift.compression.selectors.base import SELECTOR_SPEC, ItemSelector
from benchsift.compression.selectors.budget import FLOOR, check_retention

__all__ = [
    "DEFAULT_RETENTIONS",
    "DEFAULT_SELECTORS",
    "PROTOCOL_PARAMS",
    "SPLIT_PROTOCOLS",
    "SelectorSpec",
    "build_selector",
    "candidate_labels",
    "check_retentions",
    "check_selectors",
    "disco_warnings",
    "seed_per_pool",
    "selector_label",
    "with_scoring",
]


#: The paper's Stage 2 selectors in the order of PRIMEBench section 5 (tinyBenchmarks is opt-in).
DEFAULT_SELECTORS: tuple[str, ...] = (
    "random",
    "variance",
    "vaw",
    "disco",
    "pointbiserial",
    "irt2pl",
    "anchorpoints",
)
#: The six retentions of PRIMEBench section 5.
DEFAULT_RETENTIONS: tuple[float, ...] = (0.01, 0.02, 0.05, 0.10, 0.20, 0.50)

SelectorSpec = str | ItemSelector

#: The split protocols of the held-out sweeps (a ``splits`` list given instead overrides them).
SPLIT_PROTOCOLS = Options(("random", "chronological"))
#: The parameters the held-out protocols share, declared once.
PROTOCOL_PARAMS: dict[str, list[ConstraintLike]] = {
    "floor": [FLOOR],
    "min_heldout": [Interval(Integral, 2, None)],
}


def check_retentions(retentions: Sequence[float]) -> list[float]:
    vals = [check_retention(r) for r in retentions]
    check_distinct("`retentions`", vals, what="retention")
    return vals


def selector_label(spec: SelectorSpec) -> str:
    if isinstance(spec, ItemSelector):
        return str(getattr(spec, "name", type(spec).__name__))
    check_param("selector", spec, SELECTOR_SPEC, quote=False)
    return spec.strip().lower()


def disco_warnings(labels: Sequence[str], predictions: Any) -> list[str]:
    """A warning when DISCO runs without the models' logged answers (it then counts distinct scores).

    PRIMEBench section 5 applies DISCO to the logged answers; without them the selector falls back to the
    distinct (rounded) score values, a different quantity, which must be said.
    """
    if predictions is None and any(str(lab).lower() == "disco" for lab in labels):
        return [
            "DISCO ran without logged answers (--answers FILE, predictions=): it counted distinct scores per "
            "item instead of the models' distinct answers (PRIMEBench section 5 uses the logged answers)"
        ]
    return []


def check_selectors(selectors: Sequence[SelectorSpec]) -> list[str]:
    """Validate the selector list (names must be registered); returns their labels."""
    from benchsift.compression.selectors.registry import check_selector_name

    labels = []
    for spec in selectors:
        label = selector_label(spec)
        if isinstance(spec, str):
            check_selector_name(label, "selectors")
        labels.append(label)
    check_distinct("`selectors`", labels, what="selector")
    return labels


def build_selector(spec: SelectorSpec, seed: int) -> ItemSelector:
    """A fresh selector for one selection: a registered name built with ``random_state=seed``, or a clone."""
    from benchsift.compression.selectors.registry import fresh_selector

    return fresh_selector(spec, seed)


def _spec_class(spec: SelectorSpec) -> type[ItemSelector]:
    if isinstance(spec, ItemSelector):
        return type(spec)
    from benchsift.compression.selectors.registry import selector_class

    return selector_class(spec)


def seed_per_pool(spec: SelectorSpec) -> bool:
    """Whether the selector asks for one seed per pool, the same at every retention (``seed_per_pool``
    class attribute, e.g. :class:`~benchsift.compression.selectors.auto.AutoSelector`, whose inner splits
    are then shared by the retentions of a pool)."""
    return bool(getattr(_spec_class(spec), "seed_per_pool", False))


def candidate_labels(spec: SelectorSpec) -> list[str] | None:
    """The candidates' names of a selector that picks among candidates and takes the seed each would be
    given (a ``candidate_seeds`` parameter, e.g. the automatic selector), or None for any other selector."""
    cls = _spec_class(spec)
    if "candidate_seeds" not in cls._get_param_names():
        return None
    sel = spec if isinstance(spec, ItemSelector) else build_selector(spec, 0)
    labels: list[str] = sel.candidate_labels()
    return labels


def _candidates(spec: SelectorSpec) -> list[SelectorSpec]:
    """The candidates of a selector that picks among candidates (the automatic selector; its default ones
    for a name), else []."""
    if candidate_labels(spec) is None:
        return []
    sel = spec if isinstance(spec, ItemSelector) else build_selector(spec, 0)
    return list(getattr(sel, "candidates", ()))


def reads_embeddings(spec: SelectorSpec) -> bool:
    """Whether the selector reads the item embeddings (itself or, for ``auto``, one of its candidates)."""
    from benchsift.compression.selectors.base import inputs_read

    if inputs_read(_spec_class(spec)) & {"embeddings", "text_embeddings"}:
        if not _candidates(spec):
            return True
    return any(reads_embeddings(c) for c in _candidates(spec))


def with_scoring(spec: SelectorSpec, scoring: str) -> SelectorSpec:
    """The spec with the protocol's ``scoring`` set, for a selector that takes a ``scoring`` parameter (the
    automatic selector measures its candidates' inner fidelity the way the protocol scores); other specs
    unchanged. A configured instance is cloned, never changed in place."""
    cls = _spec_class(spec)
    if "scoring" not in cls._get_param_names():
        return spec
    if isinstance(spec, ItemSelector):
        from sklearn.base import clone

        out: ItemSelector = clone(spec)
        return out.set_params(scoring=scoring)
    from benchsift.compression.selectors.registry import make_selector

    return make_selector(spec, scoring=scoring)
