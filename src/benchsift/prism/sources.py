"""Source items: records, the 15 benchmark adapters of Table 8, and the R x K sampling (PRISM-VLM Sec. 4).

An :class:`Item` is one source question: id, benchmark, domain, question, gold answer(s), options and
image file(s). Items come from

* a canonical JSONL file (one :meth:`Item.to_dict` per line) with image paths relative to an image
  folder (:func:`read_items` / :func:`write_items`);
* a JSONL file of raw records in a source benchmark's own schema plus an image folder
  (:func:`read_raw_jsonl`, through the benchmark's adapter);
* Hugging Face ``datasets`` (optional extra ``benchsift[hf]``, imported lazily; :func:`load_hf`).

Sampling (Sec. 4, App. A): each of R = 5 seeds {0, 1, 42, 1234, 2026} draws K = 100 items per benchmark
without replacement (``numpy.random.default_rng(seed).choice``); the union is deduplicated within a
benchmark, in order of first draw. Item ids are ``"<benchmark>/<source id>"``, so an item shared by two
benchmarks (the 25 BLINK-Counting items that recur in BLINK) stays two rows, as in the paper.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchsift._fileio import atomic_path
from benchsift.errors import FormatError, InputError
from benchsift.prism._images import resolve_image

__all__ = [
    "ADAPTERS",
    "DOMAINS",
    "PAPER_SEEDS",
    "Adapter",
    "Item",
    "adapt_record",
    "check_item_images",
    "domain_counts",
    "load_hf",
    "read_items",
    "read_raw_jsonl",
    "sample_items",
    "write_items",
]

PAPER_SEEDS: tuple[int, ...] = (0, 1, 42, 1234, 2026)
LETTERS = "ABCDEFGHIJ"


@dataclass
class Item:
    """One source item. ``answers`` holds every acceptable gold (VQA-style several golds).

    ``letter_answer``: the gold is an option letter (multiple choice); ``options`` are then shown to
    the model as ``A. ...`` lines unless the question already embeds them (``options_in_question``).
    """

    id: str
    benchmark: str
    domain: str
    question: str
    answers: list[str]
    images: list[str] = field(default_factory=list)
    options: list[str] | None = None
    letter_answer: bool = False
    options_in_question: bool = False
    category: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def prompt(self) -> str:
        """The question as shown to the model (options appended for multiple choice)."""
        if self.options and not self.options_in_question:
            opts = " ".join(f"{LETTERS[i]}. {o}" for i, o in enumerate(self.options))
            return f"{self.question}\nOptions: {opts}\nAnswer with the letter."
        return self.question

    @property
    def gold(self) -> str:
        """The golds joined for prompts (``a / b / c``), as in the paper's worked samples."""
        return " / ".join(self.answers)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: str = "item") -> Item:
        for key in ("id", "benchmark", "question", "answers"):
            if key not in d:
                raise FormatError(f"{where}: missing field '{key}'")
        answers = d["answers"]
        if isinstance(answers, str):
            answers = [answers]
        if not isinstance(answers, list) or not answers or not all(isinstance(a, str) for a in answers):
            raise FormatError(f"{where}: 'answers' must be a non-empty list of strings")
        images = d.get("images") or []
        if isinstance(images, str):
            images = [images]
        return cls(
            id=str(d["id"]),
            benchmark=str(d["benchmark"]),
            domain=str(d.get("domain") or _domain_of(str(d["benchmark"]))),
            question=str(d["question"]),
            answers=list(answers),
            images=[str(i) for i in images],
            options=list(d["options"]) if d.get("options") else None,
            letter_answer=bool(d.get("letter_answer", False)),
            options_in_question=bool(d.get("options_in_question", False)),
            category=d.get("category"),
            meta=dict(d.get("meta") or {}),
        )


# --- benchmark adapters ---------------------------------------------------------------------------

