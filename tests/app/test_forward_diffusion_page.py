"""The forward-diffusion page, driven through AppTest by widget keys."""

from __future__ import annotations

import io
import json
import math
import re
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from tests.app.conftest import chart_specs, first_at, kept_charts, latex, open_page, url

PAGE = "forward_diffusion.py"
C = "forward_diffusion"


def badges_green(at) -> bool:
    text = latex(at)
    return ":green-badge[" in text and ":red-badge[" not in text


def png(colour: tuple[int, int, int], size: tuple[int, int] = (120, 90)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, "PNG")
    return buf.getvalue()


def bomb(width: int = 50_000, height: int = 50_000) -> bytes:
    """A 70-byte PNG whose header declares width × height pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0"))
        + chunk(b"IEND", b"")
    )


def scrub_spec(at) -> dict:
    return chart_specs(at)[f"{C}_scrub_chart"]


def pixel_value(at) -> float:
    """x₀ at the probed pixel, read from the formula ``\\cdot(0.9922)``."""
    return float(re.search(r"\\cdot\((-?[\d.]+)\)", latex(at)).group(1))


def test_default_view_runs_with_green_badges_and_the_probe():
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert badges_green(at)
    assert at.slider(key=f"{C}_pixel_t").value == 200
    assert "t = 200:\\ \\bar\\alpha_t = 0.6590" in latex(at)  # linear, T = 1000


@pytest.mark.parametrize(
    ("kind", "T", "t"),
    [
        ("linear", "1000", "1"),
        ("linear", "50", "50"),
        ("cosine", "1000", "1000"),
        ("cosine", "250", "100"),
    ],
)
def test_the_chain_matches_the_closed_form_with_green_badges(kind, T, t):
    at = open_page(
        PAGE, {f"{C}_view": "chain", f"{C}_schedule": kind, f"{C}_T": T, f"{C}_chain_t": t}
    )
    assert not at.exception and not at.error
    assert badges_green(at), latex(at)
    assert f"t = {t}:" in latex(at)
    # a kept chart (redrawn in place on a T or t step): both pictures, the line at this t
    chain = kept_charts(at)[f"{C}_chain_chart"]["figure"]["data"]
    assert [d["type"] for d in chain[:2]] == ["image", "image"]
    assert chain[-1]["x"] == [int(t), int(t)]


def test_moving_the_probe_changes_the_numbers_and_the_link():
    at = open_page(PAGE)
    before = latex(at)
    at.slider(key=f"{C}_pixel_t").set_value(600).run()
    assert latex(at) != before and "t = 600:" in latex(at)
    assert url(at)[f"{C}_pixel_t"] == ["600"] or url(at)[f"{C}_pixel_t"] == "600"
    assert badges_green(at)


def test_the_cosine_schedule_keeps_more_of_x0_at_the_same_t():
    at = open_page(PAGE)
    linear = float(re.search(r"\\bar\\alpha_t = ([\d.]+)", latex(at)).group(1))
    at.radio(key=f"{C}_schedule").set_value("cosine").run()
    cosine = float(re.search(r"\\bar\\alpha_t = ([\d.]+)", latex(at)).group(1))
    assert cosine > linear and badges_green(at)


def test_pixel_controls_pick_another_pixel():
    at = open_page(PAGE)
    sun = pixel_value(at)  # the centre of the sunset: the bright sun, red channel
    at.number_input(key=f"{C}_row").set_value(2).run()
    assert pixel_value(at) < sun  # the dark sky at the top
    at.radio(key=f"{C}_channel").set_value("B").run()
    assert badges_green(at)


def test_the_probe_is_clamped_when_T_shrinks():
    at = open_page(PAGE, {f"{C}_pixel_t": "900"})
    at.select_slider(key=f"{C}_T").set_value(100).run()
    assert not at.exception and at.slider(key=f"{C}_pixel_t").value == 100
    assert badges_green(at)


def test_the_scrub_figure_has_its_frames_and_changes_with_T_and_the_seed():
    at = open_page(PAGE)
    spec = scrub_spec(at)
    assert len(spec["frames"]) == 40
    assert spec["layout"]["sliders"][0]["steps"][-1]["label"] == "1000"
    assert len(json.dumps(spec)) < 200 * 1024
    at.number_input(key=f"{C}_seed").set_value(7).run()
    assert scrub_spec(at)["data"][1]["source"] != spec["data"][1]["source"]  # ε follows the seed
    at.select_slider(key=f"{C}_T").set_value(100).run()
    assert scrub_spec(at)["layout"]["sliders"][0]["steps"][-1]["label"] == "100"


def test_every_T_keeps_the_scrubs_skeleton_so_the_browser_moves_it():
    """The curves are drawn against t/T on one log-SNR range for every T offered: a new T
    changes only coordinates, pictures and frames (ui.live moves and swaps them in place)."""
    at = open_page(PAGE)
    first = kept_charts(at)[f"{C}_scrub_chart"]
    assert first["movable"] and first["swappable"]
    lo, hi = first["figure"]["layout"]["yaxis7"]["range"]
    for T in (50, 2000, 250):
        at.select_slider(key=f"{C}_T").set_value(T).run()
        chart = kept_charts(at)[f"{C}_scrub_chart"]
        assert chart["movable"] and chart["skeleton"] == first["skeleton"], T
        # the frames keep their names (their places along t/T); the slider labels the t
        assert [f["name"] for f in chart["frames"]] == [f["name"] for f in first["frames"]]
        assert chart["figure"]["layout"]["sliders"][0]["steps"][-1]["label"] == str(T)
        data = chart["figure"]["data"]
        assert data[4]["x"][-1] == 1 and data[4]["x"][0] == pytest.approx(1 / T)
        for trace in (10, 11):  # every log-SNR curve inside the one range
            assert lo < min(data[trace]["y"]) and max(data[trace]["y"]) < hi


def test_every_T_has_its_frames_at_the_same_places_along_t_over_T():
    """The scrub names frame k by its place ("k/K"), so a new T keeps the student's frame
    by name (ui.live): that is the same place only if frame k sits at the same t/T at every
    T offered (within 0.03: at T = 50 a step is 0.02 of the path, and t starts at 1)."""
    from ui import cache_forward as cf

    places = np.array([cf.frame_steps(T) / T for T in cf.STEPS])
    assert places.shape == (len(cf.STEPS), cf.N_FRAMES)
    assert np.ptp(places, axis=0).max() < 0.03
    assert places[:, -1].tolist() == [1.0] * len(cf.STEPS)


def test_the_chain_slider_gives_the_chain_run_from_x0_at_every_t_it_visits():
    """The chain's t comes from a trace every session shares (ui.cache_forward.chain):
    forward, back and at T, it is the chain of t links from x₀, bit for bit, with the seed's
    noise (core.diffusion.run_chain as the page ran it before the trace)."""
    from core import diffusion as dif
    from core import images
    from ui import cache_forward as cf

    x0 = images.to_signed(cf.sample_image("shapes"))
    for kind, T, seed in (("linear", 250, 3), ("cosine", 100, 0)):
        s = dif.make_schedule(kind, T)
        for t in (60, 61, 7, T, 99, 50):
            got = cf.chain(x0, t, kind, T, seed)
            want = dif.run_chain(x0, t, s, np.random.default_rng([seed, 1]))
            assert np.array_equal(got.x, want.x), (kind, t)
            assert np.array_equal(got.steps, want.steps) and np.array_equal(got.slope, want.slope)


def test_a_shared_link_restores_the_view():
    at = open_page(
        PAGE,
        {
            f"{C}_image": "checker",
            f"{C}_T": "500",
            f"{C}_seed": "3",
            f"{C}_view": "chain",
            f"{C}_chain_t": "37",
        },
    )
    assert at.radio(key=f"{C}_image").value == "checker"
    assert at.select_slider(key=f"{C}_T").value == 500
    assert at.number_input(key=f"{C}_seed").value == 3
    assert at.slider(key=f"{C}_chain_t").value == 37 and "t = 37:" in latex(at)


def test_the_top_row_above_the_scrub_shows_what_it_was_drawn_of():
    """The image, T and the seed are read before the scrub and drawn after it, in their row
    above it (``kit.controls_after_the_chart``), next to the upload box: from a link and after
    a T step, the widgets, the scrub's last frame and the URL agree."""
    at = open_page(PAGE, {f"{C}_image": "checker", f"{C}_T": "500", f"{C}_seed": "3"})
    assert not at.exception and not at.error
    radio, chart = first_at(at.main, "radio"), first_at(at.main, "bidi_component")
    upload = first_at(at.main, "file_uploader")
    assert radio is not None and chart is not None and radio < chart, (radio, chart)
    assert upload is not None and upload[:-2] == radio[:-2]  # one row: the same columns
    assert scrub_spec(at)["layout"]["sliders"][0]["steps"][-1]["label"] == "500"
    at.select_slider(key=f"{C}_T").set_value(2000).run()
    assert not at.exception and not at.error
    assert at.select_slider(key=f"{C}_T").value == 2000 and url(at)[f"{C}_T"] == "2000"
    assert scrub_spec(at)["layout"]["sliders"][0]["steps"][-1]["label"] == "2000"
    assert at.radio(key=f"{C}_image").value == "checker"
    assert at.number_input(key=f"{C}_seed").value == 3


