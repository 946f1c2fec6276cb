"""The numbers of the Swin explanation, recomputed from ``core.windows``."""

from __future__ import annotations

from core import windows as win
from tests.content.claims import Claim

CLAIMS = [
    Claim("48", lambda: str(4 * 4 * 3), why="a 4×4 RGB patch's values"),
    Claim(
        "256",
        lambda: str(win.shifted_window_mask(8, 8, 4, 2)[0].size),
        why="pairs in one 4×4 window (M² × M²)",
    ),
    Claim("25", lambda: str((2 * 3 - 1) ** 2), why="relative positions for M = 3"),
    Claim(
        "81",
        lambda: str(win.shifted_window_mask(6, 6, 3, 1)[0].size),
        why="entries of B for M = 3 (M² × M²)",
    ),
    Claim("56", lambda: str(win.stage_shapes(224)[0].H), why="Swin-T stage-1 side at 224²"),
    Claim(
        "2,003,828,736",
        lambda: f"{win.msa_flops(56, 56, 96):,}",
        why="Ω(MSA) at Swin-T stage 1 (Eq. 1; Table 7's sizes)",
    ),
    Claim(
        "145,108,992",
        lambda: f"{win.window_msa_flops(56, 56, 96, 7):,}",
        why="Ω(W-MSA) at Swin-T stage 1, M = 7 (Eq. 2)",
    ),
    Claim(
        "13.8",
        lambda: f"{win.msa_flops(56, 56, 96) / win.window_msa_flops(56, 56, 96, 7):.1f}",
        why="how many times fewer",
    ),
]

NOT_CLAIMS = {
    "224": "the input size Table 7 assumes (the paper's definition)",
    "96": "C of Swin-T (the paper's definition)",
    "100": "a ratio a try-this step asks the student to find",
    "2021": "Liu et al. 2021",
}
