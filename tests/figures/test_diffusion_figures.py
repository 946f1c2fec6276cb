"""figures.diffusion: the scrub figure's frames, slider and size; the pixel and chain figures;
full Plotly validation of every builder (frames included)."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import numpy as np
import plotly.io as pio
import pytest
from PIL import Image

from core import diffusion as dif
from core import images
from figures import diffusion as figs
from tests.figures.validation import assert_valid_plotly

ROOT = Path(__file__).resolve().parents[2]
SIDE, T = 48, 1000
SAMPLES = ("sunset", "shapes", "checker", "scene")
BUDGET_KB = 200  # per server rerun (DESIGN.md); the scrub figure is sent on full reruns only


def sample(name: str) -> np.ndarray:
    data = (ROOT / "assets" / "images" / f"{name}.png").read_bytes()
    return images.to_signed(images.load_image(data, SIDE))


def scrub_case(name: str = "sunset", T: int = T, start: int = 8, log_snr_range=None):
    x0 = sample(name)
    eps = np.random.default_rng(0).standard_normal(x0.shape)
    steps = np.unique(np.round(np.linspace(1, T, 40)).astype(int)).tolist()
    schedules = [dif.make_schedule(k, T) for k in ("linear", "cosine")]
    frames = [np.stack([dif.q_sample(x0, t, s, eps) for t in steps]) for s in schedules]
    fig = figs.scrub_figure(
        x0,
        eps,
        steps,
        frames[0],
        frames[1],
        tuple(s.alpha_bars for s in schedules),
        tuple(dif.log_snr(s) for s in schedules),
        start,
        image_titles=("x0", "eps", "lin", "cos"),
        curve_titles=("a", "b", "c"),
        names=("linear", "cosine"),
        x_title="t / T",
        log_snr_range=log_snr_range,
    )
    return fig, x0, eps, steps, schedules, frames


def decode(uri: str) -> np.ndarray:
    head, body = uri.split(",", 1)
    assert head == "data:image/jpeg;base64"
    with Image.open(io.BytesIO(base64.b64decode(body))) as im:
        assert im.format == "JPEG"
        return np.asarray(im.convert("RGB"), dtype=np.float64)


def blocks(x: np.ndarray, k: int = 4) -> np.ndarray:
    """Mean over k × k pixel blocks, flattened (the low frequencies JPEG keeps)."""
    S = x.shape[0]
    return x.reshape(S // k, k, S // k, k, 3).mean(axis=(1, 3)).ravel()


def pixel_case(step: int = 200):
    x0 = sample("sunset")
    s = dif.make_schedule("linear", T)
    a = s.alpha_bars[step - 1]
    value = float(x0[10, 20, 0])
    draws = dif.q_sample(
        np.full(5000, value), step, s, np.random.default_rng(step).standard_normal(5000)
    )
    mean, sd = np.sqrt(a) * value, np.sqrt(1 - a)
    edges = np.linspace(mean - 4.5 * sd, mean + 4.5 * sd, 46)
    counts, _ = np.histogram(draws, edges)
    grid = np.linspace(edges[0], edges[-1], 181)
    pdf = np.exp(-((grid - mean) ** 2) / (2 * sd**2)) / np.sqrt(2 * np.pi * sd**2)
    std = np.exp(-(grid**2) / 2) / np.sqrt(2 * np.pi)
    return figs.pixel_figure(
        edges,
        counts / (5000 * np.diff(edges)),
        grid,
        pdf,
        std,
        mean,
        value,
        title="b",
        x_title="x",
        y_title="d",
        names=("h", "n", "s", "m", "x0"),
    )


def chain_case(step: int = 50):
    x0 = sample("shapes")
    s = dif.make_schedule("cosine", 200)
    rng = np.random.default_rng(3)
    x, rows = x0, []
    for k in range(1, step + 1):
        x = dif.q_step(x, k, s, rng.standard_normal(x0.shape))
        rows.append(
            (
                k,
                np.sum(x * x0) / np.sum(x0 * x0),
                np.mean((x - np.sqrt(s.alpha_bars[k - 1]) * x0) ** 2),
            )
        )
    k_axis, slope, var = (np.array(c) for c in zip(*rows, strict=True))
    closed = dif.q_sample(x0, step, s, rng.standard_normal(x0.shape))
    return figs.chain_figure(
        x,
        closed,
        k_axis,
        slope,
        var,
        s.alpha_bars,
        step,
        titles=("a", "b", "c"),
        x_title="s",
        names=("r", "v", "cr", "cv"),
    )


BUILDERS = {
    "scrub_figure": lambda: scrub_case()[0],
    "scrub_figure_short": lambda: scrub_case("checker", T=50, start=0)[0],
    "pixel_figure": pixel_case,
    "pixel_locator_figure": lambda: figs.pixel_locator_figure(sample("sunset"), (10, 20)),
    "chain_figure": chain_case,
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_diffusion_figures_pass_full_validation(name):
    assert_valid_plotly(BUILDERS[name]())  # frames are validated too


def frames_of(fig) -> list[dict]:
    """The frames as plain dicts (as sent to the browser)."""
    return fig.to_dict()["frames"]


def test_scrub_figure_has_a_frame_per_step_and_an_animate_slider():
    fig, _, _, steps, _, _ = scrub_case(start=8)
    assert [tr.type for tr in fig.data[:4]] == ["image"] * 4
    assert len(fig.data) == 15
    frames = frames_of(fig)
    # frame k of 40 is named by its place ("k/40", the same at every T), labelled with its t
    assert [f["name"] for f in frames] == [f"{k}/40" for k in range(1, 41)] and len(steps) == 40
    assert all(f["traces"] == [2, 3, 12, 13, 14] for f in frames)
    (slider,) = fig.layout.sliders
    assert slider.active == 8
    assert [s.method for s in slider.steps] == ["animate"] * 40
    assert [list(s.args[0]) for s in slider.steps] == [[f["name"]] for f in frames]
    assert [s.label for s in slider.steps] == [str(t) for t in steps]
    assert all(s.args[1]["frame"]["redraw"] for s in slider.steps)
    (menu,) = fig.layout.updatemenus
    assert [b.method for b in menu.buttons] == ["animate", "animate"]
    assert menu.buttons[0].args[0] is None and menu.buttons[0].args[1]["fromcurrent"]


def test_frames_show_x_t_of_both_schedules_at_their_step():
    fig, x0, eps, steps, schedules, frames = scrub_case()
    sent = frames_of(fig)
    for i in (0, 5, 20, 39):
        t = steps[i]
        for k, trace in enumerate((0, 1)):
            shown = decode(sent[i]["data"][trace]["source"])
            truth = images.to_uint8(frames[k][i]).astype(float)
            assert shown.shape == (SIDE, SIDE, 3)
            # JPEG (4:2:0, low quality once noise hides it) drops most of the noise's colour
            # detail but keeps its brightness, and the image under the noise (4×4 blocks)
            assert np.corrcoef(shown.mean(2).ravel(), truth.mean(2).ravel())[0, 1] > 0.65
            if schedules[k].alpha_bars[t - 1] > 0.3:
                assert np.corrcoef(blocks(shown), blocks(truth))[0, 1] > 0.85
            assert np.allclose(frames[k][i], dif.q_sample(x0, t, schedules[k], eps))
    # the start frame is also the figure's own data
    assert fig.data[2].source == sent[8]["data"][0]["source"]
    assert fig.data[3].source == sent[8]["data"][1]["source"]


def test_frames_move_the_markers_to_alpha_bar_of_their_step():
    fig, _, _, steps, schedules, _ = scrub_case()
    lin, cos = (s.alpha_bars for s in schedules)
    for i, (t, frame) in enumerate(zip(steps, frames_of(fig), strict=True)):
        a = np.array([lin[t - 1], cos[t - 1]])
        panel_a, panel_b, panel_c = frame["data"][2:]
        assert set(panel_a["x"]) - {None} == {round(t / T, 5)}  # t/T, the curves' axis
        assert np.allclose(panel_a["y"][3:], a, atol=1e-4)
        assert np.allclose(panel_b["y"][3:], [*np.sqrt(a), *np.sqrt(1 - a)], atol=1e-4)
        assert np.allclose(panel_c["y"][3:], np.log(a / (1 - a)), atol=1e-4)
        if i == 8:  # the start frame's markers are drawn before any frame is played
            assert fig.data[12].y[3:] == tuple(panel_a["y"][3:])


def test_scrub_curves_follow_the_schedules_and_the_layout_ignores_the_step():
    fig, _, _, _, schedules, _ = scrub_case()
    lin = schedules[0].alpha_bars
    x = np.array(fig.data[4].x)  # t/T
    assert x[0] == 1 / T and x[-1] == 1
    t = np.round(x * T).astype(int)
    assert np.allclose(x * T, t, atol=1e-6)
    assert np.allclose(fig.data[4].y, lin[t - 1], atol=1e-4)
    assert np.allclose(fig.data[10].y, np.log(lin[t - 1] / (1 - lin[t - 1])), atol=1e-4)
    assert fig.layout.xaxis3.title.text == "<b>lin</b>"
    other = scrub_case(start=30)[0]
    a, b = fig.layout.to_plotly_json(), other.layout.to_plotly_json()
    a["sliders"][0].pop("active"), b["sliders"][0].pop("active")
    assert a == b


def test_a_new_T_changes_only_the_scrubs_data_and_the_cosine_curve_not_at_all():
    """Against t/T, with one log-SNR range for every T, a new T keeps the whole layout but
    the slider's steps (so the browser moves the traces: ui.live); the cosine schedule is a
    function of t/T (Nichol & Dhariwal Eq. 17), so its curve lies on the one of T = 1000,
    and the linear one (β scaled by 1000/T) within 0.02 of it (assets/content)."""
    span = (-23.0, 12.0)
    ref = scrub_case(T=1000, log_snr_range=span)[0]
    lay = ref.layout.to_plotly_json()
    lay["sliders"][0].pop("steps"), lay["sliders"][0].pop("active")
    assert lay["xaxis5"]["range"] == [0, 1.02] and lay["yaxis7"]["range"] == list(span)
    for other in (50, 250, 2000):
        fig = scrub_case(T=other, start=3, log_snr_range=span)[0]
        moved = fig.layout.to_plotly_json()
        moved["sliders"][0].pop("steps"), moved["sliders"][0].pop("active")
        assert moved == lay
        assert [tr.type for tr in fig.data] == [tr.type for tr in ref.data]
        for trace, gap in ((5, 1e-3), (4, 0.02)):  # cosine, linear ᾱ against t/T
            on_ref = np.interp(fig.data[trace].x, ref.data[trace].x, ref.data[trace].y)
            assert np.abs(np.array(fig.data[trace].y) - on_ref).max() < gap, (other, trace)
    # without a range the log-SNR axis holds this T's curves (in whole units, one to spare)
    own = scrub_case(T=50)[0].layout.yaxis7.range
    lin50, cos50 = (dif.log_snr(dif.make_schedule(k, 50)) for k in ("linear", "cosine"))
    assert own[0] == np.floor(min(lin50.min(), cos50.min())) - 1
    assert own[1] == np.ceil(max(lin50.max(), cos50.max())) + 1


@pytest.mark.parametrize("name", SAMPLES)
def test_the_scrub_figure_is_sent_in_well_under_the_budget(name):
    size_kb = len(pio.to_json(scrub_case(name)[0], validate=False)) / 1024
    assert size_kb < BUDGET_KB - 25, f"{name}: {size_kb:.0f} KB"


def test_quality_drops_only_where_noise_hides_it():
    assert figs._quality(0.0) == figs.QUALITY_CLEAN
    assert figs._quality(figs.MASKING_STD) == figs.QUALITY_NOISY == figs._quality(1.0)


def test_jpeg_data_uri_keeps_a_clean_image():
    x = sample("shapes")
    assert np.abs(decode(figs.jpeg_data_uri(x, 90)) - images.to_uint8(x)).mean() < 4


def test_pixel_histogram_has_area_one_and_the_layout_ignores_t():
    a, b = pixel_case(200), pixel_case(700)
    bars = a.data[0]
    assert bars.type == "bar" and len(bars.x) == 45
    assert abs(np.sum(np.array(bars.y) * np.array(bars.width)) - 1) < 0.01
    assert [tr.type for tr in a.data[1:]] == ["scatter"] * 4
    assert a.layout == b.layout
    # the vertical lines: the mean √ᾱ x₀ moves with t, x₀ does not
    assert a.data[3].x[0] != b.data[3].x[0] and a.data[4].x[0] == b.data[4].x[0]


def test_pixel_locator_frames_the_pixel():
    fig = figs.pixel_locator_figure(sample("sunset"), (10, 20))
    assert fig.data[0].type == "image" and (fig.data[1].x[0], fig.data[1].y[0]) == (20, 10)


def test_chain_figure_data_and_a_layout_independent_of_t():
    fig = chain_case(50)
    assert [tr.type for tr in fig.data] == ["image"] * 2 + ["scatter"] * 5
    assert list(fig.data[4].x) == list(range(1, 51)) and fig.data[6].x[0] == 50
    assert chain_case(20).layout == fig.layout
    assert (
        max(
            abs(np.array(fig.data[4].y) - np.sqrt(dif.make_schedule("cosine", 200).alpha_bars[:50]))
        )
        < 0.05
    )


def test_frame_updates_carry_data_only():
    """A frame only replaces what changes (the image, the marker positions): small frames."""
    fig = scrub_case()[0]
    spec = json.loads(pio.to_json(fig, validate=False))
    for frame in spec["frames"]:
        assert [set(d) for d in frame["data"]] == [{"type", "source"}] * 2 + [
            {"type", "x", "y"}
        ] * 3


def test_the_scrub_drawn_from_encoded_images_is_the_scrub_it_would_encode():
    """The page passes its cached scrub_images (ui.cache_forward) and no frames."""
    import json

    import plotly.io as pio

    fig, x0, eps, steps, schedules, frames = scrub_case("checker", T=250, start=3)
    bars = tuple(s.alpha_bars for s in schedules)
    encoded = figs.scrub_images(x0, eps, steps, frames[0], frames[1], bars)
    again = figs.scrub_figure(
        x0,
        eps,
        steps,
        None,
        None,
        bars,
        tuple(dif.log_snr(s) for s in schedules),
        3,
        image_titles=("x0", "eps", "lin", "cos"),
        curve_titles=("a", "b", "c"),
        names=("linear", "cosine"),
        x_title="t / T",
        images=encoded,
    )
    as_json = lambda f: json.loads(pio.to_json(f, validate=False))  # noqa: E731
    assert as_json(again) == as_json(fig)
    assert len(encoded.linear) == len(encoded.cosine) == len(steps)
    with pytest.raises(ValueError, match="frames or their images"):
        figs.scrub_figure(
            x0, eps, steps, None, None, bars, bars, 0,
            image_titles=("a", "b", "c", "d"), curve_titles=("a", "b", "c"),
            names=("l", "c"), x_title="t",
        )  # fmt: skip
