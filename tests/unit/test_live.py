"""ui/live.py's Python side: values in and out of the URL, the packed states, the report."""

from __future__ import annotations

import json
import math
import uuid

import numpy as np
import plotly
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from figures import softmax as figs
from figures import style
from ui import kit, live

OPTIONS = (0.05, 0.5, 1.0, 20.0)


@pytest.mark.parametrize(
    ("raw", "value"), [("0.5", 0.5), ("1", 1.0), (1.0, 1.0), (20, 20.0), ("5e-2", 0.05)]
)
def test_decode_names_an_option(raw, value):
    assert live.decode(raw, OPTIONS) == value


@pytest.mark.parametrize("raw", ["banana", "0.3", "", None, "nan", "inf", [1.0], {"value": 1}])
def test_decode_refuses_anything_else(raw):
    with pytest.raises(ValueError):
        live.decode(raw, OPTIONS)


def test_encode_writes_floats_as_a_select_slider_does():
    assert [live.encode(x) for x in (0.05, 1.0, 20.0, 0.123456789)] == [
        "0.05",
        "1",
        "20",
        "0.123457",
    ]
    assert live.decode(live.encode(0.05), OPTIONS) == 0.05


def _states(temperatures=OPTIONS):
    u = np.array([5.0, 6.0, 7.0])
    out = []
    for t in temperatures:
        p = np.exp(u / t - (u / t).max())
        p /= p.sum()
        H = float(-(p * np.log(p)).sum())
        out.append(
            live.State(
                t,
                f"{t:g}",
                figs.temperature_updates(p, t, H),
                [("T", f"{t:g}"), ("H", f"{H:.4f}")],
                [kit.Check("sum", True, "1"), kit.Check("<b>", False)],
            )
        )
    return out


def _figure(T=1.0):
    u = np.array([5.0, 6.0, 7.0])
    p = np.exp(u / T - (u / T).max())
    p /= p.sum()
    grid = np.geomspace(0.05, 20, 10)
    return figs.temperature_figure(
        ["a", "b", "c"],
        p,
        grid,
        grid * 0,
        T,
        0.5,
        np.log(3),
        titles=("l", "r"),
        y_titles=("p", "H"),
        x_title="T",
    )


def test_pack_sends_only_what_changes_and_does_not_depend_on_the_value():
    states = _states()
    a = live.pack("T", states, 0.5, _figure(0.5), chart_key="c")
    b = live.pack("T", states, 20.0, _figure(20.0), chart_key="c")
    assert (a["index"], b["index"]) == (1, 3)
    assert a["digest"] == b["digest"]  # a rerun that only moves the value keeps the chart
    assert {k: v for k, v in a.items() if k != "index"} == {
        k: v for k, v in b.items() if k != "index"
    }
    first = a["states"][0]
    assert [i for i, _ in first["traces"]] == [0, 3]  # the bars and the current-T marker
    assert first["traces"][1][1] == {"x": [0.05], "y": [pytest.approx(0.0, abs=1e-7)]}
    assert len(a["figure"]["data"]) == 4 and "layout" in a["figure"]
    json.dumps(a)  # plain JSON for the component


def test_pack_follows_new_data():
    states = _states()
    other = _states((0.05, 0.5, 1.0, 10.0))
    a = live.pack("T", states, 1.0, _figure(), chart_key="c")
    assert live.pack("T", other, 1.0, _figure(), chart_key="c")["digest"] != a["digest"]
    assert live.pack("Temp", states, 1.0, _figure(), chart_key="c")["digest"] != a["digest"]


def test_pack_refuses_a_value_outside_the_states_and_no_states():
    with pytest.raises(ValueError):
        live.pack("T", _states(), 0.3, _figure(), chart_key="c")
    with pytest.raises(ValueError):
        live.pack("T", [], 1.0, _figure(), chart_key="c")


def test_numbers_block_escapes_everything_and_shows_the_checks():
    state = live.State(1.0, "1", {}, [("<i>x</i>", "1 < 2")], [kit.Check("ok & fine", True, "d")])
    block = live.numbers_html(state)
    assert "<i>x</i>" not in block and "&lt;i&gt;x&lt;/i&gt;" in block and "1 &lt; 2" in block
    assert "✓ ok &amp; fine — d" in block
    bad = live.numbers_html(live.State(1.0, "1", {}, [], [kit.Check("no", False)]))
    assert 'live-bad"' in bad and "✗ no" in bad