DOMAINS: dict[str, tuple[str, ...]] = {
    "General-VQA": ("mmstar", "gqa", "okvqa"),
    "Math & Sci.": ("mmmu", "mathvista", "scienceqa"),
    "Chart/Doc": ("ai2d", "chartqa", "docvqa"),
    "Grounding": ("refcocog", "refcoco+", "blink_counting"),
    "Multi-Image": ("mantis", "nlvr2", "blink"),
}


def _domain_of(benchmark: str) -> str:
    for dom, names in DOMAINS.items():
        if benchmark in names:
            return dom
    return "other"


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
        return _domain_of(self.name)


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

    src = resolve_image(name, image_dir, stem)
    try:
        with Image.open(src) as im:
            img = im.convert("RGB")
    except FileNotFoundError as err:
        raise InputError(f"{stem}: image file {src} not found (needed to draw the referred box)") from err
    x, y, w, h = (float(v) for v in bbox)
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
    if benchmark not in ADAPTERS:
        raise InputError(f"unknown benchmark {benchmark!r} (known: {sorted(ADAPTERS)})")
    adapter = ADAPTERS[benchmark]
    try:
        out = adapter.convert(record, index)
    except KeyError as err:
        raise FormatError(f"{benchmark} record {index}: missing field {err.args[0]!r}") from err
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
    if adapter.convert is _refcoco and image_dir is not None and images and bbox and len(bbox) == 4:
        fields["meta"]["source_image"] = images[0]
        images[0] = _boxed_image(images[0], image_dir, f"{benchmark}_{source_id}", bbox)
    return Item(
        id=f"{benchmark}/{source_id}",
        benchmark=benchmark,
        domain=adapter.domain,
        images=images,
        **fields,
    )


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as err:
        raise InputError(f"{path}: file not found") from err
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as err:
            raise FormatError(f"{path}, line {n}: not valid JSON ({err})") from err
        if not isinstance(obj, dict):
            raise FormatError(f"{path}, line {n}: expected a JSON object")
        rows.append(obj)
    return rows


def read_raw_jsonl(path: str | os.PathLike[str], benchmark: str, image_dir: Path | None = None) -> list[Item]:
    """Items from a JSONL file of raw ``benchmark`` records (the dataset's own schema)."""
    p = Path(path)
    items = []
    for i, rec in enumerate(_read_jsonl(p)):
        try:
            item = adapt_record(benchmark, rec, i, image_dir)
        except FormatError as err:
            raise FormatError(f"{p}: {err}") from err
        if item is not None:
            items.append(item)
    return items


def read_items(path: str | os.PathLike[str]) -> list[Item]:
    """Items from a canonical JSONL file; ids must be unique."""
    p = Path(path)
    items = [Item.from_dict(d, f"{p}, record {i + 1}") for i, d in enumerate(_read_jsonl(p))]
    seen: set[str] = set()
    for it in items:
        if it.id in seen:
            raise FormatError(f"{p}: item id {it.id!r} appears twice")
        seen.add(it.id)
    return items


def check_item_images(items: Iterable[Item], image_dir: str | os.PathLike[str] | None) -> None:
    """Refuse any image path of ``items`` that is absolute or resolves outside ``image_dir``.

    ``image_dir`` is the image folder (the current directory when None); symlinks that exist are
    followed before the check (:func:`benchsift.prism._images.resolve_image`). The files need not exist
    yet: ``prism build`` and ``prism run`` check existence and image signatures when they read them.
    """
    for it in items:
        for name in it.images:
            resolve_image(name, image_dir, f"item {it.id}")


def write_items(items: Sequence[Item], path: str | os.PathLike[str]) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as fh:
            for it in items:
                fh.write(json.dumps(it.to_dict(), ensure_ascii=False) + "\n")


