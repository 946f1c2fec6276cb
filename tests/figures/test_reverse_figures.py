"""figures.reverse: trace types and counts, frame contents, data on the figure object, and
full Plotly validation of every builder's output."""

from __future__ import annotations

import numpy as np
import pytest

from figures import reverse as figs
from tests.figures.validation import assert_valid_plotly, dots_of, paths_of

rng = np.random.default_rng(0)
F, N, M, K = 5, 30, 3, 12


def panel(source: str) -> figs.ScrubPanel:
    clouds, paths, heads = (
        rng.standard_normal(shape) for shape in ((F, N, 2), (M, K, 2), (F, M, 2))
    )
    return figs.ScrubPanel(source, source, clouds, paths, heads)


@pytest.mark.parametrize("sources", [("exact", "learned"), ("learned",)])
def test_scrub_figure_has_four_traces_a_panel_and_one_frame_a_step(sources):
    panels = [panel(s) for s in sources]
    data = rng.standard_normal((40, 2))
    steps = [1000, 700, 300, 50, 0]
    fig = figs.scrub_figure(panels, data, steps, 2, names=("data", "particles", "paths"))
    assert_valid_plotly(fig)
    assert len(fig.data) == 4 * len(panels)
    assert [f.name for f in fig.frames] == [str(t) for t in steps]
    moving = [i for p in range(len(panels)) for i in (4 * p + 2, 4 * p + 3)]
    assert all(list(f.traces) == moving for f in fig.frames)
    for p, pan in enumerate(panels):
        particles = fig.data[4 * p + 2]
        assert np.allclose(particles.x, np.round(pan.clouds[2, :, 0], 2))
        frame = fig.frames[4].data[2 * p]
        assert np.allclose(frame.y, np.round(pan.clouds[4, :, 1], 2))
        lines = fig.data[4 * p + 1]
        assert sum(v is None for v in lines.x) == M  # one break after each trajectory
        # the data: a legend entry (one gap) and the dots, a layout image under the panel
        # stretched over its square [−3, 3]²
        legend = fig.data[4 * p]
        assert list(legend.x) == [None] and legend.legendgroup == "data"
        assert legend.showlegend == (p == 0)
        image = fig.layout.images[p]
        axes = ("x", "y") if p == 0 else (f"x{p + 1}", f"y{p + 1}")
        assert (image.xref, image.yref, image.layer, image.sizing) == (*axes, "below", "stretch")
        assert (image.x, image.y, image.sizex, image.sizey) == (-3, 3, 6, 6)
        assert (image.xanchor, image.yanchor, image.name) == ("left", "top", "data")
        dots, svg = dots_of(image.source)
        assert np.array_equal(dots, np.round(data, 2))  # every point, in order, y up
        assert "viewBox='-300 -300 600 600'" in svg and "preserveAspectRatio='none'" in svg
        # 4 px on the plot area's 270 px of 6 units, in hundredths
        assert "stroke-width='8.89'" in svg and "stroke-linecap='round'" in svg
        assert " " not in image.source and "<" not in image.source  # a URI as it is sent
    assert len(fig.layout.images) == len(panels)
    steps_shown = [s.label for s in fig.layout.sliders[0].steps]
    assert steps_shown == [str(t) for t in steps] and fig.layout.sliders[0].active == 2


