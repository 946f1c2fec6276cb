"""core.reverse: property tests (Hypothesis) and oracles — diffusers' DDPMScheduler and
DDIMScheduler steps, torch.distributions' mixture density and autograd for the score, the
closed-form denoiser and probability-flow map of a single Gaussian, and sampling with the
exact ε* reproducing a mixture's weights, means and spreads.

diffusers counts timesteps from 0: its timestep k is our t = k + 1, and its ᾱ is float32.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from diffusers import DDIMScheduler, DDPMScheduler
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import diffusion as dif
from core import reverse as rv
from core.errors import CoreError

kinds = st.sampled_from(dif.SCHEDULE_KINDS)
coordinate = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


@st.composite
def schedules_and_steps(draw, max_steps: int = 1000):
    """(schedule, t) with t in 1..T."""
    schedule = dif.make_schedule(draw(kinds), draw(st.integers(2, max_steps)))
    return schedule, draw(st.integers(1, schedule.num_steps))


@st.composite
def mixtures(draw, d: int = 2, max_k: int = 4):
    """(means (K, d), stds (K,), weights (K,)) with spreads and weights bounded away from 0."""
    K = draw(st.integers(1, max_k))
    means = draw(arrays(np.float64, (K, d), elements=st.floats(-2, 2)))
    stds = draw(arrays(np.float64, (K,), elements=st.floats(0.05, 1.5)))
    weights = draw(arrays(np.float64, (K,), elements=st.floats(0.05, 1.0)))
    return means, stds, weights


points = arrays(np.float64, (5, 2), elements=coordinate)


def torch_mixture(means, stds, weights, alpha_bar: float):
    """q(x_t) as a torch.distributions mixture: component k is N(√ᾱ μ_k, (ᾱσ_k² + 1 − ᾱ) I)."""
    D = torch.distributions
    mu = torch.as_tensor(means) * math.sqrt(alpha_bar)
    scale = torch.sqrt(alpha_bar * torch.as_tensor(stds) ** 2 + 1 - alpha_bar)
    comp = D.Independent(D.Normal(mu, scale[:, None].expand_as(mu)), 1)
    return D.MixtureSameFamily(D.Categorical(probs=torch.as_tensor(weights)), comp)


# ---- the exact denoiser -----------------------------------------------------------------
@given(schedules_and_steps(), mixtures(), points)
def test_exact_eps_is_minus_the_score_times_root_one_minus_alpha_bar_by_autograd(case, mix, x):
    """Oracle: torch autograd of torch.distributions' log q_t gives the score; Tweedie."""
    s, t = case
    a = float(s.alpha_bars[t - 1])
    post = rv.gmm_posterior(x, t, s, *mix)
    xt = torch.tensor(x, requires_grad=True)
    torch_mixture(*mix, a).log_prob(xt).sum().backward()
    score = xt.grad.numpy()
    assert np.allclose(post.score, score, rtol=1e-6, atol=1e-8)
    assert np.allclose(post.eps, -math.sqrt(1 - a) * score, rtol=1e-6, atol=1e-8)
    # Tweedie: E[x_0 | x_t] = (x_t + (1 − ᾱ) ∇ log q_t(x_t)) / √ᾱ
    assert np.allclose(post.x0, (x + (1 - a) * score) / math.sqrt(a), rtol=1e-6, atol=1e-6)
    assert np.allclose(post.responsibilities.sum(axis=1), 1.0)


@given(st.integers(0, 1000), mixtures(), points)
def test_log_density_matches_torch_distributions(t, mix, x):
    s = dif.make_schedule("linear", 1000)
    a = rv.alpha_bar_at(t, s)
    expected = torch_mixture(*mix, a).log_prob(torch.as_tensor(x)).numpy()
    assert np.allclose(rv.gmm_log_density(x, t, s, *mix), expected, rtol=1e-9, atol=1e-9)


@given(
    schedules_and_steps(),
    arrays(np.float64, (2,), elements=coordinate),
    st.floats(0.0, 2.0),
    points,
)
def test_one_gaussian_has_the_closed_form_denoiser(case, mu, sigma, x):
    """x_0 ~ N(μ, σ²I): E[ε | x_t] = √(1−ᾱ)(x_t − √ᾱ μ)/(ᾱσ² + 1 − ᾱ), linear in x_t."""
    s, t = case
    a = float(s.alpha_bars[t - 1])
    expected = math.sqrt(1 - a) * (x - math.sqrt(a) * mu) / (a * sigma**2 + 1 - a)
    got = rv.gmm_eps(x, t, s, mu[None], [sigma], [1.0])
    assert np.allclose(got, expected, rtol=1e-9, atol=1e-12)


