"""core.softmax: property tests (Hypothesis) and oracle tests against torch / published numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core import softmax as sm

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)
temperatures = st.floats(0.05, 20.0)


def logits_vectors(max_len: int = 12):
    return arrays(np.float64, st.integers(1, max_len), elements=finite)


def logits_tables():
    shapes = st.tuples(st.integers(1, 20), st.integers(2, 8))
    return shapes.flatmap(lambda s: arrays(np.float64, s, elements=finite))


# ---- oracles ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("T", "expected"),
    [
        (0.3, [0.00122729, 0.03440292, 0.96436979]),
        (1.0, [0.09003057, 0.24472847, 0.66524096]),
        (10.0, [0.30060961, 0.33222499, 0.3671654]),
    ],
)
def test_course_example(T, expected):
    np.testing.assert_allclose(sm.softmax([5.0, 6.0, 7.0], T), expected, atol=5e-9)


def test_large_logits_do_not_overflow_and_equal_shifted_ones():
    p = sm.softmax([1000.0, 1001.0, 1002.0])
    np.testing.assert_allclose(p, [0.09003057, 0.24472847, 0.66524096], atol=5e-9)


@given(logits_tables(), temperatures)
def test_matches_torch_softmax(u, T):
    expected = torch.softmax(torch.tensor(u) / T, dim=-1).numpy()
    np.testing.assert_allclose(sm.softmax(u, T), expected, rtol=1e-10, atol=1e-12)


def test_softmax_axis_argument_matches_torch_dim():
    u = np.random.default_rng(0).normal(size=(3, 4, 5))
    for axis in (0, 1, 2):
        np.testing.assert_allclose(
            sm.softmax(u, 2.0, axis=axis), torch.softmax(torch.tensor(u) / 2, dim=axis).numpy()
        )


@given(arrays(np.float64, st.integers(1, 10), elements=st.floats(0.001, 1)))
def test_entropy_matches_torch_distribution(w):
    p = w / w.sum()
    expected = torch.distributions.Categorical(probs=torch.tensor(p)).entropy().item()
    assert sm.entropy(p) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def _torch_ece(conf, correct, n_bins):
    """gpleiss/temperature_scaling `_ECELoss`, re-typed from its published description."""
    conf, correct = torch.tensor(conf), torch.tensor(correct, dtype=torch.float64)
    edges = torch.linspace(0, 1, n_bins + 1, dtype=torch.float64)
    ece = torch.zeros(1, dtype=torch.float64)
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        in_bin = conf.gt(lo.item()) * conf.le(hi.item())
        prop = in_bin.double().mean()
        if prop.item() > 0:
            ece += torch.abs(correct[in_bin].mean() - conf[in_bin].mean()) * prop
    return ece.item()


@given(
    arrays(np.float64, st.integers(1, 300), elements=st.floats(0, 1)),
    st.integers(1, 30),
    st.randoms(use_true_random=False),
)
def test_ece_matches_reference_loop(conf, n_bins, rnd):
    # torch.linspace rounds some edges k/M down by one ulp, so a confidence of exactly k/M
    # may fall in the next bin there; exact edges are tested separately below.
    edges = np.arange(n_bins + 1) / n_bins
    conf = conf[np.min(np.abs(conf[:, None] - edges[None, :]), axis=1) > 1e-9]
    if conf.size == 0:
        return
    correct = np.array([rnd.random() < 0.5 for _ in conf], dtype=float)
    ece = sm.expected_calibration_error(conf, correct, n_bins)
    assert ece == pytest.approx(_torch_ece(conf, correct, n_bins), abs=1e-12)


@pytest.mark.parametrize("M", range(1, 31))
def test_a_confidence_on_an_edge_belongs_to_the_bin_it_closes(M):
    conf = np.arange(1, M + 1) / M  # k/M for k = 1..M
    bins = sm.reliability_bins(conf, np.ones(M), n_bins=M)
    assert bins.count.tolist() == [1] * M


def test_ece_bins_are_left_open_right_closed():
    # 0.5 lies on an edge of 2 bins: it belongs to (0, 0.5], not (0.5, 1]
    bins = sm.reliability_bins([0.5, 1.0], [1, 0], n_bins=2)
    assert bins.count.tolist() == [1, 1]
    assert sm.expected_calibration_error([0.9, 0.9], [1, 0], n_bins=10) == pytest.approx(0.4)


def test_fit_temperature_matches_torch_lbfgs():
    """Guo et al. fit T by LBFGS on the NLL; our Newton search must find the same minimum."""
    rng = np.random.default_rng(3)
    logits, labels = sm.overconfident_classifier(3000, 6, 2.0, rng)
    T_ours = sm.fit_temperature(logits, labels)
    log_T = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    z, y = torch.tensor(logits), torch.tensor(labels)
    opt = torch.optim.LBFGS(
        [log_T],
        lr=0.5,
        max_iter=500,
        tolerance_grad=1e-12,
        tolerance_change=1e-15,
        line_search_fn="strong_wolfe",
    )

    def closure():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(z / log_T.exp(), y)
        loss.backward()
        return loss

    opt.step(closure)
    assert T_ours == pytest.approx(log_T.exp().item(), rel=1e-5)


@pytest.mark.parametrize("s", [1.0, 2.0, 3.5])
def test_fit_temperature_recovers_the_overconfidence(s):
    logits, labels = sm.overconfident_classifier(40_000, 5, s, np.random.default_rng(1))
    assert sm.fit_temperature(logits, labels) == pytest.approx(s, rel=0.05)


@pytest.mark.parametrize("d", [1, 16, 256])
def test_dot_product_variance_is_d_and_one_after_scaling(d):
    raw, scaled = sm.sample_dot_products(d, 40_000, np.random.default_rng(d))
    # var(q.k) = d exactly for i.i.d. N(0,1) entries; 40k samples -> a few % error
    assert raw.var() == pytest.approx(d, rel=0.05)
    assert scaled.var() == pytest.approx(1.0, rel=0.05)


# ---- properties ------------------------------------------------------------------------


@given(logits_vectors(), temperatures)
def test_probabilities_are_a_distribution(u, T):
    p = sm.softmax(u, T)
    assert np.all(p >= 0) and np.all(p <= 1)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)


@given(logits_vectors(), temperatures, st.floats(-1e4, 1e4))
def test_shift_invariance(u, T, c):
    np.testing.assert_allclose(sm.softmax(u + c, T), sm.softmax(u, T), rtol=1e-6, atol=1e-12)


@given(logits_vectors(), temperatures)
def test_order_is_preserved(u, T):
    p = sm.softmax(u, T)
    order = np.argsort(u, kind="stable")
    assert np.all(np.diff(p[order]) >= -1e-15)


@given(logits_vectors(), st.floats(0.05, 5), st.floats(1.01, 4))
def test_entropy_rises_with_temperature_and_stays_below_ln_n(u, T, factor):
    h1, h2 = sm.entropy(sm.softmax(u, T)), sm.entropy(sm.softmax(u, T * factor))
    assert -1e-12 <= h1 <= h2 + 1e-9
    assert h2 <= math.log(len(u)) + 1e-9


@given(
    logits_vectors().filter(lambda u: np.sort(u)[-1] - np.sort(u)[-2] > 0.5 if len(u) > 1 else True)
)
def test_limits_argmax_and_uniform(u):
    cold, hot = sm.softmax(u, 1e-3), sm.softmax(u, 1e6)
    assert cold[np.argmax(u)] == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(hot, 1 / len(u), atol=1e-4)


@given(st.integers(1, 200), st.integers(1, 20), st.integers(0, 2**16))
def test_reliability_bins_partition_the_samples(n, M, seed):
    rng = np.random.default_rng(seed)
    conf = rng.random(n)
    bins = sm.reliability_bins(conf, rng.random(n) < conf, M)
    assert bins.count.sum() == np.count_nonzero(conf > 0)
    full = bins.count > 0
    assert np.all(bins.confidence[full] > bins.edges[:-1][full])
    assert np.all(bins.confidence[full] <= bins.edges[1:][full])
    assert 0 <= sm.expected_calibration_error(conf, rng.random(n) < 0.5, M) <= 1


@given(st.integers(0, 2**16))
def test_temperature_scaling_never_raises_nll(seed):
    rng = np.random.default_rng(seed)
    logits, labels = sm.overconfident_classifier(200, 4, float(rng.uniform(0.5, 4)), rng)

    def nll(T):
        return -np.mean(np.log(sm.softmax(logits, T)[np.arange(len(labels)), labels]))

    T = sm.fit_temperature(logits, labels)
    for other in (T * 0.9, T * 1.1, 1.0):
        assert nll(T) <= nll(other) + 1e-12


# ---- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize("T", [0, -1, float("nan"), float("inf")])
def test_rejects_bad_temperature(T):
    with pytest.raises(ValueError, match="temperature"):
        sm.softmax([1.0, 2.0], T)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "at least two"),
        ("5", "at least two"),
        ("5, six, 7", "not a number"),
        ("1, nan", "finite"),
        ("1, 1e999", "finite"),
        ("1, 2e5", "between"),
        ("__import__('os').system('id'), 1", "not a number"),
        ("9**9**9, 2", "not a number"),
        (", ".join(["1"] * 13), "at most 12"),
        ("1" * 600, "too long"),
    ],
)
def test_parse_logits_rejects_with_a_clear_message(text, message):
    with pytest.raises(ValueError, match=message):
        sm.parse_logits(text)


@given(st.text(max_size=80))
def test_parse_logits_only_ever_returns_finite_arrays_or_raises_valueerror(text):
    try:
        u = sm.parse_logits(text)
    except ValueError:
        return
    assert u.ndim == 1 and 2 <= len(u) <= 12 and np.all(np.isfinite(u))


def test_rejects_bad_tables():
    with pytest.raises(ValueError):
        sm.fit_temperature(np.zeros((3, 1)), np.zeros(3, dtype=int))
    with pytest.raises(ValueError):
        sm.fit_temperature(np.zeros((3, 2)), np.array([0, 1, 2]))
    with pytest.raises(ValueError):
        sm.expected_calibration_error([1.2], [1])


@given(st.integers(1, 5), st.integers(0, 4), st.integers(0, 1000))
def test_zero_temperature_is_uniform_over_tied_maxima(m, others, seed):
    """T → 0 gives 1/m to each of m tied largest logits (one-hot only when m = 1)."""
    rng = np.random.default_rng(seed)
    u = np.concatenate([np.full(m, 2.0), rng.uniform(-5, 1.9, others)])
    rng.shuffle(u)
    limit = sm.zero_temperature_limit(u)
    np.testing.assert_allclose(limit[u == 2.0], 1 / m)
    assert np.all(limit[u < 2.0] == 0)
    np.testing.assert_allclose(sm.softmax(u, 1e-3), limit, atol=1e-12)  # the limit, reached


def test_the_variance_of_q_dot_k_is_d_only_with_zero_mean_entries():
    """var(q·k) = d needs mean 0: with mean μ each term has variance 1 + 2μ² (the text)."""
    rng = np.random.default_rng(0)
    d, n, mu = 64, 200_000, 0.5
    q, k = rng.standard_normal((2, n, d))
    assert abs(np.var((q * k).sum(1)) / d - 1) < 0.02
    q, k = q + mu, k + mu
    scores = (q * k).sum(1)
    assert abs(np.var(scores) / d - (1 + 2 * mu**2)) < 0.03
    assert abs(scores.mean() - d * mu**2) < 0.1


def _ks_statistic(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov–Smirnov statistic: the largest gap between the empirical CDFs."""
    grid = np.concatenate([a, b])
    cdf_a = np.searchsorted(np.sort(a), grid, side="right") / a.size
    cdf_b = np.searchsorted(np.sort(b), grid, side="right") / b.size
    return float(np.abs(cdf_a - cdf_b).max())


@pytest.mark.parametrize("d", [1, 3, 64, 1024])
def test_sampled_dot_products_have_the_law_of_torch_dot_products(d):
    """Oracle: q·k of vectors drawn by torch, against our chi-square sampling of q·k.

    At α = 0.001 the two-sample KS test rejects equal laws when D > 1.95·√((n+m)/(nm)).
    """
    import torch

    n = 4000
    gen = torch.Generator().manual_seed(d)
    q, k = (
        torch.randn(n, d, generator=gen, dtype=torch.float64),
        torch.randn(n, d, generator=gen, dtype=torch.float64),
    )
    theirs = (q * k).sum(-1).numpy()
    ours, scaled = sm.sample_dot_products(d, n, np.random.default_rng(d))
    assert _ks_statistic(ours, theirs) < 1.95 * np.sqrt(2 / n)
    np.testing.assert_allclose(scaled, ours / np.sqrt(d))
    # the test would see a law that is off by the √d scaling or by a factor of two
    assert _ks_statistic(2 * ours, theirs) > 1.95 * np.sqrt(2 / n)