def _windows(masks):
    """States that patch trace 1 with a mask and trace 0 with the state's own marker."""
    return [
        live.State(k, str(k), {0: {"x": [k]}, 1: {"z": m}}, [("k", str(k))])
        for k, m in enumerate(masks)
    ]


def _heatmaps():
    return go.Figure([go.Scatter(x=[0], y=[0]), go.Heatmap(z=[[1, 1], [1, 1]])])


def test_pack_sends_a_patch_that_states_share_once():
    ones, eye = [[1, 1], [1, 1]], [[1, 0], [0, 1]]
    states = _windows([ones, ones, eye, ones])
    data = live.pack("k", states, 2, _heatmaps(), chart_key="c", share_patches=True)
    assert data["patches"] == [{"z": ones}]  # the mask of windows 0, 1 and 3, sent once
    assert [s["traces"] for s in data["states"]] == [
        [[0, {"x": [0]}], [1, 0]],
        [[0, {"x": [1]}], [1, 0]],
        [[0, {"x": [2]}], [1, {"z": eye}]],  # its own mask: inline, as before
        [[0, {"x": [3]}], [1, 0]],
    ]
    for k, mask in enumerate([ones, ones, eye, ones]):  # what the browser draws at each
        assert live.state_traces(data, k) == {0: {"x": [k]}, 1: {"z": mask}}
    assert data["figure"]["data"][1]["z"] == ones  # the base is the first state
    plain = live.pack("k", states, 2, _heatmaps(), chart_key="c")  # not asked: as before
    assert "patches" not in plain and plain["states"][1]["traces"][1] == [1, {"z": ones}]


def test_pack_shares_equal_patches_after_rounding_and_only_equal_ones():
    states = [
        live.State(0, "0", {0: {"y": [0.12345678]}}),
        live.State(1, "1", {0: {"y": [0.123456781]}}),  # the same to 7 digits
        live.State(2, "2", {0: {"y": [0.1234567], "x": [1]}}),
    ]
    fig = go.Figure([go.Scatter(x=[0], y=[0])])
    data = live.pack("k", states, 0, fig, chart_key="c", share_patches=True)
    assert data["patches"] == [{"y": [0.1234568]}]
    assert [s["traces"] for s in data["states"]][:2] == [[[0, 0]], [[0, 0]]]
    assert live.state_traces(data, 2) == {0: {"y": [0.1234567], "x": [1]}}


def test_pack_without_shared_patches_or_checks_sends_neither():
    data = live.pack("T", _states(), 1.0, _figure(), chart_key="c", share_patches=True)
    assert "patches" not in data and "sharedHtml" not in data
    assert live.state_traces(data, 0) == dict(data["states"][0]["traces"])


def test_shared_checks_are_sent_once_and_change_the_digest():
    states = _windows([[[1]], [[0]]])
    fig = go.Figure([go.Scatter(x=[0], y=[0]), go.Heatmap(z=[[1]])])
    plain = live.pack("k", states, 0, fig, chart_key="c")
    shared = live.pack(
        "k", states, 0, fig, chart_key="c", shared_checks=[kit.Check("a <b>", True, "1")]
    )
    assert shared["sharedHtml"] == '<span class="live-badge live-ok">✓ a &lt;b&gt; — 1</span>'
    assert all("a &lt;b&gt;" not in s["html"] for s in shared["states"])
    assert shared["digest"] != plain["digest"]


def test_a_number_with_no_name_shows_its_value_alone():
    block = live.numbers_html(live.State(0, "0", {}, [("", "window 3: <regions>"), ("k", "3")]))
    assert '<span class="live-num">window 3: &lt;regions&gt;</span>' in block
    assert " = <b>3</b>" in block and block.count(" = ") == 1


def _report_script() -> None:
    import streamlit as st

    from ui import live

    live.current("k", (0.5, 1.0), 1.0)
    st.session_state["k"] = {"value": st.query_params.get("reported", "")}
    live._take_reported("k", (0.5, 1.0))
    st.write(f"value={st.session_state['_live_value_k']}")


