"""Angular locality-sensitive hashing as in the Reformer (Kitaev et al. 2020, §2 "LSH attention").

    h(x) = argmax([x R ; -x R])          R: (d, b/2) random Gaussian, b buckets   (Eq. in §2)

A random rotation sends nearby vectors (small angle) to the same bucket with high
probability. The hash only depends on the *direction* of x: h(alpha x) = h(x) for alpha > 0,
and h(-x) = (h(x) + b/2) mod b because the concatenation [xR; -xR] swaps its two halves.
For b = 2 (one hyperplane) two vectors at angle theta collide with probability 1 - theta/pi
(Charikar 2002); with n independent hash rounds they share a bucket in at least one round
with probability 1 - (1 - p)^n.

In the plane (d = 2) the buckets are angular sectors, but not b equal ones: the bucket of a
direction u is the point p_k of the b points ±(columns of R) with the largest u·p_k, i.e. the
corner of their convex hull that u points to. A point inside the hull never wins (its bucket
is empty) and each sector's angle is the hull's exterior angle at its corner.

From buckets to attention (§2, Eqs. 3 and 5): sort the tokens by (bucket, position), cut the
sorted sequence into chunks of m tokens. Query i attends to key j only when both

    j ∈ P_i  = {j : h(k_j) = h(q_i)}                               (same bucket)
    j ∈ P̃_i = {j : ⌊s_i/m⌋ - 1 ≤ ⌊s_j/m⌋ ≤ ⌊s_i/m⌋}               (own or previous chunk)

where s_i is i's place in the sorted order. With shared queries and keys a token does not
attend to itself unless it has no other target (§2 "Causal masking for shared-QK attention").
Several rounds take the union of the allowed pairs (softmax over the union: the paper's
duplicate-count correction makes a pair found in two rounds count once).

Reference implementations: google/trax ``hash_vecs`` and ``LSHCausalAttention`` (bucket mask
unless ``attend_across_buckets``, self mask −1e5), lucidrains/reformer-pytorch. Both also let
the first chunk look back at the *last* one (a circular roll); the paper's P̃_i does not, and
with the bucket mask the two differ only when one bucket runs from the first chunk to the last.

Shape legend: N tokens, d vector size, b buckets, n (or H) hash rounds, m chunk size.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from core import validation
from core.arrays import Array, BoolArray, IntArray
from core.errors import CoreError
from core.softmax import masked_softmax


def bucket_count(n_buckets: object) -> int:
    """The number of buckets b as an int: even and ≥ 2 (h picks one of b/2 columns or −columns)."""
    b = validation.integer(n_buckets, "b")
    if b < 2 or b % 2:
        raise CoreError(
            "lsh_even_buckets",
            "the number of buckets b must be an even number ≥ 2, got {value}",
            value=b,
        )
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
    b = bucket_count(n_buckets)
    d = validation.positive_int(dim, "d")
    n = validation.positive_int(n_hashes, "n")
    return rng.standard_normal((n, d, b // 2))


def lsh_buckets(x: ArrayLike, rotations: ArrayLike) -> IntArray:
    """Bucket of every vector in every round: h(x) = argmax([xR; -xR]).

    Args:
        x: (N, d) vectors (a single (d,) vector is treated as N = 1).
        rotations: (n, d, b/2) from :func:`random_rotations` (or (d, b/2) for one round).

    Returns:
        (n, N) int bucket ids in 0..b-1.
    """
    x = np.atleast_2d(validation.finite_array(x, "x"))
    R = validation.finite_array(rotations, "R")
    if R.ndim == 2:
        R = R[None]
    if R.ndim != 3 or x.ndim != 2 or x.shape[1] != R.shape[1]:
        raise CoreError(
            "lsh_shapes",
            "x (N, d) and R (n, d, b/2) must agree on d, got {x} and {R}",
            x=x.shape,
            R=R.shape,
        )
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
    b = bucket_count(n_buckets)
    d = validation.integer(dim, "d", 2)
    T = validation.positive_int(trials, "trials")
    n = validation.positive_int(n_hashes, "n")
    th = validation.finite_array(theta, "θ")
    R = rng.standard_normal((T, n, d, b // 2))
    e1R, e2R = R[:, :, 0, :], R[:, :, 1, :]  # (trials, n, b/2): x R for x = e1, e2

    def bucket(r: Array) -> IntArray:
        return np.argmax(np.concatenate([r, -r], axis=-1), axis=-1)

    hx = bucket(e1R)  # (trials, n)
    out = np.empty(th.size)
    for i, t in enumerate(th.ravel()):
        hy = bucket(np.cos(t) * e1R + np.sin(t) * e2R)
        out[i] = np.mean(np.any(hx == hy, axis=1))
    return out.reshape(th.shape)


def binomial_se(p: ArrayLike, trials: int) -> Array:
    """Standard error √(p(1 − p)/trials) of a share of ``trials`` independent draws."""
    p = np.asarray(p, dtype=np.float64)
    return np.sqrt(p * (1.0 - p) / validation.positive_int(trials, "trials"))


def binomial_z(p_hat: ArrayLike, p: ArrayLike, trials: int) -> Array:
    """|p̂ − p| in standard errors √(p(1 − p)/trials) of a share of ``trials`` draws.

    Where p is 0 or 1 the estimate has no spread: z = 0 if p̂ = p, else infinity. Under the
    null (p̂ a binomial share with success probability p) P(z > 4.5) ≈ 7·10⁻⁶ per angle
    (normal approximation; tests/core/test_lsh.py counts the badge's false alarms).
    """
    p_hat, p = np.asarray(p_hat, dtype=np.float64), np.asarray(p, dtype=np.float64)
    se, gap = binomial_se(p, trials), np.abs(p_hat - p)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, gap / np.where(se > 0, se, 1.0), np.where(gap > 0, np.inf, 0.0))


def rounds_z(p_one: ArrayLike, p_rounds: ArrayLike, n_hashes: int, trials: int) -> Array:
    """|p̂ₙ − (1 − (1 − p̂)ⁿ)| over the error of both estimates, each from ``trials`` draws.

    The formula uses the one-round estimate p̂, whose error moves 1 − (1 − p̂)ⁿ by at most
    n times its own (the derivative n(1 − p)ⁿ⁻¹ ≤ n), so the scale is SE(p̂ₙ) + n·SE(p̂).
    """
    p1, pn = np.asarray(p_one, dtype=np.float64), np.asarray(p_rounds, dtype=np.float64)
    n, T = validation.positive_int(n_hashes, "n"), validation.positive_int(trials, "trials")
    target = any_round_probability(p1, n)
    se = binomial_se(target, T) + n * binomial_se(p1, T)
    return np.abs(pn - target) / np.maximum(se, 1e-9)


def circle_buckets(rotations: ArrayLike, n_points: int = 120) -> tuple[Array, IntArray]:
    """Buckets of ``n_points`` unit directions around the circle (d = 2, the first round).

    Returns:
        ``(angles, buckets)``: (K,) angles in [−π, π) and their (K,) bucket ids.
    """
    K = validation.positive_int(n_points, "K")
    angles = np.linspace(-np.pi, np.pi, K + 1)[:-1]
    R = validation.finite_array(rotations, "R")
    R = R[None] if R.ndim == 2 else R
    return angles, lsh_buckets(np.c_[np.cos(angles), np.sin(angles)], R[:1])[0]


def sector_angles(rotations: ArrayLike) -> Array:
    """In the plane (d = 2): the angle of the sector of directions each bucket receives.

    The bucket of a unit direction u is argmax_k u·p_k over the b points p = [R, −R]
    (columns). Its sector ends where two points tie, u ⟂ p_k − p_l, so between consecutive
    tie angles the bucket is constant: evaluate it at the middle and add up the arc.

    Args:
        rotations: (n, 2, b/2) or (2, b/2).

    Returns:
        (n, b) angles in radians; each row sums to 2π, a 0 is an empty bucket, and bucket
        k + b/2 gets the same angle as k (the sector of −p is the mirror of the sector of p).
    """
    R = validation.finite_array(rotations, "R")
    R = R[None] if R.ndim == 2 else R
    if R.ndim != 3 or R.shape[1] != 2:
        raise CoreError(
            "lsh_sectors_2d",
            "sectors exist in the plane only: R must be (n, 2, b/2), got shape {shape}",
            shape=R.shape,
        )
    out = np.zeros((R.shape[0], 2 * R.shape[2]))
    for r, rot in enumerate(R):
        p = np.concatenate([rot, -rot], axis=1).T  # (b, 2) the points p_k
        diff = (p[:, None, :] - p[None, :, :]).reshape(-1, 2)  # (b², 2) p_k - p_l
        diff = diff[np.any(diff != 0, axis=1)]
        normal = np.arctan2(diff[:, 1], diff[:, 0])
        ties = np.mod(np.concatenate([normal + np.pi / 2, normal - np.pi / 2]), 2 * np.pi)
        edges = np.unique(np.concatenate([ties, [0.0]]))
        edges = np.append(edges, edges[0] + 2 * np.pi)  # close the circle
        mid = (edges[:-1] + edges[1:]) / 2
        winner = np.argmax(np.c_[np.cos(mid), np.sin(mid)] @ p.T, axis=1)
        np.add.at(out[r], winner, np.diff(edges))
    return out


def principal_plane(x: ArrayLike) -> Array:
    """(N, 2) coordinates of x on its two leading principal directions, scaled to |·| ≤ 1.

    Centre x, take the right singular vectors of the two largest singular values (the
    eigenvectors of the covariance with the largest eigenvalues) and project; a picture of
    d-dimensional tokens in the plane. Each axis' sign is that of the SVD (arbitrary).
    """
    x = validation.finite_array(x, "x", ndim=2)
    _, _, vt = np.linalg.svd(x - x.mean(axis=0), full_matrices=False)  # vt: (min(N, d), d)
    points = x @ vt[:2].T  # (N, ≤ 2)
    if points.shape[1] < 2:
        points = np.c_[points, np.zeros((len(points), 2 - points.shape[1]))]
    return points / (np.abs(points).max() or 1.0)


def sort_order(buckets: ArrayLike) -> IntArray:
    """Token order after sorting by (bucket, position) — one round, (N,) -> (N,) permutation."""
    h = np.asarray(buckets)
    return np.lexsort((np.arange(h.size), h)).astype(np.int64)


def shares_a_bucket(buckets: ArrayLike) -> BoolArray:
    """(N, N): True where tokens i and j land in the same bucket in at least one round."""
    h = np.atleast_2d(np.asarray(buckets))
    return np.any(h[:, :, None] == h[:, None, :], axis=0)


def exclude_self(mask: ArrayLike) -> BoolArray:
    """Shared-QK rule: drop i → i from every row that allows another key (N, N) -> (N, N).

    q_i·k_i = |q_i|² is almost always the largest score when keys are queries, so a token
    may attend to itself only when nothing else is allowed (the first token of a sequence).
    """
    m = np.asarray(mask, dtype=bool)
    eye = np.eye(m.shape[0], m.shape[1], dtype=bool)
    others = m & ~eye
    return others | (eye & m & ~others.any(axis=1, keepdims=True))


def chunked_lsh_mask(buckets: ArrayLike, chunk: int, look_back: bool = True) -> BoolArray:
    """Reformer's LSH attention pattern, union over rounds, in the original token order.

    Per round: sort by (bucket, position), cut into chunks of m; query i may attend key j
    when they share a bucket and j's chunk is i's or (``look_back``) the one before — the
    sets P_i ∩ P̃_i of §2. Then the shared-QK rule: i → i only when i has no other key.

    Args:
        buckets: (n, N) from :func:`lsh_buckets` (or (N,) for one round).
        chunk: m ≥ 1 tokens per chunk.
        look_back: each chunk also attends to the chunk before it (as in the paper).

    Returns:
        (N, N) bool; True = query i may attend key j in at least one round.
    """
    h = np.atleast_2d(np.asarray(buckets))
    m = validation.positive_int(chunk, "m")
    _, N = h.shape
    mask = np.zeros((N, N), dtype=bool)
    for row in h:
        chunk_of = np.empty(N, dtype=np.int64)
        chunk_of[sort_order(row)] = np.arange(N) // m  # ⌊s_i / m⌋ for every token i
        diff = chunk_of[:, None] - chunk_of[None, :]  # query chunk - key chunk
        same_bucket = row[:, None] == row[None, :]  # j ∈ P_i
        mask |= same_bucket & ((diff == 0) | ((diff == 1) & look_back))  # j ∈ P̃_i
    return exclude_self(mask)


def kept_attention_mass(weights: ArrayLike, mask: ArrayLike) -> Array:
    """Per query: the share of its full attention mass that the allowed keys carry, (N,)."""
    w = np.asarray(weights, dtype=np.float64)
    return np.where(np.asarray(mask, dtype=bool), w, 0.0).sum(axis=-1)


def top_k_recall(
    scores: ArrayLike, mask: ArrayLike, k: int, allowed: ArrayLike | None = None
) -> Array:
    """Per query: the fraction of its true top-k keys (by score) that the mask keeps, (N,).

    ``allowed``: the keys full attention may use (default all); the true top-k are the k
    best of those, e.g. every key but the query itself for shared-QK attention.
    """
    return recall_of_top(top_k_keys(scores, k, allowed), mask)


def top_k_keys(scores: ArrayLike, k: int, allowed: ArrayLike | None = None) -> IntArray:
    """Per query: its k best keys by score among ``allowed`` (ties: the lower index), (N, k)."""
    s = np.asarray(scores, dtype=np.float64)
    if allowed is not None:
        s = np.where(np.asarray(allowed, dtype=bool), s, -np.inf)
    k = max(1, min(int(k), s.shape[-1]))
    return np.argsort(-s, axis=-1, kind="stable")[:, :k]


def recall_of_top(top: ArrayLike, mask: ArrayLike) -> Array:
    """Per query: the fraction of its keys ``top`` (N, k) that the mask keeps, (N,)."""
    return np.take_along_axis(np.asarray(mask, dtype=bool), np.asarray(top), axis=-1).mean(axis=-1)


def shared_qk_mask(n_tokens: int) -> BoolArray:
    """Full shared-QK attention: every key but the query itself (itself only when N = 1)."""
    N = validation.positive_int(n_tokens, "N")
    return exclude_self(np.ones((N, N), dtype=bool))


def shared_qk_attention(x: ArrayLike, beta: float, mask: ArrayLike | None = None) -> Array:
    """Shared-QK attention weights softmax(β x_i·x_j) over the allowed keys, (N, N).

    ``mask`` None: full shared-QK attention (:func:`shared_qk_mask`); an LSH mask gives the
    Reformer's weights, renormalised over the keys it keeps.
    """
    x = validation.finite_array(x, "x", ndim=2)
    allowed = shared_qk_mask(len(x)) if mask is None else mask
    return masked_softmax(float(beta) * x @ x.T, allowed)


def mass_kept_curve(
    x: ArrayLike,
    bucket_options: ArrayLike,
    max_rounds: int,
    chunk: int,
    beta: float,
    rng: np.random.Generator,
    repeats: int = 8,
) -> Array:
    """Mean kept attention mass for each b and n = 1..max_rounds, averaged over draws of R.

    Returns:
        (len(bucket_options), max_rounds).
    """
    x = validation.finite_array(x, "x", ndim=2)
    w = shared_qk_attention(x, beta)
    out = np.zeros((len(bucket_options), int(max_rounds)))
    for _ in range(int(repeats)):
        for i, b in enumerate(bucket_options):
            h = lsh_buckets(x, random_rotations(x.shape[1], int(b), rng, int(max_rounds)))
            for n in range(1, int(max_rounds) + 1):
                out[i, n - 1] += kept_attention_mass(w, chunked_lsh_mask(h[:n], chunk)).mean()
    return out / int(repeats)