def test_bad_link_parameters_fall_back_with_a_notice():
    at = open_page(
        PAGE, {f"{C}_T": "7", f"{C}_image": "cat", f"{C}_pixel_t": "-4", f"{C}_seed": "x"}
    )
    assert not at.exception and not at.error
    assert at.select_slider(key=f"{C}_T").value == 1000
    assert at.radio(key=f"{C}_image").value == "sunset"
    assert any("reset to their defaults" in c.value for c in at.caption)


def test_an_uploaded_png_becomes_x0():
    at = open_page(PAGE)
    at.file_uploader(key=f"{C}_upload").set_value(("red.png", png((255, 0, 0)), "image/png"))
    at.run()
    assert not at.exception and not at.error
    assert pixel_value(at) == 1.0  # red channel of pure red, scaled to [−1, 1]
    at.radio(key=f"{C}_channel").set_value("G").run()
    assert pixel_value(at) == -1.0 and badges_green(at)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not an image at all" * 20, "not a PNG or JPEG"),
        (bomb(), "decompression bomb"),
        (png((0, 0, 255))[:60], "truncated or damaged"),
    ],
    ids=["garbage", "bomb", "truncated"],
)
def test_a_bad_upload_shows_an_error_and_the_sample_stays(data, message):
    at = open_page(PAGE)
    sample = pixel_value(at)
    at.file_uploader(key=f"{C}_upload").set_value(("photo.png", data, "image/png")).run()
    assert not at.exception
    assert at.error and message in at.error[0].value
    assert pixel_value(at) == sample and badges_green(at)
    at.slider(key=f"{C}_pixel_t").set_value(10).run()  # the page keeps working
    assert "t = 10:" in latex(at)
    at.file_uploader(key=f"{C}_upload").set_value(None).run()
    assert not at.error