@pytest.mark.parametrize(("reported", "kept"), [("0.5", "0.5"), ("0.3", "1.0"), ("x", "1.0")])
def test_a_reported_value_is_kept_only_if_it_is_an_option(reported, kept):
    at = AppTest.from_function(_report_script)
    at.query_params["reported"] = reported
    at.run()
    assert not at.exception
    assert at.markdown[0].value == f"value={kept}"


def _two_panels(heatmap=False, **yaxis2):
    fig = go.Figure(
        [
            go.Bar(x=["a", "b"], y=[0.5, 0.5]),
            go.Scatter(x=[1.0], y=[2.0], xaxis="x2", yaxis="y2"),
        ]
    )
    if heatmap:
        fig.add_heatmap(z=[[0.0, 1.0]], xaxis="x3", yaxis="y3")
    fig.update_layout(yaxis={"range": [0, 1]}, xaxis2={"range": [0, 5]}, yaxis2=yaxis2)
    return fig


def _moves(fig, patches):
    states = [live.State(i, str(i), p) for i, p in enumerate(patches)]
    return live.pack("k", states, 0, fig, chart_key="c")["moveTraces"]


def test_traces_move_only_when_nothing_the_states_change_could_move_an_axis():
    fixed = _two_panels(range=[0, 3])
    bars = [{0: {"y": [0.2, 0.8]}}, {0: {"y": [0.6, 0.4]}}]
    assert _moves(fixed, bars)  # a bar on a fixed y; its category x is not patched
    point = [{1: {"x": [1.0], "y": [2.0]}}, {1: {"x": [4.0], "y": [1.0]}}]
    assert _moves(fixed, point)
    assert not _moves(_two_panels(), point)  # y2 autoranges: a point could move it
    assert not _moves(_two_panels(range=[0, 3], autorange=True), point)
    assert not _moves(fixed, [{0: {"x": ["b", "a"]}}, {0: {"x": ["a", "b"]}}])  # x autoranges
    assert _moves(_two_panels(), [{1: {"customdata": [1]}}, {1: {"customdata": [2]}}])


def test_a_figure_with_a_heatmap_is_redrawn_never_moved():
    heat = _two_panels(heatmap=True, range=[0, 3])
    # a heatmap is not moved by Plotly.animate: its states are redrawn (Plotly.react)
    assert not _moves(heat, [{2: {"z": [[1.0, 0.0]]}}, {2: {"z": [[0.0, 1.0]]}}])
    assert not _moves(heat, [{0: {"y": [0.2, 0.8]}, 2: {"z": [[1.0, 0.0]]}}] * 2)
    # nor a bar beside it, the heatmap unpatched: the move would leave the heatmap's layer
    # empty (tests/browser/test_live_in_chromium.py)
    assert not _moves(heat, [{0: {"y": [0.2, 0.8]}}, {0: {"y": [0.6, 0.4]}}])
    contour = _two_panels(range=[0, 3])
    contour.add_contour(z=[[0.0, 1.0], [1.0, 0.0]], xaxis="x3", yaxis="y3")
    assert not _moves(contour, [{0: {"y": [0.2, 0.8]}}, {0: {"y": [0.6, 0.4]}}])


def _kept(fig, move=True):
    return live.pack("", [live.State(0, "", {})], 0, fig, chart_key="c", kept=True, move=move)


def _scatter(x, y, **layout):
    fig = go.Figure(go.Scatter(x=x, y=y, mode="markers", marker={"size": 5}))
    fig.update_layout({"xaxis": {"range": [-3, 3]}, "yaxis": {"range": [-3, 3]}} | layout)
    return fig


