"""Draw the sample images of the forward-diffusion page (made by the project: our licence).

Run from the project root: ``.venv/bin/python assets/images/make_samples.py``. Deterministic
(no randomness, no fonts), so running it again reproduces the same files. Each image is
128 × 128 RGB PNG of a few KB; the page works at 64 × 64 (core.images.load_image).
``scene.png`` (the Swin / PVT page's image) is not made here and is left untouched.

- ``sunset.png``: smooth gradients and one disc (low frequencies: survive noise longest);
- ``shapes.png``: flat primary-coloured shapes with sharp edges;
- ``checker.png``: a fine checkerboard with a ring (high frequencies: vanish first).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
SIDE = 128


def sunset() -> Image.Image:
    y = np.linspace(0.0, 1.0, SIDE)[:, None, None]
    sky = (1 - y) * np.array([40, 60, 150]) + y * np.array([250, 150, 70])  # blue → orange
    img = np.broadcast_to(sky, (SIDE, SIDE, 3)).copy()
    yy, xx = np.mgrid[0:SIDE, 0:SIDE]
    sun = (yy - 70) ** 2 + (xx - 80) ** 2 <= 22**2
    img[sun] = [255, 220, 90]
    sea = yy >= 84
    depth = (yy[sea] - 84) / (SIDE - 84)
    img[sea] = np.stack([20 + 30 * depth, 60 + 40 * depth, 110 + 60 * depth], axis=-1)
    glint = sea & (np.abs(xx - 80) < 18 - 0.3 * (yy - 84)) & (yy % 4 == 0)
    img[glint] = [250, 200, 110]
    return Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))


def shapes() -> Image.Image:
    im = Image.new("RGB", (SIDE, SIDE), (245, 245, 240))
    d = ImageDraw.Draw(im)
    d.rectangle((12, 14, 60, 62), fill=(0, 114, 178))  # Okabe–Ito blue
    d.ellipse((66, 10, 118, 62), fill=(230, 159, 0))  # orange
    d.polygon([(20, 116), (64, 70), (108, 116)], fill=(0, 158, 115))  # green
    d.line((8, 122, 120, 122), fill=(40, 40, 40), width=3)
    return im


def checker() -> Image.Image:
    yy, xx = np.mgrid[0:SIDE, 0:SIDE]
    squares = ((yy // 16 + xx // 16) % 2).astype(np.float64)
    img = np.where(squares[..., None] > 0, [235, 235, 235], [30, 30, 30]).astype(np.float64)
    r = np.hypot(yy - 63.5, xx - 63.5)
    img[(r > 30) & (r < 42)] = [213, 94, 0]  # vermillion ring
    return Image.fromarray(img.astype(np.uint8))


SAMPLES = {"sunset": sunset, "shapes": shapes, "checker": checker}


def main() -> None:
    for name, draw in SAMPLES.items():
        path = HERE / f"{name}.png"
        draw().save(path, optimize=True)
        print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
