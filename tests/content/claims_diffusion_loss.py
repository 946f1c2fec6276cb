"""The numbers of the DDPM-loss explanation, recomputed from ``core.diffusion``."""

from __future__ import annotations

import numpy as np

from core import diffusion as dif
from tests.content.claims import Claim


def weights(kind: str = "linear", T: int = 1000) -> np.ndarray:
    """λ_t with σ_t² = β_t for t = 2 … T (index 0 is t = 2)."""
    return dif.eps_loss_weights(dif.make_schedule(kind, T), "beta")[1:]


def sig3(x: float) -> str:
    return f"{x:.3g}"


CLAIMS = [
    Claim("0.273", lambda: sig3(weights()[0]), why="λ_2, linear, T = 1000"),
    Claim("349", lambda: str(int(np.argmin(weights())) + 2), why="where λ_t is smallest"),
    Claim("0.00497", lambda: sig3(weights().min()), why="the smallest λ_t"),
    Claim("0.0102", lambda: sig3(weights()[-1]), why="λ_T, linear"),
    Claim("500", lambda: sig3(weights("cosine")[-1]), why="λ_T, cosine (clipped β_T)"),
    Claim(
        "0.999",
        lambda: f"{dif.make_schedule('cosine', 1000).betas[-1]:.3f}",
        why="the cosine schedule's clip",
    ),
]

NOT_CLAIMS = {
    "1000": "T of the DDPM setting the text describes (a chosen size)",
    "10": "T = 10 in a try-this step, and the base of 10⁻⁵ (checked in test_statements.py)",
    "2020": "the year of Ho et al. 2020",
}
