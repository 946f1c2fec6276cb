"""The numbers of the backpropagation explanation: the page's block and task sizes, ε."""

from __future__ import annotations

from core import backprop as bp
from tests.content.claims import Claim, page_constant
from ui import cache_backprop as cb

CLAIMS = [
    Claim("16", lambda: str(cb.D_FF), why="the feed-forward width F"),
    Claim(
        "243",
        lambda: str(len(bp.tiny_task("reverse", cb.TASK_LENGTH, cb.TASK_VOCAB).tokens)),
        why="every sequence of 5 symbols from 3",
    ),
    Claim("200", lambda: str(cb.TRAIN_STEPS), why="training steps"),
    Claim(
        "1.0",
        lambda: f"{page_constant('backprop_by_hand', 'RATES')[-1]:.1f}",
        why="the largest learning rate offered",
    ),
    Claim("1e-5", lambda: f"{bp.EPS:.0e}".replace("e-05", "e-5"), why="LayerNorm's ε"),
]

NOT_CLAIMS = {
    "2017": "Vaswani et al. 2017",
    "10": "the base of a power of ten (10⁻¹⁵, 10⁻⁵, 10⁻⁸), checked in test_backprop_statements",
    "11": "a step number of the derivation",
    "12": "a step number of the derivation",
}
