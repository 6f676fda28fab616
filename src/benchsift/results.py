"""One result protocol for every public result type: ``to_dict``, ``to_frame``, a short ``repr``, HTML.

A result class inherits :class:`Result` and defines :meth:`Result.to_dict` (a JSON-ready ``dict``: plain
``int`` / ``float`` / ``str`` / ``None`` / lists / dicts, NaN as ``None``) and :meth:`Result.to_frame` (its
main table as a :class:`pandas.DataFrame`). The mixin derives the rest, the way pandas objects and
scikit-learn estimators present themselves:

* ``repr(result)`` is a few lines: the class name and each field summarised (arrays by shape, tables by
  size, long lists by length), never the data itself (scikit-learn prints parameters only);
* ``_repr_html_`` (used by Jupyter) is that summary above the first rows of ``to_frame()``.

Result dataclasses are declared with ``@dataclass(repr=False)`` so that the mixin's ``__repr__`` is the one
used (a dataclass otherwise writes its own, which prints every array in full).
"""

from __future__ import annotations

import dataclasses
import html
import textwrap
from typing import Any, ClassVar

import numpy as np

__all__ = ["Result", "summarize_value"]

#: the most lines ``repr`` prints (the last one says how many fields were left out)
REPR_LINES = 6
REPR_WIDTH = 100


def summarize_value(value: Any) -> str:
    """A short text for one field value: scalars as themselves, containers by size, objects by class."""
    if value is None or isinstance(value, bool | int | np.integer):
        return repr(value if not isinstance(value, np.integer) else int(value))
    if isinstance(value, float | np.floating):
        return f"{float(value):.4g}"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, np.ndarray):
        return f"array(shape={value.shape}, dtype={value.dtype})"
    shape = getattr(value, "shape", None)
    if shape is not None and hasattr(value, "columns"):  # a DataFrame
        return f"DataFrame({shape[0]}x{shape[1]})"
    if shape is not None and hasattr(value, "index"):  # a Series
        return f"Series({shape[0]})"
    if isinstance(value, list | tuple):
        if len(value) <= 4 and all(isinstance(v, str | int | float | bool) for v in value):
            text = repr(list(value) if isinstance(value, list) else tuple(value))
            if len(text) <= 60:
                return text
        return f"[{len(value)} items]"
    if isinstance(value, dict | set | frozenset):
        return f"{{{len(value)} entries}}"
    return f"{type(value).__name__}(...)"


class Result:
    """Mixin of the result protocol (see the module docstring).

    Subclasses implement :meth:`to_dict` and :meth:`to_frame`; ``_repr_fields`` may name the fields the
    ``repr`` shows first (default: the dataclass fields in order; properties may be named too).
    """

    _repr_fields: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (NaN as ``None``)."""
        raise NotImplementedError(f"{type(self).__name__}.to_dict")

    def to_frame(self) -> Any:
        """The result's main table as a pandas DataFrame."""
        raise NotImplementedError(f"{type(self).__name__}.to_frame")

    def _summary_fields(self) -> list[tuple[str, str]]:
        names = list(self._repr_fields)
        if dataclasses.is_dataclass(self):
            names += [f.name for f in dataclasses.fields(self) if f.repr and f.name not in names]
        out = []
        for name in names:
            try:
                value = getattr(self, name)
            except Exception:  # a property that cannot be computed for this result
                continue
            out.append((name, summarize_value(value)))
        return out

    def __repr__(self) -> str:
        fields = self._summary_fields()
        body = ", ".join(f"{k}={v}" for k, v in fields)
        lines = textwrap.wrap(
            f"{type(self).__name__}({body})", REPR_WIDTH, subsequent_indent="    ", break_long_words=False
        )
        if len(lines) > REPR_LINES:
            lines = [*lines[: REPR_LINES - 1], f"    ... ({len(fields)} fields; to_dict() has them all)"]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = f"<pre>{html.escape(repr(self))}</pre>"
        try:
            frame = self.to_frame()
        except Exception as exc:  # a notebook still shows the summary
            return head + f"<p>(no table: {html.escape(str(exc))})</p>"
        return head + str(frame.to_html(max_rows=20, max_cols=20))
