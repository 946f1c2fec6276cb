"""The reverse-diffusion page, driven through AppTest by widget keys; numbers, not wording.

The exercise is checked here too, against a computation from the numbers in its question
(plain closed forms, not ``core.reverse``).
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from tests.app.conftest import chart_specs, first_at, kept_charts, latex, open_page, url
from tests.figures.validation import dots_of, paths_of
from ui import exercises, i18n, kit

PAGE = "reverse_diffusion.py"
C = "reverse_diffusion"


def ok(at) -> None:
    assert not at.exception and not at.error, (at.exception, at.error)


def number_after(pattern: str, text: str) -> float:
    m = re.search(pattern + r"\s*=?\s*(-?[\d.]+)", text)
    assert m, f"{pattern!r} not in {text[:400]!r}"
    return float(m[1])


def test_default_view_samples_with_both_denoisers_and_every_badge_holds():
    at = open_page(PAGE)
    ok(at)
    text = latex(at)
    assert "t = 1000 \\to t' = 990" in text  # 100 evenly spaced steps from T = 1000
    assert "σ = 0" in text and "|Δ| = 0e+00" in text  # η = 0: formula = the sampler's step
    assert ":red-badge[" not in text and text.count(":green-badge[") == 6
    dw = number_after(r"max \|Δw\|", text)
    assert 0 <= dw <= 0.05
    chart = json.dumps(chart_specs(at)[f"{C}_scrub_chart"])
    assert chart.count('"frames"') == 1 and "exact" in chart and "learned" in chart


@pytest.mark.parametrize("control, value", [("balance", "0.7"), ("components", "5")])
def test_an_untrained_mixture_keeps_the_learned_panel_waiting_and_the_charts_skeleton(
    control, value
):
    """Off the shipped setting the learned panel stays, empty, with a note: the scrub has the
    same skeleton as with the trained panel, so the browser moves it (``ui.live``); without
    the waiting panel the skeletons would differ and every step onto or off the default
    would draw the chart again."""
    trained = open_page(PAGE)
    waiting = open_page(PAGE, {f"{C}_{control}": value})
    ok(waiting)
    assert waiting.button(key=f"{C}_train") is not None
    before, after = (kept_charts(at)[f"{C}_scrub_chart"] for at in (trained, waiting))
    assert after["movable"] and after["skeleton"] == before["skeleton"]
    traces = after["figure"]["data"]
    assert [t["x"] for t in traces[5:8]] == [[None]] * 3  # learned paths, particles, heads
    assert len(traces[2]["x"]) > 0 and None not in traces[2]["x"]  # the exact particles
    note = i18n.strings("en")["reverse_diffusion.learned_waiting"]
    assert traces[9]["text"] == [note] and traces[9]["x"] == [0.0]
    assert traces[8]["x"] == [None] and before["figure"]["data"][9]["x"] == [None]
    assert ":red-badge[" not in latex(waiting)


@pytest.mark.parametrize("view", ["sampling", "field"])
def test_the_data_row_above_the_chart_shows_the_settings_the_chart_was_drawn_of(view):
    """The data row is read before the kept chart and drawn after it, above it
    (``kit.controls_after_the_chart``, whose tests check the order they are sent in): from a
    shared link and after the student's steps, its widgets show the settings the chart was
    drawn of (the helper raises if they do not), and the URL holds them."""
    from core import denoiser as dn
    from core import diffusion as dif
    from core import reverse as rv
    from ui import cache_reverse as cr

    link = {f"{C}_view": view, f"{C}_components": "5", f"{C}_balance": "0.8", f"{C}_seed": "3"}
    at = open_page(PAGE, link)
    ok(at)
    assert at.slider(key=f"{C}_components").value == 5
    assert at.select_slider(key=f"{C}_balance").value == 0.8
    assert at.number_input(key=f"{C}_seed").value == 3
    row, chart = first_at(at.main, "slider"), first_at(at.main, "bidi_component")
    assert row is not None and chart is not None and row < chart, (row, chart)
    at.selectbox(key=f"{C}_layout").set_value("line").run()
    at.number_input(key=f"{C}_seed").set_value(4).run()
    ok(at)
    assert url(at)[f"{C}_layout"] == "line" and url(at)[f"{C}_seed"] == "4"
    spec = dn.TrainSpec(rv.DataSpec("mixture", "line", 5, 0.15, 0.8), seed=4)
    chart = kept_charts(at)[f"{C}_{'scrub' if view == 'sampling' else 'field'}_chart"]
    if view == "sampling":  # the data's dots are the new setting's
        shown = dots_of(chart["figure"]["layout"]["images"][0]["source"])[0]
        assert np.array_equal(shown, np.round(cr.reference_data(spec)[: cr.N_SHOWN], 2))
    else:  # the samples of q(x_t) under the arrows are the new setting's data at t = 100
        ref = cr.reference_data(spec)[: cr.N_SHOWN]
        noise = np.random.default_rng([4, 10]).standard_normal(ref.shape)
        noisy = dif.q_sample(ref, 100, spec.schedule(), noise)
        samples = dots_of(chart["figure"]["layout"]["images"][0]["source"])[0]  # a picture
        assert np.allclose(samples, noisy, atol=0.006)


def test_the_field_shows_the_pictures_of_every_setting_when_they_come_from_the_cache():
    """The field's payload is cached by (data and schedule, t, panels) for every session
    (``kit.chart``'s ``memo``): a revisit draws what a first visit drew, each setting its own
    pictures, and a payload built again after the cache is cleared is the one it kept."""
    from ui import live

    def pictures(query: dict[str, str]) -> list[str]:
        at = open_page(PAGE, {f"{C}_view": "field"} | query)
        ok(at)
        return [
            i["source"] for i in kept_charts(at)[f"{C}_field_chart"]["figure"]["layout"]["images"]
        ]

    settings = [
        {f"{C}_t": "500"},
        {f"{C}_t": "20"},
        {f"{C}_t": "20", f"{C}_balance": "0.7"},  # no trained denoiser: the learned panel waits
        {f"{C}_t": "500"},
    ]
    shown = [pictures(q) for q in settings]
    assert shown[0] == shown[3]
    assert shown[0] != shown[1] and shown[1] != shown[2]
    live._memo_wire.clear()
    assert pictures(settings[1]) == shown[1]


def test_the_field_keeps_its_skeleton_over_t_and_off_the_trained_setting():
    """The field's samples, arrows and contours are pictures (layout images) over gaps of
    scatter traces, and the untrained learned panel waits in place: t and the data settings
    change only the pictures, so the browser swaps them (``ui.live``). The contours are log
    q(x_t)'s at each t: its value on every drawn point is the level, to the 61² grid's
    interpolation error. "Data & export" keeps the figure of traces."""
    from core import denoiser as dn
    from core import reverse as rv
    from figures import reverse as rf

    field = {f"{C}_view": "field"}
    charts = {}
    for extra in ({}, {f"{C}_t": "500"}, {f"{C}_t": "20"}, {f"{C}_balance": "0.7"}):
        at = open_page(PAGE, field | extra)
        ok(at)
        charts[tuple(extra.values())] = kept_charts(at)[f"{C}_field_chart"]
    skeletons = {c["skeleton"] for c in charts.values()}
    assert len(skeletons) == 1 and all(c["movable"] for c in charts.values())
    assert all(t["type"] == "scatter" for c in charts.values() for t in c["figure"]["data"])
    assert all(
        t["x"] == [None] for c in charts.values() for t in c["figure"]["data"] if "text" not in t
    )
    sources = [[i["source"] for i in c["figure"]["layout"]["images"]] for c in charts.values()]
    assert all(a != b for a, b in zip(sources[1], sources[2], strict=True))  # t 500 → 20
    mix, s = dn.TrainSpec().data.mixture(), dn.TrainSpec().schedule()
    images = charts[("20",)]["figure"]["layout"]["images"]
    assert [i["name"] for i in images] == [
        f"{n}{p}" if n == "arrows" else n for p in (0, 1) for n in ("noisy", "arrows", "contours")
    ]
    _, _, pts = rv.grid(-3.0, 3.0, 61)
    top = float(rv.gmm_log_density(pts, 20, s, mix.means, mix.stds, mix.weights).max())
    levels = paths_of(images[2]["source"])
    assert [a["stroke"] for a, _ in levels] == list(rf.CONTOUR_COLOURS)
    for drop, (_, lines) in zip(rf.CONTOUR_DROPS, levels, strict=True):
        log_q = rv.gmm_log_density(np.concatenate(lines), 20, s, mix.means, mix.stds, mix.weights)
        assert np.all(np.abs(log_q - (top - drop)) < 0.3)
    at = open_page(PAGE, field | {f"{C}_t": "20"})
    exported = kit._built(at.session_state[kit._FIGURES])[f"{C}_field_chart"]
    assert len(exported.data) == 2 * (3 + len(rf.CONTOUR_DROPS)) + 2 and not exported.layout.images
    waiting = charts[("0.7",)]["figure"]["data"]
    note = i18n.strings("en")["reverse_diffusion.field_waiting"]
    assert waiting[-1]["text"] == [note] and waiting[-1]["x"] == [0.0]
    assert charts[()]["figure"]["data"][-1]["x"] == [None]


def test_the_learned_panel_runs_its_shown_particles_with_the_full_runs_noise():
    """The learned run samples only the N_SHOWN drawn particles: each must follow the path it
    has in a run of all N_PARTICLES (same start, same noise at every step of DDIM with η=1)."""
    from core import denoiser as dn
    from ui import cache_reverse as cr

    spec = dn.TrainSpec()
    trained = cr.default_denoiser()
    args = (spec, "learned", "ddim", 10, 1.0, "posterior", trained)
    few, full = cr._run(*args, n=cr.N_SHOWN), cr._run(*args)
    assert few.samples.shape == (cr.N_SHOWN, 2) and full.samples.shape == (cr.N_PARTICLES, 2)
    assert np.allclose(few.clouds, full.clouds, atol=1e-5)
    assert np.allclose(few.samples, full.samples[: cr.N_SHOWN], atol=1e-5)
    assert not np.allclose(few.samples, cr._run(*args[:4], 0.0, *args[5:], n=cr.N_SHOWN).samples)


def _scrub_particles(at) -> dict[str, np.ndarray]:
    """Each panel's particles at the scrub's last frame (t = 0), as the browser gets them."""
    traces = kept_charts(at)[f"{C}_scrub_chart"]["figure"]["data"]
    return {
        source: np.array([traces[4 * p + 2]["x"], traces[4 * p + 2]["y"]], float).T
        for p, source in enumerate(("exact", "learned"))
    }


def test_the_scrub_shows_the_run_of_every_setting_when_it_comes_from_the_cache():
    """The scrub's payload is cached by its settings for every session (``kit.chart``'s
    ``memo``): every setting must draw its own runs, in a new session and on a revisit, so a
    setting the memo left out would show another setting's particles."""
    from core import denoiser as dn
    from ui import cache_reverse as cr

    spec, trained = dn.TrainSpec(), cr.default_denoiser()
    settings = [
        {},
        {f"{C}_eta": "0.5"},
        {f"{C}_steps": "10"},
        {f"{C}_sampler": "heun"},
        {f"{C}_sampler": "ddpm"},
        {f"{C}_sampler": "ddpm", f"{C}_variance": "beta"},
        {},
    ]
    seen = []
    for query in settings:
        at = open_page(PAGE, query)
        ok(at)
        sampler = query.get(f"{C}_sampler", "ddim")
        n_steps = int(query.get(f"{C}_steps", cr.DEFAULT_STEPS))
        if sampler == "ddpm":
            n_steps = spec.schedule().num_steps
        args = (sampler, n_steps, float(query.get(f"{C}_eta", 0)), query.get(f"{C}_variance"))
        args = args[:3] + (args[3] or "posterior",)
        shown = _scrub_particles(at)
        want = {
            "exact": cr.exact_run(spec, *args).clouds[-1],
            "learned": cr.learned_run(spec, *args, trained).clouds[-1],
        }
        for source in want:
            assert np.allclose(shown[source], want[source], atol=0.006), (query, source)
        seen.append(shown["exact"])
    assert all(not np.allclose(a, b) for a, b in zip(seen[1:-1], seen[2:-1], strict=False))
    assert np.array_equal(seen[0], seen[-1])


