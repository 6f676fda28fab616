"""Panel.check: the one check of a method's panel argument (a Panel; with image=True, one with
image-condition rows), one line naming where."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchsift.errors import InputError
from benchsift.panel import Panel


def _panel(conditions: list[str]) -> Panel:
    models = pd.DataFrame({"model": [f"m{i}" for i in range(len(conditions))], "condition": conditions})
    items = pd.DataFrame({"benchmark": ["b"] * 3, "item": ["i0", "i1", "i2"]})
    return Panel(np.full((len(conditions), 3), 0.5), models, items)


def test_check_returns_the_panel_and_refuses_anything_else() -> None:
    p = _panel(["image", "text-only"])
    assert Panel.check(p, "stage0_clean", image=True) is p
    with pytest.raises(InputError, match=r"^stage0_clean: expected a benchsift Panel, got ndarray$"):
        Panel.check(np.zeros((2, 3)), "stage0_clean")
    with pytest.raises(InputError, match=r"^expected a benchsift Panel, got dict$"):
        Panel.check({})


def test_image_rows_required_only_when_asked() -> None:
    text = _panel(["text-only", "text-only"])
    assert Panel.check(text, "x") is text
    with pytest.raises(
        InputError, match=r"^x: the panel has no image-condition model rows \(models.condition\)$"
    ):
        Panel.check(text, "x", image=True)
