"""The numbers of the forward-diffusion explanation, recomputed from ``core`` and the page."""

from __future__ import annotations

import ast
from pathlib import Path

from core import diffusion as dif
from core import stats
from tests.content.claims import Claim

PAGE = Path(__file__).resolve().parents[2] / "pages" / "forward_diffusion.py"


def page_constant(name: str) -> object:
    """A module-level constant of the page, read from its source (the page is a script)."""
    for node in ast.parse(PAGE.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name:
            return ast.literal_eval(node.value)
    raise KeyError(name)


CLAIMS = [
    Claim("0.02", lambda: f"{dif.make_schedule('linear', 1000).betas[-1]:g}", why="β_T, linear"),
    Claim("40", lambda: str(page_constant("N_FRAMES")), why="frames the browser scrubs"),
    Claim(
        "6.3",
        lambda: f"{stats.two_sided_tail(page_constant('SE')) * 1e5:.1f}",
        why="P(|Z| > 4) in units of 10⁻⁵",
    ),  # fmt: skip
    Claim(
        "7,900",
        lambda: f"{round(1 / stats.any_fails(stats.two_sided_tail(4), 2), -2):,.0f}",
        why="a two-check badge's false alarms",
    ),  # fmt: skip
]

NOT_CLAIMS = {
    "10": "the base of 10⁻⁴ (β_1 of the linear schedule, DDPM's definition) and of 10⁻⁵",
    "1000": "T of DDPM's linear schedule (its definition)",
    "2020": "Ho et al. 2020",
    "2021": "Nichol & Dhariwal 2021",
}
