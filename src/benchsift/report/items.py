"""The item view of the report: what the panel knows about one item, for every item a table names.

For each ``(benchmark, item)`` named in a table of the page (an audit flag, a suite item, a duplicate pair,
...) and present in the panel, :func:`item_views` gathers

* the item metadata: question text, choices, answer key, category and any other item column. The choices
  are lettered A, B, ... and the key is shown as the choice it points to (``B. 4``), read by
  :func:`key_choices`: harnesses log it as a letter (inspect, HELM, lmms-eval, VLMEvalKit), as a choice
  index counted from 0 (lm-eval's ``target``, Every Eval Ever's ``input.reference``) or as the choice's
  text (lighteval); a key that reads both as an index and as another choice's text is shown both ways,
  never guessed;
* the image as a thumbnail (a ``data:`` URI, at most :data:`THUMB_PX` pixels on a side) when the item
  metadata names an image file (column ``image``, ``image_path``, ``img_path`` or ``image_file``) and an
  image root was given: the path is joined to the root, resolved (symlinks followed) and used only when it
  lands inside the root, is a file of at most :data:`MAX_IMAGE_BYTES` and is one of the known formats;
* how the models scored it: the share right, the mean score by ability quintile (models ordered by their
  mean over the whole panel: a wrong answer key shows as a mean falling with ability), the strongest models
  that got it wrong and the weakest that got it right, and every model's score;
* what the models answered, when their logged answers are given (``answers``, a
  :class:`benchsift.io.answers.LoggedAnswers` aligned with the panel, from
  :func:`benchsift.io.read_answers`): each
  distinct answer with how many models gave it, how many of the strongest fifth did and their mean score on
  the item (a wrong key shows as the strongest models agreeing on another answer), and every model's answer
  beside its score.

No path read from a file is trusted beyond that check; nothing outside the root is read.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from benchsift._jsonutil import loads_bounded

if TYPE_CHECKING:
    from benchsift.io.answers import LoggedAnswers
    from benchsift.panel import Panel

__all__ = [
    "MAX_IMAGE_BYTES",
    "MAX_ITEM_VIEWS",
    "THUMB_PX",
    "ItemView",
    "item_views",
    "key_choices",
    "thumbnail",
]

#: Largest image file read for a thumbnail.
MAX_IMAGE_BYTES = 8_000_000
#: Longest side of a thumbnail, in pixels.
THUMB_PX = 320
#: Item views on one page at most (the first items named by the tables, in page order).
MAX_ITEM_VIEWS = 3000
#: Characters of one logged answer shown (a free-text answer is cut).
MAX_ANSWER_CHARS = 200
IMAGE_COLUMNS = ("image", "image_path", "img_path", "image_file")
_QUESTION = ("question", "prompt", "query", "input")
_KEY = ("answer", "answers", "key", "gold", "target", "label")
_CHOICES = ("choices", "options")
_IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}


@dataclass
class ItemView:
    """One item as the page shows it (all text; ``anchor`` is the element id the tables link to)."""

    anchor: str
    benchmark: str
    item: str
    question: str = ""
    choices: list[str] = field(default_factory=list)
    #: the key as logged
    key: str = ""
    #: the key as the choice it points to (``"B. 4"``), or as logged when it names no choice
    key_shown: str = ""
    meta: list[tuple[str, str]] = field(default_factory=list)
    image: str = ""
    image_note: str = ""
    n_models: int = 0
    n_scored: int = 0
    mean: float = float("nan")
    quintiles: list[tuple[str, str]] = field(default_factory=list)
    strong_wrong: list[str] = field(default_factory=list)
    weak_right: list[str] = field(default_factory=list)
    scores: str = ""
    #: Logged answers: ``(answer, models, of the strongest 20 %, mean score)``, most given first.
    answer_counts: list[tuple[str, int, int, str]] = field(default_factory=list)
    #: Logged answers (as shown in ``answer_counts``) that are the key
    key_answers: list[str] = field(default_factory=list)
    #: Logged answers per model, strongest first: ``(model, answer, score)``.
    answers: list[tuple[str, str, str]] = field(default_factory=list)
    #: Models with a score but no logged answer (when answers were given).
    n_unanswered: int = 0
    #: Which panel of the page the view was read from (its number and how the page names it).
    panel: int = 0
    source: str = ""


def _text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float) and v != v:
        return ""
    if isinstance(v, (list, tuple, np.ndarray)):
        return ", ".join(_text(x) for x in v)
    return str(v)


def _choices(row: dict[str, Any]) -> list[str]:
    for c in _CHOICES:
        v = row.get(c)
        if isinstance(v, (list, tuple, np.ndarray)):
            return [_text(x) for x in v]
        if isinstance(v, str) and v.strip():
            text = v.strip()
            if text.startswith("[") and text.endswith("]"):
                try:  # nested too deep for the parser (a damaged or hostile cell): shown as its text
                    parsed = loads_bounded(text, f"{c} cell")
                    if isinstance(parsed, list):
                        return [_text(x) for x in parsed]
                except ValueError:  # not JSON, or the bounded parser's FormatError
                    pass
            return [text]
    # VLMEvalKit-style option columns A, B, C, ...
    letters = [c for c in "ABCDEFGHIJ" if _text(row.get(c)).strip()]
    return [f"{c}. {_text(row.get(c))}" for c in letters]


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _lettered(choices: list[str]) -> tuple[list[str], list[str]]:
    """``(letters, texts)`` of a choices list: ``["A. Even", "B. Odd"]`` (already lettered in order, as HELM
    and VLMEvalKit options are) gives ``(["A", "B"], ["Even", "Odd"])``; any other list is lettered A, B,
    ... in order (more than 26 choices are numbered from 1)."""
    if len(choices) <= len(_LETTERS) and all(c.startswith(f"{_LETTERS[i]}. ") for i, c in enumerate(choices)):
        return list(_LETTERS[: len(choices)]), [c[3:] for c in choices]
    if len(choices) <= len(_LETTERS):
        return list(_LETTERS[: len(choices)]), list(choices)
    return [str(i + 1) for i in range(len(choices))], list(choices)


def key_choices(key: str, choices: list[str]) -> list[tuple[int, str]]:
    """The choices a logged key (or answer) ``key`` can point to, as ``(0-based index, how)``; ``how`` is
    ``"letter"`` (``"B"``), ``"index"`` (``"1"``: a choice index counted from 0, as lm-eval's ``target``
    and Every Eval Ever's ``input.reference`` are) or ``"text"`` (the choice's own text, as lighteval
    logs it). A key that is a number in range and also another choice's text gives both readings."""
    key = key.strip()
    letters, texts = _lettered(choices)
    n = len(texts)
    if not key or n == 0:
        return []
    if key in letters and not key.isdigit():
        return [(letters.index(key), "letter")]
    out: list[tuple[int, str]] = []
    if key.isdigit() and int(key) < n:
        out.append((int(key), "index"))
    # the same choice by index and by text is one reading
    out += [(i, "text") for i, t in enumerate(texts) if t.strip() == key and (i, "index") not in out]
    return out