@given(
    schedules_and_steps(), mixtures(), points, st.randoms(use_true_random=False), st.floats(0.1, 10)
)
def test_the_denoiser_ignores_component_order_and_weight_scale(case, mix, x, random, c):
    s, t = case
    means, stds, weights = mix
    order = list(range(len(weights)))
    random.shuffle(order)
    a = rv.gmm_posterior(x, t, s, means, stds, weights)
    b = rv.gmm_posterior(x, t, s, means[order], stds[order], c * weights[order])
    assert np.allclose(a.eps, b.eps, rtol=1e-9, atol=1e-12)
    assert np.allclose(a.responsibilities[:, order], b.responsibilities)


@given(schedules_and_steps(), mixtures(), points)
def test_denoised_x0_and_eps_recombine_into_x_t(case, mix, x):
    """E[x_t | x_t] = x_t: √ᾱ E[x_0 | x_t] + √(1−ᾱ) E[ε | x_t] = x_t."""
    s, t = case
    a = float(s.alpha_bars[t - 1])
    post = rv.gmm_posterior(x, t, s, *mix)
    assert np.allclose(math.sqrt(a) * post.x0 + math.sqrt(1 - a) * post.eps, x, atol=1e-9)


@given(
    schedules_and_steps(),
    mixtures(max_k=8),
    arrays(np.float64, (7, 2), elements=st.floats(-40, 40)),
    st.lists(st.booleans(), min_size=8, max_size=8),
)
def test_the_samplers_fast_eps_is_the_posteriors_eps(case, mix, x, drop):
    """gmm_eps (expanded squares, components first: what the samplers call every step) is
    gmm_posterior's E[ε | x_t], also with some weights 0 and points far from every mean."""
    s, t = case
    means, stds, weights = mix
    weights = np.where(drop[: len(weights)], 0.0, weights)
    weights[0] = max(weights[0], 0.05)
    fast = rv.gmm_eps(x, t, s, means, stds, weights)
    assert np.allclose(fast, rv.gmm_posterior(x, t, s, means, stds, weights).eps, atol=1e-7)


def test_far_away_points_keep_finite_weights():
    s = dif.make_schedule("linear", 1000)
    post = rv.gmm_posterior([[400.0, -300.0]], 1, s, [[0, 0], [1, 1]], [0.05, 0.05], [1, 1])
    assert np.all(np.isfinite(post.eps)) and np.isclose(post.responsibilities.sum(), 1)


def test_monte_carlo_the_exact_eps_is_the_conditional_mean():
    """E[ε − ε*(x_t)] = 0 and ε − ε* is uncorrelated with ε*(x_t) (a conditional mean)."""
    s = dif.make_schedule("cosine", 100)
    means, stds, weights = np.array([[1.0, 0.0], [-1.0, 0.5]]), np.array([0.2, 0.4]), [0.3, 0.7]
    rng = np.random.default_rng(0)
    n, t = 200_000, 40
    x0, _ = rv.gmm_sample(n, means, stds, weights, rng)
    eps = rng.standard_normal((n, 2))
    residual = eps - rv.gmm_eps(dif.q_sample(x0, t, s, eps), t, s, means, stds, weights)
    se = residual.std(axis=0) / math.sqrt(n)
    assert np.all(np.abs(residual.mean(axis=0)) < 5 * se)
    star = eps - residual
    cross = residual * star
    assert np.all(np.abs(cross.mean(axis=0)) < 5 * cross.std(axis=0) / math.sqrt(n))


# ---- conversions between ε, x_0, v and the score ----------------------------------------
@given(
    schedules_and_steps(),
    st.sampled_from(rv.PREDICTIONS),
    st.sampled_from(rv.PREDICTIONS),
    points,
    points,
)
def test_every_conversion_agrees_with_the_definitions(case, source, target, x0, eps):
    s, t = case
    a = float(s.alpha_bars[t - 1])
    x_t = math.sqrt(a) * x0 + math.sqrt(1 - a) * eps
    truth = {
        "eps": eps,
        "x0": x0,
        "v": math.sqrt(a) * eps - math.sqrt(1 - a) * x0,
        "score": -eps / math.sqrt(1 - a),
    }
    got = rv.convert(x_t, t, truth[source], source, target, s)
    scale = 1 + np.abs(truth[target]).max()
    tol = 1e-9 / math.sqrt(a) / math.sqrt(1 - a)  # dividing by √ᾱ or √(1−ᾱ) costs digits
    assert np.allclose(got, truth[target], rtol=0, atol=tol * scale * 10)


@pytest.mark.parametrize("t", [1, 10, 500, 1000])
def test_v_matches_diffusers_get_velocity(t):
    s = dif.make_schedule("linear", 1000)
    sched = DDPMScheduler(num_train_timesteps=1000, trained_betas=s.betas.tolist())
    rng = np.random.default_rng(t)
    x0, eps = rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    velocity = sched.get_velocity(torch.tensor(x0), torch.tensor(eps), torch.tensor([t - 1]))
    x_t = dif.q_sample(x0, t, s, eps)
    ours = rv.convert(x_t, t, eps, "eps", "v", s)
    assert np.allclose(ours, velocity.numpy(), rtol=1e-5, atol=1e-6)


