"""The numbers of the Set Transformer explanation, recomputed from the page's constants."""

from __future__ import annotations

from tests.content.claims import Claim, page_constant

CLAIMS = [
    Claim("16", lambda: str(page_constant("set_transformer", "D")), why="the width d"),
]

NOT_CLAIMS = {
    "10": "the base of 10⁻¹⁶, float64 rounding (the badges show the measured gaps)",
    "256": "a set size a try-this step picks",
    "2017": "Zaheer et al. 2017 (Deep Sets)",
    "2019": "Lee et al. 2019",
    "3.3": "the paper's section 3.3",
}
