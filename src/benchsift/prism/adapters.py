"""The 15 benchmark adapters of PRISM-VLM Table 8: each source benchmark's raw record schema -> :class:`Item`.

:data:`ADAPTERS` maps a benchmark name to its :class:`Adapter` (Hugging Face path, configs, split and the
record converter); :func:`adapt_record` converts one record (saving in-memory images into the image
folder), :func:`read_raw_jsonl` a JSONL file of them.
"""

from __future__ import annotations

import ast
import io
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchsift._fileio import atomic_path
from benchsift._inputs import check_choice
from benchsift.errors import BenchsiftError, FormatError, InputError
from benchsift.prism._images import read_image
from benchsift.prism.items import LETTERS, Item, domain_of, read_jsonl_records

__all__ = ["ADAPTERS", "Adapter", "adapt_record", "read_raw_jsonl"]


@dataclass(frozen=True)
class Adapter:
    """How one benchmark's records map to :class:`Item` fields.

    ``convert(record, index)`` returns ``(source_id, fields, image_refs)`` or None to skip the record
    (e.g. a ScienceQA question without an image). ``image_refs`` are whatever the record holds: file
    names (relative to the image folder), ``{"bytes": ..., "path": ...}`` dicts or PIL images.
    """

    name: str
    hf_path: str
    hf_configs: tuple[str | None, ...]
    split: str
    convert: Callable[[dict[str, Any], int], tuple[str, dict[str, Any], list[Any]] | None]

    @property
    def domain(self) -> str:
        return domain_of(self.name)


def _letter_of_index(i: Any, n: int, where: str) -> str:
    k = int(i)
    if not 0 <= k < n:
        raise FormatError(f"{where}: answer index {k} outside the {n} options")
    return LETTERS[k]


def _strip_letter(ans: str) -> str:
    """'(B)' / 'B.' / 'B' -> 'B'."""
    m = re.fullmatch(r"\s*\(?([A-J])\)?\.?\s*", str(ans))
    return m.group(1) if m else str(ans).strip()


def _mmstar(r: dict[str, Any], i: int) -> tuple[str, dict[str, Any], list[Any]]:
    return (
        str(r["index"]),
        {
            "question": r["question"],
            "answers": [_strip_letter(r["answer"])],
            "letter_answer": True,
            "options_in_question": True,
            "category": r.get("category"),
            "meta": {"l2_category": r.get("l2_category")},
        },
        [r["image"]],
    )


def _gqa(r: dict[str, Any], i: int) -> tuple[str, dict[str, Any], list[Any]]:
    image = r.get("image") or f"{r['imageId']}.jpg"
    return (
        str(r["id"]),
        {"question": r["question"], "answers": [str(r["answer"])], "meta": {"imageId": r.get("imageId")}},
        [image],
    )


def _dedup(values: Iterable[Any]) -> list[str]:
    return list(dict.fromkeys(str(v) for v in values if v is not None and str(v) != ""))


def _okvqa(r: dict[str, Any], i: int) -> tuple[str, dict[str, Any], list[Any]]:
    raw = r["answers"]
    answers = [a["answer"] if isinstance(a, dict) else a for a in raw]
    return (
        str(r["question_id"]),
        {
            "question": r["question"],
            "answers": _dedup(answers),
            "meta": {"answers_all": list(map(str, answers))},
        },
        [r["image"]],
    )


def _numbered_images(r: dict[str, Any]) -> list[Any]:
    keys = sorted((k for k in r if re.fullmatch(r"image_\d+", k)), key=lambda k: int(k.split("_")[1]))
    return [r[k] for k in keys if r[k] is not None]


def _mmmu(r: dict[str, Any], i: int) -> tuple[str, dict[str, Any], list[Any]]:
    options: Any = r.get("options") or []
    if isinstance(options, str):
        options = ast.literal_eval(options) if options.strip() else []
    mc = r.get("question_type", "multiple-choice") == "multiple-choice" and bool(options)
    answer = r["answer"]
    answers = (
        [_strip_letter(answer)]
        if mc
        else _dedup(ast.literal_eval(answer) if answer.startswith("[") else [answer])
    )
    return (
        str(r["id"]),
        {
            "question": r["question"],
            "answers": answers,
            "options": list(options) if mc else None,
            "letter_answer": mc,
            "category": r.get("subfield"),
        },
        _numbered_images(r),
    )


