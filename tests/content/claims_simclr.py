"""The numbers of the SimCLR explanation, recomputed from ``core.contrastive`` and the page."""

from __future__ import annotations

from core import contrastive as ct
from tests.content.claims import Claim


def views_side() -> str:
    from ui import cache_simclr  # noqa: PLC0415 (imports streamlit: only when checked)

    return str(cache_simclr.SIDE)


def training_steps() -> str:
    from ui import cache_simclr  # noqa: PLC0415 (imports streamlit: only when checked)

    return str(cache_simclr.STEPS)


CLAIMS = [
    Claim("2.398", lambda: f"{ct.chance_level(6):.3f}", why="ln(2N − 1) at N = 6"),
    Claim("11", lambda: str(2 * 6 - 1), why="2N − 1 at N = 6"),
    Claim("60", training_steps, why="steps of a training run"),
    Claim("32", views_side, why="the side of the views the encoder sees"),
]

NOT_CLAIMS = {
    "2020": "Chen et al. 2020",
    "50": "ResNet-50, the paper's encoder",
    "0.8": "the paper's augmentation (Appendix A): jitter probability and 0.8·s factors",
    "0.2": "the paper's augmentation (Appendix A): grey probability and 0.2·s hue",
    "0.05": "a τ a try-this step picks",
    "1.0": "a τ a try-this step picks",
    "0.1": "a τ a try-this step picks",
}
