"""The numbers of the Vision Transformer explanation, recomputed from core and the page."""

from __future__ import annotations

import numpy as np

from core import vit
from tests.content.claims import Claim, page_constant
from ui import cache_vit

# the page takes its working sizes from ui.cache_vit (the warm-up uses the same)
SHARED = {
    "SIDE": cache_vit.SIDE,
    "C": cache_vit.CHANNELS,
    "D_MODEL": cache_vit.D_MODEL,
    "HEADS": cache_vit.HEADS,
    "PATCHES": cache_vit.PATCHES,
}


def const(name: str) -> object:
    return SHARED[name] if name in SHARED else page_constant("vision_transformer", name)


def b16(patch: int = 16) -> vit.ViTCost:
    return vit.vit_cost(const("COST_SIDE"), patch, const("COST_D"), const("COST_HEADS"))


def entry_count() -> str:
    """x_p has S²C entries whatever P is."""
    side, channels = const("SIDE"), const("C")
    counts = {vit.patchify(np.zeros((side, side, channels)), p).size for p in const("PATCHES")}
    (count,) = counts
    return f"{count:,}"


CLAIMS = [
    Claim("64", lambda: str(const("SIDE")), why="the working image side"),
    Claim("384", lambda: str(const("D_MODEL")), why="D, the course's width"),
    Claim("224", lambda: str(const("COST_SIDE")), why="ViT-B's image side"),
    Claim("768", lambda: str(const("COST_D")), why="ViT-B's width"),
    Claim("12", lambda: str(const("COST_HEADS")), why="ViT-B's heads"),
    Claim(
        "16",
        lambda: str(round(b16(8).entries / b16(16).entries)),
        why="halving P: ~16× the attention weights (and ViT-B/16's patch side)",
    ),
    Claim("128", lambda: str(const("D_MODEL") // const("HEADS")), why="d = D/h"),
    Claim("32", lambda: str(max(const("PATCHES"))), why="the largest patch on the page"),
    Claim("12,288", entry_count, why="S²C entries of x_p"),
]

NOT_CLAIMS = {
    "2021": "Dosovitskiy et al. 2021",
}