def load_hf(
    benchmark: str, image_dir: Path, *, limit: int | None = None, split: str | None = None
) -> list[Item]:
    """All items of ``benchmark`` from the Hugging Face Hub (needs ``pip install benchsift[hf]``).

    Every config of the adapter is read (the 30 MMMU subjects, the 14 BLINK subtasks), from the
    adapter's split unless ``split`` is given.
    """
    try:
        import datasets
    except ImportError as err:
        raise InputError(
            "loading from the Hugging Face Hub needs the 'datasets' package: pip install 'benchsift[hf]'"
        ) from err
    if benchmark not in ADAPTERS:
        raise InputError(f"unknown benchmark {benchmark!r} (known: {sorted(ADAPTERS)})")
    ad = ADAPTERS[benchmark]
    items: list[Item] = []
    index = 0
    use_split = split or ad.split
    for config in ad.hf_configs:
        ds = datasets.load_dataset(ad.hf_path, config, split=use_split)
        lookup: dict[str, Any] = {}
        if benchmark == "gqa":  # GQA keeps images in a separate config keyed by imageId
            imgs = datasets.load_dataset(ad.hf_path, "testdev_balanced_images", split=use_split)
            lookup = {r["id"]: r["image"] for r in imgs}
        for rec in ds:
            if lookup:
                rec = {**rec, "image": lookup.get(rec["imageId"])}
            item = adapt_record(benchmark, rec, index, image_dir)
            index += 1
            if item is not None:
                items.append(item)
            if limit is not None and len(items) >= limit:
                return items
    return items


# --- sampling -------------------------------------------------------------------------------------


def sample_items(items: Sequence[Item], k: int = 100, seeds: Sequence[int] = PAPER_SEEDS) -> list[Item]:
    """The deduplicated union over ``seeds`` of ``k`` items drawn per benchmark (PRISM-VLM App. A).

    For each benchmark (pool in file order) and seed s: ``default_rng(s).choice(n, min(k, n),
    replace=False)``; the union keeps first-draw order, seed by seed. Benchmarks keep their order of
    first appearance.
    """
    if k < 1:
        raise InputError(f"k (items per benchmark per seed) must be >= 1, got {k}")
    by_bench: dict[str, list[Item]] = {}
    for it in items:
        by_bench.setdefault(it.benchmark, []).append(it)
    out: list[Item] = []
    for pool in by_bench.values():
        n = len(pool)
        draws = np.concatenate(
            [np.random.default_rng(int(s)).choice(n, size=min(k, n), replace=False) for s in seeds]
        )
        _, first = np.unique(draws, return_index=True)
        out.extend(pool[j] for j in draws[np.sort(first)])
    return out


def domain_counts(pool: Sequence[Item], sampled: Sequence[Item]) -> pd.DataFrame:
    """Per-benchmark pool size and unique sampled items, with a subtotal row per domain (Table 8)."""
    pool_n = pd.Series([it.benchmark for it in pool]).value_counts()
    samp = pd.DataFrame(
        {"benchmark": [it.benchmark for it in sampled], "domain": [it.domain for it in sampled]}
    )
    rows = []
    order = list(dict.fromkeys(it.domain for it in sampled))
    for dom in order:
        sub = samp[samp["domain"] == dom]
        benches = list(dict.fromkeys(sub["benchmark"]))
        for b in benches:
            rows.append(
                {
                    "domain": dom,
                    "benchmark": b,
                    "pool": int(pool_n.get(b, 0)),
                    "items": int((sub["benchmark"] == b).sum()),
                }
            )
        rows.append(
            {
                "domain": dom,
                "benchmark": "(domain unique)",
                "pool": int(sum(pool_n.get(b, 0) for b in benches)),
                "items": len(sub),
            }
        )
    rows.append(
        {
            "domain": "Total",
            "benchmark": f"{samp['benchmark'].nunique()} benchmarks",
            "pool": len(pool),
            "items": len(samp),
        }
    )
    return pd.DataFrame(rows, columns=["domain", "benchmark", "pool", "items"])
