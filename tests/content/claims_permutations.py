"""The permutations explanation states no multi-digit number (its examples are checked by
tests/core/test_permutations.py and the page's badges)."""

from __future__ import annotations

CLAIMS: list = []
NOT_CLAIMS: dict[str, str] = {}
