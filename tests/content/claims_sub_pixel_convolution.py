"""The numbers of the sub-pixel convolution explanation, recomputed from the page and core."""

from __future__ import annotations

from tests.content.claims import Claim
from ui.cache_sub_pixel_convolution import LOW_SIDE

CLAIMS = [
    Claim(
        "32",
        lambda: str(LOW_SIDE),
        why="the sample image's side before upsampling",
    ),
]

NOT_CLAIMS = {
    "2016": "Shi et al. 2016, Odena et al. 2016",
    "2017": "Aitken et al. 2017",
}