def test_a_waiting_panel_has_gaps_where_a_trained_one_has_points_and_shows_the_note():
    """Trained or waiting, the figure has the same traces (a kept chart moves between them):
    the waiting panel's particles, heads and paths are one gap each, its note is shown, and
    the trained panel's note is a gap."""
    trained = panel("exact")
    waiting = figs.ScrubPanel.waiting("learned", "learned", F)
    data, steps = rng.standard_normal((40, 2)), [1000, 700, 300, 50, 0]
    names = ("data", "particles", "paths")
    fig = figs.scrub_figure([trained, waiting], data, steps, 2, names=names, note="train it")
    both = figs.scrub_figure([trained, panel("learned")], data, steps, 2, names=names, note="x")
    assert_valid_plotly(fig)
    assert len(fig.data) == len(both.data) == 10
    assert [t.type for t in fig.data] == [t.type for t in both.data]
    for i in (5, 6, 7):  # the waiting panel's paths, particles and heads
        assert list(fig.data[i].x) == list(fig.data[i].y) == [None]
        assert None not in both.data[i].y[:2]
    assert np.array_equal(dots_of(fig.layout.images[1].source)[0], np.round(data, 2))  # it stays
    note_trained, note_waiting = fig.data[8], fig.data[9]
    assert note_waiting.mode == "text" and list(note_waiting.text) == ["train it"]
    assert note_waiting.x[0] == 0 and note_waiting.xaxis == "x2"
    assert list(note_trained.x) == [None] and list(both.data[9].x) == [None]
    assert all(list(f.data[2].x) == [None] and list(f.data[3].x) == [None] for f in fig.frames)
    assert np.allclose(fig.frames[4].data[0].x, np.round(trained.clouds[4, :, 0], 2))
    plain = figs.scrub_figure([trained, waiting], data, steps, 2, names=names)
    assert len(plain.data) == 8  # no note, no note traces


def test_scrub_figure_refuses_panels_with_other_frame_counts():
    bad = figs.ScrubPanel(
        "x", "exact", np.zeros((F + 1, N, 2)), np.zeros((M, K, 2)), np.zeros((F, M, 2))
    )
    with pytest.raises(ValueError, match="frame"):
        figs.scrub_figure([bad], np.zeros((3, 2)), list(range(F)), 0, names=("a", "b", "c"))


@pytest.mark.parametrize("with_density", [True, False])
def test_field_figure_draws_one_arrow_per_grid_point(with_density):
    G = 9
    starts = rng.standard_normal((G, 2))
    arrows = 0.1 * rng.standard_normal((G, 2))
    panels = [
        figs.FieldPanel("exact", "exact", starts, arrows),
        figs.FieldPanel("learned", "learned", starts, -arrows),
    ]
    axis = np.linspace(-3, 3, 7)
    density = (axis, axis, -np.add.outer(axis**2, axis**2)) if with_density else None
    fig = figs.field_figure(
        panels, rng.standard_normal((20, 2)), density, names=("q(x_t)", "−ε̂", "log q")
    )
    assert_valid_plotly(fig)
    per_panel = 3 + len(figs.CONTOUR_DROPS) if with_density else 3
    assert len(fig.data) == 2 * per_panel
    for p, panel in enumerate(panels):
        shafts, heads = fig.data[p * per_panel + 1], fig.data[p * per_panel + 2]
        assert shafts.mode == "lines" and heads.fill == "toself"
        assert shafts.legendgroup == heads.legendgroup and not heads.showlegend
        ends = panel.starts + panel.arrows
        xy = np.array([[x, y] for x, y in zip(shafts.x, shafts.y, strict=True) if x is not None])
        assert np.allclose(xy.reshape(G, 2, 2), np.stack([panel.starts, ends], axis=1), atol=1e-3)
        tri = np.array([[x, y] for x, y in zip(heads.x, heads.y, strict=True) if x is not None])
        tri = tri.reshape(G, 3, 2)
        assert np.allclose(tri[:, 0], ends, atol=1e-3)  # the tip is the arrow's end
        base = tri[:, 1:].mean(axis=1)  # the base's middle lies back along the arrow
        back = ends - base
        cross = back[:, 0] * panel.arrows[:, 1] - back[:, 1] * panel.arrows[:, 0]
        assert np.allclose(cross, 0, atol=1e-3) and np.all(np.sum(back * panel.arrows, 1) > 0)
        length = np.linalg.norm(back, axis=1)
        assert np.all(length <= 0.5 * np.linalg.norm(panel.arrows, axis=1) + 1e-3)
    if with_density:  # one line trace a level, the same in both panels, on the level
        lines = fig.data[3:per_panel]
        assert [t.type for t in lines] == ["scatter"] * len(figs.CONTOUR_DROPS)
        assert [t.line.color for t in lines] == list(figs.CONTOUR_COLOURS)
        assert [t.x for t in lines] == [t.x for t in fig.data[per_panel + 3 :]]
        top = float(density[2].max())
        for drop, trace in zip(figs.CONTOUR_DROPS, lines, strict=True):
            xy = np.array([p for p in zip(trace.x, trace.y, strict=True) if p[0] is not None])
            if len(xy):  # −x² − y² = top − drop, to the grid's interpolation error
                assert np.allclose(-(xy**2).sum(axis=1), top - drop, atol=0.35)
            else:
                assert list(trace.x) == [None]
        assert sum(t.showlegend is not False for t in fig.data if t.legendgroup == "contours") == 1


