"""A library call whose result carries ``warnings``, checked to raise exactly those lines as
:class:`~benchsift.errors.ResultWarning` (``"<function>: <line>"``, once each, in order): what a notebook
shows is what the result says. Other warnings it raises are raised again, so that the suite's
``filterwarnings = error`` (or an enclosing ``pytest.warns``) sees them."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from benchsift.errors import ResultWarning


def calling(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)``, asserting that its :class:`ResultWarning` lines are its result's
    ``warnings`` (for ``run_pipeline`` less the item floor's, a :class:`~benchsift.errors.FloorWarning` or
    a choice); the result."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args, **kwargs)
    name = func.__name__
    said = [str(w.message) for w in caught if issubclass(w.category, ResultWarning)]
    lines = [w for w in result.warnings if not w.startswith("stage 2: the item floor of")]
    assert said == [f"{name}: {w}" for w in dict.fromkeys(lines)], (said, lines)
    for w in caught:
        if not issubclass(w.category, ResultWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return result
