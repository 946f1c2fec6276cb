"""The numbers of the Cayley–Hamilton explanation."""

from __future__ import annotations

CLAIMS: list = []

NOT_CLAIMS = {
    "10": "the base of 10⁻¹⁷ (test_statements.py recomputes the float residual)",
    "1000": "'a thousandth power' (ja): an example power, the page computes any k",
}
