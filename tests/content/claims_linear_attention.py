"""The numbers of the linear-attention explanation: the timing sizes of the page."""

from __future__ import annotations

from tests.content.claims import Claim, page_constant


def lengths() -> tuple[int, ...]:
    return page_constant("linear_attention", "TIMING_LENGTHS")


CLAIMS = [
    Claim("128", lambda: str(lengths()[0]), why="the shortest timed N"),
    Claim("2048", lambda: str(lengths()[-1]), why="the longest timed N"),
    Claim("64", lambda: str(page_constant("linear_attention", "TIMING_D")), why="d of the timing"),
]

NOT_CLAIMS = {"2020": "Katharopoulos et al. 2020"}