def test_ddpm_scrubs_the_same_t_as_the_samplers_at_the_default_steps():
    """DDPM visits every t, so its scrub takes the frames DDIM, Euler and Heun show at the
    default 100 steps: a student compares the samplers at the same t, and a frame scrubbed
    to stays when they switch. Each frame's particles are the run's at that frame's t."""
    from core import denoiser as dn
    from core import reverse as rv
    from ui import cache_reverse as cr

    def frames(query):
        at = open_page(PAGE, query)
        ok(at)
        return [f["name"] for f in chart_specs(at)[f"{C}_scrub_chart"]["frames"]]

    ddim = frames({})
    ddpm = frames({f"{C}_sampler": "ddpm"})
    heun = frames({f"{C}_sampler": "heun"})
    fewer = frames({f"{C}_steps": "50"})
    assert ddpm == ddim == heun and ddim[0] == "1000" and ddim[-1] == "0"
    assert fewer != ddim  # 50 steps visit other t's: its own frames
    # DDPM's frames show its own run at those t's (run.steps[i] = T − i)
    spec = dn.TrainSpec()
    T = spec.schedule().num_steps
    run = rv.sample(
        cr._start_noise(spec.seed, cr.N_PARTICLES),
        cr.eps_model(spec, "exact", None),
        spec.schedule(),
        "ddpm",
        T,
        cr._FirstRows(np.random.default_rng([spec.seed, 3])),
    )
    summary = cr.exact_run(spec, "ddpm", T, 0.0, "posterior")
    assert summary.frame_steps.tolist() == [int(t) for t in ddpm]
    for k, t in enumerate(summary.frame_steps):
        assert np.array_equal(summary.clouds[k], run.path[T - t, : cr.N_SHOWN])


