"""Item embeddings: loading, alignment, delta^VL (PRIMEBench Eq. 6), projection, built-in text embedding."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchsift.compression.embeddings import ItemEmbeddings, delta_vl, random_projection
from benchsift.errors import FormatError, InputError


def _a(x: np.ndarray | None) -> np.ndarray:
    assert x is not None
    return x


KEYS = pd.DataFrame({"benchmark": ["A", "A", "B"], "item": ["1", "2", "1"]})


def test_delta_vl_by_hand() -> None:
    e_l = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [np.nan, np.nan], [0.0, 0.0], [2.0, 0.0]])
    e_vl = np.array([[0.0, 1.0], [1.0, 1.0], [3.0, 0.0], [1.0, 0.0], [1.0, 0.0], [-1.0, 0.0]])
    d = delta_vl(e_l, e_vl)
    # orthogonal: 1; 45 degrees: 1 - 1/sqrt 2; parallel (any length): 0; missing: 0; zero vector: 0;
    # opposite: 2
    np.testing.assert_allclose(d, [1.0, 1 - 1 / np.sqrt(2), 0.0, 0.0, 0.0, 2.0], atol=1e-12)
    assert delta_vl(None, e_vl).tolist() == [0.0] * 6
    with pytest.raises(InputError, match="same shape"):
        delta_vl(e_l[:, :1], e_vl)


def test_delta_vl_matches_sklearn_cosine() -> None:
    from sklearn.metrics.pairwise import paired_cosine_distances

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((50, 7)), rng.standard_normal((50, 7))
    np.testing.assert_allclose(delta_vl(a, b), paired_cosine_distances(a, b), atol=1e-12)


def test_random_projection_is_fixed_and_preserves_geometry() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((200, 512))
    x[5] = np.nan
    p1 = random_projection(x, 64, random_state=0)
    p2 = random_projection(x, 64, random_state=0)
    p3 = random_projection(x, 64, random_state=1)
    assert p1.shape == (200, 64)
    np.testing.assert_array_equal(p1, p2)
    assert not np.allclose(p1[~np.isnan(p1[:, 0])], p3[~np.isnan(p3[:, 0])])
    assert np.isnan(p1[5]).all() and not np.isnan(np.delete(p1, 5, axis=0)).any()
    # Johnson-Lindenstrauss: squared norms preserved on average (E|Px|^2 = |x|^2 for N(0, 1/dim) entries)
    ok = np.delete(np.arange(200), 5)
    ratio = (p1[ok] ** 2).sum(1) / (x[ok] ** 2).sum(1)
    assert abs(ratio.mean() - 1) < 0.05
    small = rng.standard_normal((10, 16))
    np.testing.assert_array_equal(random_projection(small, 64), small)  # d <= 64: unchanged


def test_align_to_items_and_missing_rows() -> None:
    vl = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    txt = np.array([[1.0, 0.0], [1.0, 0.0], [np.nan, np.nan]])
    emb = ItemEmbeddings(KEYS, vision_text=vl, text=txt)
    items = pd.DataFrame({"benchmark": ["B", "A", "C", "A"], "item": ["1", "2", "9", "1"], "category": "x"})
    al = emb.align(items)
    assert al.keys.values.tolist() == [["B", "1"], ["A", "2"], ["C", "9"], ["A", "1"]]
    assert al.has_vision_text.tolist() == [True, True, False, True]
    assert al.has_text.tolist() == [False, True, False, True]
    np.testing.assert_array_equal(_a(al.vision_text)[0], [1.0, 1.0])
    # delta: B/1 has no text embedding -> 0; A/2: orthogonal -> 1; C/9 missing -> 0; A/1 parallel -> 0
    np.testing.assert_allclose(al.delta_vl(), [0.0, 1.0, 0.0, 0.0], atol=1e-7)


def test_constructor_validation() -> None:
    with pytest.raises(InputError, match="rows"):
        ItemEmbeddings(KEYS, vision_text=np.zeros((2, 3)))
    with pytest.raises(InputError, match="partly NaN"):
        ItemEmbeddings(KEYS, vision_text=np.array([[1.0, np.nan], [1, 1], [1, 1]]))
    # beyond 1e12 the clustering's float32 squared distances could overflow (forged 1e20: a hang)
    with pytest.raises(
        InputError, match=r"row 1, column 0 is 1\.0\d*e\+20; expected a value in \[-10{12}, 10{12}\]"
    ):
        ItemEmbeddings(KEYS, vision_text=np.array([[1.0, 2.0], [1e20, 1], [1, 1]]))
    ok = ItemEmbeddings(KEYS, vision_text=np.array([[1e12, -1e12], [1, 1], [1, 1]]))
    assert ok.vision_text is not None and ok.vision_text[0, 0] == np.float32(1e12)
    with pytest.raises(InputError, match="duplicate"):
        ItemEmbeddings(pd.DataFrame({"benchmark": ["A", "A"], "item": ["1", "1"]}))
    with pytest.raises(InputError, match="item"):
        ItemEmbeddings(pd.DataFrame({"benchmark": ["A"]}))


def test_load_npy_with_keys_file(tmp_path: Path) -> None:
    vl = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.save(tmp_path / "vl.npy", vl)
    KEYS.to_csv(tmp_path / "vl.keys.csv", index=False)  # sibling keys file, found automatically
    txt = np.array([[1.0, 0.0], [0.0, 1.0]])
    np.save(tmp_path / "txt.npy", txt)
    text_keys = pd.DataFrame({"benchmark": ["B", "Z"], "item": ["1", "3"]})
    text_keys.to_parquet(tmp_path / "tk.parquet")
    emb = ItemEmbeddings.load(tmp_path / "vl.npy", tmp_path / "txt.npy", text_keys=tmp_path / "tk.parquet")
    # union of keys, vision-text keys first
    assert emb.keys.values.tolist() == [["A", "1"], ["A", "2"], ["B", "1"], ["Z", "3"]]
    assert emb.has_vision_text.tolist() == [True, True, True, False]
    assert emb.has_text.tolist() == [False, False, True, True]
    np.testing.assert_array_equal(_a(emb.vision_text)[2], [4.0, 5.0])
    np.testing.assert_array_equal(_a(emb.text)[2], [1.0, 0.0])
    assert "vl.npy" in emb.source


def test_load_parquet_list_and_dim_columns(tmp_path: Path) -> None:
    df = KEYS.copy()
    df["vec"] = [[1.0, 2.0], [3.0, 4.0], None]
    df.to_parquet(tmp_path / "list.parquet")
    emb = ItemEmbeddings.load(tmp_path / "list.parquet")
    assert emb.has_vision_text.tolist() == [True, True, False]
    np.testing.assert_array_equal(_a(emb.vision_text)[1], [3.0, 4.0])
    wide = KEYS.copy()
    wide["e0"], wide["e1"], wide["e2"] = [1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]
    wide.to_parquet(tmp_path / "wide.parquet")
    emb2 = ItemEmbeddings.load(text=tmp_path / "wide.parquet")
    assert emb2.vision_text is None
    np.testing.assert_array_equal(_a(emb2.text)[2], [3.0, 6.0, 9.0])


def test_load_errors(tmp_path: Path) -> None:
    np.save(tmp_path / "e.npy", np.zeros((3, 2)))
    with pytest.raises(InputError, match="keys file"):
        ItemEmbeddings.load(tmp_path / "e.npy")
    KEYS.iloc[:2].to_csv(tmp_path / "k.csv", index=False)
    with pytest.raises(FormatError, match="2 rows but embeddings"):
        ItemEmbeddings.load(tmp_path / "e.npy", keys=tmp_path / "k.csv")
    bad = KEYS.copy()
    bad["vec"] = [[1.0, 2.0], [3.0], [1.0, 1.0]]
    bad.to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(FormatError, match="row 1: vector of length 1"):
        ItemEmbeddings.load(tmp_path / "bad.parquet")
    with pytest.raises(InputError, match="missing.npy: no such file"):
        ItemEmbeddings.load(tmp_path / "missing.npy")
    with pytest.raises(InputError, match="give a vision-text"):
        ItemEmbeddings.load()
    (tmp_path / "x.txt").write_text("hi")
    with pytest.raises(FormatError, match=".npy or .parquet"):
        ItemEmbeddings.load(tmp_path / "x.txt")


def _question_items() -> pd.DataFrame:
    topics = {
        "colour": "what colour is the car in the picture red blue",
        "count": "how many apples are on the table count them",
        "text": "read the text written on the sign board words",
    }
    rows: list[dict[str, str | None]] = []
    for t, base in topics.items():
        for j in range(8):
            words = base.split()
            rows.append(
                {"benchmark": "B", "item": f"{t}{j}", "question": " ".join(words[j % 3 :] + [f"x{j}"])}
            )
    rows.append({"benchmark": "B", "item": "empty", "question": None})
    return pd.DataFrame(rows)


def test_builtin_text_embedding_is_deterministic_and_clusters_topics() -> None:
    items = _question_items()
    e1 = ItemEmbeddings.from_text(items, dim=8, random_state=0)
    e2 = ItemEmbeddings.from_text(items, dim=8, random_state=0)
    np.testing.assert_array_equal(_a(e1.text), _a(e2.text))
    assert e1.vision_text is None
    assert e1.has_text.tolist() == [True] * 24 + [False]
    z = _a(e1.text)[:24].astype(np.float64)
    np.testing.assert_allclose(np.linalg.norm(z, axis=1), 1.0, atol=1e-6)
    sim = z @ z.T
    topic = np.repeat(np.arange(3), 8)
    same = topic[:, None] == topic[None, :]
    off = ~np.eye(24, dtype=bool)
    assert sim[same & off].mean() > sim[~same].mean() + 0.3
    # SVD fitted on a seeded subsample, applied to every item: still deterministic, still clusters
    sub1 = _a(ItemEmbeddings.from_text(items, dim=4, max_fit_docs=12).text)
    sub2 = _a(ItemEmbeddings.from_text(items, dim=4, max_fit_docs=12).text)
    np.testing.assert_array_equal(sub1, sub2)
    zs = sub1[:24].astype(np.float64)
    sim_s = zs @ zs.T
    assert sim_s[same & off].mean() > sim_s[~same].mean() + 0.3
    no_q = ItemEmbeddings.from_text(items.drop(columns="question"))
    assert not no_q.has_text.any()


def test_sentence_transformers_missing_gives_pip_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import fails
    with pytest.raises(InputError, match=r"pip install 'benchsift\[embeddings\]'"):
        ItemEmbeddings.from_sentence_transformers(_question_items(), "some/model")


def test_sentence_transformers_loaded_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    class FakeModel:
        def __init__(self, name: str, device: str | None = None, local_files_only: bool = False) -> None:
            seen["name"], seen["local_files_only"] = name, local_files_only
            seen["offline"] = os.environ.get("HF_HUB_OFFLINE")

        def encode(self, texts: list[str], **kwargs: object) -> np.ndarray:
            seen["kwargs"] = kwargs
            return np.array([[len(t), 1.0] for t in texts]) / 10.0

    fake = types.ModuleType("sentence_transformers")
    fake.SentenceTransformer = FakeModel  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", fake)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    items = _question_items()
    emb = ItemEmbeddings.from_sentence_transformers(items, "/models/local-st")
    assert seen["local_files_only"] is True and seen["offline"] == "1"
    assert "HF_HUB_OFFLINE" not in os.environ  # restored afterwards
    assert emb.has_text.tolist() == [True] * 24 + [False]
    assert _a(emb.text).shape == (25, 2)
