"""Angular locality-sensitive hashing as in the Reformer (Kitaev et al. 2020, §2 "LSH attention").

    h(x) = argmax([x R ; -x R])          R: (d, b/2) random Gaussian, b buckets   (Eq. in §2)

A random rotation sends nearby vectors (small angle) to the same bucket with high
probability. The hash only depends on the *direction* of x: h(alpha x) = h(x) for alpha > 0,
and h(-x) = (h(x) + b/2) mod b because the concatenation [xR; -xR] swaps its two halves.
For b = 2 (one hyperplane) two vectors at angle theta collide with probability 1 - theta/pi
(Charikar 2002); with n independent hash rounds they share a bucket in at least one round
with probability 1 - (1 - p)^n.

From buckets to attention (§2): sort the tokens by (bucket, position), cut the sorted
sequence into chunks of m tokens, and let each chunk attend to itself and the chunk before.
Several rounds take the union of the allowed pairs.

Reference implementations: google/trax ``hash_vecs``, lucidrains/reformer-pytorch.

Shape legend: N tokens, d vector size, b buckets, n (or H) hash rounds, m chunk size.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]


def _check_buckets(n_buckets: int) -> int:
    b = int(n_buckets)
    if b < 2 or b % 2:
        raise ValueError(f"the number of buckets b must be an even number ≥ 2, got {n_buckets}")
    return b


def random_rotations(
    dim: int, n_buckets: int, rng: np.random.Generator, n_hashes: int = 1
) -> Array:
    """Random projections R for ``n_hashes`` independent hash rounds.

    Args:
        dim: d, the size of the hashed vectors (≥ 1).
        n_buckets: b, even and ≥ 2.
        rng: the source of randomness.
        n_hashes: n, number of independent rounds (≥ 1).

    Returns:
        (n_hashes, dim, b/2) i.i.d. standard normal entries.
    """
    b = _check_buckets(n_buckets)
    if int(dim) < 1:
        raise ValueError(f"the vector size d must be at least 1, got {dim}")
    if int(n_hashes) < 1:
        raise ValueError(f"the number of hash rounds must be at least 1, got {n_hashes}")
    return rng.standard_normal((int(n_hashes), int(dim), b // 2))


def lsh_buckets(x: ArrayLike, rotations: ArrayLike) -> IntArray:
    """Bucket of every vector in every round: h(x) = argmax([xR; -xR]).

    Args:
        x: (N, d) vectors (a single (d,) vector is treated as N = 1).
        rotations: (n, d, b/2) from :func:`random_rotations` (or (d, b/2) for one round).

    Returns:
        (n, N) int bucket ids in 0..b-1.
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    R = np.asarray(rotations, dtype=np.float64)
    if R.ndim == 2:
        R = R[None]
    if R.ndim != 3 or x.ndim != 2 or x.shape[1] != R.shape[1]:
        raise ValueError(
            f"x (N, d) and rotations (n, d, b/2) must agree on d, got {x.shape} and {R.shape}"
        )
    if not np.all(np.isfinite(x)):
        raise ValueError("the vectors must be finite numbers")
    rotated = np.einsum("nd,hdk->hnk", x, R)  # (n, N, b/2)
    # h(x) = argmax([xR; -xR])
    return np.argmax(np.concatenate([rotated, -rotated], axis=-1), axis=-1).astype(np.int64)


def collision_probability_two_buckets(theta: ArrayLike) -> Array:
    """Closed form for b = 2 (one random hyperplane): P[h(x) = h(y)] = 1 - theta / pi."""
    return 1.0 - np.asarray(theta, dtype=np.float64) / np.pi


def any_round_probability(p: ArrayLike, n_hashes: int) -> Array:
    """Probability of sharing a bucket in at least one of n independent rounds: 1 - (1-p)^n."""
    return 1.0 - (1.0 - np.asarray(p, dtype=np.float64)) ** int(n_hashes)


