"""The numbers of the reverse-diffusion explanation, recomputed from the code they describe.

The try-this list's story about the spread (one step collapses, five smear, twenty are too
narrow, many steps reach the data's σ) is recomputed with the exact ε* on the page's default
data and seed, with the page's own badge (the pooled spread within 10 %).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from core import denoiser as dn
from core import reverse as rv
from tests.content.claims import Claim


def _quality_steps_max() -> str:
    import ui.cache_reverse as cr  # noqa: PLC0415 — streamlit, only for this claim

    return str(max(cr.QUALITY_STEPS))


@cache
def relative_spread(n_steps: int) -> float:
    """(pooled spread of the exact DDIM η = 0 samples)/(the data's) − 1, page defaults."""
    spec = dn.TrainSpec()
    s, mix = spec.schedule(), spec.data.mixture()
    x_T = np.random.default_rng([spec.seed, 2]).standard_normal((2000, 2))  # as the page
    run = rv.sample(x_T, rv.gmm_eps_model(s, mix.means, mix.stds, mix.weights), s, "ddim", n_steps)
    fit = rv.mixture_fit(run.path[-1], mix.means, mix.stds, mix.weights)
    return rv.pooled_std(fit.weights, fit.stds) / rv.pooled_std(mix.weights, mix.stds) - 1


def offered(n: int, holds: bool = True) -> str:
    """``n`` if the sampling view's steps slider offers it (and the story holds)."""
    import ui.cache_reverse as cr  # noqa: PLC0415 — streamlit, only for these claims

    return str(n) if n in cr.STEPS and holds else f"{n} (not offered, or the story fails)"


CLAIMS = [
    Claim("128", lambda: str(dn.TrainSettings().hidden), why="the MLP's hidden width"),
    Claim(
        "1000",
        lambda: offered(1000, abs(relative_spread(1000)) < 0.10),
        why="T, the steps slider's top, where the spread is the data's",
    ),
    Claim("100", _quality_steps_max, why="the quality curves' largest step count"),
    Claim("10", lambda: offered(10), why="a step count of the slider (η at 10 steps)"),
    Claim(
        "20",
        lambda: offered(
            20,
            relative_spread(20) < -0.10 and relative_spread(5) > 0.10 and relative_spread(1) < -0.5,
        ),
        why="twenty steps too narrow, five smeared, one collapsed",
    ),
]

NOT_CLAIMS: dict[str, str] = {}
