"""The selectors that cluster items keep the same items under every BLAS kernel (fresh processes with
``OPENBLAS_CORETYPE`` set, tests/support/kernels.py): AnchorPoints (k-medoids on correlations, similarities
snapped to a grid), the estimation suite (its correctness anchors by exact grid k-means) and the
tinyBenchmarks anchors. The panel has duplicated item columns, whose distances tie exactly: before, the
kernel broke those ties (AnchorPoints kept other medoids under the SSE3 and AVX kernels than under AVX-512
on MMMU)."""

from __future__ import annotations

from kernels import under_every_kernel

_CHILD = """
import hashlib, json
import numpy as np
from benchsift.compression.selectors.anchorpoints import AnchorPointsSelector
from benchsift.compression.selectors.estimation import EstimationSelector
from benchsift.compression.selectors.tinybench import TinyBenchmarksSelector

rng = np.random.default_rng(3)
theta, b = rng.normal(size=50), rng.normal(size=150)
X = (rng.random((50, 150)) < 1.0 / (1.0 + np.exp(-(theta[:, None] - b)))).astype(np.float64)
X = np.concatenate([X, X[:, :60], X[:, 10:40]], axis=1)  # duplicated columns: exact ties
h = lambda a: hashlib.md5(np.asarray(a, dtype=np.int64).tobytes()).hexdigest()
out = {}
for seed in range(4):
    for k in (12, 30):
        out[f"anchorpoints {seed} {k}"] = h(AnchorPointsSelector(random_state=seed).select(X, k))
        out[f"estimation {seed} {k}"] = h(EstimationSelector(random_state=seed).select(X, k))
        out[f"tinybench {seed} {k}"] = h(TinyBenchmarksSelector(random_state=seed).select(X, k))
print(json.dumps(out))
"""


def test_same_items_under_every_blas_kernel() -> None:
    runs = under_every_kernel(_CHILD)
    base = runs["default"]
    assert len(base) == 24
    for name, run in runs.items():
        different = sorted(k for k in base if run[k] != base[k])
        assert not different, (name, different)
