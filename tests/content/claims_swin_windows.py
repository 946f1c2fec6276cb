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
    ),  # fmt: skip
    Claim("25", lambda: str((2 * 3 - 1) ** 2), why="relative positions for M = 3"),
    Claim(
        "81",
        lambda: str(win.shifted_window_mask(6, 6, 3, 1)[0].size),
        why="entries of B for M = 3 (M² × M²)",
    ),  # fmt: skip
]

NOT_CLAIMS = {
    "96": "C of Swin-T (the paper's definition)",
    "100": "a ratio a try-this step asks the student to find",
    "2021": "Liu et al. 2021",
}