def estimate_collision_probability(
    theta: ArrayLike,
    n_buckets: int,
    rng: np.random.Generator,
    trials: int = 2000,
    dim: int = 2,
    n_hashes: int = 1,
) -> Array:
    """Monte Carlo estimate of P[x and y share a bucket in at least one of n rounds].

    x = e_1 and y = cos(theta) e_1 + sin(theta) e_2; the Gaussian R is rotation invariant,
    so the result depends only on theta, b (and d, n). The same ``trials`` draws of R are
    used for every theta (a smooth curve; each point is still an unbiased estimate).

    Args:
        theta: angles in [0, pi], any shape.
        n_buckets: b (even).
        rng: randomness.
        trials: number of independent draws of R.
        dim: d ≥ 2.
        n_hashes: n rounds.

    Returns:
        Estimates with the shape of ``theta``; standard error √(p(1-p)/trials).
    """
    b = _check_buckets(n_buckets)
    if int(dim) < 2:
        raise ValueError("two vectors at an angle need d ≥ 2")
    if int(trials) < 1:
        raise ValueError("trials must be at least 1")
    th = np.asarray(theta, dtype=np.float64)
    R = rng.standard_normal((int(trials), int(n_hashes), int(dim), b // 2))
    e1R, e2R = R[:, :, 0, :], R[:, :, 1, :]  # (trials, n, b/2): x R for x = e1, e2

    def bucket(r: Array) -> IntArray:
        return np.argmax(np.concatenate([r, -r], axis=-1), axis=-1)

    hx = bucket(e1R)  # (trials, n)
    out = np.empty(th.size)
    for i, t in enumerate(th.ravel()):
        hy = bucket(np.cos(t) * e1R + np.sin(t) * e2R)
        out[i] = np.mean(np.any(hx == hy, axis=1))
    return out.reshape(th.shape)


def sort_order(buckets: ArrayLike) -> IntArray:
    """Token order after sorting by (bucket, position) — one round, (N,) -> (N,) permutation."""
    h = np.asarray(buckets)
    return np.lexsort((np.arange(h.size), h)).astype(np.int64)


def chunked_lsh_mask(buckets: ArrayLike, chunk: int, look_back: bool = True) -> BoolArray:
    """Reformer's sort-and-chunk pattern, union over rounds, in the original token order.

    Args:
        buckets: (n, N) from :func:`lsh_buckets` (or (N,) for one round).
        chunk: m ≥ 1 tokens per chunk.
        look_back: each chunk also attends to the chunk before it (as in the paper).

    Returns:
        (N, N) bool; True = query i may attend key j in at least one round.
    """
    h = np.atleast_2d(np.asarray(buckets))
    if int(chunk) < 1:
        raise ValueError(f"the chunk size must be at least 1, got {chunk}")
    _, N = h.shape
    mask = np.zeros((N, N), dtype=bool)
    for row in h:
        order = sort_order(row)
        chunk_of = np.empty(N, dtype=np.int64)
        chunk_of[order] = np.arange(N) // int(chunk)  # chunk of each token in sorted order
        diff = chunk_of[:, None] - chunk_of[None, :]  # query chunk - key chunk
        mask |= (diff == 0) | ((diff == 1) & look_back)
    return mask


def kept_attention_mass(weights: ArrayLike, mask: ArrayLike) -> Array:
    """Per query: the share of its full attention mass that the allowed keys carry, (N,)."""
    w = np.asarray(weights, dtype=np.float64)
    return np.where(np.asarray(mask, dtype=bool), w, 0.0).sum(axis=-1)


def top_k_recall(scores: ArrayLike, mask: ArrayLike, k: int) -> Array:
    """Per query: the fraction of its true top-k keys (by score) that the mask keeps, (N,)."""
    s = np.asarray(scores, dtype=np.float64)
    k = max(1, min(int(k), s.shape[-1]))
    top = np.argsort(-s, axis=-1, kind="stable")[:, :k]  # (N, k)
    return np.take_along_axis(np.asarray(mask, dtype=bool), top, axis=-1).mean(axis=-1)




def shared_qk_attention(x: ArrayLike, beta: float) -> Array:
    """Full shared-QK attention weights softmax(beta x x^T) over keys, (N, N)."""
    s = float(beta) * np.asarray(x, dtype=np.float64) @ np.asarray(x, dtype=np.float64).T
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mass_kept_curve(
    x: ArrayLike, bucket_options: ArrayLike, max_rounds: int, chunk: int, beta: float,
    rng: np.random.Generator, repeats: int = 8,
) -> Array:  # fmt: skip
    """Mean kept attention mass for each b and n = 1..max_rounds, averaged over draws of R.

    Returns:
        (len(bucket_options), max_rounds).
    """
    x = np.asarray(x, dtype=np.float64)
    w = shared_qk_attention(x, beta)
    out = np.zeros((len(bucket_options), int(max_rounds)))
    for _ in range(int(repeats)):
        for i, b in enumerate(bucket_options):
            h = lsh_buckets(x, random_rotations(x.shape[1], int(b), rng, int(max_rounds)))
            for n in range(1, int(max_rounds) + 1):
                out[i, n - 1] += kept_attention_mass(w, chunked_lsh_mask(h[:n], chunk)).mean()
    return out / int(repeats)