# ---- the exercise: ui.exercises.forward_diffusion, checked independently ------------------
def load_maker():
    """The page's exercise maker (``kit.Page(exercise=...)``), in English."""
    from ui import exercises

    return exercises.forward_diffusion


def alpha_bars(kind: str, T: int) -> np.ndarray:
    """ᾱ from the papers' formulas, written out again (linear β scaled by 1000/T)."""
    if kind == "linear":
        betas = np.linspace(1e-4 * 1000 / T, 0.02 * 1000 / T, T)
    else:
        f = np.cos((np.arange(T + 1) / T + 0.008) / 1.008 * math.pi / 2) ** 2
        betas = np.minimum(1 - f[1:] / f[:-1], 0.999)
    return np.cumprod(1 - betas)


@pytest.mark.parametrize("seed", range(12))
def test_exercise_answers_match_an_independent_computation(seed):
    make = load_maker()
    ex = make(np.random.default_rng(seed))
    q = ex.question.replace("−", "-")

    def number(pattern: str) -> float:
        return float(re.search(pattern, q).group(1))

    kind = "cosine" if "cosine" in q else "linear"
    T = int(number(r"T = (\d+)"))
    if "mean of xₜ" in q:
        x0, a, t = number(r"x₀ = (\S+?)\. "), number(r"ᾱₜ = (\S+) at"), int(number(r"at t = (\d+)"))
        assert math.isclose(a, alpha_bars(kind, T)[t - 1], rel_tol=1e-3)
        assert ex.is_right(math.sqrt(a) * x0)
    elif "standard deviation" in q:
        t = int(number(r"at t = (\d+)\?"))
        assert ex.is_right(math.sqrt(1 - alpha_bars(kind, T)[t - 1]))
    else:
        first = int(np.argmax(alpha_bars(kind, T) < 0.5)) + 1
        assert ex.is_right(first) and not ex.is_right(first + 0.2 * T)
    assert ex.explanation and "$" not in ex.question


def test_every_kind_of_exercise_is_drawn():
    make = load_maker()
    questions = [make(np.random.default_rng(s)).question for s in range(40)]
    assert any("mean of xₜ" in q for q in questions)
    assert any("standard deviation" in q for q in questions)
    assert any("drop below 1" in q for q in questions)


def test_the_exercise_box_shows_the_question_of_its_seed():
    at = open_page(PAGE, {f"{C}_ex": "4242"})
    at.session_state[f"{C}_ex_box"] = True
    at.run()
    shown = [m.value for m in at.expander[0].markdown]
    assert load_maker()(np.random.default_rng(4242)).question in shown


def test_the_chain_caption_states_the_computed_false_alarm_rate():
    """Two checks at 4 standard errors: 1 / (1 − (1 − P(|Z| > 4))²) ≈ 7,900 views, not 15,000."""
    at = open_page(PAGE, {"forward_diffusion_view": "chain"})
    captions = " ".join(m.value for m in at.markdown)
    assert "about once in 7,900 views" in captions and "15,000" not in captions
