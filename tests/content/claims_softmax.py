"""The numbers of the softmax explanation, recomputed from ``core.softmax``."""

from __future__ import annotations

import math

from core import softmax as sm
from tests.content.claims import Claim


def largest(T: float) -> str:
    return f"{sm.softmax([5.0, 6.0, 7.0], T)[2]:.4f}"


CLAIMS = [
    Claim("0.9644", lambda: largest(0.3), why="p₃ at T = 0.3 (the course's example)"),
    Claim("0.6652", lambda: largest(1.0), why="p₃ at T = 1"),
    Claim("0.3672", lambda: largest(10.0), why="p₃ at T = 10"),
    Claim("22.6", lambda: f"{math.sqrt(512):.1f}", why="sd of q·k at d = 512 (variance d)"),
]

NOT_CLAIMS = {
    "0.3": "a temperature of the course's example",
    "10": "a temperature of the course's example",
    "512": "a dimension the text picks",
    "1000": "logits typed to show shift invariance",
    "1001": "logits typed to show shift invariance",
    "1002": "logits typed to show shift invariance",
    "0.8": "the definition's example (confidence 0.8, 80 % right)",
    "80": "the definition's example (confidence 0.8, 80 % right)",
    "0.05": "a τ a try-this step picks",
    "2017": "Vaswani et al. 2017; Guo et al. 2017",
    "2020": "Chen et al. 2020",
    "3.2": "the paper's section 3.2.1",
}
