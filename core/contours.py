"""Level lines of a function sampled on a grid (marching squares), joined into polylines.

A chart that draws contours as lines of its own (scatter traces) rather than as a Plotly
contour trace can be moved in the browser from one t to the next, as its other traces are
(``ui.live``); Plotly would draw a contour trace again from its grid each time.

Each cell of the grid is cut where the level crosses its edges (linear interpolation along
each edge); a saddle cell (opposite corners above the level) is resolved by the mean of its
corners, as matplotlib's and scikit-image's marching squares do. Consecutive cuts are joined
into polylines: a closed one ends at its first point.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]

# The cut of a cell by its case (bit 0: bottom-left corner above the level, 1: bottom-right,
# 2: top-right, 3: top-left): a pair of edges (0 bottom, 1 right, 2 top, 3 left). A case and
# its complement (the corners above and below swapped) are cut alike. The saddles 5 and 10
# have two cuts each way: the first when the cell's mean is above the level.
_ONE_CUT = {1: (3, 0), 2: (0, 1), 3: (3, 1), 4: (1, 2), 6: (0, 2), 7: (3, 2)}
_CUTS: dict[int, tuple[int, int]] = _ONE_CUT | {15 - c: cut for c, cut in _ONE_CUT.items()}
_SADDLES: dict[int, tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]] = {
    5: (((0, 1), (2, 3)), ((3, 0), (1, 2))),  # mean above: cut off the two corners below
    10: (((3, 0), (1, 2)), ((0, 1), (2, 3))),
}


def level_lines(xs: Sequence[float], ys: Sequence[float], z: Array, level: float) -> list[Array]:
    """The polylines where ``z`` crosses ``level``.

    Args:
        xs: (a,) increasing x of the grid's columns.
        ys: (b,) increasing y of its rows.
        z: (b, a) finite values, ``z[i, j]`` at ``(xs[j], ys[i])``.
        level: the value whose level set is traced.

    Returns:
        Polylines as (k, 2) arrays of (x, y), each point on a grid edge; a closed line's last
        point is its first. A point of ``z`` equal to the level counts as below it.
    """
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    z = np.asarray(z, dtype=float)
    b, a = z.shape
    if x.shape != (a,) or y.shape != (b,):
        raise ValueError(f"z is {z.shape}: xs needs {a} values and ys {b}")
    if a < 2 or b < 2 or not np.all(np.diff(x) > 0) or not np.all(np.diff(y) > 0):
        raise ValueError("xs and ys need at least two increasing values each")
    if not np.all(np.isfinite(z)):
        raise ValueError("z has a value that is not finite")
    above = z > level
    points = _cuts(x, y, z, level)
    n_h = b * (a - 1)  # edge ids: horizontal (i, j) → i(a−1) + j; vertical → n_h + i·a + j
    i, j = np.meshgrid(np.arange(b - 1), np.arange(a - 1), indexing="ij")
    edges = np.stack(
        [i * (a - 1) + j, n_h + i * a + j + 1, (i + 1) * (a - 1) + j, n_h + i * a + j], axis=-1
    )
    case = (
        above[:-1, :-1] * 1 + above[:-1, 1:] * 2 + above[1:, 1:] * 4 + above[1:, :-1] * 8
    ).astype(int)
    pairs = [edges[case == c][:, list(cut)] for c, cut in _CUTS.items()]
    for c, (high, low) in _SADDLES.items():
        cells = case == c
        mean = (z[:-1, :-1] + z[:-1, 1:] + z[1:, 1:] + z[1:, :-1])[cells] / 4
        for cuts, chosen in ((high, mean > level), (low, mean <= level)):
            pairs += [edges[cells][chosen][:, list(cut)] for cut in cuts]
    links = np.concatenate([p.reshape(-1, 2) for p in pairs]) if pairs else np.zeros((0, 2))
    return [points[chain] for chain in _chains(links.astype(int))]


def _cuts(x: Array, y: Array, z: Array, level: float) -> Array:
    """Where the level would cross every edge, by linear interpolation (only an edge the
    level crosses is used): horizontal edges first, then vertical, in the ids
    :func:`level_lines` gives them."""
    with np.errstate(all="ignore"):  # an edge the level does not cross: any value, unused
        f_h = (level - z[:, :-1]) / (z[:, 1:] - z[:, :-1])  # (b, a−1)
        f_v = (level - z[:-1, :]) / (z[1:, :] - z[:-1, :])  # (b−1, a)
        h = np.stack(
            [x[:-1] + f_h * np.diff(x), np.broadcast_to(y[:, None], f_h.shape)], axis=-1
        ).reshape(-1, 2)
        v = np.stack(
            [np.broadcast_to(x[None, :], f_v.shape), y[:-1, None] + f_v * np.diff(y)[:, None]],
            axis=-1,
        ).reshape(-1, 2)
    return np.concatenate([h, v])


def _chains(links: NDArray[np.int_]) -> list[list[int]]:
    """The links (pairs of edge ids; each id in at most two) joined into chains of ids:
    open chains from an end, then closed ones, which end where they start."""
    neighbours: dict[int, list[int]] = {}
    for p, q in links.tolist():
        neighbours.setdefault(p, []).append(q)
        neighbours.setdefault(q, []).append(p)
    ends = [n for n, near in neighbours.items() if len(near) == 1]
    seen: set[int] = set()
    chains = []
    for start in ends + list(neighbours):
        if start in seen:
            continue
        chain, prev, node = [start], -1, start
        seen.add(start)
        while True:
            step = [n for n in neighbours[node] if n != prev]
            nxt = next((n for n in step if n not in seen), None)
            if nxt is None:
                if start in step and len(chain) > 2:
                    chain.append(start)  # back where it began: a closed line
                break
            chain.append(nxt)
            seen.add(nxt)
            prev, node = node, nxt
        chains.append(chain)
    return chains