def test_fewer_steps_jump_further_and_stay_deterministic():
    at = open_page(PAGE)
    at.select_slider(key=f"{C}_steps").set_value(10).run()
    ok(at)
    assert "t = 1000 \\to t' = 900" in latex(at)
    assert url(at)[f"{C}_steps"] == "10"
    assert "|Δ| = 0e+00" in latex(at)


def test_ddim_with_eta_adds_noise_of_the_right_size():
    at = open_page(PAGE, {f"{C}_eta": "1.0", f"{C}_steps": "1000"})
    ok(at)
    text = latex(at)
    # η = 1 with one step per t is DDPM's σ_t² = β̃_t: at t = T, √β̃ ≈ √β_T = √0.02
    sigma = number_after(r"\\sigma", text)
    assert sigma == pytest.approx(math.sqrt(0.02), abs=2e-3)
    assert "|Δ| = 0e+00" not in text  # no determinism badge with noise


@pytest.mark.parametrize(("variance", "sigma"), [("posterior", 0.1414), ("beta", 0.1414)])
def test_ddpm_takes_every_step_with_either_variance(variance, sigma):
    at = open_page(PAGE, {f"{C}_sampler": "ddpm", f"{C}_variance": variance})
    ok(at)
    text = latex(at)
    assert "x_{t-1}" in text and "t = 1000" in text
    assert number_after(r"\\sigma_t", text) == pytest.approx(sigma, abs=1e-4)
    assert ":red-badge[" not in text