@given(schedules_and_steps(), st.sampled_from(rv.PREDICTIONS), points, points, points)
def test_loss_weights_turn_each_error_into_the_x0_error(case, prediction, x0, eps, x0_hat):
    """At fixed x_t, ‖Δ prediction‖² = w_t ‖Δx_0‖² for every coordinate system."""
    s, t = case
    x_t = dif.q_sample(x0, t, s, eps)
    exact = rv.convert(x_t, t, x0, "x0", prediction, s)
    guess = rv.convert(x_t, t, x0_hat, "x0", prediction, s)
    w = rv.x0_loss_weights(s, prediction)[t - 1]
    lhs, rhs = np.sum((exact - guess) ** 2), w * np.sum((x0 - x0_hat) ** 2)
    assert math.isclose(lhs, rhs, rel_tol=1e-6, abs_tol=1e-9 * (1 + w))


def test_eps_cannot_give_x0_where_alpha_bar_is_zero_but_v_can():
    from core.snr_schedules import rescale_zero_terminal_snr

    s = rescale_zero_terminal_snr(dif.make_schedule("linear", 50))
    x = np.array([[0.3, -0.2]])
    with pytest.raises(CoreError) as err:
        rv.to_x0(x, 50, x, "eps", s)
    assert err.value.code == "reverse_zero_alpha_bar"
    assert np.allclose(rv.to_x0(x, 50, np.array([[1.0, 2.0]]), "v", s), [[-1.0, -2.0]])


# ---- DDPM and DDIM against diffusers ------------------------------------------------------
@pytest.mark.parametrize("kind", ["linear", "cosine"])
@pytest.mark.parametrize("t", [1, 2, 37, 500, 1000])
@pytest.mark.parametrize(
    ("variance", "variance_type"), [("posterior", "fixed_small"), ("beta", "fixed_large")]
)
def test_ddpm_step_matches_diffusers(kind, t, variance, variance_type):
    s = dif.make_schedule(kind, 1000)
    sched = DDPMScheduler(
        num_train_timesteps=1000,
        trained_betas=s.betas.tolist(),
        variance_type=variance_type,
        clip_sample=False,
    )
    rng = np.random.default_rng(t)
    x, eps = rng.standard_normal((6, 2)), rng.standard_normal((6, 2))
    out = sched.step(
        torch.tensor(eps), t - 1, torch.tensor(x), generator=torch.Generator().manual_seed(t)
    ).prev_sample
    z = torch.randn((6, 2), generator=torch.Generator().manual_seed(t), dtype=torch.float64)
    ours = rv.ddpm_step(x, t, eps, s, z.numpy(), variance)
    assert np.allclose(ours, out.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("T", "n_inference"), [(1000, 50), (1000, 1000), (100, 4), (100, 1)])
