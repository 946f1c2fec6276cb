"""The numbers of the parameterisation explanation, recomputed from ``core``."""

from __future__ import annotations

import math

from core import images
from core import reverse as rev
from core import snr_schedules as snr
from tests.content.claims import ROOT, Claim, page_constant

PAGE = "diffusion_parameterisations"


def schedule(name: str) -> snr.Schedule:
    return snr.named_schedule(name, page_constant(PAGE, "T"))


def terminal_log_snr(name: str) -> str:
    """−log SNR_T rounded to a whole number, as the text's "≈ −10"."""
    return f"{-snr.log_snr(schedule(name))[-1]:.0f}"


def eps_share_of_first_steps(k: int = 10) -> float:
    """The share of Σ_t SNR_t (the ε-loss's x₀-weight, t uniform) on t = 1 … k, linear."""
    w = rev.x0_loss_weights(schedule("linear"), "eps")
    return float(w[:k].sum() / w.sum())


def sunset_leak(block: int) -> float:
    """The formula's correlation of block means, sunset, Stable Diffusion's ᾱ_T."""
    side = page_constant(PAGE, "SIDE")
    data = (ROOT / "assets" / "images" / "sunset.png").read_bytes()
    x0 = images.to_signed(images.load_image(data, side))
    a = float(schedule("stable_diffusion").alpha_bars[-1])
    return snr.expected_block_correlation(a, float(snr.block_means(x0, block).var()), block)


CLAIMS = [
    Claim("1000", lambda: str(page_constant(PAGE, "T")), why="T of every schedule"),
    Claim(
        "9999",
        lambda: f"{rev.x0_loss_weights(schedule('linear'), 'eps')[0]:.0f}",
        why="SNR₁, linear",
    ),
    Claim(
        "0.00004",
        lambda: f"{math.exp(snr.log_snr(schedule('linear'))[-1]):.5f}",
        why="SNR_T, linear",
    ),
    Claim(
        "79",
        lambda: f"{100 * eps_share_of_first_steps():.0f}",
        why="% of the ε-loss's x₀-weight on the first 10 steps",
    ),
    Claim("10", lambda: terminal_log_snr("linear"), why="linear ends near log SNR_T ≈ −10"),
    Claim("10", lambda: terminal_log_snr("sigmoid"), why="sigmoid ends near log SNR_T ≈ −10"),
    Claim("20", lambda: terminal_log_snr("cosine"), why="cosine ends near log SNR_T ≈ −20"),
    Claim(
        "0.0683",
        lambda: f"{math.sqrt(schedule('stable_diffusion').alpha_bars[-1]):.4f}",
        why="Stable Diffusion's √ᾱ_T (Lin et al.: 0.068265)",
    ),
    Claim("0.51", lambda: f"{sunset_leak(32):.2f}", why="sunset, b = 32, Stable Diffusion"),
    Claim("32", lambda: str(max(page_constant(PAGE, "BLOCKS"))), why="the largest block side"),
    Claim("256", lambda: str(page_constant(PAGE, "BATCH")), why="batch of the weights view"),
    Claim(
        "64",
        lambda: str(page_constant(PAGE, "RESOLUTIONS")[0]),
        why="the side the schedule is made for",
    ),
    Claim(
        "512",
        lambda: str(sorted(page_constant(PAGE, "RESOLUTIONS"))[-2]),
        why="an image side on the slider (try this)",
    ),
    Claim("90", lambda: f"{math.degrees(rev.v_angle(0.0)):.0f}", why="φ at ᾱ = 0, degrees"),
]

NOT_CLAIMS = {
    "2021": "Kingma et al. 2021",
    "2022": "Salimans & Ho 2022",
    "2023": "Hoogeboom et al. 2023",
    "2024": "Lin et al. 2024",
}