def vectors_after(name: str, text: str) -> np.ndarray:
    """The row vector ``(a,\\ b)`` printed after ``name = `` in the formula."""
    m = re.search(re.escape(name) + r" = \((-?[\d.]+),\\ (-?[\d.]+)\)", text)
    assert m, f"{name!r} not in {text[:600]!r}"
    return np.array([float(m[1]), float(m[2])])


@pytest.mark.parametrize(("sampler", "steps"), [("euler", 100), ("heun", 100), ("heun", 1)])
def test_the_ode_samplers_write_their_step_in_y_and_sigma_with_its_numbers(sampler, steps):
    """Euler and Heun show their own step: σ = √((1 − ᾱ)/ᾱ) and y = x/√ᾱ from the schedule's
    ᾱ and the printed x_t; Euler's y_{t'} is y_t + (σ_{t'} − σ_t) ε̂_t of the printed numbers.
    Heun's line shows its second slope and the mean; its one step to t' = 0 is Euler's, said
    in the caption. Every badge holds (Euler's also: it is DDIM's step with η = 0)."""
    from core import denoiser as dn

    at = open_page(PAGE, {f"{C}_sampler": sampler, f"{C}_steps": str(steps)})
    ok(at)
    text = latex(at)
    s = dn.TrainSpec().schedule()
    t_prev = 1000 - 1000 // steps
    assert f"t = 1000 \\to t' = {t_prev}" in text
    a, a_prev = s.alpha_bars[999], (s.alpha_bars[t_prev - 1] if t_prev else 1.0)
    sig, sig_prev = math.sqrt((1 - a) / a), math.sqrt((1 - a_prev) / a_prev)
    assert number_after(r"\\sigma_t", text) == pytest.approx(sig, rel=1e-3)
    assert number_after(r"\\sigma_\{t'\}", text) == pytest.approx(sig_prev, rel=1e-3, abs=1e-9)
    x, eps = vectors_after("x_t", text), vectors_after("\\hat\\varepsilon_t", text)
    y = vectors_after("y_t", text)
    assert np.allclose(y, x / math.sqrt(a), rtol=2e-3, atol=0.01)
    y_prev = vectors_after("y_{t'}", text)
    x_prev = vectors_after("x_{t'} = \\sqrt{\\bar\\alpha_{t'}}\\,y_{t'}", text)
    assert np.allclose(x_prev, math.sqrt(a_prev) * y_prev, atol=5e-3 * math.sqrt(a_prev) + 6e-4)
    heun = sampler == "heun" and t_prev > 0
    assert ("\\hat\\varepsilon' = (" in text) == heun
    caption = i18n.strings("en")[f"{C}.{'heun_caption' if heun else 'heun_last_step'}"]
    assert (caption in text) == (sampler == "heun")
    if heun:  # the second slope's change to Euler's landing, from the run's own x_T
        from core import reverse as rv
        from ui import cache_reverse as cr

        spec = dn.TrainSpec()
        mix = spec.data.mixture()
        model = rv.gmm_eps_model(s, mix.means, mix.stds, mix.weights)
        x_T = cr.exact_run(spec, "heun", steps, 0.0, "posterior").trajectories[:1, 0]
        e = model(x_T, 1000)
        e2 = model(math.sqrt(a_prev) * (x_T / math.sqrt(a) + (sig_prev - sig) * e), t_prev)
        want = (sig_prev - sig) * (e2 - e)[0] / 2
        m = re.search(r"y_\{t'\} - \\tilde y = \(([^,]+),\\ ([^)]+)\)", text)
        got = [float(v.replace(" \\times 10^{", "e").replace("}", "")) for v in m.groups()]
        assert np.allclose(got, want, rtol=0.006, atol=0), (got, want)
    else:  # one straight line of slope ε̂_t, from the printed y_t (2 decimals)
        assert np.allclose(y_prev, y + (sig_prev - sig) * eps, atol=0.01 + 5e-4 * abs(sig))
    strings = i18n.strings("en")
    euler_is_ddim = strings[f"{C}.check_euler_ddim"]
    for check in ("check_step", "check_recombine") + (("check_euler_ddim",) * (sampler == "euler")):
        assert f":green-badge[✓ {strings[f'{C}.{check}']}" in text, check
    assert "formula = the sampler's step — |Δ| = 0e+00" in text  # x_{t'} is the run's own step
    assert steps == 1 or ":red-badge[" not in text  # one step from noise misses the mixture
    assert (euler_is_ddim in text) == (sampler == "euler")


