"""The numbers of the PVT explanation, recomputed from ``core.sra``."""

from __future__ import annotations

from core import sra
from tests.content.claims import Claim

STAGES = sra.pvt_stages(224)


def stage1_entries() -> int:
    return STAGES[0].entries


CLAIMS = [
    Claim("56", lambda: str(STAGES[0].side), why="stage-1 tokens per side at 224²"),
    Claim(
        "9.8",
        lambda: f"{stage1_entries() / 1e6:.1f}",
        langs=("en",),
        why="3136² entries, in millions",
    ),
    Claim(
        "980",
        lambda: f"{round(stage1_entries() / 1e4, -1):.0f}",
        langs=("ja",),
        why="3136² entries, in 万 (two significant digits)",
    ),
    Claim(
        "32",
        lambda: str({s.R * 224 // s.in_side * s.P for s in STAGES}.pop()),
        why="P₁···Pᵢ·Rᵢ, the same at every stage",
    ),
    Claim("49", lambda: str({s.kv_tokens for s in STAGES}.pop()), why="key/value tokens"),
]

NOT_CLAIMS = {"2021": "Wang et al. 2021", "512": "an input size a try-this step picks"}