@pytest.mark.parametrize("eta", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("prediction", ["eps", "x0", "v"])
def test_ddim_step_matches_diffusers(T, n_inference, eta, prediction):
    """diffusers steps from its k to k − T/n; our t = k + 1 → t_prev = k − T/n + 1 (0: data)."""
    s = dif.make_schedule("cosine", T)
    prediction_type = {"eps": "epsilon", "x0": "sample", "v": "v_prediction"}[prediction]
    sched = DDIMScheduler(
        num_train_timesteps=T,
        trained_betas=s.betas.tolist(),
        clip_sample=False,
        set_alpha_to_one=True,
        prediction_type=prediction_type,
    )
    sched.set_timesteps(n_inference)
    rng = np.random.default_rng(T + n_inference)
    gap = T // n_inference
    ks = [k for k in sched.timesteps.tolist()[:: max(1, n_inference // 5)] if k >= gap]
    for k in [*ks, gap - 1]:  # k − gap = −1: diffusers' "ᾱ = 1", our t_prev = 0
        t, t_prev = k + 1, k - gap + 1
        x, out, z = (rng.standard_normal((5, 2)) for _ in range(3))
        theirs = sched.step(
            torch.tensor(out), k, torch.tensor(x), eta=eta, variance_noise=torch.tensor(z)
        ).prev_sample.numpy()
        eps = rv.to_eps(x, t, out, prediction, s)
        x0 = None if prediction == "eps" else rv.to_x0(x, t, out, prediction, s)
        ours = rv.ddim_step(x, t, t_prev, eps, s, eta, z, x0=x0)
        assert np.allclose(ours, theirs, rtol=1e-4, atol=1e-4), (k, t, t_prev)


@given(schedules_and_steps(), points, points, points)
def test_ddim_with_eta_one_and_one_step_is_ddpm(case, x, eps, z):
    s, t = case
    assert np.allclose(
        rv.ddim_step(x, t, t - 1, eps, s, 1.0, z),
        rv.ddpm_step(x, t, eps, s, z),
        rtol=1e-9,
        atol=1e-9,
    )


@given(schedules_and_steps(), points, points)
def test_ddim_to_step_zero_returns_the_x0_prediction(case, x, eps):
    s, t = case
    got = rv.ddim_step(x, t, 0, eps, s, eta=1.0, noise=np.zeros_like(x))
    assert np.allclose(got, rv.to_x0(x, t, eps, "eps", s), rtol=1e-12, atol=1e-12)


@given(schedules_and_steps(), points, points)
def test_ddpm_at_t_one_is_noise_free_and_lands_on_x0_hat(case, x, eps):
    s, _ = case
    hat = rv.to_x0(x, 1, eps, "eps", s)
    for variance in ("posterior", "beta"):
        got = rv.ddpm_step(x, 1, eps, s, np.full_like(x, 7.0), variance)
        assert np.allclose(got, hat, rtol=1e-9, atol=1e-9)


# ---- the probability-flow ODE -------------------------------------------------------------
@given(schedules_and_steps(), st.data(), mixtures(), points)
def test_ode_euler_is_ddim_with_eta_zero(case, data, mix, x):
    s, t = case
    t_prev = data.draw(st.integers(0, t - 1))
    model = rv.gmm_eps_model(s, *mix)
    euler = rv.ode_step(x, t, t_prev, model, s, "euler")
    ddim = rv.ddim_step(x, t, t_prev, model(x, t), s)
    scale = (1 + np.abs(x).max()) / math.sqrt(s.alpha_bars[t - 1])  # x/√ᾱ: digits lost
    assert np.allclose(euler, ddim, rtol=1e-9, atol=1e-14 * scale)


@given(schedules_and_steps(), st.data(), mixtures(), points, st.sampled_from(["euler", "heun"]))
def test_ode_numbers_are_karras_algorithm_1_in_sigma_with_a_denoiser(case, data, mix, x, method):
    """Karras et al. 2022, Algorithm 1, as k-diffusion writes it: the state is y = x/√ᾱ, the
    network a denoiser D(y; σ) = x̂₀ and the slope d = (y − D)/σ, rebuilt here from ε̂ by
    x̂₀ = (x − √(1−ᾱ) ε̂)/√ᾱ only. The numbers on the way are that algorithm's, and their end
    is the step the sampler takes."""
    s, t = case
    t_prev = data.draw(st.integers(0, t - 1))
    model = rv.gmm_eps_model(s, *mix)
    a, a_prev = s.alpha_bars[t - 1], (s.alpha_bars[t_prev - 1] if t_prev else 1.0)

    def denoise(y: np.ndarray, a: float, step: int) -> np.ndarray:
        x = math.sqrt(a) * y
        return (x - math.sqrt(1 - a) * model(x, step)) / math.sqrt(a)

    sig, sig_prev = math.sqrt((1 - a) / a), math.sqrt((1 - a_prev) / a_prev)
    y = x / math.sqrt(a)
    d = (y - denoise(y, a, t)) / sig
    y_euler = y + (sig_prev - sig) * d
    y_next = y_euler
    if method == "heun" and sig_prev > 0:
        d_prev = (y_euler - denoise(y_euler, a_prev, t_prev)) / sig_prev
        y_next = y + (sig_prev - sig) * (d + d_prev) / 2
    n = rv.ode_numbers(x, t, t_prev, model, s, method)
    scale = (1 + np.abs(x).max()) / math.sqrt(a)  # x/√ᾱ: digits lost in y
    close = dict(rtol=1e-7, atol=1e-12 * scale)
    assert (n.sigma, n.sigma_prev) == pytest.approx((sig, sig_prev), rel=1e-12)
    assert np.allclose(n.y, y, **close) and np.allclose(n.y_euler, y_euler, **close)
    assert np.allclose(n.y_prev, y_next, **close)
    assert (n.eps_prev is None) == (method == "euler" or t_prev == 0)
    assert np.allclose(n.x_prev, math.sqrt(a_prev) * y_next, **close)
    assert np.array_equal(n.x_prev, rv.ode_step(x, t, t_prev, model, s, method))


def gaussian_flow(x: np.ndarray, a: float, a_prev: float, mu: np.ndarray, sigma: float):
    """The exact probability-flow map of x_0 ~ N(μ, σ²I) from ᾱ to ᾱ_prev: it keeps the
    standardised point, x_prev = √ᾱ_prev μ + √(v_prev/v)(x − √ᾱ μ), v = ᾱσ² + 1 − ᾱ."""
    v, v_prev = a * sigma**2 + 1 - a, a_prev * sigma**2 + 1 - a_prev
    return math.sqrt(a_prev) * mu + math.sqrt(v_prev / v) * (x - math.sqrt(a) * mu)


def test_ode_local_errors_shrink_as_h_squared_for_euler_and_h_cubed_for_heun():
    """One step toward a Gaussian's exact flow: halving the step divides Euler's error by ≈ 4
    and Heun's by ≈ 8 (orders 1 and 2)."""
    s = dif.make_schedule("linear", 4000)
    mu, sigma = np.array([0.6, -0.4]), 0.3
    model = rv.gmm_eps_model(s, mu[None], [sigma], [1.0])
    x = np.random.default_rng(0).standard_normal((20, 2))
    t = 2000
    errors = {"euler": [], "heun": []}
    for h in (80, 40, 20, 10):
        exact = gaussian_flow(x, s.alpha_bars[t - 1], s.alpha_bars[t - h - 1], mu, sigma)
        for method in errors:
            got = rv.ode_step(x, t, t - h, model, s, method)  # type: ignore[arg-type]
            errors[method].append(np.abs(got - exact).max())
    euler, heun = np.array(errors["euler"]), np.array(errors["heun"])
    assert np.all((euler[:-1] / euler[1:] > 3.8) & (euler[:-1] / euler[1:] < 4.4))
    assert np.all((heun[:-1] / heun[1:] > 7.6) & (heun[:-1] / heun[1:] < 8.8))
    assert np.all(heun < euler)


def test_many_ode_steps_reach_the_closed_form_transport_of_a_gaussian():
    s = dif.make_schedule("cosine", 1000)
    mu, sigma = np.array([0.5, -0.3]), 0.2
    model = rv.gmm_eps_model(s, mu[None], [sigma], [1.0])
    x_T = np.random.default_rng(1).standard_normal((200, 2))
    exact = gaussian_flow(x_T, s.alpha_bars[-1], 1.0, mu, sigma)
    errors = [
        np.abs(rv.sample(x_T, model, s, m, n).path[-1] - exact).max()
        for m, n in (("euler", 100), ("heun", 100), ("euler", 1000))
    ]
    assert errors[2] < 0.01 and errors[1] < errors[0]


# ---- whole samplers with the exact ε* ---------------------------------------------------
MIX = (
    np.array([[-1.0, 0.0], [1.0, 0.5], [0.0, -1.2]]),
    np.array([0.12, 0.2, 0.15]),
    np.array([0.55, 0.3, 0.15]),
)


@pytest.mark.parametrize(
    ("sampler", "n_steps", "eta"),
    [("ddpm", 400, 0.0), ("ddim", 400, 1.0), ("ddim", 100, 0.0), ("heun", 60, 0.0)],
)
def test_sampling_with_the_exact_eps_reproduces_the_mixture(sampler, n_steps, eta):
    s = dif.make_schedule("linear", 400)
    rng = np.random.default_rng(0)
    n = 4000
    run = rv.sample(
        rng.standard_normal((n, 2)), rv.gmm_eps_model(s, *MIX), s, sampler, n_steps, rng, eta=eta
    )
    assert run.path.shape == (n_steps + 1, n, 2) and run.steps[0] == 400 and run.steps[-1] == 0
    fit = rv.mixture_fit(run.path[-1], *MIX)
    se = np.sqrt(MIX[2] * (1 - MIX[2]) / n)
    assert np.all(np.abs(fit.weights - MIX[2]) < 5 * se + 0.01)
    assert np.all(np.abs(fit.means - MIX[0]) < 0.03)
    tolerance = 0.1 if sampler in ("ddpm", "ddim") and eta == 1 else 0.2  # few ODE steps shrink
    assert np.all(np.abs(fit.stds / MIX[1] - 1) < tolerance)


def test_ddpm_with_the_exact_eps_gives_a_gaussian_its_mean_and_variance():
    s = dif.make_schedule("cosine", 200)
    mu, sigma = np.array([0.4, -0.7]), 0.5
    rng = np.random.default_rng(3)
    n = 20_000
    run = rv.sample(
        rng.standard_normal((n, 2)),
        rv.gmm_eps_model(s, mu[None], [sigma], [1.0]),
        s,
        "ddpm",
        200,
        rng,
    )
    x = run.path[-1]
    assert np.all(np.abs(x.mean(axis=0) - mu) < 5 * sigma / math.sqrt(n))
    assert np.all(np.abs(x.var(axis=0) / sigma**2 - 1) < 0.05)


@pytest.mark.parametrize(("sampler", "eta"), [("ddpm", 0.0), ("ddim", 0.0), ("ddim", 0.6)])
@pytest.mark.parametrize("variance", ["posterior", "beta"])
def test_a_run_is_the_public_steps_one_after_another(sampler, eta, variance):
    """sample checks its inputs once and then takes unchecked steps: each step equals, to the
    last bit, ddpm_step or ddim_step (the functions tested against diffusers) with the same
    ε̂ and noise; keep_path=False keeps x_T and the same samples."""
    s = dif.make_schedule("cosine", 60)
    model = rv.gmm_eps_model(s, *MIX)
    x_T = np.random.default_rng(1).standard_normal((50, 2))
    n = 60 if sampler == "ddpm" else 12
    run = rv.sample(x_T, model, s, sampler, n, np.random.default_rng(2), eta=eta, variance=variance)
    noise = np.random.default_rng(2)  # the run's draws, in its order
    noisy = sampler == "ddpm" or eta > 0
    for i, (t, t_prev) in enumerate(zip(run.steps[:-1], run.steps[1:], strict=True)):
        x, eps = run.path[i], model(run.path[i], int(t))
        z = noise.standard_normal(x.shape) if noisy else None
        if sampler == "ddpm":
            expected = rv.ddpm_step(x, int(t), eps, s, z, variance)
        else:
            expected = rv.ddim_step(x, int(t), int(t_prev), eps, s, eta, z)
        assert np.array_equal(run.path[i + 1], expected)
    short = rv.sample(
        x_T,
        model,
        s,
        sampler,
        n,
        np.random.default_rng(2),
        eta=eta,
        variance=variance,
        keep_path=False,
    )
    assert short.path.shape == (2, 50, 2) and np.array_equal(short.path[0], x_T)
    assert np.array_equal(short.path[-1], run.path[-1]) and short.evaluations == run.evaluations


@pytest.mark.parametrize(
    ("bad", "code"),
    [(lambda x: np.full_like(x, np.nan), "not_finite"), (lambda x: x[:, :1], "reverse_shapes")],
)
@pytest.mark.parametrize("sampler", rv.SAMPLERS)
def test_a_model_that_returns_bad_values_stops_the_run_with_a_clear_error(bad, code, sampler):
    s = dif.make_schedule("linear", 10)
    with pytest.raises(CoreError) as err:
        rv.sample(np.zeros((3, 2)), lambda x, t: bad(x), s, sampler, 10, np.random.default_rng(0))
    assert err.value.code == code


def test_evaluations_count_network_calls():
    s = dif.make_schedule("linear", 100)
    calls = []

    def model(x, t):
        calls.append(t)
        return np.zeros_like(x)

    x = np.zeros((3, 2))
    for sampler, n, expected in (("ddim", 10, 10), ("euler", 10, 10), ("heun", 10, 19)):
        calls.clear()
        assert rv.sample(x, model, s, sampler, n).evaluations == len(calls) == expected


# ---- steps, distances, errors -----------------------------------------------------------
@given(st.integers(1, 3000), st.data())
def test_sampling_steps_run_from_T_to_zero(T, data):
    n = data.draw(st.integers(1, T))
    steps = rv.sampling_steps(T, n)
    assert steps[0] == T and steps[-1] == 0 and len(steps) == n + 1
    assert np.all(np.diff(steps) < 0)


@given(
    arrays(np.float64, st.integers(1, 30), elements=coordinate),
    arrays(np.float64, st.integers(1, 30), elements=coordinate),
)
def test_w1_is_the_area_between_the_two_distribution_functions(a, b):
    """Oracle: ∫|F_a − F_b| by brute force on a fine grid; equal sizes: mean |sort a − sort b|."""
    got = float(rv.wasserstein_1d(a, b))
    grid = np.linspace(-3.0, 3.0, 600_001)
    F_a = np.searchsorted(np.sort(a), grid, side="right") / len(a)
    F_b = np.searchsorted(np.sort(b), grid, side="right") / len(b)
    assert math.isclose(got, np.sum(np.abs(F_a - F_b)) * (grid[1] - grid[0]), abs_tol=2e-4)
    if len(a) == len(b):
        assert math.isclose(got, np.mean(np.abs(np.sort(a) - np.sort(b))), abs_tol=1e-9)


@given(
    st.lists(
        arrays(np.float64, st.tuples(st.integers(1, 25), st.just(2)), elements=coordinate),
        min_size=1,
        max_size=4,
    ),
    arrays(np.float64, st.tuples(st.integers(1, 40), st.just(2)), elements=coordinate),
)
def test_distances_to_one_data_set_at_once_are_each_distance(clouds, data):
    """The quality curves sort the data's projections once: the same numbers as one by one,
    and as W₁ of each direction's projections computed apart (brute-force sorted CDFs)."""
    each = rv.sliced_wasserstein_each(clouds, data, 16)
    assert each.shape == (len(clouds),)
    theta = rv.directions(16)
    for got, cloud in zip(each, clouds, strict=True):
        assert math.isclose(got, rv.sliced_wasserstein(cloud, data, 16), abs_tol=1e-12)
        brute = np.mean([_w1_by_cdfs(cloud @ th, data @ th) for th in theta])
        assert math.isclose(got, brute, rel_tol=1e-9, abs_tol=1e-12)


def _w1_by_cdfs(a: np.ndarray, b: np.ndarray) -> float:
    """∫|F_a − F_b| between the pooled sorted values, counting with searchsorted."""
    pooled = np.sort(np.concatenate([a, b]))
    F_a = np.searchsorted(np.sort(a), pooled[:-1], side="right") / len(a)
    F_b = np.searchsorted(np.sort(b), pooled[:-1], side="right") / len(b)
    return float(np.sum(np.abs(F_a - F_b) * np.diff(pooled)))


@given(arrays(np.float64, (20, 2), elements=coordinate), st.floats(-2, 2), st.floats(-2, 2))
def test_sliced_distance_of_a_shifted_cloud_is_the_mean_projected_shift(x, cx, cy):
    P = 90
    got = rv.sliced_wasserstein(x, x + [cx, cy], P)
    angles = np.arange(P) * 180.0 / P  # degrees, computed apart from rv.directions
    expected = np.mean(np.abs(cx * np.cos(np.radians(angles)) + cy * np.sin(np.radians(angles))))
    assert math.isclose(got, expected, abs_tol=1e-9)
    assert rv.sliced_wasserstein(x, x) == 0.0


def test_mixture_fit_of_the_data_itself_recovers_the_mixture():
    x, _ = rv.gmm_sample(20_000, *MIX, np.random.default_rng(0))
    fit = rv.mixture_fit(x, *MIX)
    assert np.allclose(fit.weights, MIX[2], atol=0.01)
    assert np.allclose(fit.means, MIX[0], atol=0.01)
    assert np.allclose(fit.stds, MIX[1], rtol=0.03)


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda s: rv.ddim_step(np.zeros((1, 2)), 5, 5, np.zeros((1, 2)), s), "out_of_range"),
        (lambda s: rv.ddim_step(np.zeros((1, 2)), 5, 2, np.zeros((1, 3)), s), "reverse_shapes"),
        (
            lambda s: rv.ddim_step(np.zeros((1, 2)), 5, 2, np.zeros((1, 2)), s, 1.0),
            "reverse_needs_noise",
        ),
        (
            lambda s: rv.ddim_step(
                np.zeros((1, 2)), 5, 2, np.zeros((1, 2)), s, 9.0, np.zeros((1, 2))
            ),
            "reverse_eta_too_large",
        ),
        (
            lambda s: rv.ddpm_step(np.zeros((1, 2)), 11, np.zeros((1, 2)), s, np.zeros((1, 2))),
            "out_of_range",
        ),
        (
            lambda s: rv.gmm_eps(np.zeros((1, 2)), 3, s, [[0, 0]], [0.1, 0.2], [1]),
            "reverse_mixture_shapes",
        ),
        (
            lambda s: rv.gmm_eps(np.zeros((1, 2)), 3, s, [[0, 0]], [0.1], [-1]),
            "reverse_mixture_signs",
        ),
        (lambda s: rv.gmm_eps(np.zeros((1, 3)), 3, s, [[0, 0]], [0.1], [1]), "reverse_dimension"),
        (lambda s: rv.sample(np.zeros((1, 2)), lambda x, t: x, s, "ddpm", 5), "reverse_ddpm_steps"),
        (lambda s: rv.sample(np.zeros((1, 2)), lambda x, t: x, s, "ddpm", 10), "reverse_needs_rng"),
        (lambda s: rv.sliced_wasserstein(np.zeros((2, 3)), np.zeros((2, 3))), "reverse_not_2d"),
    ],
)
def test_bad_arguments_raise_core_errors_with_codes(call, code):
    with pytest.raises(CoreError) as err:
        call(dif.make_schedule("linear", 10))
    assert err.value.code == code


# ---- the v rotation and the lowest possible loss ----------------------------------------
@given(schedules_and_steps(), points, points)
def test_x_t_and_v_are_x0_and_eps_turned_by_phi(case, x0, eps):
    s, t = case
    phi = rv.v_angle(s.alpha_bars[t - 1])
    x_t = dif.q_sample(x0, t, s, eps)
    assert np.allclose(x_t, math.cos(phi) * x0 + math.sin(phi) * eps, atol=1e-12)
    v = rv.convert(x_t, t, eps, "eps", "v", s)
    assert np.allclose(v, math.cos(phi) * eps - math.sin(phi) * x0, atol=1e-6)
    assert np.allclose(x_t**2 + v**2, x0**2 + eps**2, atol=1e-5)  # a rotation keeps lengths


@pytest.mark.parametrize("prediction", ["eps", "x0"])
def test_minimum_loss_of_one_gaussian_is_its_posterior_variance(prediction):
    """x_0 ~ N(μ, σ²I): Var[ε | x_t] = ᾱσ²/(ᾱσ² + 1 − ᾱ), Var[x_0 | x_t] = σ²(1 − ᾱ)/(…),
    averaged over t uniform on 1..T (closed form) against the Monte Carlo estimate."""
    s = dif.make_schedule("cosine", 50)
    sigma = 0.4
    a = s.alpha_bars
    var = a * sigma**2 / (a * sigma**2 + 1 - a)
    if prediction == "x0":
        var = sigma**2 * (1 - a) / (a * sigma**2 + 1 - a)
    got = rv.minimum_loss(
        [[0.3, -0.2]], [sigma], [1.0], s, prediction, 200_000, np.random.default_rng(0)
    )
    assert math.isclose(got, var.mean(), rel_tol=0.02)


# ---- σ_t of DDPM and the pooled spread -------------------------------------------------------
@pytest.mark.parametrize("kind", ["linear", "cosine"])
@pytest.mark.parametrize(
    ("variance", "variance_type"), [("posterior", "fixed_small"), ("beta", "fixed_large")]
)
def test_ddpm_sigma_matches_diffusers_variance(kind, variance, variance_type):
    """diffusers' ``_get_variance(k)`` is σ² of its step k → k − 1 (our t = k + 1), but for
    k = 0 it is not used (no noise at the last step) and ``fixed_small`` clips it at 1e-20."""
    s = dif.make_schedule(kind, 1000)
    sched = DDPMScheduler(
        num_train_timesteps=1000, trained_betas=s.betas.tolist(), variance_type=variance_type
    )
    for t in (2, 3, 50, 999, 1000):
        theirs = float(sched._get_variance(t - 1))
        assert math.isclose(rv.ddpm_sigma(t, s, variance) ** 2, theirs, rel_tol=1e-3), t  # float32
    assert rv.ddpm_sigma(1, s, variance) == 0.0


@given(schedules_and_steps())
def test_ddpm_posterior_sigma_is_at_most_root_beta(case):
    s, t = case
    assert 0.0 <= rv.ddpm_sigma(t, s) <= rv.ddpm_sigma(t, s, "beta") * (1 + 1e-12) + (t == 1)


@given(arrays(np.float64, (4,), elements=st.floats(0.05, 1.0)), st.floats(0.01, 3.0))
def test_pooled_std_of_equal_spreads_is_that_spread(weights, sd):
    assert math.isclose(rv.pooled_std(weights, np.full(4, sd)), sd, rel_tol=1e-12)
    assert math.isclose(rv.pooled_std(weights, [sd, np.nan, sd, sd]), sd, rel_tol=1e-12)


def test_pooled_std_is_the_spread_of_the_pooled_centred_samples():
    """Oracle: numpy's std of the samples, each centred on its own component's mean."""
    rng = np.random.default_rng(0)
    sizes, sds = np.array([3000, 1000]), np.array([0.2, 0.5])
    parts = [rng.normal(0.0, sd, (n, 1)) for n, sd in zip(sizes, sds, strict=True)]
    centred = np.concatenate([p - p.mean() for p in parts])
    got = rv.pooled_std(sizes / sizes.sum(), [float(np.std(p, ddof=0)) for p in parts])
    assert math.isclose(got, float(np.std(centred)), rel_tol=1e-9)
    with pytest.raises(CoreError):
        rv.pooled_std([1.0], [np.nan])


@given(st.integers(1, 1000), mixtures(), points)
def test_differences_of_the_log_density_give_the_closed_form_score(t, mix, x):
    s = dif.make_schedule("linear", 1000)
    fd = rv.gmm_score_by_differences(x, t, s, *mix)
    exact = rv.gmm_posterior(x, t, s, *mix).score
    assert np.allclose(fd, exact, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(exact).max())))


