"""The numbers of the depthwise separable convolution explanation, recomputed from core."""

from __future__ import annotations

from core import convolution as cv
from tests.content.claims import Claim

BASE = cv.mobilenet_v1_layers()
SHARES = cv.layer_shares(BASE)


def total(alpha: float = 1.0, side: int = 224, what: str = "mult_adds") -> float:
    return sum(getattr(layer.cost, what) for layer in cv.mobilenet_v1_layers(alpha, side)) / 1e6


def percent(kind: str, column: int) -> str:
    return f"{100 * SHARES[kind][column]:.2f}"


CLAIMS = [
    Claim("0.1189", lambda: f"{float(cv.cost_ratio(3, 128)):.4f}", why="1/128 + 1/9"),
    Claim("12", lambda: f"{100 * float(cv.cost_ratio(3, 128)):.0f}", why="0.1189 as a percentage"),
    Claim("28", lambda: str(len(BASE)), why="MobileNet v1's layers (Table 1)"),
    Claim(
        "13",
        lambda: str(sum(layer.kind == "dw" for layer in BASE)),
        why="depthwise + pointwise pairs",
    ),
    Claim("568.74", lambda: f"{total():.2f}", why="1.0 MobileNet-224 mult-adds, counted"),
    Claim("4.21", lambda: f"{total(what='params'):.2f}", why="its weights, counted"),
    Claim(
        "569", lambda: f"{total():.0f}", why="the paper's 569M: our count rounded", langs=("en",)
    ),
    Claim(
        "4.2",
        lambda: f"{total(what='params'):.1f}",
        why="the paper's 4.2M: our count rounded",
        langs=("en",),
    ),
    Claim("94.86", lambda: percent("pw", 0), why="Table 2: 1×1 share of mult-adds"),
    Claim("74.59", lambda: percent("pw", 1), why="Table 2: 1×1 share of weights"),
    Claim("1.91", lambda: percent("conv", 0), why="the first full convolution's share, counted"),
    Claim(
        "99.29",
        lambda: f"{sum(float(percent(k, 0)) for k in ('pw', 'dw', 'fc')) + 1.19:.2f}",
        why="Table 2's four printed shares (its 1.19 for the first layer) added up",
    ),
    Claim("149", lambda: f"{total(0.5):.0f}", why="α = 0.5 (Table 6)", langs=("en",)),
    Claim(
        "290.68", lambda: f"{total(1.0, 160):.2f}", why="a 160-pixel input, counted", langs=("en",)
    ),
    Claim(
        "290",
        lambda: f"{total(1.0, 160) // 1:.0f}",
        why="the paper's 290M (rounded down)",
        langs=("en",),
    ),
    Claim("1152", lambda: str(3 * 3 * 128), why="mult-adds per input number, 3×3, N = 128"),
]

NOT_CLAIMS = {
    "2017": "Howard et al. 2017",
    "128": "the course's example N (and the N of the timing explanation)",
    "1.0": "the width multiplier in the model's name, 1.0 MobileNet-224",
    "224": "the input side in the model's name",
    "1.19": "the share the paper's Table 2 prints for the first layer (a typo, said so)",
    "0.5": "a width multiplier the paper lists",
    "160": "an input side the paper lists",
    "1024": "a value a try-this step sets",
    "100": "what shares add up to",
}
