"""bench.latency's statistics: percentiles and the bootstrap interval of the p95 ratio."""

from __future__ import annotations

import numpy as np
import pytest

from bench.latency import percentile, ratio_interval


@pytest.mark.parametrize("q", [0, 25, 50, 95, 100])
def test_percentile_matches_numpy(q):
    xs = list(np.random.default_rng(1).gamma(3.0, 20.0, 57))
    assert percentile(xs, q) == pytest.approx(np.percentile(xs, q))


def test_ratio_interval_covers_one_for_the_same_distribution():
    rng = np.random.default_rng(2)
    page, bare = rng.gamma(4.0, 20.0, 100), rng.gamma(4.0, 20.0, 100)
    lo, hi = ratio_interval(list(page), list(bare))
    assert lo < 1.0 < hi
    assert hi - lo > 0.05  # p95 of 100 samples is not known to a few percent


def test_ratio_interval_finds_a_page_twice_as_slow():
    rng = np.random.default_rng(3)
    bare = rng.gamma(4.0, 20.0, 200)
    lo, hi = ratio_interval(list(2 * rng.gamma(4.0, 20.0, 200)), list(bare))
    assert 1.4 < lo < 2.0 < hi < 2.8


def test_ratio_interval_of_an_empty_sample_is_nan():
    assert all(np.isnan(ratio_interval([], [1.0, 2.0])))
