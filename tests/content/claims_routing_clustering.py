"""Numbers in the routing-by-clustering explanation, recomputed from ``core.routing``.

The toy sizes repeat the page's (pages/routing_clustering.py: N_TOKENS = 48; 512 keys and
64 queries in 16 dimensions around 12 centres, drawn from [seed, 1]; top-10; seed 0).
"""

from __future__ import annotations

import numpy as np

from core import routing as rt
from core import toydata
from tests.content.claims import Claim

N_TOKENS, N_KEYS, N_QUERIES, DIM, CENTRES, TOP_K, SEED = 48, 512, 64, 16, 12, 10, 0


def keys_and_queries() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng([SEED, 1])
    return toydata.mips_keys(N_KEYS, N_QUERIES, DIM, CENTRES, rng)


def pairs_with_one_cluster() -> str:
    return str(rt.routing_pairs(np.zeros(N_TOKENS, dtype=int)))


def mean_norm(search) -> str:  # noqa: ANN001 (a core search function)
    keys, q = keys_and_queries()
    return f"{np.linalg.norm(keys, axis=1)[search(q, keys, TOP_K)].mean():.2f}"


def top_k_answers_also_nearest() -> str:
    keys, q = keys_and_queries()
    found = rt.recall(rt.top_k_nearest(q, keys, TOP_K), rt.top_k_inner_product(q, keys, TOP_K))
    return f"{found.sum() * TOP_K:.0f}"


CLAIMS = [
    Claim("2304", pairs_with_one_cluster, why="k = 1: every pair, N² = 48²"),
    Claim(
        "0.82",
        lambda: mean_norm(rt.top_k_nearest),
        why="mean norm of the nearest keys (top-10 by distance)",
    ),
    Claim(
        "2.08",
        lambda: mean_norm(rt.top_k_inner_product),
        why="mean norm of the top-10 keys by inner product",
    ),
    Claim(
        "13",
        top_k_answers_also_nearest,
        why="top-10 answers by inner product that are also among the 10 nearest keys",
    ),
    Claim("640", lambda: str(N_QUERIES * TOP_K), why="top-10 answers of all 64 queries"),
]

NOT_CLAIMS = {
    "2021": "year of the paper",
    "512": "the number of keys, a chosen size",
    "64": "the number of queries, a chosen size",
    "16": "dimensions and flat clusters (4 × 4), chosen sizes",
    "10": "K of top-K, a chosen size",
    "0.9": "a recall target the student is asked about",
}
