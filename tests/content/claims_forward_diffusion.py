"""The numbers of the forward-diffusion explanation, recomputed from ``core`` and the page."""

from __future__ import annotations

from core import diffusion as dif
from core import stats
from tests.content.claims import Claim, page_constant
from ui import cache_forward

CLAIMS = [
    Claim("0.02", lambda: f"{dif.make_schedule('linear', 1000).betas[-1]:g}", why="β_T, linear"),
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
