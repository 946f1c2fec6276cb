"""The numbers of the Transformer-families explanation, recomputed from core."""

from __future__ import annotations

from core import transformer as tf
from tests.content.claims import Claim, page_constant


def gpt2_cache_mb() -> str:
    layers, d_model, _, context = page_constant("transformer_families", "GPT2")
    return f"{tf.kv_cache_size(layers, context, d_model, 4).bytes / 1e6:.1f}"


CLAIMS = [
    Claim(
        "16",
        lambda: str(page_constant("transformer_families", "D_MODEL")),
        why="the example's d_model",
    ),
    Claim("75.5", gpt2_cache_mb, why="GPT-2 small KV cache, 1024 tokens, float32"),
    Claim(
        "12",
        lambda: str(page_constant("transformer_families", "GPT2")[0]),
        why="GPT-2 small has 12 layers",
    ),
    Claim(
        "768",
        lambda: str(page_constant("transformer_families", "GPT2")[1]),
        why="GPT-2 small's d_model",
    ),
    Claim(
        "1024",
        lambda: str(page_constant("transformer_families", "GPT2")[3]),
        why="GPT-2's context length",
    ),
]

NOT_CLAIMS = {
    "2017": "Vaswani et al. 2017",
}