def test_a_kept_chart_moves_to_a_new_figure_only_if_nothing_but_its_coordinates_changed():
    a = _kept(_scatter([0.0, 1.0], [1.0, 2.0]))
    b = _kept(_scatter([0.5, -1.0, 2.0], [0.0, 0.0, 1.0]))
    assert a["movable"] and b["movable"]
    assert a["skeleton"] == b["skeleton"] and a["digest"] != b["digest"]
    # anything else that changes is drawn anew: the layout, a marker, the trace's kind
    assert _kept(_scatter([0.0], [1.0], title="t"))["skeleton"] != a["skeleton"]
    other = _scatter([0.0], [1.0])
    other.update_traces(marker={"size": 6})
    assert _kept(other)["skeleton"] != a["skeleton"]
    assert _kept(go.Figure(go.Bar(x=[0.0], y=[1.0])))["skeleton"] != a["skeleton"]
    assert _kept(_scatter([], []))["skeleton"] != a["skeleton"]  # a trace with no points
    # an axis that autoranges could move with the data: such a chart is never moved
    assert not _kept(go.Figure(go.Scatter(x=[0.0], y=[1.0])))["movable"]
    assert not _kept(_scatter([0.0], [1.0], yaxis={"range": [0, 1], "autorange": True}))["movable"]
    heat = _scatter([0.0], [1.0])
    heat.add_heatmap(z=[[0.0, 1.0]])
    assert not _kept(heat)["movable"]
    # a picture from a source on fixed axes is swapped as the traces move; one drawn from
    # values (z) is not
    uri = "data:image/png;base64,iVBORw0KGgo="
    pictured = _scatter([0.0], [1.0])
    pictured.add_image(source=uri)
    assert _kept(pictured)["movable"] and _kept(pictured)["swappable"]
    valued = _scatter([0.0], [1.0])
    valued.add_image(z=[[[0, 0, 0]]])
    assert not _kept(valued)["movable"]
    # a kept chart not asked to move, and a live control (its states move by moveTraces),
    # have neither
    assert not {"skeleton", "movable"} & set(_kept(_scatter([0.0], [1.0]), move=False))
    assert "skeleton" not in live.pack("T", _states(), 1.0, _figure(), chart_key="c")


def test_a_kept_chart_takes_new_layout_pictures_in_place_and_redraws_for_anything_else():
    """A layout image's source (the reverse scrub's data dots) is left out of the skeleton,
    as the traces' coordinates are: a new figure that differs there moves and swaps the
    picture. Where the image is, its name or how many there are stays in; and the new source
    changes ``coords``, so a chart of image traces never only swaps its traces' pictures
    where a layout image changed too."""

    def dots(source, **image):
        fig = _scatter([0.0], [1.0])
        where = {"x": -3, "y": 3, "sizex": 6, "sizey": 6, "name": "data"} | image
        fig.add_layout_image(source=source, xref="x", yref="y", **where)
        return fig

    a, b = (
        _kept(dots("data:image/svg+xml;base64,AA==")),
        _kept(dots("data:image/svg+xml;base64,AQ==")),
    )
    assert a["movable"] and b["movable"] and a["digest"] != b["digest"]
    assert a["skeleton"] == b["skeleton"]
    for other in ({"x": -2}, {"sizex": 5}, {"name": "other"}, {"layer": "below"}):
        assert _kept(dots("data:image/svg+xml;base64,AA==", **other))["skeleton"] != a["skeleton"]
    assert _kept(_scatter([0.0], [1.0]))["skeleton"] != a["skeleton"]  # no image at all

    def beside(source):
        fig = style.figure(
            [{"type": "image", "source": "data:image/png;base64,AA==", "name": "x"}], {}
        )
        fig.add_layout_image(source=source, xref="paper", yref="paper", x=0, y=1, sizex=1, sizey=1)
        return _kept(fig)

    one, two = beside("data:a"), beside("data:b")
    assert one["skeleton"] == two["skeleton"] and one["coords"] != two["coords"]


def test_an_axis_titles_text_is_moved_but_anything_else_of_the_axis_is_drawn_anew():
    """An axis title that names the step (the forward chain's "chain: 213 steps") is
    retitled in place (live.js, moveNew); the title's font, the axis's range or another
    layout text change the skeleton (drawn by Plotly.react)."""

    def titled(text, x2="a", font=13, title="panel", rng=(-3, 3)):
        return _kept(
            _scatter(
                [0.0],
                [1.0],
                xaxis={"range": list(rng), "title": {"text": text, "font": {"size": font}}},
                xaxis2={"range": [0, 1], "title": {"text": x2}},
                title={"text": title},
            )
        )

    a = titled("chain: 200 steps")
    b = titled("chain: 201 steps", x2="b")
    assert a["movable"] and a["skeleton"] == b["skeleton"] and a["digest"] != b["digest"]
    assert b["figure"]["layout"]["xaxis"]["title"]["text"] == "chain: 201 steps"
    for other in (
        titled("chain: 200 steps", font=14),
        titled("chain: 200 steps", title="another panel"),
        titled("chain: 200 steps", rng=(-2, 2)),
    ):
        assert other["skeleton"] != a["skeleton"]


