"""Checkable statements in the explanations that are not a single number: each recomputed."""

from __future__ import annotations

import numpy as np

from core import diffusion as dif
from tests.content.claims import content_text


def test_ddpm_prior_term_is_about_ten_to_the_minus_five_bits_per_dimension():
    """diffusion_loss: 'DDPM (linear, T = 1000, data in [−1, 1]) reports about 10⁻⁵ bits/dim'."""
    s = dif.make_schedule("linear", 1000)
    bits = dif.prior_kl_bits_per_dim(s, np.linspace(-1, 1, 201))
    assert 10**-5.5 < bits < 10**-4.5
    assert "10⁻⁵ bits/dim" in content_text("diffusion_loss", "en")


def test_lambda_t_falls_then_rises_for_every_schedule():
    """diffusion_loss: 'λₜ … is not monotone' (it has an interior minimum)."""
    for kind in dif.SCHEDULE_KINDS:
        w = dif.eps_loss_weights(dif.make_schedule(kind, 1000), "beta")[1:]
        low = int(np.argmin(w))
        assert 0 < low < len(w) - 1 and w[0] > w[low] < w[-1], kind
    assert "not monotone" in content_text("diffusion_loss", "en")


def test_identity_projections_put_the_maximum_on_the_diagonal_in_six_of_ten_rows():
    """attention_maps: 'At d = 4 and seed 0 only 6 of the 10 rows have their maximum on the
    diagonal' (single digits, so the number finder leaves them to this test)."""
    from tests.content.claims_attention_maps import diagonal_rows

    assert diagonal_rows(4, 0) == 6
    assert "only 6 of the 10 rows" in content_text("attention_maps", "en")
    assert "10 行中 6 行" in content_text("attention_maps", "ja")


def test_a_fraction_matrix_has_an_exact_zero_and_a_float_residual_near_1e_17():
    """cayley_hamilton: '1/2 1/3; 1/4 1/5: the exact residual is still zero, the float one is
    about 10⁻¹⁷'."""
    from core import cayley_hamilton as ch

    A = ch.parse_matrix("1/2 1/3; 1/4 1/5")
    assert ch.cayley_hamilton_residual(A).is_zero_matrix
    floats = np.array(A.tolist(), dtype=float)
    residual = float(np.abs(ch.cayley_hamilton_residual(floats)).max())
    assert 1e-18 < residual < 1e-16
    assert "10⁻¹⁷" in content_text("cayley_hamilton", "en")


def test_the_epsilon_form_of_the_posterior_mean():
    """diffusion_loss 'eps_form': μ̃ₜ = (xₜ − βₜ/√(1 − ᾱₜ) · ε)/√αₜ, and step 4's coefficient."""
    rng = np.random.default_rng(0)
    for kind in dif.SCHEDULE_KINDS:
        s = dif.make_schedule(kind, 100)
        for t in (2, 17, 100):
            x0, eps = rng.standard_normal(5), rng.standard_normal(5)
            x_t = dif.q_sample(x0, t, s, eps)
            mean, _ = dif.q_posterior(x_t, x0, t, s)
            beta, alpha, a = s.betas[t - 1], s.alphas[t - 1], s.alpha_bars[t - 1]
            np.testing.assert_allclose(
                mean, (x_t - beta / np.sqrt(1 - a) * eps) / np.sqrt(alpha), rtol=1e-9, atol=1e-12
            )
            a_prev = s.alpha_bars[t - 2]
            assert np.isclose(beta + alpha * (1 - a_prev), 1 - a)  # step 4's numerator


def test_temperature_scaling_nll_is_convex_with_the_stated_derivatives():
    """softmax 'nll': NLL′(β) = mean(E_p[z] − z_y), NLL″(β) = mean Var_p[z] ≥ 0; an
    over-confident classifier has NLL′(1) > 0, so its fitted T > 1."""
    from core import softmax as sm

    z, y = sm.overconfident_classifier(2000, 5, 3.0, np.random.default_rng(1))

    def nll(beta: float) -> float:
        p = sm.softmax(beta * z)
        return float(-np.mean(np.log(p[np.arange(len(y)), y])))

    beta, h = 1.0, 1e-5
    p = sm.softmax(beta * z)
    mean_z = (p * z).sum(1)
    first = float(np.mean(mean_z - z[np.arange(len(y)), y]))
    second = float(np.mean((p * z**2).sum(1) - mean_z**2))
    assert np.isclose((nll(beta + h) - nll(beta - h)) / (2 * h), first, rtol=1e-5)
    assert np.isclose((nll(beta + h) - 2 * nll(beta) + nll(beta - h)) / h**2, second, rtol=1e-3)
    assert second > 0 and first > 0 and sm.fit_temperature(z, y) > 1


def test_a_transposition_has_an_odd_number_of_inversions():
    """permutations 'sign_proofs' step 4: (a b) has 2(b − a) − 1 inversions."""
    from core import permutations as pm

    for n in range(2, 9):
        for a in range(1, n):
            for b in range(a + 1, n + 1):
                assert len(pm.inversions(pm.transposition(n, a, b))) == 2 * (b - a) - 1


def test_sign_of_powers_for_every_integer_k():
    """permutations 'sign_proofs' step 7: sgn σᵏ = (sgn σ)ᵏ, σ⁰ = id, σ⁻ᵏ = (σ⁻¹)ᵏ."""
    from core import permutations as pm

    sigma = pm.parse_permutation("2 3 5 1 4")
    identity = tuple(range(1, 6))
    assert pm.power(sigma, 0) == identity
    for k in range(-7, 8):
        assert pm.sign(pm.power(sigma, k)) == pm.sign(sigma) ** abs(k)
        assert pm.power(sigma, -k) == pm.power(pm.inverse(sigma), k)
        assert pm.compose(pm.power(sigma, k), pm.power(sigma, -k)) == identity