def test_the_field_has_the_exact_score_at_every_t():
    at = open_page(PAGE, {f"{C}_view": "field"})
    ok(at)
    for t in (1, 50, 1000):
        at.slider(key=f"{C}_t").set_value(t).run()
        ok(at)
        text = latex(at)
        assert f"t = {t}," in text
        gap = float(re.search(r"finite differences — \|Δ\| = ([\d.e+-]+)", text)[1])
        assert gap < 1e-5


def test_a_shape_has_no_exact_denoiser_and_offers_training():
    at = open_page(PAGE, {f"{C}_dataset": "moons", f"{C}_seed": "4321"})
    ok(at)
    assert at.button(key=f"{C}_train") is not None
    assert not chart_specs(at)  # nothing to sample with yet


def test_training_view_of_the_defaults_shows_the_shipped_curve_near_the_best_loss():
    at = open_page(PAGE, {f"{C}_view": "training"})
    ok(at)
    text = latex(at)
    last, best = (float(v) for v in re.search(r"— ([\d.]+) / ([\d.]+) =", text).groups())
    assert best <= last <= 1.05 * best
    assert ":red-badge[" not in text


def test_training_a_new_setting_trains_once_and_then_is_cached():
    query = {f"{C}_view": "training", f"{C}_dataset": "circle", f"{C}_seed": "77"}
    at = open_page(PAGE, query)
    ok(at)
    at.button(key=f"{C}_train").click().run()
    ok(at)
    assert "reverse_diffusion_loss_chart" in chart_specs(at), "the loss curve after training"
    assert ":green-badge[✓ the loss falls]" in latex(at)
    again = open_page(PAGE, query)  # another session: the cache has it
    ok(again)
    assert "reverse_diffusion_loss_chart" in chart_specs(again) and latex(again)
    for view in ("sampling", "field", "quality"):  # only the learned denoiser: no exact ε*
        shown = open_page(PAGE, {**query, f"{C}_view": view})
        ok(shown)
        (chart,) = chart_specs(shown).values()
        assert "learned" in latex(shown) and "exact" not in json.dumps(chart)


