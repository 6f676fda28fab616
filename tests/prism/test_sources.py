"""Benchmark adapters on records in each dataset's own schema, sampling, domain counts."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from benchsift.errors import FormatError, InputError
from benchsift.prism.sources import (
    ADAPTERS,
    DOMAINS,
    PAPER_SEEDS,
    Item,
    adapt_record,
    domain_counts,
    read_items,
    read_raw_jsonl,
    sample_items,
    write_items,
)

RAW = json.loads((Path(__file__).parents[1] / "fixtures" / "engine" / "raw_records.json").read_text())

# (fixture key, benchmark, id, answers, options, letter, images, prompt contains)
EXPECTED = [
    ("mmstar", "mmstar", "mmstar/17", ["A"], None, True, ["mmstar_17.jpg"], "Options: A: The suitcase"),
    ("gqa", "gqa", "gqa/20968379", ["yes"], None, False, ["n288870.jpg"], "Do the shorts have dark color?"),
    (
        "okvqa",
        "okvqa",
        "okvqa/2971475",
        ["race", "motocross", "ride"],
        None,
        False,
        ["okvqa_2971475.jpg"],
        "What sport",
    ),
    (
        "mmmu",
        "mmmu",
        "mmmu/validation_Accounting_1",
        ["D"],
        ["$63,020", "$58,410", "$71,320", "$77,490"],
        True,
        ["mmmu_acc1.png"],
        "D. $77,490",
    ),
    ("mathvista", "mathvista", "mathvista/2", ["1000"], None, False, ["images/2.jpg"], "total volume"),
    (
        "mathvista_mc",
        "mathvista",
        "mathvista/5",
        ["A"],
        ["97", "102", "107", "122"],
        True,
        ["images/5.jpg"],
        "A. 97",
    ),
    (
        "scienceqa",
        "scienceqa",
        "scienceqa/0",
        ["A"],
        ["West Virginia", "Louisiana", "Arizona", "Oklahoma"],
        True,
        ["sqa_4.png"],
        "farthest north",
    ),
    ("ai2d", "ai2d", "ai2d/0", ["B"], ["c", "D", "b", "a"], True, ["ai2d_0.png"], "dairy item"),
    ("chartqa", "chartqa", "chartqa/0", ["14"], None, False, ["chartqa_0.png"], "food item"),
    ("docvqa", "docvqa", "docvqa/49153", ["0.28"], None, False, ["docvqa_49153.png"], "per 1000"),
    (
        "refcocog",
        "refcocog",
        "refcocog/1776929",
        ["a man in a white shirt holding a racket", "man with tennis racket"],
        None,
        False,
        ["coco_1776929.jpg"],
        "red box",
    ),
    (
        "refcoco+",
        "refcoco+",
        "refcoco+/85",
        ["left guy", "man on left"],
        None,
        False,
        ["coco_85.jpg"],
        "red box",
    ),
    (
        "blink_counting",
        "blink_counting",
        "blink_counting/val_Counting_1",
        ["D"],
        ["0", "3", "2", "1"],
        True,
        ["blink_c1.jpg"],
        "(D) 1",
    ),
    (
        "mantis",
        "mantis",
        "mantis/mantis_3",
        ["B"],
        ["the first image", "the second image"],
        True,
        ["mantis_3_0.jpg", "mantis_3_1.jpg", "mantis_3_2.jpg"],
        "same dog",
    ),
    (
        "nlvr2",
        "nlvr2",
        "nlvr2/dev-850-0-0",
        ["true"],
        None,
        False,
        ["dev-850-img0.png", "dev-850-img1.png"],
        '"There are exactly two dogs."',
    ),
    (
        "blink",
        "blink",
        "blink/val_Art_Style_1",
        ["A"],
        ["(A)", "(B)"],
        True,
        ["blink_a1.jpg", "blink_a2.jpg", "blink_a3.jpg"],
        "(A) the second image",
    ),
]


def test_fifteen_benchmarks_in_five_domains() -> None:
    assert sorted(ADAPTERS) == sorted(b for names in DOMAINS.values() for b in names)
    assert len(ADAPTERS) == 15 and all(len(v) == 3 for v in DOMAINS.values())


@pytest.mark.parametrize("key,bench,item_id,answers,options,letter,images,snippet", EXPECTED)
def test_adapter_maps_real_schema(key, bench, item_id, answers, options, letter, images, snippet) -> None:
    item = adapt_record(bench, RAW[key], 0)
    assert item is not None
    assert (item.id, item.benchmark, item.answers, item.options, item.letter_answer, item.images) == (
        item_id,
        bench,
        answers,
        options,
        letter,
        images,
    )
    assert snippet in item.prompt
    assert item.domain == next(d for d, names in DOMAINS.items() if bench in names)


def test_scienceqa_text_only_items_are_skipped() -> None:
    assert adapt_record("scienceqa", RAW["scienceqa_text"], 3) is None


def test_in_memory_images_are_written(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    plt.imsave(buf, np.zeros((4, 4, 3)), format="png")
    rec = {**RAW["chartqa"], "image": {"bytes": buf.getvalue(), "path": None}}
    item = adapt_record("chartqa", rec, 5, tmp_path)
    assert item is not None and (tmp_path / item.images[0]).read_bytes() == buf.getvalue()


def test_bad_records_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="missing field 'question'"):
        adapt_record("chartqa", {"answer": "3", "image": "x.png"}, 0)
    with pytest.raises(InputError, match="unknown benchmark"):
        adapt_record("tallyqa", {}, 0)
    p = tmp_path / "bad.jsonl"
    p.write_text('{"question": "q", "answer": "1", "image": "a.png"}\n{oops\n')
    with pytest.raises(FormatError, match=r"bad.jsonl, line 2"):
        read_raw_jsonl(p, "chartqa")


def test_item_roundtrip_and_duplicate_ids(tmp_path: Path) -> None:
    items = [it for k, b, *_ in EXPECTED if (it := adapt_record(b, RAW[k], 0)) is not None]
    write_items(items, tmp_path / "items.jsonl")
    assert [i.to_dict() for i in read_items(tmp_path / "items.jsonl")] == [i.to_dict() for i in items]
    (tmp_path / "dup.jsonl").write_text((json.dumps(items[0].to_dict()) + "\n") * 2)
    with pytest.raises(FormatError, match="appears twice"):
        read_items(tmp_path / "dup.jsonl")


def _pool(sizes: dict[str, int]) -> list[Item]:
    return [Item(f"{b}/{i}", b, "d", "q", ["a"]) for b, n in sizes.items() for i in range(n)]


def test_sampling_is_the_union_of_seeded_draws() -> None:
    pool = _pool({"x": 30, "y": 7})
    got = sample_items(pool, k=5, seeds=(0, 1, 42))
    # independent recomputation with Python sets, seed by seed
    for bench, n in (("x", 30), ("y", 7)):
        expect: list[int] = []
        for s in (0, 1, 42):
            for j in np.random.default_rng(s).choice(n, size=5, replace=False):
                if int(j) not in expect:
                    expect.append(int(j))
        assert [it.id for it in got if it.benchmark == bench] == [f"{bench}/{j}" for j in expect]
    assert sample_items(pool, k=5, seeds=(0, 1, 42)) == got  # deterministic


def test_sampling_size_matches_the_expected_union() -> None:
    # E|union| = n (1 - (1 - K/n)^R): the Mantis pool of 217 and BLINK-Counting's 120 (App. A, Table 8)
    got = sample_items(_pool({"mantis": 217, "blink_counting": 120, "big": 5000}), k=100, seeds=PAPER_SEEDS)
    counts = {b: sum(it.benchmark == b for it in got) for b in ("mantis", "blink_counting", "big")}
    assert abs(counts["mantis"] - 217 * (1 - (117 / 217) ** 5)) < 8
    assert counts["blink_counting"] == 120
    assert abs(counts["big"] - 5000 * (1 - (4900 / 5000) ** 5)) < 15


def test_domain_counts_table() -> None:
    pool = [it for it in _pool({"gqa": 10, "okvqa": 4, "ai2d": 6})]
    for it in pool:
        it.domain = "General-VQA" if it.benchmark != "ai2d" else "Chart/Doc"
    sampled = pool[:3] + pool[10:14] + pool[14:16]
    t = domain_counts(pool, sampled)
    rows = {(r.domain, r.benchmark): (r.pool, r.items) for r in t.itertuples()}
    assert rows[("General-VQA", "gqa")] == (10, 3)
    assert rows[("General-VQA", "(domain unique)")] == (14, 7)
    assert rows[("Chart/Doc", "ai2d")] == (6, 2)
    assert rows[("Total", "3 benchmarks")] == (20, 9)


class _StubDatasets:
    """Stands in for the ``datasets`` package: records each load_dataset call, serves fixture rows."""

    def __init__(self, rows: dict[tuple[str, str | None], list[dict]]) -> None:
        self.rows = rows
        self.calls: list[tuple[str, str | None, str]] = []

    def load_dataset(self, path: str, name: str | None = None, split: str = "") -> list[dict]:
        self.calls.append((path, name, split))
        return self.rows.get((path, name), [])


def test_load_hf_reads_every_config_and_joins_gqa_images(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from benchsift.prism.sources import load_hf

    png = io.BytesIO()
    import matplotlib.pyplot as plt

    plt.imsave(png, np.ones((3, 3, 3)), format="png")
    img = {"bytes": png.getvalue(), "path": None}
    mmmu = {**RAW["mmmu"], "image_1": img}
    gqa_rec = {k: v for k, v in RAW["gqa"].items() if k != "image"}
    stub = _StubDatasets(
        {
            ("MMMU/MMMU", "Accounting"): [mmmu],
            ("MMMU/MMMU", "Sociology"): [{**mmmu, "id": "validation_Sociology_1"}],
            ("lmms-lab/GQA", "testdev_balanced_instructions"): [gqa_rec],
            ("lmms-lab/GQA", "testdev_balanced_images"): [{"id": "n288870", "image": img}],
            ("lmms-lab/NLVR2", None): [
                {
                    "question_id": "7",
                    "question": "Two dogs.",
                    "answer": "False",
                    "left_image": img,
                    "right_image": img,
                }
            ],
        }
    )
    monkeypatch.setitem(sys.modules, "datasets", stub)
    items = load_hf("mmmu", tmp_path)
    subjects = [name for path, name, split in stub.calls if path == "MMMU/MMMU"]
    assert len(subjects) == 30 and len(set(subjects)) == 30  # MMMU has no default config
    assert {split for *_, split in stub.calls} == {"validation"}
    assert [it.id for it in items] == ["mmmu/validation_Accounting_1", "mmmu/validation_Sociology_1"]
    assert (tmp_path / items[0].images[0]).read_bytes() == png.getvalue()
    (g,) = load_hf("gqa", tmp_path)
    assert g.answers == ["yes"] and (tmp_path / g.images[0]).read_bytes() == png.getvalue()
    (n,) = load_hf("nlvr2", tmp_path)  # the Hub mirror's field names
    assert n.id == "nlvr2/7" and n.answers == ["false"] and '"Two dogs."' in n.prompt and len(n.images) == 2
    assert stub.calls[-1] == ("lmms-lab/NLVR2", None, "balanced_dev")
    load_hf("nlvr2", tmp_path, split="balanced_test_public")
    assert stub.calls[-1][2] == "balanced_test_public"
    assert len(load_hf("mmmu", tmp_path, limit=1)) == 1


def test_refcoco_box_is_drawn_on_a_copy(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt
    from PIL import Image

    plt.imsave(tmp_path / "coco_85.png", np.ones((60, 80, 3)))  # white, 80 wide, 60 high
    rec = {**RAW["refcoco+"], "image": "coco_85.png", "bbox": [10.0, 20.0, 30.0, 25.0]}
    item = adapt_record("refcoco+", rec, 0, tmp_path)
    assert item is not None and item.images == ["refcoco__85_box.png"]
    assert item.meta["source_image"] == "coco_85.png" and "red box" in item.prompt
    px = np.asarray(Image.open(tmp_path / item.images[0]).convert("RGB"))
    assert tuple(px[20, 25]) == (255, 0, 0) and tuple(px[40, 10]) == (255, 0, 0)  # top and left edges
    assert tuple(px[30, 25]) == (255, 255, 255) and tuple(px[5, 5]) == (255, 255, 255)  # inside, outside
    assert (tmp_path / "coco_85.png").exists()  # the source image is left as it was
    with pytest.raises(InputError, match="not found"):
        adapt_record("refcoco+", {**rec, "image": "missing.png"}, 0, tmp_path)
