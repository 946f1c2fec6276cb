"""Train the reverse-diffusion page's default denoiser and save it as ``reverse_default.npz``.

Run from the project root: ``.venv/bin/python assets/models/make_reverse_weights.py``.
The page's default settings (``core.denoiser.TrainSpec()``: the 4-component ring mixture,
the linear schedule with T = 1000, ε-prediction, seed 0) are trained with the default
``TrainSettings`` on one torch thread; every draw comes from one seeded generator, so a run
reproduces the file (``tests/core/test_denoiser.py`` checks it). The file holds float32
weights (~38k parameters) and the loss curve, about 150 KB, made by the project: our licence.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUTPUT = HERE / "reverse_default.npz"


def make() -> dict[str, np.ndarray]:
    """The arrays of ``reverse_default.npz``, trained now."""
    import torch

    from core import denoiser

    torch.set_num_threads(1)  # one thread: the same sums in the same order, every run
    spec = denoiser.TrainSpec()
    return denoiser.save_weights(denoiser.train_spec(spec), spec)


def main() -> None:
    arrays = make()
    np.savez_compressed(OUTPUT, **arrays)
    print(f"wrote {OUTPUT.relative_to(ROOT)} ({OUTPUT.stat().st_size / 1024:.0f} KB)")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