def _show_key(key: str, choices: list[str]) -> str:
    """The key as the page shows it: ``"B. 4"`` (with how it was logged when that was not the letter);
    both readings when the key reads as an index and as another choice's text; else as logged."""
    letters, texts = _lettered(choices)
    readings = key_choices(key, choices)
    if not readings and ", " in key:  # several keys
        parts = [_show_key(k, choices) for k in key.split(", ")]
        return "; ".join(parts)
    name = {i: f"{letters[i]}. {texts[i]}" for i, _ in readings}
    if len(readings) == 1:
        i, how = readings[0]
        if how == "index":
            return f"{name[i]} (logged as {key}: the choice's index counted from 0)"
        return name[i]
    if len(readings) > 1:
        alts = [
            f"{name[i]} if read as a choice index counted from 0"
            if how == "index"
            else f"{name[i]} if read as the choice's text"
            for i, how in readings
        ]
        return f"logged as {key}, which names several choices: " + ", or ".join(alts)
    return key


def thumbnail(root: Path, name: str) -> tuple[str, str]:
    """``(data URI, "")`` of the image ``name`` under ``root``, or ``("", why not)``.

    ``name`` comes from a file: it is joined to ``root``, resolved (symlinks followed) and refused when it
    lands outside ``root``, is not a file, is larger than :data:`MAX_IMAGE_BYTES` or not a known image
    type. Images larger than :data:`THUMB_PX` are scaled down (PNG or JPEG).
    """
    base = root.resolve()
    try:
        path = (base / name).resolve()
        path.relative_to(base)
    except (ValueError, OSError):
        return "", f"image {name!r} is outside the image root; not shown"
    kind = _IMAGE_TYPES.get(path.suffix.lower())
    if kind is None:
        return "", f"image {name!r}: not a png, jpeg, gif or webp file"
    try:
        size = path.stat().st_size
    except OSError:
        return "", f"image {name!r} not found under the image root"
    if not path.is_file():
        return "", f"image {name!r} is not a file"
    if size > MAX_IMAGE_BYTES:
        return "", f"image {name!r} is larger than {MAX_IMAGE_BYTES // 1_000_000} MB; not shown"
    data = path.read_bytes()
    try:
        from PIL import Image

        with Image.open(io.BytesIO(data)) as im:
            if max(im.size) > THUMB_PX or size > 200_000:
                im.thumbnail((THUMB_PX, THUMB_PX))
                buf = io.BytesIO()
                if im.mode in ("RGBA", "LA", "P"):
                    im.convert("RGBA").save(buf, format="PNG")
                    kind = "image/png"
                else:
                    im.convert("RGB").save(buf, format="JPEG", quality=80)
                    kind = "image/jpeg"
                data = buf.getvalue()
    except Exception:  # not decodable: show nothing rather than a broken image
        return "", f"image {name!r} could not be read as an image"
    return f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}", ""


