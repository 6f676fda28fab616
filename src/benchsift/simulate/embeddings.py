"""Simulated item content: vision-text / text-only embeddings and question text.

Embeddings (PRIMEBench section 4.3 uses ``delta^VL_i = 1 - cos(E^L_i, E^VL_i)``):

* every latent item cluster ``k`` (cluster ids are global; a cluster belongs to one benchmark) has a text
  centre ``c_k = 0.5 u_cat + 0.5 u_bench + v_k`` and an image centre ``g_k`` built the same way from
  independent directions; each direction has i.i.d. ``N(0, 1/d)`` entries (norm about 1), so clusters of one
  benchmark sit near each other and near their category;
* item ``i`` of cluster ``k``: ``t_i = c_k + s e_i`` and ``x_i = g_k + s e'_i`` with ``e`` i.i.d. with mean 0
  and variance ``1/d`` (uniform, which is four times faster to draw than normal at 386k x 64; ``s`` =
  ``embedding_noise``);
* ``E^L_i = t_i / |t_i|``; ``E^VL_i = cos(phi_i) E^L_i + sin(phi_i) x_i^perp`` where ``x_i^perp`` is the unit
  part of ``x_i`` orthogonal to ``E^L_i`` and ``phi_i = |vision_dependence_i * MAX_ANGLE + ANGLE_NOISE z_i|``
  (``z_i`` standard normal: the embedding is a noisy proxy of the truth); hence exactly
  ``1 - cos(E^L_i, E^VL_i) = 1 - cos(phi_i)``, increasing in the item's vision dependence up to that noise.

Question text: each cluster owns ``WORDS_PER_CLUSTER`` pseudo-words; a question is ``question_words`` words,
each from its cluster's list with probability ``CLUSTER_WORD_SHARE`` and otherwise from a shared list, so
bag-of-words (TF-IDF) embeddings of the questions also cluster by item cluster.
"""

from __future__ import annotations

import numpy as np

MAX_ANGLE = 1.2  # radians; delta^VL ranges over about [0, 1 - cos(1.2)] = [0, 0.64]
ANGLE_NOISE = 0.1  # radians
WORDS_PER_CLUSTER = 12
COMMON_WORDS = 40
CLUSTER_WORD_SHARE = 0.7
_SYLLABLES = (
    "ba ce di fo gu ka le mi no pu ra se ti vo zu xa ly qe hu jo".split()
)  # 20 syllables -> 8,000 three-syllable words, 160,000 four-syllable ones


def _directions(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    return (rng.standard_normal((n, dim), dtype=np.float32) / np.float32(np.sqrt(dim))).astype(np.float32)


def simulate_embeddings(
    rng: np.random.Generator,
    item_cluster: np.ndarray,
    cluster_benchmark: np.ndarray,
    benchmark_category: np.ndarray,
    vision_dependence: np.ndarray,
    dim: int,
    noise: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(embeddings_vl, embeddings_text)``, each ``(n_items, dim)`` float32 unit rows.

    ``item_cluster`` (n_items,) global cluster ids; ``cluster_benchmark`` (n_clusters,) benchmark index of
    each cluster; ``benchmark_category`` (n_benchmarks,) category index of each benchmark.
    """
    n_clusters = cluster_benchmark.shape[0]
    n_bench = benchmark_category.shape[0]
    n_cat = int(benchmark_category.max()) + 1
    n = item_cluster.shape[0]
    half = np.float32(0.5)
    centres = []
    for _ in range(2):  # text centres, then image centres
        cat_dir = _directions(rng, n_cat, dim)
        bench_dir = _directions(rng, n_bench, dim)
        own = _directions(rng, n_clusters, dim)
        centres.append(
            half * cat_dir[benchmark_category[cluster_benchmark]] + half * bench_dir[cluster_benchmark] + own
        )
    # uniform on [-sqrt(3), sqrt(3)] has variance 1
    scale, shift = (
        np.float32(2 * np.sqrt(3) * noise / np.sqrt(dim)),
        np.float32(np.sqrt(3) * noise / np.sqrt(dim)),
    )
    noise_buf = np.empty((n, dim), dtype=np.float32)
    out = []
    for centre in centres:  # text, then image: in-place float32 arithmetic, no (n, dim) temporaries
        emb = centre[item_cluster]
        rng.random(out=noise_buf, dtype=np.float32)
        noise_buf *= scale
        noise_buf -= shift
        emb += noise_buf
        out.append(emb)
    text, image = out
    del noise_buf

    text /= np.sqrt(np.einsum("ij,ij->i", text, text))[:, None]
    image -= np.einsum("ij,ij->i", image, text)[:, None] * text
    image /= np.maximum(np.sqrt(np.einsum("ij,ij->i", image, image)), np.float32(1e-12))[:, None]
    phi = np.abs(
        np.asarray(vision_dependence, dtype=np.float64) * MAX_ANGLE + ANGLE_NOISE * rng.standard_normal(n)
    )
    phi = phi.astype(np.float32)[:, None]
    image *= np.sin(phi)
    image += np.cos(phi) * text
    vl = image  # cos(phi) E^L + sin(phi) x^perp, already unit length (orthonormal pair)
    vl /= np.sqrt(np.einsum("ij,ij->i", vl, vl))[:, None]
    return vl, text


def _vocabulary(rng: np.random.Generator, n_words: int) -> np.ndarray:
    """``(n_words, width)`` uint8 ASCII codes of distinct pseudo-words (every syllable has two letters, so
    every word has the same width), in random order."""
    n_syl = len(_SYLLABLES)
    length = 3
    while n_syl**length < n_words:
        length += 1
    codes = rng.choice(n_syl**length, size=n_words, replace=False)
    syl = np.frombuffer("".join(_SYLLABLES).encode("ascii"), dtype=np.uint8).reshape(n_syl, 2)
    digits = (codes[:, None] // n_syl ** np.arange(length)) % n_syl  # (n_words, length)
    return syl[digits].reshape(n_words, 2 * length)


def simulate_questions(
    rng: np.random.Generator, item_cluster: np.ndarray, n_clusters: int, n_words: int
) -> np.ndarray:
    """Synthetic question strings (numpy unicode array, one per item) whose words depend on the cluster."""
    vocab = _vocabulary(rng, n_clusters * WORDS_PER_CLUSTER + COMMON_WORDS)
    n = item_cluster.shape[0]
    own = item_cluster[:, None] * WORDS_PER_CLUSTER + rng.integers(0, WORDS_PER_CLUSTER, size=(n, n_words))
    common = n_clusters * WORDS_PER_CLUSTER + rng.integers(0, COMMON_WORDS, size=(n, n_words))
    use_own = rng.random((n, n_words)) < CLUSTER_WORD_SHARE
    idx = np.where(use_own, own, common)
    width = vocab.shape[1] + 1
    buf = np.empty((n, n_words, width), dtype=np.uint8)
    buf[:, :, :-1] = vocab[idx]
    buf[:, :, -1] = ord(" ")
    buf[:, -1, -1] = ord("?")
    return buf.reshape(n, n_words * width).view(f"S{n_words * width}").ravel().astype(np.str_)