def test_a_kept_scrubs_frames_are_in_its_payload_and_only_what_they_patch_in_its_skeleton():
    def scrub(names, x, traces=(0,), prefix="t = ", frame_layout=None):
        fig = _scatter([x], [0.0])
        fig.frames = [
            go.Frame(name=n, data=[go.Scatter(x=[x + i])], traces=list(traces), layout=frame_layout)
            for i, n in enumerate(names)
        ]
        lay = fig.layout.to_plotly_json()
        style.scrub_controls(lay, names, len(names) - 1, play=("▶", "❚❚"), prefix=prefix)
        fig.update_layout(sliders=lay["sliders"], updatemenus=lay["updatemenus"])
        return _kept(fig)

    a, b = scrub(["10", "0"], 0.0), scrub(["10", "0"], 1.0)
    assert a["skeleton"] == b["skeleton"] and a["digest"] != b["digest"]
    assert [f["data"][0]["x"] for f in b["frames"]] == [[1.0], [2.0]]
    # other frames, more of them, and the slider's steps to them: replaced in place (moved)
    c = scrub(["20", "10", "0"], 0.0)
    assert c["skeleton"] == a["skeleton"] and c["movable"]
    assert [s["args"][0][0] for s in c["figure"]["layout"]["sliders"][0]["steps"]] == [
        "20",
        "10",
        "0",
    ]
    # anything else of the slider, or frames that patch another trace: drawn anew
    assert scrub(["10", "0"], 0.0, prefix="s = ")["skeleton"] != a["skeleton"]
    two = scrub(["10", "0"], 0.0, traces=(1,))
    assert two["skeleton"] != a["skeleton"]
    # a frame that changes the layout is not moved (the move draws traces only)
    assert not scrub(["10", "0"], 0.0, frame_layout={"title": {"text": "t"}})["movable"]


def _framed(*columns):
    """A kept chart whose one frame gives trace 0 the x of each column in turn (y: x's)."""
    fig = _scatter([0.0], [0.0])
    fig.frames = [
        go.Frame(name=str(k), data=[go.Scatter(x=c, y=c)], traces=[0])
        for k, c in enumerate(columns)
    ]
    return live.wire("", [live.State(0, "", {})], 0, fig, chart_key="c", kept=True, move=True)


def test_a_scrubs_frames_go_packed_and_are_read_back_as_the_very_same_numbers():
    """Frame coordinates with two decimals (the reverse scrub's particles) go as 16-bit
    integers in base64, and read back (``live.read``, as ``live.js`` reads them) as the same
    doubles: two-decimal values across the 16-bit range, both its ends and −0 included."""
    rng = np.random.default_rng(7)
    wide = np.round(rng.uniform(-327.67, 327.67, 300), 2).tolist()
    ends = [327.67, -327.67, 0.01, -0.01, -0.0, 0.0, 1.0, 2, -3, 0.07, 1.15, 2.67, 1e-2] * 2
    sent = _framed(wide, ends)
    raw = json.loads(sent)
    assert [f["data"][0]["x"].keys() for f in raw["frames"]] == [{"i2"}, {"i2"}]
    back = live.read(sent)
    for frame, column in zip(back["frames"], (wide, ends), strict=True):
        assert frame["data"][0]["x"] == frame["data"][0]["y"] == [float(v) for v in column]
    plain = json.dumps([wide, wide], separators=(",", ":"))
    assert len(json.dumps(raw["frames"][0])) < 0.6 * len(plain)  # well under the JSON