def item_views(
    panel: Panel,
    wanted: list[tuple[str, str]],
    images: Path | None = None,
    answers: LoggedAnswers | None = None,
    *,
    limit: int = MAX_ITEM_VIEWS,
    start: int = 0,
) -> dict[tuple[str, str], ItemView]:
    """The views of the items of ``wanted`` (``(benchmark, item)``, page order) found in ``panel``, at most
    ``limit`` of them (the first ones); ``answers``: the models' logged answers aligned with ``panel``
    (module docstring). Anchors are numbered from ``start + 1`` (``item-1``, ``item-2``, ...), so that the
    views of several panels on one page keep distinct anchors."""
    image = panel.image_panel() if "condition" in panel.models.columns else panel
    if image.n_models == 0:
        image = panel
    logged = None
    if answers is not None:
        if answers.values.shape != panel.shape:
            raise ValueError(
                f"answers: shape {answers.values.shape} does not match the panel's {panel.shape}"
            )
        # the rows of ``image`` (the image-condition runs, or every run), in the panel's row order
        if image is panel:
            logged = answers.values
        else:
            logged = answers.values[np.flatnonzero(panel.image_rows)]
    scores = image.scores
    names = image.model_labels
    ability = np.nanmean(np.where(np.isfinite(scores), scores, np.nan), axis=1)
    order = np.argsort(-np.nan_to_num(ability, nan=-np.inf), kind="stable")  # strongest first
    position = {k: j for j, k in enumerate(image.item_keys)}
    items = image.items
    cols = [c for c in items.columns if c not in ("benchmark", "item")]
    out: dict[tuple[str, str], ItemView] = {}
    for key in wanted:
        if key in out or key not in position:
            continue
        if len(out) >= limit:
            break
        j = position[key]
        row = {c: items[c].iloc[j] for c in cols}
        view = ItemView(anchor=f"item-{start + len(out) + 1}", benchmark=key[0], item=key[1])
        view.question = next((_text(row[c]) for c in _QUESTION if c in row and _text(row[c])), "")
        view.key = next((_text(row[c]) for c in _KEY if c in row and _text(row[c])), "")
        raw_choices = _choices(row)
        if raw_choices == [_text(row.get(c)).strip() for c in _CHOICES if _text(row.get(c)).strip()][:1]:
            raw_choices = []  # one plain string, not a list: shown as an item column, no key read from it
        letters, texts = _lettered(raw_choices)
        view.choices = [f"{a}. {t}" for a, t in zip(letters, texts, strict=True)]
        view.key_shown = _show_key(view.key, raw_choices) if view.key else ""
        used = {*_QUESTION, *_KEY, *IMAGE_COLUMNS, *"ABCDEFGHIJ"}
        used |= set(_CHOICES) if raw_choices else set()
        view.meta = [(c, _text(row[c])) for c in cols if c not in used and _text(row[c])]
        img = next((_text(row[c]) for c in IMAGE_COLUMNS if c in row and _text(row[c])), "")
        if img:
            if images is None:
                view.image_note = f"image {img!r}: give --images ROOT to show it"
            else:
                view.image, view.image_note = thumbnail(images, img)
        col = scores[:, j]
        ok = np.isfinite(col)
        view.n_models, view.n_scored = int(image.n_models), int(ok.sum())
        if ok.any():
            view.mean = float(col[ok].mean())
            ranked = [m for m in order if ok[m]]
            q = np.array_split(np.array(ranked), 5) if len(ranked) >= 5 else [np.array(ranked)]
            labels = ["strongest 20 %", "next 20 %", "middle 20 %", "next 20 %", "weakest 20 %"]
            view.quintiles = [
                (labels[k] if len(q) == 5 else "all models", f"{col[g].mean():.2f}")
                for k, g in enumerate(q)
                if len(g)
            ]
            binary = np.all(np.isin(col[ok], (0.0, 1.0)))
            lo, hi = (0.5, 0.5) if binary else (float(np.nanmedian(col)),) * 2
            view.strong_wrong = [names[m] for m in ranked if col[m] < lo][:8]
            view.weak_right = [names[m] for m in reversed(ranked) if col[m] > hi][:8]
            view.scores = "; ".join(f"{names[m]} {col[m]:g}" for m in ranked)
            if logged is not None:
                _add_answers(view, logged[:, j], col, ranked, names, raw_choices)
        out[key] = view
    return out


