"""The numbers of the Wallis explanation, recomputed from ``core.wallis`` and the page."""

from __future__ import annotations

import re

from core import wallis as w
from tests.content.claims import ROOT, Claim

SOURCE = (ROOT / "pages" / "wallis.py").read_text(encoding="utf-8")
LARGEST_N = re.compile(r"geomspace\(1, ([\d_]+)")  # N_VALUES runs up to this n


def two_p(*ns: int) -> str:
    """2Pₙ to three decimals, the same for every n given (else the disagreement shows)."""
    P = w.wallis_partial_products(max(ns))
    values = {f"{2 * P[n - 1]:.3f}" for n in ns}
    return values.pop() if len(values) == 1 else str(sorted(values))


CLAIMS = [
    Claim("3.138", lambda: two_p(200), why="2P₂₀₀ (the course's table)"),
    Claim("3.140", lambda: two_p(400, 600), why="2P₄₀₀ and 2P₆₀₀"),
    Claim("3.141", lambda: two_p(800, 1000), why="2P₈₀₀ and 2P₁₀₀₀"),
    Claim(
        "100,000",
        lambda: f"{int(LARGEST_N.search(SOURCE)[1]):,}",
        why="the slider's largest n (N_VALUES)",
    ),
]

NOT_CLAIMS = {
    "1656": "the year of Wallis's product",
    "200": "an n the course tabulates",
    "400": "an n the course tabulates",
    "600": "an n the course tabulates",
    "800": "an n the course tabulates",
    "1000": "an n the course tabulates",
    "3.1415": "a target a try-this step asks about",
    "10": "'ten times more factors' (the π/(4n) law is checked by the page's badge)",
}
