"""Plain-JSON conversion shared by reports and the CLI; the depth-bounded JSON reader the readers use."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from benchsift.errors import FormatError


def to_jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays, NaN / inf (-> ``None``), tuples and paths into plain JSON values."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return to_jsonable(obj.item())
    if isinstance(obj, float):
        return None if math.isnan(obj) or math.isinf(obj) else obj
    if hasattr(obj, "__fspath__"):
        return str(obj)
    return obj


#: deepest nesting of arrays and objects a JSON document benchsift reads may have: the logs, manifests and
#: metadata it reads nest a few dozen levels at most, while a hostile document nested 200,000 deep would
#: exhaust Python's recursion limit in the parser or in any code that walks it (issue 32)
MAX_JSON_DEPTH = 256


_KEPT = b'[]{}"'
_DROPPED = bytes(b for b in range(256) if b not in _KEPT)


def json_depth(data: bytes) -> int:
    """How deep the arrays and objects of the JSON document ``data`` nest (0 for a scalar), measured on its
    bytes without parsing it, so in linear time and without recursion whatever the depth.

    Escaped backslashes and quotes are removed first (``\\\\`` then ``\\"``, left to right as a JSON
    parser pairs them), then every byte but brackets and quotes; the brackets between a quote and the next
    are inside strings and do not count. Exact for valid JSON; a damaged document may measure wrong, and is
    refused by the parser anyway.
    """
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    reduced = np.frombuffer(data.translate(None, _DROPPED), dtype=np.uint8)
    if reduced.size == 0:
        return 0
    quote = reduced == ord('"')
    outside = (np.bitwise_xor.accumulate(quote.view(np.uint8)) == 0) & ~quote
    opening = outside & ((reduced == ord("[")) | (reduced == ord("{")))
    if int(opening.sum()) == 0:
        return 0
    closing = outside & ((reduced == ord("]")) | (reduced == ord("}")))
    steps = opening.astype(np.int32) - closing.astype(np.int32)
    return int(np.cumsum(steps).max())


def loads_bounded(text: str | bytes, where: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads(text)``, refusing a document nested more than ``max_depth`` levels deep.

    The refusal is a :class:`~benchsift.errors.FormatError` naming ``where`` (the file, and the member or
    line) and the limit; the standard parser's ``RecursionError`` on a deeper document never escapes. A
    document that is not JSON raises :class:`json.JSONDecodeError` (a ``ValueError``) as ``json.loads``
    does, for the caller to phrase.
    """

    def refused() -> FormatError:
        return FormatError(
            f"{where}: JSON nested more than {max_depth} levels deep; refused (a damaged or hostile "
            "document: benchsift reads JSON nested at most that deep)"
        )

    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if json_depth(data) > max_depth:
        raise refused()
    try:
        return json.loads(text)
    except RecursionError:  # not reached for valid JSON within the cap; kept for damaged documents
        raise refused() from None
