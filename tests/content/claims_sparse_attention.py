"""The numbers of the sparse-attention explanation."""

from __future__ import annotations

CLAIMS: list = []

NOT_CLAIMS = {"16384": "a sequence length a try-this step picks (the answer is on the page)"}
