"""core.stats: the badge statistics against scipy-free closed forms and by simulation."""

from __future__ import annotations

import math

import numpy as np
import torch
from hypothesis import given
from hypothesis import strategies as st

from core import stats


@given(st.floats(-5, 5), st.floats(-2, 2), st.floats(0.05, 4))
def test_pdf_and_cdf_match_torch_normal(x, mean, var):
    ref = torch.distributions.Normal(
        torch.tensor(mean, dtype=torch.float64), torch.tensor(math.sqrt(var), dtype=torch.float64)
    )
    t = torch.tensor(x, dtype=torch.float64)
    assert math.isclose(
        stats.normal_pdf(x, mean, var), ref.log_prob(t).exp().item(), rel_tol=1e-9, abs_tol=1e-300
    )
    assert math.isclose(stats.normal_cdf(x, mean, var), ref.cdf(t).item(), abs_tol=1e-12)


def test_the_tail_rates_the_pages_quote():
    p = stats.two_sided_tail(4.0)
    assert math.isclose(p, 6.334248e-05, rel_tol=1e-6)
    assert round(1 / stats.any_fails(p, 2)) == 7894  # forward diffusion: "1 in 7,900"
    assert math.isclose(stats.kolmogorov_tail(1.95), 0.000996, rel_tol=2e-3)


def test_any_fails_is_one_minus_all_pass():
    for p, n in [(0.1, 1), (0.1, 3), (1e-9, 2)]:
        assert math.isclose(stats.any_fails(p, n), 1 - (1 - p) ** n, rel_tol=1e-6)


def test_a_two_check_badge_fails_at_the_computed_rate_by_simulation():
    """At k = 2 (rare enough to mean something, common enough to count): mean and variance
    of n standard normal draws, each within k standard errors, as the forward page checks."""
    rng = np.random.default_rng(0)
    n, trials, k = 512, 20_000, 2.0
    z = rng.standard_normal((trials, n))
    mean_bad = np.abs(z.mean(1)) > k / math.sqrt(n)
    var_bad = np.abs(z.var(1, ddof=1) - 1) > k * math.sqrt(2 / (n - 1))
    rate = float(np.mean(mean_bad | var_bad))
    expected = stats.any_fails(stats.two_sided_tail(k), 2)
    assert abs(rate - expected) < 4 * math.sqrt(expected * (1 - expected) / trials) + 0.004


def test_kolmogorov_tail_by_simulation():
    rng = np.random.default_rng(1)
    n, trials, x = 400, 4000, 1.0
    sqrt_n_d = [
        math.sqrt(n) * stats.ks_distance_normal(rng.standard_normal(n), 0.0, 1.0)
        for _ in range(trials)
    ]
    rate = float(np.mean(np.array(sqrt_n_d) > x))
    expected = stats.kolmogorov_tail(x)  # 0.27
    assert abs(rate - expected) < 4 * math.sqrt(expected * (1 - expected) / trials) + 0.02


def test_ks_distance_of_draws_at_the_quartiles_is_a_quarter():
    quantiles = [-0.6744897501960817, 0.0, 0.6744897501960817]  # Φ⁻¹(1/4), Φ⁻¹(1/2), Φ⁻¹(3/4)
    assert math.isclose(stats.ks_distance_normal(quantiles, 0, 1), 0.25, rel_tol=1e-9)


def test_variance_within_k_standard_errors():
    rng = np.random.default_rng(2)
    x = rng.standard_normal(4000) * 3.0  # variance 9
    assert stats.variance_within(x, 9.0) and not stats.variance_within(x, 7.0)
    d = 64
    scores = (rng.standard_normal((4000, d)) * rng.standard_normal((4000, d))).sum(1)
    assert stats.variance_within(scores, d) and stats.variance_within(scores / np.sqrt(d), 1.0)


@given(st.lists(st.floats(-5, 5), min_size=2, max_size=50), st.floats(-1, 1), st.floats(0.1, 3))
def test_normal_moments_are_the_sample_moments_and_the_normals_standard_errors(x, mean, var):
    m = stats.normal_moments(x, mean, var)
    a = np.asarray(x)
    assert m.n == a.size and math.isclose(m.mean, a.mean(), abs_tol=1e-12)
    assert math.isclose(m.var, a.var(ddof=1), rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(m.mean_se, math.sqrt(var / a.size))
    assert math.isclose(m.var_se, var * math.sqrt(2 / (a.size - 1)))
    assert m.within(4) == (m.mean_within(4) and m.var_within(4))


def test_normal_moments_false_alarms_at_the_two_sided_rate_by_simulation():
    """k = 2: a correct sampler's mean fails 4.55 % of the time, its variance about as often."""
    rng = np.random.default_rng(3)
    draws = rng.normal(0.5, math.sqrt(2.0), size=(20_000, 400))
    checks = [stats.normal_moments(row, 0.5, 2.0) for row in draws]
    p = stats.two_sided_tail(2.0)
    se = math.sqrt(p * (1 - p) / len(checks))
    assert abs(np.mean([not c.mean_within(2) for c in checks]) - p) < 5 * se
    assert abs(np.mean([not c.var_within(2) for c in checks]) - p) < 0.01  # normal approx.


def test_histogram_density_is_numpys_when_every_draw_is_inside():
    x = np.random.default_rng(0).normal(size=1000)
    edges = np.linspace(-6, 6, 31)
    ref, _ = np.histogram(x, edges, density=True)
    assert np.allclose(stats.histogram_density(x, edges), ref)
    inner = np.linspace(-1, 1, 11)  # draws outside the edges count in the total only
    share = np.mean(np.abs(x) <= 1)
    assert math.isclose(np.sum(stats.histogram_density(x, inner) * np.diff(inner)), share)