def test_bad_url_parameters_fall_back_with_a_notice():
    at = open_page(PAGE, {f"{C}_steps": "7", f"{C}_eta": "nan", f"{C}_dataset": "__import__"})
    ok(at)
    assert at.select_slider(key=f"{C}_steps").value == 100
    notice = " ".join(c.value for c in at.caption)
    assert f"{C}_steps" in notice and f"{C}_dataset" in notice


# ---- the exercise, against closed forms read from the question ------------------------------
def nums(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", text.replace("−", "-"))]


def oracle(q: str) -> float:
    a = float(re.search(r"ᾱₜ = (\d+(?:\.\d+)?(?:e-?\d+)?)", q.replace("−", "-"))[1])
    x = float(re.search(r"xₜ = (-?\d+(?:\.\d+)?)", q.replace("−", "-"))[1])
    if "N(" in q:  # x_0 ~ N(μ, σ²): E[ε | x_t] = √(1−ᾱ)(x_t − √ᾱ μ)/(ᾱσ² + 1 − ᾱ)
        mu, s = nums(re.search(r"N\(([^)]*)\)", q)[1])[:2]
        return math.sqrt(1 - a) * (x - math.sqrt(a) * mu) / (a * s * s + 1 - a)
    eps = float(re.search(r"ε̂ = (-?\d+(?:\.\d+)?)", q.replace("−", "-"))[1])
    x0 = (x - math.sqrt(1 - a) * eps) / math.sqrt(a)
    if "DDIM" not in q:
        return x0
    ap = float(re.search(r"ᾱₜ′ = (\d+(?:\.\d+)?(?:e-?\d+)?)", q.replace("−", "-"))[1])
    return math.sqrt(ap) * x0 + math.sqrt(1 - ap) * eps


def test_the_exercise_matches_closed_forms_and_varies(monkeypatch):
    monkeypatch.setattr(i18n, "current_lang", lambda: "en")
    made = [exercises.reverse_diffusion(np.random.default_rng(seed)) for seed in range(60)]
    for ex in made:
        expected = oracle(ex.question)
        assert ex.is_right(expected), (ex.question, ex.answer, expected)
        assert not ex.is_right(expected + 10 * ex.tolerance + 1)
        assert (
            "$" not in ex.question + ex.explanation and "reverse_diffusion.ex_" not in ex.question
        )
    assert len({("DDIM" in ex.question, "N(" in ex.question) for ex in made}) == 3
    assert len({ex.question for ex in made}) >= 50
    assert exercises.reverse_diffusion(np.random.default_rng(3)) == exercises.reverse_diffusion(
        np.random.default_rng(3)
    )


@pytest.mark.parametrize("view", ["field", "quality", "training"])
def test_every_view_of_an_untrained_shape_says_so_without_an_error(view):
    at = open_page(PAGE, {f"{C}_view": view, f"{C}_dataset": "swiss_roll", f"{C}_seed": "9876"})
    ok(at)
    assert at.info, "a notice that the network is not trained yet"


def _notice(at) -> str:
    (info,) = [i.value for i in at.info if "Adam" in i.value]
    return info


def test_the_untrained_notice_names_what_a_press_would_train_and_follows_every_setting():
    """Moving a setting of an untrained spec must show on the page (the notice was one fixed
    sentence, so a step of the training view's controls redrew nothing): the notice names the
    data, target, seed and run a press trains, and says where the button is."""
    query = {f"{C}_view": "training", f"{C}_components": "6", f"{C}_seed": "4321"}
    at = open_page(PAGE, query)
    ok(at)
    text = _notice(at)
    for part in ("6 components", "circle", "σ = 0.15", "ratio 0.6", "seed 4321", "predict ε"):
        assert part in text, (part, text)
    assert "2000 Adam steps of 512 points" in text and "on 4000 points" in text
    assert "press the button" in text and at.button(key=f"{C}_train") is not None
    seen = {text}
    for key, value in (("spread", "0.3"), ("balance", "1"), ("prediction", "v")):
        at = open_page(PAGE, {**query, f"{C}_{key}": value})
        ok(at)
        seen.add(_notice(at))
    assert len(seen) == 4, "every setting changes the notice"
    assert "predict v" in _notice(at)
    shape = {f"{C}_dataset": "moons", f"{C}_seed": "4242", f"{C}_view": "field"}
    at = open_page(PAGE, shape)
    ok(at)
    text = _notice(at)
    assert "Two moons (noise σ = 0.04)" in text and "view “Sampling”" in text
    assert not [b for b in at.button if b.key == f"{C}_train"]  # the field offers no training


def formula_places(at) -> dict[str, str]:
    """Each sampler's formula place (``kit.show_only`` shows the chosen one): its Markdown."""
    places = {}
    for node in at.main:
        key = getattr(node, "key", None) or ""
        if key.startswith(f"{C}_formula_") and hasattr(node, "children"):
            places[key.removeprefix(f"{C}_formula_")] = "\n".join(
                m.value for m in node if getattr(m, "type", "") == "markdown"
            )
    return places


@pytest.mark.parametrize("eta, variance", [("0.5", "beta"), ("0.0", "posterior")])
def test_a_formula_kept_hidden_is_the_one_its_sampler_shows_when_chosen(eta, variance):
    """Every sampler's formula has a place; the chosen one's is shown, and a hidden place
    holds either nothing or exactly what that sampler draws when chosen at these settings —
    never another sampler's steps, η or variance. After each sampler has been chosen once,
    all four are kept; moving the steps keeps DDPM's (it takes every step) and no other's
    stale one. The handout prints the shown formula only."""
    from core import reverse as rv

    q = {f"{C}_steps": "50", f"{C}_eta": eta, f"{C}_variance": variance}
    alone, seen = {}, []
    for smp in rv.SAMPLERS:
        at = open_page(PAGE, q | {f"{C}_sampler": smp})
        ok(at)
        places = formula_places(at)
        assert set(places) == set(rv.SAMPLERS)
        assert places[smp] == latex(at) != ""  # the chosen place is the one shown
        alone[smp] = places[smp]
        seen.append(places)
        printed = list(at.session_state["_kit_formulas"].values())
        assert len(printed) == 1 and f"$$\n{printed[0].latex}\n$$" in latex(at)
    for places in seen:  # each place empty, or its sampler's own at these settings
        assert all(held in ("", alone[other]) for other, held in places.items())
    for smp in rv.SAMPLERS:  # all kept now, each sampler's own
        at = open_page(PAGE, q | {f"{C}_sampler": smp})
        assert formula_places(at) == alone
    moved = open_page(PAGE, q | {f"{C}_sampler": "ddim", f"{C}_steps": "20"})
    places = formula_places(moved)
    assert places["ddpm"] == alone["ddpm"]
    assert "t' = 950" in places["ddim"] and "t' = 950" not in alone["ddim"]
    for smp in ("euler", "heun"):
        assert places[smp] == "" or "t' = 950" in places[smp], smp
