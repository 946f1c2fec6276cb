"""The shipped quality table (assets/models/reverse_quality.npz): the exact quality curves of
every mixture setting at the default seed, as ui.cache_reverse._quality computes them now.

A failure here means the table is out of date: rerun
``.venv/bin/python assets/models/make_quality_table.py``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from core import denoiser as dn
from core import reverse as rv
from core import toydata
from tests.app.conftest import latex, open_page
from ui import cache_reverse as cr

C = "reverse_diffusion"


def computed(spec: dn.TrainSpec) -> cr.Quality:
    return cr._quality(spec, cr.eps_model(spec, "exact"))


def assert_same(stored: cr.Quality | None, fresh: cr.Quality) -> None:
    assert stored is not None
    assert [name for name, _, _ in stored.curves] == [name for name, _, _ in fresh.curves]
    for (_, calls, dist), (_, calls2, dist2) in zip(stored.curves, fresh.curves, strict=True):
        np.testing.assert_array_equal(calls, calls2)
        np.testing.assert_allclose(dist, dist2, rtol=1e-9, atol=1e-12)
    assert stored.floor == pytest.approx(fresh.floor, rel=1e-9)


def test_the_table_holds_every_setting_of_the_page_at_the_default_seed():
    grid = cr.table_grid()
    assert len(grid) == len(toydata.MIXTURE_LAYOUTS) * 8 * 7 * 8 == 1344
    assert all(cr.stored_quality(spec) is not None for spec in grid)
    assert cr.stored_quality(dn.TrainSpec(prediction="v")) is not None  # ε* does not predict


@pytest.mark.parametrize("i", [0, 111, 700, 1343])
def test_stored_curves_are_what_the_page_would_compute(i):
    spec = cr.table_grid()[i]
    assert_same(cr.stored_quality(spec), computed(spec))


def test_the_defaults_are_stored_too():
    assert_same(cr.stored_quality(dn.TrainSpec()), computed(dn.TrainSpec()))


def test_another_seed_a_shape_or_another_table_is_computed(monkeypatch):
    assert cr.stored_quality(dn.TrainSpec(seed=1)) is None
    assert cr.stored_quality(dn.TrainSpec(rv.DataSpec("moons"))) is None
    assert cr.stored_quality(replace(dn.TrainSpec(), num_steps=500)) is None
    cr._table.cache_clear()
    monkeypatch.setattr(cr, "QUALITY_STEPS", (1, 2, 5, 10, 20, 50, 100, 200))  # a new stamp
    try:
        assert cr.stored_quality(dn.TrainSpec()) is None
    finally:
        cr._table.cache_clear()


def test_the_quality_view_shows_the_stored_numbers():
    at = open_page(f"{C}.py", {f"{C}_view": "quality", f"{C}_balance": "0.8"})
    assert not at.exception and not at.error
    q = cr.stored_quality(dn.TrainSpec(rv.DataSpec(balance=0.8)))
    d = {name: dist for name, _, dist in q.curves}
    assert f"{d['ddpm'][0]:.4f}" in latex(at) and f"{q.floor:.4f}" in latex(at)