@given(schedules_and_steps(), st.data(), points, points, points, st.floats(0.0, 1.0))
def test_step_numbers_rebuild_the_ddim_and_ddpm_steps(case, data, x, eps, z, eta):
    s, t = case
    t_prev = data.draw(st.integers(0, t - 1))
    n = rv.step_numbers(x, t, t_prev, eps, s, "ddim", eta)
    rebuilt = math.sqrt(n.alpha_bar_prev) * n.x0 + n.direction * eps + n.sigma * z
    assert np.allclose(rebuilt, rv.ddim_step(x, t, t_prev, eps, s, eta, z), rtol=1e-9, atol=1e-9)
    for variance in ("posterior", "beta"):
        d = rv.step_numbers(x, t, t - 1, eps, s, "ddpm", variance=variance)
        alpha, beta = s.alphas[t - 1], s.betas[t - 1]
        mean = (x - beta / math.sqrt(1 - d.alpha_bar) * eps) / math.sqrt(alpha)
        assert np.allclose(
            mean + d.sigma * z, rv.ddpm_step(x, t, eps, s, z, variance), rtol=1e-9, atol=1e-9
        )
    assert rv.step_numbers(x, t, t_prev, eps, s, "heun").sigma == 0.0


def test_converting_a_prediction_to_itself_is_the_identity_even_at_zero_alpha_bar():
    from core.snr_schedules import rescale_zero_terminal_snr

    s = rescale_zero_terminal_snr(dif.make_schedule("linear", 100))
    x, value = np.array([0.3, -1.0]), np.array([1.0, 0.5])
    for p in rv.PREDICTIONS:
        for t in (1, 50, 100):  # ᾱ_100 = 0 after the rescale
            np.testing.assert_array_equal(rv.convert(x, t, value, p, p, s), value)