@pytest.mark.parametrize(
    "column",
    [
        [0.5] * 15,  # too short to gain anything
        [0.5] * 19 + [None],  # a gap
        [0.5] * 19 + [0.125],  # three decimals
        [0.5] * 19 + [327.68],  # over the 16-bit range
        [0.5] * 19 + [-327.68],
        [True] * 20,
        ["a"] * 20,
    ],
)
def test_frame_coordinates_that_do_not_fit_go_as_they_are(column):
    raw = json.loads(_framed(column))
    assert raw["frames"][0]["data"][0]["x"] == column
    assert live.read(_framed(column))["frames"][0]["data"][0]["x"] == column


def test_the_softmax_temperature_control_moves_its_traces():
    packed = live.pack("T", _states(), 1.0, _figure(), chart_key="c")
    assert packed["moveTraces"]  # its T axis is fixed to the grid (figures/softmax.py)


def _repaints(fig, patches):
    states = [live.State(i, str(i), p) for i, p in enumerate(patches)]
    return live.pack("k", states, 0, fig, chart_key="c")["repaintHeatmaps"]


def test_heatmaps_are_repainted_alone_only_when_only_their_values_change_on_a_fixed_scale():
    def maps(**trace):
        return go.Figure([go.Heatmap(z=[[0.0, 1.0]], **trace), go.Scatter(x=[0], y=[0])])

    z = [{0: {"z": [[1.0, 0.0]]}}, {0: {"z": [[0.0, 1.0]]}}]
    assert _repaints(maps(zmin=0, zmax=1), z)
    assert not _repaints(maps(), z)  # the colour range follows the values: the bar moves
    assert not _repaints(maps(zmin=0), z)
    assert not _repaints(maps(zmin=0, zmax=1, zauto=True), z)
    assert not _repaints(maps(zmin=0, zmax=1), [{0: {"z": [[1.0, 0.0]], "customdata": [[1, 2]]}}])
    assert not _repaints(maps(zmin=0, zmax=1), [{1: {"y": [1]}}, {1: {"y": [2]}}])


@pytest.mark.parametrize("gap", [False, True])
def test_the_bytes_sent_are_the_json_plotlys_own_encoder_writes(gap):
    """``wire`` encodes the payload once, with Python's encoder, where Plotly's encodes it
    twice and parses it once: the figure must still come out as Plotly's encoder (the
    oracle) writes it: numpy arrays as typed arrays, numpy numbers as numbers, and
    (``gap``, where the fast path gives way to Plotly's encoder) NaN as null."""
    fig = style.figure(  # unvalidated, as the app's figures are
        [
            {"type": "scatter", "x": np.array([0.0, 1.5]), "y": [1.0, math.nan if gap else 2.0]},
            {"type": "bar", "x": ["a", "b"], "y": [np.float32(0.25), np.int64(2)]},
        ],
        {"yaxis": {"range": [0, 3]}, "title": {"text": "t"}},
    )
    sent = live.wire("", [live.State(0, "", {})], 0, fig, chart_key="c", kept=True)
    data = json.loads(sent)
    want = json.loads(plotly.io.json.to_json_plotly(fig.to_plotly_json()))
    assert data["figure"] == {"data": want["data"], "layout": want["layout"]}
    assert data["figure"]["data"][0]["x"]["bdata"]  # a numpy array: Plotly's typed array
    assert data["figure"]["data"][0]["y"] == [1.0, None if gap else 2.0]
    assert data["figure"]["data"][1]["y"] == [0.25, 2]
    assert data == live.pack("", [live.State(0, "", {})], 0, fig, chart_key="c", kept=True)
    assert b", " not in sent and b'": ' not in sent  # compact: no spaces between items


def test_a_kept_chart_of_images_swaps_them_only_when_nothing_else_changed():
    """A figure with images from sources (the forward scrub) is ``swappable``: a new one
    with the same skeleton and the same coordinates differs only in its pictures, which the
    browser swaps in place; new coordinates, or anything the skeleton holds, are redrawn."""

    def pictures(source, y=0.5, name="x"):
        fig = style.figure(
            [
                {"type": "image", "source": source, "name": name},
                {"type": "scatter", "x": [0.0, 1.0], "y": [y, y], "xaxis": "x2", "yaxis": "y2"},
            ],
            {"xaxis2": {"range": [0, 1]}, "yaxis2": {"range": [0, 1]}},
        )
        return _kept(fig)

    a, b = pictures("data:image/png;base64,AA=="), pictures("data:image/png;base64,AQ==")
    assert a["swappable"] and not a["movable"]  # an image cannot be moved
    assert (a["skeleton"], a["coords"]) == (b["skeleton"], b["coords"])
    assert a["digest"] != b["digest"]
    moved = pictures("data:image/png;base64,AA==", y=0.7)
    assert moved["skeleton"] == a["skeleton"] and moved["coords"] != a["coords"]
    assert pictures("data:image/png;base64,AA==", name="y")["skeleton"] != a["skeleton"]
    # without images, or not asked to move: nothing to swap
    assert "swappable" not in _kept(_scatter([0.0], [1.0]))
    assert "swappable" not in _kept(style.figure([{"type": "image", "source": "s"}], {}), False)


