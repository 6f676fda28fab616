"""Registry of the Stage 2 item selectors: short name -> selector class (PRIMEBench section 5, Appendix D.1).

The names are the ones the CLI's ``--selectors`` option and the validation protocols use::

    random, variance, vaw, disco, pointbiserial, irt2pl, anchorpoints, tinybench, variance-index, auto,
    estimate

(``variance-index``: Variance with ties broken by item index, as in PRIMEBench Tables 12 and 14; ``auto``:
the selector of each pool and budget chosen by nested cross-validation over the build models,
:mod:`benchsift.compression.selectors.auto`.)

Classes are imported lazily on first use, so importing the registry costs nothing and a protocol can list the
names without loading every method. ``make_selector(name, **params)`` builds an instance with the given
parameters (each selector takes ``random_state``).
"""

from __future__ import annotations

import importlib
from typing import Any

from benchsift._inputs import check_choice
from benchsift.compression.selectors.base import ItemSelector
from benchsift.errors import InputError

__all__ = ["SELECTOR_NAMES", "available_selectors", "fresh_selector", "make_selector", "selector_class"]

_PATHS: dict[str, tuple[str, str]] = {
    "random": ("benchsift.compression.selectors.random", "RandomSelector"),
    "variance": ("benchsift.compression.selectors.variance", "VarianceSelector"),
    "vaw": ("benchsift.compression.selectors.vaw", "VAWSelector"),
    "disco": ("benchsift.compression.selectors.disco", "DiscoSelector"),
    "pointbiserial": ("benchsift.compression.selectors.pointbiserial", "PointBiserialSelector"),
    "irt2pl": ("benchsift.compression.selectors.irt2pl", "IRT2PLSelector"),
    "anchorpoints": ("benchsift.compression.selectors.anchorpoints", "AnchorPointsSelector"),
    "tinybench": ("benchsift.compression.selectors.tinybench", "TinyBenchmarksSelector"),
    "variance-index": ("benchsift.compression.selectors.variance", "IndexTieVarianceSelector"),
    "auto": ("benchsift.compression.selectors.auto", "AutoSelector"),
    "estimate": ("benchsift.compression.selectors.estimation", "EstimationSelector"),
}

#: Every registered selector name, in the order of the paper's comparison (section 5), tinyBenchmarks, the
#: item-index tie-break variant of Variance and the automatic selector last.
SELECTOR_NAMES: tuple[str, ...] = tuple(_PATHS)


def check_selector_name(name: str, parameter: str = "selector") -> str:
    """``name`` as registered (stripped, lower case); an unknown name is an error naming ``parameter``, the
    closest names and every registered one."""
    key = str(name).strip().lower()
    if key not in _PATHS:
        check_choice(f"`{parameter}`", name, SELECTOR_NAMES, what="selector")
    return key


def selector_class(name: str) -> type[ItemSelector]:
    """The selector class registered under ``name`` (one of :data:`SELECTOR_NAMES`)."""
    module, attr = _PATHS[check_selector_name(name)]
    cls: type[ItemSelector] = getattr(importlib.import_module(module), attr)
    return cls


def make_selector(name: str, **params: Any) -> ItemSelector:
    """A new selector ``name`` built with keyword ``params`` (e.g. ``random_state=0``)."""
    cls = selector_class(name)
    try:
        return cls(**params)
    except TypeError as exc:
        raise InputError(f"selector {name!r}: bad parameters {sorted(params)}: {exc}") from None


def available_selectors() -> dict[str, type[ItemSelector]]:
    """Name -> class for every registered selector (imports them all)."""
    return {name: selector_class(name) for name in SELECTOR_NAMES}


def fresh_selector(spec: str | ItemSelector, seed: int) -> ItemSelector:
    """A fresh selector for one selection: a registered name built with ``random_state=seed``, or a clone
    (scikit-learn's ``clone``) of a configured instance with its ``random_state`` set to ``seed``."""
    if isinstance(spec, ItemSelector):
        from sklearn.base import clone

        sel: ItemSelector = clone(spec)
        if "random_state" in sel.get_params():
            sel.set_params(random_state=seed)
        return sel
    return make_selector(spec, random_state=seed)


def draws_coverage_cells(selector: str | ItemSelector) -> bool:
    """Whether a selector (a registered name or an instance) draws VAW's coverage cells: VAW (or a subclass
    of it), or a selector choosing among candidates (``auto``) one of which does. Stage 2 and the held-out
    protocols say that VAW has no coverage cells only when such a selector runs."""
    from benchsift.compression.selectors.vaw import VAWSelector

    sel = selector if isinstance(selector, ItemSelector) else make_selector(str(selector))
    if isinstance(sel, VAWSelector):
        return True
    return any(draws_coverage_cells(c) for c in getattr(sel, "candidates", ()))
