"""The numbers of the attention-maps explanation, recomputed from ``core`` and the page."""

from __future__ import annotations

from core import attention as att
from tests.content.claims import Claim, page_constant

SENTENCE = str(page_constant("attention_maps", "SENTENCE"))  # the default sentence


def diagonal_rows(d: int, seed: int) -> int:
    x = att.token_embeddings(att.tokenize(SENTENCE), d, seed)
    return int(att.diagonal_max_rows(att.scaled_dot_product_attention(x, x, x)[1]).sum())


CLAIMS = [
    Claim("10", lambda: str(len(att.tokenize(SENTENCE))), why="tokens of the default sentence"),
    Claim(
        "16",
        lambda: str(page_constant("attention_maps", "SCALING_TOKENS")),
        why="tokens of the scaling view: ln 16",
    ),
    Claim(
        "12",
        lambda: str(
            min(
                d
                for d in page_constant("attention_maps", "DIMS")
                if {3, 6} <= set(att.divisors_among(d, page_constant("attention_maps", "HEADS")))
            )
        ),
        why="the first d at which the heads slider offers h = 3 and 6 (not at 16)",
    ),
    Claim(
        "1024",
        lambda: str(max(page_constant("attention_maps", "SCALING_DIMS"))),
        why="the largest D of the scaling view",
    ),
]

NOT_CLAIMS = {
    "2017": "Vaswani et al. 2017",
    "3.2": "the paper's section 3.2.2",
}