def test_a_waiting_field_panel_has_gaps_and_the_note_and_the_same_traces_as_a_trained_one():
    G = 9
    starts = rng.standard_normal((G, 2))
    axis = np.linspace(-3, 3, 7)
    density = (axis, axis, -np.add.outer(axis**2, axis**2))
    exact = figs.FieldPanel("exact", "exact", starts, 0.1 * starts)
    names = ("q(x_t)", "−ε̂", "log q")
    noisy = rng.standard_normal((20, 2))
    waiting = figs.field_figure(
        [exact, figs.FieldPanel.waiting("learned", "learned")],
        noisy,
        density,
        names=names,
        note="train it",
    )
    trained = figs.field_figure(
        [exact, figs.FieldPanel("learned", "learned", starts, -0.1 * starts)],
        noisy,
        density,
        names=names,
        note="train it",
    )
    assert_valid_plotly(waiting)
    per_panel = 3 + len(figs.CONTOUR_DROPS)
    assert len(waiting.data) == len(trained.data) == 2 * per_panel + 2
    second = waiting.data[per_panel : 2 * per_panel]
    assert list(second[1].x) == list(second[2].y) == [None]  # no shafts, no heads
    assert second[3].x == waiting.data[3].x  # its contours stay
    assert list(waiting.data[-1].text) == ["train it"] and waiting.data[-1].x[0] == 0
    assert list(waiting.data[-2].x) == list(trained.data[-1].x) == [None]


def test_an_arrow_of_length_zero_gets_a_head_of_size_zero():
    starts = np.array([[0.0, 0.0], [1.0, 1.0]])
    heads = figs._arrow_heads(starts, starts + [[0.0, 0.0], [2.0, 0.0]], 0.1)
    assert np.allclose(heads[0], 0.0)
    assert np.allclose(heads[1], [[3.0, 1.0], [2.9, 1.045], [2.9, 0.955]])


def test_quality_figure_is_log_log_with_a_floor_line():
    curves = [
        ("ddim", "exact", np.array([1, 10, 100]), np.array([0.5, 0.1, 0.03])),
        ("ddim (learned)", "learned", np.array([1, 10, 100]), np.array([0.6, 0.2, 0.05])),
        ("heun", "exact", np.array([1, 19, 199]), np.array([0.4, 0.05, 0.03])),
    ]
    fig = figs.quality_figure(
        curves, 0.025, title="", x_title="calls", y_title="SW", floor_name="floor"
    )
    assert_valid_plotly(fig)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert fig.layout.shapes[0].y0 == 0.025
    assert [d.line.dash for d in fig.data] == ["solid", "dash", "solid"]
    assert fig.data[0].line.color == fig.data[1].line.color != fig.data[2].line.color


def test_loss_figure_smooths_and_thins_long_runs():
    losses = np.abs(rng.standard_normal(2000))
    fig = figs.loss_figure(
        losses, 2000, title="", x_title="step", y_title="loss", names=("batch", "mean")
    )
    assert_valid_plotly(fig)
    assert len(fig.data[0].x) <= 400 and fig.layout.xaxis.range == (0, 2000)
    assert np.allclose(figs.smooth(np.ones(10), 3), 1.0)
    assert np.allclose(figs.smooth(np.arange(1.0, 5.0), 2), [1.0, 1.5, 2.5, 3.5])


