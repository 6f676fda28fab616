"""A library call whose result carries ``warnings``, checked to raise exactly those lines as
:class:`~benchsift.errors.ResultWarning` (``"<function>: <line>"``, once each, in order): what a notebook
shows is what the result says. Other warnings it raises are raised again, so that the suite's
``filterwarnings = error`` (or an enclosing ``pytest.warns``) sees them."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from benchsift.errors import ResultWarning


def raised(func: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """``func(*args, **kwargs)`` and the :class:`ResultWarning` messages it raised, in order; other warnings
    it raises are raised again."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args, **kwargs)
    for w in caught:
        if not issubclass(w.category, ResultWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return result, [str(w.message) for w in caught if issubclass(w.category, ResultWarning)]


def calling(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)``, asserting that its :class:`ResultWarning` lines are its result's
    ``warnings`` (for ``run_pipeline`` less the item floor's, a :class:`~benchsift.errors.FloorWarning` or
    a choice); the result."""
    result, said = raised(func, *args, **kwargs)
    lines = [w for w in result.warnings if not w.startswith("stage 2: the item floor of")]
    assert said == [f"{func.__name__}: {w}" for w in dict.fromkeys(lines)], (said, lines)
    return result


def warned(func: Callable[..., Any], *args: Any, expect: Sequence[str], **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` for a call that raises its warnings as :class:`ResultWarning` (an importer
    called without a ``notes`` list, ``import_files``): asserting that each of them is ``"<function>:
    <line>"`` and that each string of ``expect`` is in one of them; other warnings are raised again. The
    result."""
    result, said = raised(func, *args, **kwargs)
    assert said and all(s.startswith(f"{func.__name__}: ") for s in said), said
    for part in expect:
        assert any(part in s for s in said), (part, said)
    return result
