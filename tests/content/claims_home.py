"""The home page's explanation states no number."""

from __future__ import annotations

CLAIMS: list = []
NOT_CLAIMS: dict[str, str] = {}