@pytest.mark.parametrize("waiting", [False, True])
def test_the_field_as_pictures_draws_what_its_traces_draw(waiting):
    """``pictures=True``: the samples, each panel's arrows and the contours are layout images
    named after their legend groups, drawing the traces' points (to the pictures' hundredth
    of a unit); the traces are one gap each, a legend group and panel, and the notes."""
    G = 9
    starts = rng.standard_normal((G, 2))
    axis = np.linspace(-3, 3, 25)
    density = (axis, axis, -np.add.outer(axis**2, axis**2))
    learned = (
        figs.FieldPanel.waiting("learned", "learned")
        if waiting
        else figs.FieldPanel("learned", "learned", starts, -0.1 * starts)
    )
    panels = [figs.FieldPanel("exact", "exact", starts, 0.1 * starts), learned]
    noisy = rng.uniform(-2.9, 2.9, (20, 2))
    kw = {"names": ("q(x_t)", "−ε̂", "log q"), "note": "train it"}
    traced = figs.field_figure(panels, noisy, density, **kw)
    drawn = figs.field_figure(panels, noisy, density, pictures=True, **kw)
    assert_valid_plotly(drawn)
    per_panel = 3 + len(figs.CONTOUR_DROPS)
    assert len(drawn.data) == 2 * 3 + 2  # samples, shafts, one contour trace a panel; notes
    for t in drawn.data[:6]:
        assert list(t.x) == list(t.y) == [None] and t.hoverinfo == "skip"
    assert [t.text for t in drawn.data[6:]] == [t.text for t in traced.data[-2:]]
    legend = [(t.name, t.legendgroup) for t in drawn.data if t.showlegend is not False]
    assert legend == [
        (t.name, t.legendgroup) for t in traced.data if t.showlegend is not False and t.name
    ]
    images = drawn.layout.images
    names = ["noisy", "arrows0", "contours", "noisy", "arrows1", "contours"]
    assert [i.name for i in images] == names
    for p, panel in enumerate(panels):
        dots, arrows, lines = images[3 * p : 3 * p + 3]
        sfx = str(p + 1) if p else ""
        assert {(i.xref, i.yref) for i in (dots, arrows, lines)} == {(f"x{sfx}", f"y{sfx}")}
        assert all(
            (i.x, i.y, i.sizey) == (-3, 3, 6) and i.sizing == "stretch"
            for i in (dots, arrows, lines)
        )
        # each a different size by a millionth (Plotly keys a subplot's images by place and size)
        assert [i.sizex for i in (dots, arrows, lines)] == pytest.approx([6, 6, 6], abs=1e-5)
        assert len({i.sizex for i in (dots, arrows, lines)}) == 3
        assert np.allclose(dots_of(dots.source)[0], noisy, atol=0.006)
        paths = paths_of(arrows.source)
        if not len(panel.arrows):
            assert paths == []
            continue
        (shaft_attrs, shafts), (head_attrs, heads) = paths
        colour = figs.SOURCE_COLOURS[panel.source]
        assert shaft_attrs["stroke"] == head_attrs["fill"] == colour
        ends = panel.starts + panel.arrows
        assert np.allclose(np.array(shafts), np.stack([panel.starts, ends], 1), atol=0.006)
        trace = traced.data[p * per_panel + 2]  # the heads, as the trace figure draws them
        tri = np.array([[x, y] for x, y in zip(trace.x, trace.y, strict=True) if x is not None])
        assert np.allclose(np.array(heads), tri.reshape(G, 3, 2), atol=0.006)
        levels = paths_of(lines.source)
        assert [a["stroke"] for a, _ in levels] == list(figs.CONTOUR_COLOURS)
        for (_, polylines), trace in zip(levels, traced.data[3:per_panel], strict=True):
            xy = np.array([q for q in zip(trace.x, trace.y, strict=True) if q[0] is not None])
            assert np.allclose(np.concatenate(polylines), xy, atol=0.006)