def _memo_script() -> None:
    import plotly.graph_objects as go
    import streamlit as st

    from ui import kit

    memo = st.query_params["memo"]

    def build() -> go.Figure:
        st.session_state["built"] = st.session_state.get("built", 0) + 1
        return go.Figure(
            go.Scatter(x=[0.0, 1.0], y=[1.0, float(len(memo))], name=kit.tr("kit.data"))
        )

    kit.chart(build, "memo_chart", kept=True, memo=memo)
    st.write(f"built={st.session_state.get('built', 0)}")


def _memo_session(memo: str, lang: str = "en") -> tuple[int, bytes]:
    """A new session drawing the memo chart: how often it built the figure, and its payload."""
    at = AppTest.from_function(_memo_script)
    at.query_params.update({"memo": memo, "lang": lang})
    at.run()
    assert not at.exception, at.exception
    (element,) = at.get("bidi_component")
    return int(at.markdown[0].value.removeprefix("built=")), element.proto.bytes


def test_a_memo_chart_is_built_once_for_every_session_per_memo_and_language():
    memo = f"memo-{uuid.uuid4()}"  # a key no other test (or worker) has cached
    built, payload = _memo_session(memo)
    assert built == 1
    assert _memo_session(memo) == (0, payload)  # another session: from the cache, the same
    built_ja, payload_ja = _memo_session(memo, "ja")
    assert built_ja == 1 and payload_ja != payload  # the labels are in the session's language
    assert json.loads(payload_ja)["figure"]["data"][0]["name"] == kit.strings("ja")["kit.data"]
    other, payload_other = _memo_session(memo + "+")
    assert other == 1 and payload_other != payload
    assert json.loads(payload)["figure"]["data"][0]["y"] == [1.0, float(len(memo))]


@pytest.mark.parametrize(
    ("fig", "kw"),
    [
        (go.Figure(), {"kept": True, "memo": 1}),  # a memo needs a builder
        (go.Figure, {"kept": True}),  # a builder needs a memo
        (go.Figure, {"memo": 1}),  # only a kept chart has a memo
    ],
)
def test_a_memo_chart_is_a_kept_chart_given_as_a_builder(fig, kw):
    with pytest.raises(ValueError):
        kit.chart(fig, "k", **kw)


@pytest.mark.parametrize(
    ("base", "path"),
    [
        ("", "/_stcore/bidi-components/adlab.live/live.js"),
        ("/adlab/", "/adlab/_stcore/bidi-components/adlab.live/live.js"),
        ("course/adlab", "/course/adlab/_stcore/bidi-components/adlab.live/live.js"),
    ],
)
def test_the_component_is_an_inline_module_that_imports_live_js_from_this_server(base, path):
    """Inline (Streamlit imports it again at once, where a file is added as a script element
    and called on its load event), importing the real ``live.js`` under the server's base
    path, whose file Streamlit serves (``ui/live/``)."""
    from streamlit import config
    from streamlit.components.v2.component_path_utils import ComponentPathUtils

    before = config.get_option("server.baseUrlPath")
    config.set_option("server.baseUrlPath", base)
    try:
        js = live.entry_js()
    finally:
        config.set_option("server.baseUrlPath", before)
    assert ComponentPathUtils.looks_like_inline_content(js)
    assert f"import(new URL({json.dumps(path)}, location.origin).href)" in js
    assert "export default async function" in js and "(await live).default(args)" in js
    assert (live.FOLDER / path.rsplit("/", 1)[-1]).is_file()
