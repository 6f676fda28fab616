"""Property checks: any score matrix written as a wide or long table reads back exactly; the public API."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import benchsift.io as bio
from benchsift.io import read_long, read_wide
from benchsift.io.registry import FORMATS

cells = st.one_of(st.just(np.nan), st.sampled_from([0.0, 1.0]), st.floats(0.0, 1.0, allow_nan=False))


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 7)), elements=cells))
def test_wide_and_long_read_back_exactly(matrix: np.ndarray) -> None:
    n_models, n_items = matrix.shape
    models = [f"model {i}" for i in range(n_models)]
    items = [f"{i:03d}" for i in range(n_items)]
    with tempfile.TemporaryDirectory() as tmp:
        wide = Path(tmp) / "w.csv"
        frame = pd.DataFrame(matrix.T, columns=models)
        frame.insert(0, "id", items)
        frame.to_csv(wide, index=False, float_format="%.17g")
        p = read_wide(wide, benchmark="B")
        assert p.model_ids == models
        assert [k[1] for k in p.item_keys] == items
        np.testing.assert_array_equal(p.scores, matrix)

        long = Path(tmp) / "l.csv"
        mi, ii = np.meshgrid(np.arange(n_models), np.arange(n_items), indexing="ij")
        pd.DataFrame(
            {
                "model": np.array(models)[mi.ravel()],
                "benchmark": "B",
                "item": np.array(items)[ii.ravel()],
                "score": matrix.ravel(),
            }
        ).to_csv(long, index=False, float_format="%.17g")
        q = read_long(long)
        assert q.model_ids == models
        np.testing.assert_array_equal(q.scores, matrix)


def test_public_names() -> None:
    assert sorted(bio.__all__) == sorted(
        [
            "import_panel",
            "read_aggregate",
            "read_answers",
            "read_eee",
            "read_helm",
            "read_inspect",
            "read_lighteval",
            "read_lm_eval",
            "read_lmms_eval",
            "read_long",
            "read_scores",
            "read_vlmevalkit",
            "read_wide",
            "write_eee",
        ]
    )
    assert FORMATS == (
        "long",
        "wide",
        "lmms-eval",
        "lm-eval",
        "vlmevalkit",
        "inspect",
        "aggregate",
        "eee",
        "lighteval",
        "helm",
    )
    for name in bio.__all__:
        assert hasattr(bio, name)