def _mathvista(r: dict[str, Any], i: int) -> tuple[str, dict[str, Any], list[Any]]:
    choices: list[Any] = list(r.get("choices") or [])
    mc = r.get("question_type") == "multi_choice" and bool(choices)
    answers = [str(r["answer"])]
    if mc:
        answers = [_letter_of_index(choices.index(r["answer"]), len(choices), f"mathvista {r['pid']}")]
    image = r.get("decoded_image") or r.get("image")
    return (
        str(r["pid"]),
        {
            "question": r["question"],
            "answers": answers,
            "options": choices if mc else None,
            "letter_answer": mc,
            "meta": {"unit": r.get("unit"), "answer_type": r.get("answer_type")},
        },
        [image],
    )


def _scienceqa(r: dict[str, Any], i: int) -> tuple[str, dict[str, Any], list[Any]] | None:
    if r.get("image") is None:
        return None  # text-only question: not a vision item
    choices = list(r["choices"])
    q = r["question"] if not r.get("hint") else f"Context: {r['hint']}\n{r['question']}"
    return (
        str(i),
        {
            "question": q,
            "answers": [_letter_of_index(r["answer"], len(choices), f"scienceqa record {i}")],
            "options": choices,
            "letter_answer": True,
            "category": r.get("subject"),
        },
        [r["image"]],
    )


def _ai2d(r: dict[str, Any], i: int) -> tuple[str, dict[str, Any], list[Any]]:
    options = list(r["options"])
    return (
        str(i),
        {
            "question": r["question"],
            "answers": [_letter_of_index(r["answer"], len(options), f"ai2d record {i}")],
            "options": options,
            "letter_answer": True,
        },
        [r["image"]],
    )


def _chartqa(r: dict[str, Any], i: int) -> tuple[str, dict[str, Any], list[Any]]:
    return (
        str(i),
        {"question": r["question"], "answers": [str(r["answer"])], "category": r.get("type")},
        [r["image"]],
    )


def _docvqa(r: dict[str, Any], i: int) -> tuple[str, dict[str, Any], list[Any]]:
    return (
        str(r["questionId"]),
        {"question": r["question"], "answers": _dedup(r["answers"]), "meta": {"docId": r.get("docId")}},
        [r["image"]],
    )


def _refcoco(r: dict[str, Any], i: int) -> tuple[str, dict[str, Any], list[Any]]:
    answers = r["answer"] if isinstance(r["answer"], list) else [r["answer"]]
    return (
        str(r["question_id"]),
        {
            "question": "Provide a short description for the region marked by the red box.",
            "answers": _dedup(answers),
            "meta": {"bbox": list(r.get("bbox") or []), "file_name": r.get("file_name")},
        },
        [r["image"]],
    )


def _blink(r: dict[str, Any], i: int) -> tuple[str, dict[str, Any], list[Any]]:
    return (
        str(r["idx"]),
        {
            "question": r.get("prompt") or r["question"],
            "answers": [_strip_letter(r["answer"])],
            "options": list(r["choices"]),
            "letter_answer": True,
            "options_in_question": bool(r.get("prompt")),
            "category": r.get("sub_task"),
        },
        _numbered_images(r),
    )


def _mantis(r: dict[str, Any], i: int) -> tuple[str, dict[str, Any], list[Any]]:
    mc = r.get("question_type") == "multi-choice"
    return (
        str(r["id"]),
        {
            "question": r["question"],
            "answers": [_strip_letter(r["answer"])] if mc else [str(r["answer"])],
            "options": [re.sub(r"^\s*\(?[A-J]\)\s*", "", str(o)) for o in r["options"]] if mc else None,
            "letter_answer": mc,
            "category": r.get("category"),
        },
        list(r["images"]),
    )


def _first(r: dict[str, Any], *keys: str) -> Any:
    """The value of the first of ``keys`` present (not None) in ``r``; KeyError naming the first."""
    for k in keys:
        if r.get(k) is not None:
            return r[k]
    raise KeyError(keys[0])


def _nlvr2(r: dict[str, Any], i: int) -> tuple[str, dict[str, Any], list[Any]]:
    # the official JSON has identifier/sentence/label; Hub mirrors name them question_id/question/answer
    label = str(_first(r, "label", "answer")).strip().lower()
    if label in ("1", "true"):
        label = "true"
    elif label in ("0", "false"):
        label = "false"
    source_id = r.get("identifier") or r.get("question_id") or r.get("id") or i
    return (
        str(source_id),
        {
            "question": (
                "Is the following statement about the two images true or false? "
                f'"{_first(r, "sentence", "question")}" Answer true or false.'
            ),
            "answers": [label],
        },
        [r["left_image"], r["right_image"]],
    )


