"""figures.windows: trace types, counts, data, and full Plotly validation of every builder."""

from __future__ import annotations

import re
from urllib.parse import unquote

import numpy as np
import pytest

from core import windows as win
from figures import windows as figs
from tests.figures.validation import assert_valid_plotly

REGIONS = win.shifted_window_regions(8, 8, 4, 2)
MASKS = win.shifted_window_mask(8, 8, 4, 2)
INDEX = win.relative_position_index(3)
TABLE = -np.abs(np.arange(25.0).reshape(5, 5) - 12)
SIDES = np.arange(7, 225, 7)

BUILDERS = {
    "regions_figure": lambda: figs.regions_figure(REGIONS, 4, 2, titles=("a", "b")),
    "regions_figure_large": lambda: figs.regions_figure(
        win.shifted_window_regions(32, 32, 8, 4), 8, 4, titles=("a", "b")
    ),
    "window_mask_figure": lambda: figs.window_mask_figure(
        win.window_partition(REGIONS[:, :, None], 4)[3, :, :, 0], MASKS[3], titles=("a", "b")
    ),
    "bias_figure": lambda: figs.bias_figure(INDEX, TABLE, 4, titles=("a", "b", "c")),
    "stage_figure": lambda: figs.stage_figure(
        win.stage_shapes(224), title="t", y_title="y", names=("n", "c")
    ),
    "complexity_figure": lambda: figs.complexity_figure(
        SIDES,
        np.array([win.msa_flops(s, s, 96) for s in SIDES], float),
        np.array([win.window_msa_flops(s, s, 96, 7) for s in SIDES], float),
        56,
        (2_003_828_736, 145_108_992),
        title="t",
        x_title="x",
        y_title="y",
    ),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_windows_figures_pass_full_validation(name):
    assert_valid_plotly(BUILDERS[name]())


def test_regions_figure_shows_the_ids_before_and_after_the_roll():
    fig = BUILDERS["regions_figure"]()
    assert [tr.type for tr in fig.data] == ["heatmap", "heatmap"]
    assert np.array_equal(np.asarray(fig.data[1].z), REGIONS)
    assert np.array_equal(np.asarray(fig.data[0].z), np.roll(REGIONS, (2, 2), axis=(0, 1)))
    # shifted borders at 2 and 6 (left), regular border at 4 (right); rows and columns
    cuts = sorted({(sh.xref, sh.x0) for sh in fig.layout.shapes if sh.x0 == sh.x1})
    assert cuts == [("x", 1.5), ("x", 5.5), ("x2", 3.5)] and len(fig.layout.shapes) == 6
    labels = [a.text for a in fig.layout.annotations if a.xref == "x2"]
    assert labels == ["k=0", "k=1", "k=2", "k=3"]
    # each panel's ids written in its cells by a picture over exactly those cells
    panels = zip(fig.layout.images, (fig.data[0].z, fig.data[1].z), ("", "2"), strict=True)
    for image, z, axes in panels:
        assert (image.xref, image.yref) == (f"x{axes}", f"y{axes}")
        assert (image.x, image.y, image.sizex, image.sizey) == (-0.5, -0.5, 8, 8)
        assert (image.xanchor, image.yanchor, image.sizing) == ("left", "top", "stretch")
        assert np.array_equal(ids_written(image.source), np.asarray(z))
    assert all(tr.texttemplate is None for tr in fig.data)  # not also as cell text


def ids_written(source: str) -> np.ndarray:
    """The ids a picture of figures.windows.ids_image writes, by cell (nothing else drawn)."""
    head = "data:image/svg+xml,"
    assert source.startswith(head)
    svg = unquote(source[len(head) :])
    box = re.search(r"viewBox='-0\.5 -0\.5 (\d+) (\d+)'", svg)
    assert box is not None
    W, H = int(box.group(1)), int(box.group(2))
    body = re.fullmatch(r"<svg [^>]*>(.*)</svg>", svg).group(1)
    cells = re.findall(r"<text x='(\d+)' y='(\d+)'>(\d+)</text>", body)
    assert "".join(f"<text x='{x}' y='{y}'>{v}</text>" for x, y, v in cells) == body
    out = np.full((H, W), -1)
    for x, y, v in cells:
        out[int(y), int(x)] = int(v)
    assert (out >= 0).all()  # every cell written once
    assert len(cells) == H * W
    return out


def test_large_region_maps_have_no_written_ids():
    regions = win.shifted_window_regions(24, 24, 4, 2)
    fig = figs.regions_figure(regions, 4, 2, titles=("a", "b"))
    assert not fig.layout.images and all(tr.texttemplate is None for tr in fig.data)


def test_window_mask_figure_shows_one_windows_ids_and_mask():
    fig = BUILDERS["window_mask_figure"]()
    ids, mask = np.asarray(fig.data[0].z), np.asarray(fig.data[1].z)
    assert ids.shape == (4, 4) and set(ids.ravel()) == {4, 5, 7, 8}
    assert np.array_equal(mask, MASKS[3].astype(int))
    flat = ids.ravel()
    assert np.array_equal(mask, (flat[:, None] == flat[None, :]).astype(int))


def test_window_mask_layout_does_not_depend_on_the_window():
    parts = win.window_partition(REGIONS[:, :, None], 4)[:, :, :, 0]
    a = figs.window_mask_figure(parts[0], MASKS[0], titles=("a", "b"))
    b = figs.window_mask_figure(parts[3], MASKS[3], titles=("a", "b"))
    assert a.layout == b.layout


def test_bias_figure_row_reads_the_table():
    fig = BUILDERS["bias_figure"]()
    row = np.asarray(fig.data[2].z)
    assert row.shape == (3, 3)
    assert np.allclose(row.ravel(), TABLE.ravel()[INDEX[4]])
    assert row[1, 1] == TABLE[2, 2]  # query 4 is the centre: key 4 reads the table's centre


def test_complexity_figure_data():
    fig = BUILDERS["complexity_figure"]()
    assert len(fig.data) == 3 and fig.layout.xaxis.type == "log"
    assert list(fig.data[2].y) == [2_003_828_736, 145_108_992]
