"""core.contours (marching squares): property tests (Hypothesis), closed forms (a plane, a
circle) and an oracle, contourpy (matplotlib's contouring engine)."""

from __future__ import annotations

import math

import contourpy
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core.contours import level_lines

finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


@st.composite
def grids(draw):
    """(xs, ys, z, level): an uneven grid, values on it and a level among them."""
    a, b = draw(st.integers(2, 9)), draw(st.integers(2, 9))
    steps = st.floats(0.1, 2.0)
    xs = np.cumsum(draw(arrays(np.float64, a, elements=steps)))
    ys = np.cumsum(draw(arrays(np.float64, b, elements=steps)))
    z = draw(arrays(np.float64, (b, a), elements=finite))
    return xs, ys, z, draw(finite)


def canonical(lines: list[np.ndarray]) -> list[tuple[bool, list]]:
    """Lines compared without their start and direction: closed or not, and their points,
    both to 9 decimals (a level a rounding error away from a grid value puts a line's ends
    1e-16 apart: closed for one engine, open for the other; Hypothesis found one)."""
    out = []
    for line in lines:
        ends = np.round(line[[0, -1]], 9)
        closed = len(line) > 2 and bool(np.array_equal(ends[0], ends[1]))
        points = line[:-1] if closed else line  # a closed line's first point once
        out.append((closed, sorted(map(tuple, np.round(points, 9).tolist()))))
    return sorted(out)


@settings(max_examples=300)
@given(grids())
def test_matches_contourpy_line_for_line(case):
    """The same lines as contourpy's serial algorithm (no corner mask), saddles included."""
    xs, ys, z, level = case
    ours = level_lines(xs, ys, z, level)
    theirs = contourpy.contour_generator(
        xs, ys, z, name="serial", corner_mask=False, line_type="Separate"
    ).lines(level)
    assert canonical(ours) == canonical(list(theirs))


@given(grids())
def test_every_point_is_on_a_grid_edge_where_the_edge_crosses_the_level(case):
    xs, ys, z, level = case
    for line in level_lines(xs, ys, z, level):
        assert line.ndim == 2 and line.shape[1] == 2 and len(line) >= 2
        for x, y in line:
            on_row = np.isclose(ys, y, rtol=0, atol=1e-12)
            on_col = np.isclose(xs, x, rtol=0, atol=1e-12)
            assert on_row.any() or on_col.any()
            if on_row.any():  # along row i, between columns j and j + 1
                i = int(np.argmax(on_row))
                j = int(np.clip(np.searchsorted(xs, x) - 1, 0, len(xs) - 2))
                f = (x - xs[j]) / (xs[j + 1] - xs[j])
                value = z[i, j] + f * (z[i, j + 1] - z[i, j])
            else:
                j = int(np.argmax(on_col))
                i = int(np.clip(np.searchsorted(ys, y) - 1, 0, len(ys) - 2))
                f = (y - ys[i]) / (ys[i + 1] - ys[i])
                value = z[i, j] + f * (z[i + 1, j] - z[i, j])
            assert -1e-9 <= f <= 1 + 1e-9 and value == pytest.approx(level, abs=1e-9)


@given(grids())
def test_a_level_outside_the_values_has_no_line_and_flipping_z_keeps_the_lines(case):
    """−z crosses −level where z crosses level: the same lines (unless a value or a saddle
    cell's mean sits exactly on the level, where "above" breaks the tie one way)."""
    xs, ys, z, level = case
    assert level_lines(xs, ys, z, float(z.max()) + 1) == []
    assert level_lines(xs, ys, z, float(z.min()) - 1) == []
    means = (z[:-1, :-1] + z[:-1, 1:] + z[1:, 1:] + z[1:, :-1]) / 4
    assume(not np.any(z == level) and not np.any(means == level))
    assert canonical(level_lines(xs, ys, -z, -level)) == canonical(level_lines(xs, ys, z, level))


def test_a_plane_is_cut_along_its_exact_line():
    """z = x + 2y: linear interpolation is exact, so x + 2y = c at every point; one open line
    from border to border."""
    xs, ys = np.linspace(-2, 2, 11), np.linspace(-1, 1, 7)
    z = xs[None, :] + 2 * ys[:, None]
    (line,) = level_lines(xs, ys, z, 0.3)
    assert np.allclose(line[:, 0] + 2 * line[:, 1], 0.3)
    assert not np.array_equal(line[0], line[-1])
    ends = np.concatenate([line[0], line[-1]])
    assert np.isclose(np.abs(ends), [2, 1, 2, 1]).reshape(2, 2).any(axis=1).all()


def test_a_paraboloid_gives_one_closed_circle_of_the_right_area():
    """z = −(x² + y²): the level −r² is the circle of radius r; the traced polygon is closed,
    its points lie within the grid's interpolation error of the circle, and its area (shoelace)
    is πr² to 1 %."""
    xs = ys = np.linspace(-3, 3, 61)
    z = -(xs[None, :] ** 2 + ys[:, None] ** 2)
    r = 1.7
    (line,) = level_lines(xs, ys, z, -(r**2))
    assert np.array_equal(line[0], line[-1])
    radii = np.hypot(line[:, 0], line[:, 1])
    assert np.allclose(radii, r, atol=0.1**2)
    x, y = line[:, 0], line[:, 1]
    area = 0.5 * abs(np.dot(x[:-1], y[1:]) - np.dot(x[1:], y[:-1]))
    assert area == pytest.approx(math.pi * r**2, rel=0.01)


def near(lines: list[np.ndarray], corner: tuple[int, int]) -> bool:
    """Whether one of the lines has its middle within half a cell of the corner."""
    return any(np.allclose(np.mean(p, axis=0), corner, atol=0.5) for p in lines)


def test_separate_bumps_give_one_loop_each_and_a_saddle_is_cut_by_the_cells_mean():
    xs = ys = np.linspace(-3, 3, 61)
    bumps = [(-1.5, -1.5), (1.5, -1.0), (0.0, 1.8)]
    z = sum(np.exp(-((xs[None, :] - a) ** 2 + (ys[:, None] - b) ** 2) / 0.3) for a, b in bumps)
    loops = level_lines(xs, ys, z, 0.5)
    assert len(loops) == 3 and all(np.array_equal(p[0], p[-1]) for p in loops)
    # one saddle cell: corners 1 (bottom left), 0, 1 (top right), 0
    cell = np.array([[1.0, 0.0], [0.0, 1.0]])
    mean_above = level_lines([0, 1], [0, 1], cell, 0.4)  # mean 0.5 > 0.4: cut off the zeros
    mean_below = level_lines([0, 1], [0, 1], cell, 0.6)  # mean 0.5 < 0.6: cut off the ones
    assert len(mean_above) == len(mean_below) == 2
    assert near(mean_above, (1, 0)) and near(mean_above, (0, 1))
    assert near(mean_below, (0, 0)) and near(mean_below, (1, 1))


@pytest.mark.parametrize(
    "xs, ys, z",
    [
        ([0, 1], [0, 1, 2], np.zeros((2, 2))),  # ys has 3 values for 2 rows
        ([0, 0], [0, 1], np.zeros((2, 2))),  # not increasing
        ([0], [0], np.zeros((1, 1))),  # one point
        ([0, 1], [0, 1], np.array([[0.0, np.nan], [1.0, 2.0]])),
    ],
)
def test_refuses_a_bad_grid(xs, ys, z):
    with pytest.raises(ValueError):
        level_lines(xs, ys, z, 0.5)