_BLINK_SUBTASKS: tuple[str, ...] = (
    "Art_Style",
    "Counting",
    "Forensic_Detection",
    "Functional_Correspondence",
    "IQ_Test",
    "Jigsaw",
    "Multi-view_Reasoning",
    "Object_Localization",
    "Relative_Depth",
    "Relative_Reflectance",
    "Semantic_Correspondence",
    "Spatial_Relation",
    "Visual_Correspondence",
    "Visual_Similarity",
)

# MMMU/MMMU has one config per subject (no default config)
_MMMU_SUBJECTS: tuple[str, ...] = (
    "Accounting",
    "Agriculture",
    "Architecture_and_Engineering",
    "Art",
    "Art_Theory",
    "Basic_Medical_Science",
    "Biology",
    "Chemistry",
    "Clinical_Medicine",
    "Computer_Science",
    "Design",
    "Diagnostics_and_Laboratory_Medicine",
    "Economics",
    "Electronics",
    "Energy_and_Power",
    "Finance",
    "Geography",
    "History",
    "Literature",
    "Manage",
    "Marketing",
    "Materials",
    "Math",
    "Mechanical_Engineering",
    "Music",
    "Pharmacy",
    "Physics",
    "Psychology",
    "Public_Health",
    "Sociology",
)

ADAPTERS: dict[str, Adapter] = {
    a.name: a
    for a in (
        Adapter("mmstar", "Lin-Chen/MMStar", (None,), "val", _mmstar),
        Adapter("gqa", "lmms-lab/GQA", ("testdev_balanced_instructions",), "testdev", _gqa),
        Adapter("okvqa", "lmms-lab/OK-VQA", (None,), "val2014", _okvqa),
        Adapter("mmmu", "MMMU/MMMU", _MMMU_SUBJECTS, "validation", _mmmu),
        Adapter("mathvista", "AI4Math/MathVista", (None,), "testmini", _mathvista),
        Adapter("scienceqa", "derek-thomas/ScienceQA", (None,), "test", _scienceqa),
        Adapter("ai2d", "lmms-lab/ai2d", (None,), "test", _ai2d),
        Adapter("chartqa", "lmms-lab/ChartQA", (None,), "test", _chartqa),
        Adapter("docvqa", "lmms-lab/DocVQA", ("DocVQA",), "validation", _docvqa),
        Adapter("refcocog", "lmms-lab/RefCOCOg", (None,), "val", _refcoco),
        Adapter("refcoco+", "lmms-lab/RefCOCOplus", (None,), "val", _refcoco),
        Adapter("blink_counting", "BLINK-Benchmark/BLINK", ("Counting",), "val", _blink),
        Adapter("mantis", "TIGER-Lab/Mantis-Eval", (None,), "test", _mantis),
        Adapter("nlvr2", "lmms-lab/NLVR2", (None,), "balanced_dev", _nlvr2),
        Adapter("blink", "BLINK-Benchmark/BLINK", _BLINK_SUBTASKS, "val", _blink),
    )
}


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def _save_image(ref: Any, image_dir: Path, stem: str) -> str:
    """Write an in-memory image (bytes dict or PIL image) under ``image_dir``; return its file name."""
    data: bytes | None = None
    if isinstance(ref, bytes | bytearray):
        data = bytes(ref)
    elif isinstance(ref, dict) and ref.get("bytes") is not None:
        data = bytes(ref["bytes"])
    elif hasattr(ref, "save"):
        buf = io.BytesIO()
        ref.convert("RGB").save(buf, format="PNG")
        data = buf.getvalue()
    if data is None:
        raise FormatError(f"cannot read image of type {type(ref).__name__} for {stem}")
    ext = ".jpg" if data[:3] == b"\xff\xd8\xff" else ".png"
    name = f"{_safe(stem)}{ext}"
    image_dir.mkdir(parents=True, exist_ok=True)
    target = image_dir / name
    if not target.exists():
        with atomic_path(target) as tmp:
            tmp.write_bytes(data)
    return name


