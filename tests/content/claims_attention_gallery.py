"""The numbers of the efficient-attention gallery's explanation: none beyond single digits."""

from __future__ import annotations

CLAIMS: list = []

NOT_CLAIMS: dict[str, str] = {}
