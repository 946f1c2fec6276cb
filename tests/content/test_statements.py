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
