"""The numbers of the forward-diffusion explanation, recomputed from ``core`` and the page."""

from __future__ import annotations

import math

import numpy as np

from core import diffusion as dif
from core import stats
from tests.content.claims import Claim, page_constant
from ui import cache_forward


def _gap(kind: str) -> float:
    """The most ᾱ_t of a schedule at any T the page offers differs, at the same t/T, from
    its T = 1000 curve (interpolated between its steps)."""
    ref = dif.make_schedule(kind, 1000).alpha_bars
    grid = np.arange(1, 1001) / 1000
    gaps = []
    for T in cache_forward.STEPS:
        t = np.arange(1, T + 1) / T
        gaps.append(np.abs(dif.make_schedule(kind, T).alpha_bars - np.interp(t, grid, ref)).max())
    return float(max(gaps))


def _linear_gap() -> str:
    """ "by less than 0.02": the linear gap rounded up; the cosine curve the same (its gap is
    the interpolation's, under 10⁻⁴), or the claim fails."""
    assert _gap("cosine") < 1e-4
    return f"{math.ceil(_gap('linear') * 100) / 100:.2f}"


CLAIMS = [
    Claim("0.02", lambda: f"{dif.make_schedule('linear', 1000).betas[-1]:g}", why="β_T, linear"),
    Claim("0.02", _linear_gap, why="linear ᾱ_t against t/T, any T against T = 1000"),
    Claim(
        "40",
        lambda: str(cache_forward.N_FRAMES),
        why="frames the browser scrubs",
    ),
    Claim(
        "6.3",
        lambda: f"{stats.two_sided_tail(page_constant('forward_diffusion', 'SE')) * 1e5:.1f}",
        why="P(|Z| > 4) in units of 10⁻⁵",
    ),
    Claim(
        "7,900",
        lambda: f"{round(1 / stats.any_fails(stats.two_sided_tail(4), 2), -2):,.0f}",
        why="a two-check badge's false alarms",
    ),
]

NOT_CLAIMS = {
    "10": "the base of 10⁻⁴ (β_1 of the linear schedule, DDPM's definition) and of 10⁻⁵",
    "1000": "T of DDPM's linear schedule (its definition)",
    "2020": "Ho et al. 2020",
    "2021": "Nichol & Dhariwal 2021",
}
