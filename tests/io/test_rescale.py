"""Per-benchmark rescaling rules (benchsift.io.rescale)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchsift.errors import InputError
from benchsift.io import read_long, read_wide
from benchsift.io.rescale import decide_affine, decide_scale, known_scale, parse_scales


@pytest.mark.parametrize(
    ("bench", "low", "high", "divisor"),
    [
        ("MMStar", 0.0, 1.0, 1.0),
        ("OCRBench", 0.0, 1.0, 1.0),  # item-level 0/1 is left alone
        ("OCRBench", 300.0, 852.0, 1000.0),
        ("ocrbench_mini", 3.0, 90.0, 1000.0),
        ("MME", 1200.0, 2310.3, 2800.0),
        ("MME_Perception", 900.0, 1648.1, 2000.0),
        ("MMBench-Video", 0.5, 1.9, 3.0),
        ("MMStar", 20.0, 63.9, 100.0),  # detected percentage
    ],
)
def test_decisions(bench: str, low: float, high: float, divisor: float) -> None:
    decision = decide_scale(bench, low, high)
    assert not isinstance(decision, str)
    assert decision[0] == divisor


def test_rejections() -> None:
    assert isinstance(decide_scale("Likert", 0.0, 250.0), str)
    assert isinstance(decide_scale("MMStar", -0.1, 0.5), str)
    assert isinstance(decide_scale("OCRBench", 0.0, 1200.0), str)  # above the known full scale
    assert isinstance(decide_scale("MMStar", 0.0, 63.0, mode="known"), str)  # no detection
    assert isinstance(decide_scale("OCRBench", 0.0, 800.0, mode="none"), str)  # no known scales


def test_declared_scales() -> None:
    assert decide_scale("Likert", 0.0, 4.0, scales={"Likert": 5}) == (5.0, "declared full scale 5")
    assert decide_scale("Any", 0.0, 0.4, scales={"*": 10})[0] == 10.0  # type: ignore[index]
    assert isinstance(decide_scale("Likert", 0.0, 6.0, scales={"Likert": 5}), str)
    assert parse_scales(["MMStar=100", "*=10"]) == {"MMStar": 100.0, "*": 10.0}
    for bad in ("MMStar", "=3", "X=-1", "X=abc"):
        with pytest.raises(InputError, match="`scale`"):
            parse_scales([bad])


def test_known_scale_matches_whole_name() -> None:
    assert known_scale("MME") is not None
    assert known_scale("MME-RealWorld") is None
    assert known_scale("OCRBench_v2") is None


def test_long_table_rescaled_and_rejected(tmp_path: Path) -> None:
    f = tmp_path / "agg.csv"
    f.write_text(
        "model,benchmark,item,score\n"
        "m1,OCRBench,total,808\nm2,OCRBench,total,646\nm1,MMStar,total,61.5\nm2,MMStar,total,49.0\n"
    )
    notes: list[str] = []
    p = read_long(f, notes=notes)
    np.testing.assert_allclose(p.scores, [[0.808, 0.615], [0.646, 0.49]])
    assert len([n for n in notes if n.startswith("rescaled")]) == 2
    f.write_text(f.read_text() + "m1,Likert,total,250\n")
    with pytest.raises(InputError) as info:
        read_long(f)
    msg = str(info.value)
    assert msg.startswith(f"{f}, line 6: benchmark 'Likert'")
    assert "`scale`" in msg  # the parameter (the CLI prints it as --scale)
    p = read_long(f, scales={"Likert": 500})
    assert p.scores[0, p.item_keys.index(("Likert", "total"))] == pytest.approx(0.5)


def test_detected_percentage_warns_of_scores_at_most_one(tmp_path: Path) -> None:
    # a sheet where one model was pasted on the 0-1 scale and the others as percentages: the 1.0 cells end
    # up as 0.01 (the documented rule); before, the only trace was the note "divided by 100"
    f = tmp_path / "mixed.csv"
    f.write_text(
        "model,benchmark,item,score\n"
        "m1,B,1,100\nm1,B,2,0\nm1,B,3,100\n"
        "m2,B,1,100\nm2,B,2,100\nm2,B,3,0\n"
        "m3,B,1,1\nm3,B,2,0\nm3,B,3,1\n"
    )
    notes: list[str] = []
    p = read_long(f, notes=notes)
    np.testing.assert_allclose(p.scores, [[1, 0, 1], [1, 1, 0], [0.01, 0, 0.01]])
    assert notes[-1] == (
        f"warning: benchmark 'B': 2 of its 6 nonzero scores are at most 1 (first: {f}, line 8) and were "
        "divided by 100 with the percentages (now at most 0.01); if they were on the 0-1 scale, the input "
        "mixes scales: write them as percentages too"
    )
    wide = tmp_path / "B.csv"  # the same sheet as a wide table
    wide.write_text("item,m1,m2,m3\n1,100,100,1\n2,0,100,0\n3,100,0,1\n")
    notes = []
    q = read_wide(wide, notes=notes)
    np.testing.assert_allclose(q.scores, p.scores)
    assert notes[-1].startswith(
        f"warning: benchmark 'B': 2 of its 6 nonzero scores are at most 1 (in {wide})"
    )
    # a plain percentage table (zeros and values above 1 only) gets the note alone
    wide.write_text("item,m1,m2\n1,100,50\n2,0,25\n")
    notes = []
    read_wide(wide, notes=notes)
    assert notes == [
        "rescaled 'B': divided by 100 (detected percentage (all scores in [0, 100], most nonzero ones "
        "above 1))"
    ]


def test_declared_range_parsed_and_checked() -> None:
    assert parse_scales(["TruthfulQA=-1:1", "L=1:5", "MMStar=100"]) == {
        "TruthfulQA": (-1.0, 1.0),
        "L": (1.0, 5.0),
        "MMStar": 100.0,
    }
    for bad in ("X=1:1", "X=2:1", "X=-1:", "X=a:1", "X=:1"):
        with pytest.raises(InputError, match="LOW:HIGH"):
            parse_scales([bad])
    # (score - low) / (high - low): a 1-5 Likert grade of 4 is 0.75
    assert decide_affine("L", 1.0, 4.0, scales={"L": (1.0, 5.0)}) == (
        1.0,
        4.0,
        "declared range 1:5 mapped onto [0, 1]",
    )
    assert isinstance(decide_affine("L", 0.0, 4.0, scales={"L": (1.0, 5.0)}), str)  # below the range
    assert isinstance(decide_affine("L", 1.0, 6.0, scales={"*": (1.0, 5.0)}), str)  # above it


def test_minus_one_plus_one_hint_works(tmp_path: Path) -> None:
    # issue 31: a -1/+1 panel was refused with the hint "--scale NAME=100", which fails again (a full scale
    # only divides, and the negative scores are refused before it); the hint now names the range, and the
    # declaration it names imports the panel as 0/1
    f = tmp_path / "pm.csv"
    f.write_text("item,m1,m2,m3\ni1,1,-1,1\ni2,-1,-1,1\ni3,1,1,-1\n")
    with pytest.raises(InputError) as info:
        read_wide(f, benchmark="TQA")
    msg = str(info.value)
    assert "negative score -1.0" in msg
    hint = msg.split("`scale` '")[1].split("'")[0]
    assert hint == "TQA=-1:1"
    with pytest.raises(InputError, match="negative score"):  # what the old hint said: still refused
        read_wide(f, benchmark="TQA", scales=parse_scales(["TQA=100"]))
    notes: list[str] = []
    p = read_wide(f, benchmark="TQA", scales=parse_scales([hint]), notes=notes)
    np.testing.assert_array_equal(p.scores, [[1, 0, 1], [0, 0, 1], [1, 1, 0]])
    assert notes == ["rescaled 'TQA': mapped x -> (x - (-1)) / 2 (declared range -1:1 mapped onto [0, 1])"]
    # the long reader (rescale_codes) applies the same shift, and refuses a score outside the range
    long = tmp_path / "pm_long.csv"
    long.write_text("model,benchmark,item,score\nm1,TQA,i1,1\nm1,TQA,i2,-1\nm2,TQA,i1,-1\nm2,TQA,i2,1\n")
    q = read_long(long, scales={"TQA": (-1.0, 1.0)})
    np.testing.assert_array_equal(q.scores, [[1, 0], [0, 1]])
    long.write_text(long.read_text() + "m3,TQA,i1,-3\n")
    with pytest.raises(InputError) as info:
        read_long(long, scales={"TQA": (-1.0, 1.0)})
    assert "line 6" in str(info.value) and "outside its declared range -1:1" in str(info.value)
    with pytest.raises(InputError, match="'TQA=LOW:HIGH'"):  # below -1: no -1/+1 example
        read_long(long)