def _boxed_image(name: str, image_dir: Path, stem: str, bbox: Sequence[float]) -> str:
    """Copy ``image_dir/name`` with the region ``bbox`` (COCO x, y, w, h in pixels) outlined in red.

    RefCOCO records hold the raw COCO image and the box; the question asks about the red box, so the
    box is drawn here (as lmms-eval does at evaluation time). Returns the new file name.
    """
    from PIL import Image, ImageDraw

    try:
        x, y, w, h = (float(v) for v in bbox)
    except (TypeError, ValueError):
        raise FormatError(f"{stem}: bbox {list(bbox)!r} is not four numbers (COCO x, y, w, h)") from None
    # a regular image file inside the folder, within the size bound (read_image: never a FIFO or a device)
    data, _ = read_image(name, image_dir, f"{stem} (the image to draw the referred box on)")
    try:
        with Image.open(io.BytesIO(data)) as im:
            img = im.convert("RGB")
    except Exception as err:  # PIL's errors for a damaged image are of many types
        raise InputError(
            f"{stem}: image {name!r} could not be read as an image ({type(err).__name__})"
        ) from None
    width = max(2, round(min(img.size) / 150))
    ImageDraw.Draw(img).rectangle([x, y, x + w, y + h], outline=(255, 0, 0), width=width)
    out = f"{_safe(stem)}_box.png"
    with atomic_path(image_dir / out) as tmp:
        img.save(tmp, format="PNG")
    return out


def adapt_record(
    benchmark: str, record: dict[str, Any], index: int, image_dir: Path | None = None
) -> Item | None:
    """Map one raw record of ``benchmark`` to an :class:`Item` (None if the adapter skips it).

    String image references are kept as given (relative to the image folder); in-memory images are
    written to ``image_dir``. For RefCOCOg / RefCOCO+ with an image folder, the referred box is drawn
    on a copy of the image (the question asks about "the region marked by the red box").
    """
    check_choice("benchmark", benchmark, sorted(ADAPTERS), what="benchmark")
    adapter = ADAPTERS[benchmark]
    try:
        out = adapter.convert(record, index)
    except KeyError as err:
        raise FormatError(f"{benchmark} record {index}: missing field {err.args[0]!r}") from err
    except BenchsiftError:
        raise
    except (ValueError, TypeError, AttributeError, IndexError, SyntaxError, RecursionError) as err:
        # a field of the wrong type or shape (an int answer, an options string that is not a Python
        # list literal): the raw record is the user's input, so one line naming it, not an internal error
        why = str(err).splitlines()[0][:200] if str(err) else ""
        raise FormatError(
            f"{benchmark} record {index}: not a {benchmark} record in the dataset's own schema "
            f"({type(err).__name__}: {why})"
        ) from None
    if out is None:
        return None
    source_id, fields, refs = out
    images: list[str] = []
    for k, ref in enumerate(refs):
        if ref is None:
            continue
        if isinstance(ref, str | os.PathLike):
            images.append(str(ref))
        elif isinstance(ref, dict) and ref.get("bytes") is None and ref.get("path"):
            images.append(str(ref["path"]))
        else:
            if image_dir is None:
                raise InputError(f"{benchmark} record {index}: in-memory image needs an image folder")
            images.append(_save_image(ref, image_dir, f"{benchmark}_{source_id}_{k}"))
    bbox = fields.get("meta", {}).get("bbox")
    boxed = isinstance(bbox, list | tuple) and len(bbox) == 4
    if adapter.convert is _refcoco and image_dir is not None and images and boxed:
        fields["meta"]["source_image"] = images[0]
        images[0] = _boxed_image(images[0], image_dir, f"{benchmark}_{source_id}", bbox)
    return Item(
        id=f"{benchmark}/{source_id}",
        benchmark=benchmark,
        domain=adapter.domain,
        images=images,
        **fields,
    )


def read_raw_jsonl(path: str | os.PathLike[str], benchmark: str, image_dir: Path | None = None) -> list[Item]:
    """Items from a JSONL file of raw ``benchmark`` records (the dataset's own schema)."""
    p = Path(path)
    items = []
    for i, rec in enumerate(read_jsonl_records(p)):
        try:
            item = adapt_record(benchmark, rec, i, image_dir)
        except FormatError as err:
            raise FormatError(f"{p}: {err}") from err
        if item is not None:
            items.append(item)
    return items
