"""Numbers in the Reformer LSH explanation, recomputed from ``core.lsh``.

The toy sizes repeat the page's (pages/reformer_lsh.py: N_ATTN = 32 tokens in 8 dimensions
from 4 clusters of spread 0.4, β = 8, seed 0, the mass curve's R drawn from [seed, 3]).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from core import lsh, toydata
from tests.content.claims import Claim

BUCKETS = list(range(2, 17, 2))
N, D, CLUSTERS, SPREAD, BETA, SEED = 32, 8, 4, 0.4, 8.0, 0


@cache
def mass_curve(chunk: int) -> np.ndarray:
    """The page's curve: kept mass for b = 2..16 (rows) and n = 1..4 rounds (columns)."""
    x = toydata.unit_clusters(N, D, CLUSTERS, SPREAD, np.random.default_rng(SEED))
    return lsh.mass_kept_curve(x, BUCKETS, 4, chunk, BETA, np.random.default_rng([SEED, 3]))


def kept(b: int, chunk: int, rounds: int) -> str:
    return f"{mass_curve(chunk)[BUCKETS.index(b), rounds - 1]:.2f}"


def sector_sum_at_the_default_view() -> str:
    R = lsh.random_rotations(2, 4, np.random.default_rng([SEED, 4, 1]), 1)  # b = 4, n = 1
    return f"{np.degrees(lsh.sector_angles(R)).sum():.0f}"


def mean_sectors_for_sixteen_buckets() -> str:
    R = lsh.random_rotations(2, 16, np.random.default_rng(2020), 10_000)
    return f"{(lsh.sector_angles(R) > 0).sum(axis=1).mean():.1f}"


def least_kept_with_four_rounds_of_sixteen() -> str:
    low = mass_curve(16)[:, 3].min()
    floor = math.floor(low * 100) / 100
    assert low > floor  # the text says "more than"
    return f"{floor:.2f}"


CLAIMS = [
    Claim("360", sector_sum_at_the_default_view, why="the sector angles add up to a full turn"),
    Claim(
        "6.3",
        mean_sectors_for_sixteen_buckets,
        why="b = 16: buckets with a sector, mean over 10,000 draws of R",
    ),
    Claim(
        "16",
        lambda: str(2 * N // 4),
        why="the paper's m = 2N/b for N = 32, b = 4 "
        "(16 is also the largest b and the d of the high-dimensional view)",
    ),
    Claim("0.27", lambda: kept(2, 4, 1), why="kept mass, b = 2, m = 4, one round"),
    Claim("0.72", lambda: kept(4, 16, 1), why="kept mass, b = 4, m = 16, one round"),
    Claim("0.48", lambda: kept(14, 16, 1), why="kept mass, b = 14, m = 16, one round"),
    Claim(
        "0.94",
        least_kept_with_four_rounds_of_sixteen,
        why="m = 16, four rounds: the least kept mass over b",
    ),
]

NOT_CLAIMS = {
    "2020": "year of the paper",
    "32": "the number of toy tokens, a chosen size",
    "14": "a value of b the text reports the curve at",
    "4000": "Monte Carlo draws of R, a chosen size",
}
