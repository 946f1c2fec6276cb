"""The numbers of the lambda-layer explanation, recomputed from the page's constants."""

from __future__ import annotations

from tests.content.claims import Claim, page_constant

CLAIMS = [
    Claim(
        "128",
        lambda: str(max(page_constant("lambda_layers", "COST_SIDES"))),
        why="the largest side of the cost part",
    ),
    Claim(
        "16",
        lambda: str(
            page_constant("lambda_layers", "K")
            * page_constant("lambda_layers", "DIM_OUT")
            // page_constant("lambda_layers", "HEADS")
        ),
        why="k·v of the page's layer",
    ),
    Claim(
        "81",
        lambda: str(max(page_constant("lambda_layers", "RADII")) ** 2),
        why="r² for the largest r",
    ),
]

NOT_CLAIMS = {"256": "a hypothetical k·v a try-this step asks about", "2021": "Bello 2021"}