def _add_answers(
    view: ItemView,
    given: np.ndarray,
    col: np.ndarray,
    ranked: list[int],
    names: list[str],
    choices: list[str],
) -> None:
    """Fill the logged-answer part of ``view``: ``given`` the answers of the models (``None`` = none),
    ``ranked`` the scored models, strongest first; an answer that is not a letter but names one choice
    (an index, a choice's text) is shown with its letter (``"1 = B"``), and is the key when it names the
    key's choice (or is logged as the key is)."""
    letters, _ = _lettered(choices)
    key = key_choices(view.key, choices)
    key_at = key[0][0] if len(key) == 1 else None
    top = set(ranked[: max(len(ranked) // 5, 1)]) if len(ranked) >= 5 else set(ranked)
    groups: dict[str, list[int]] = {}
    for m in ranked:
        a = given[m]
        if a is None:
            view.n_unanswered += 1
            continue
        text = _cut(str(a))
        named = key_choices(text, choices)
        if len(named) == 1 and named[0][1] != "letter":
            text = f"{text} = {letters[named[0][0]]}"
        if (
            str(a) == view.key or (len(named) == 1 and named[0][0] == key_at)
        ) and text not in view.key_answers:
            view.key_answers.append(text)
        groups.setdefault(text, []).append(m)
        view.answers.append((names[m], text, f"{col[m]:g}"))
    counts = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    view.answer_counts = [
        (a, len(ms), sum(m in top for m in ms), f"{float(np.mean(col[ms])):.2f}") for a, ms in counts
    ]


def _cut(text: str, n: int = MAX_ANSWER_CHARS) -> str:
    return text if len(text) <= n else text[: n - 1] + "\u2026"
