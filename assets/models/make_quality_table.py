"""Compute the exact quality curves of every mixture setting at the default seed and save them
as ``reverse_quality.npz``.

Run from the project root: ``.venv/bin/python assets/models/make_quality_table.py``.
The reverse-diffusion page's quality view runs four samplers at seven step counts and DDPM's
1000 steps with the exact ε* of the chosen mixture: about 0.3 s of one core for each setting.
Every setting of the page's mixture controls (layout, components, spread, balance: 1,344) at
the default seed and schedule is computed here once, by ``ui.cache_reverse._quality`` itself,
so moving those controls shows stored curves; another seed is computed on the page. Every
draw comes from a seeded generator, so a run reproduces the file
(``tests/app/test_quality_table.py`` recomputes entries and checks the stamp). The file
holds float64 distances, about 250 KB, made by the project: our licence.
"""

from __future__ import annotations

import sys
from multiprocessing import Pool
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUTPUT = HERE / "reverse_quality.npz"


def _quality(i: int):  # noqa: ANN202 (ui.cache_reverse.Quality, imported in the worker)
    from ui import cache_reverse as cr

    spec = cr.table_grid()[i]
    return cr._quality(spec, cr.eps_model(spec, "exact"))


def make(processes: int = 2) -> dict[str, np.ndarray]:
    """The arrays of ``reverse_quality.npz``, computed now."""
    from ui import cache_reverse as cr

    with Pool(processes) as pool:
        found = pool.map(_quality, range(len(cr.table_grid())), chunksize=8)
    first = found[0]  # every setting has the same curves and calls
    return {
        "stamp": np.array(cr.quality_stamp()),
        "rows": np.stack([cr.quality_row(q) for q in found]),
        "names": np.array([name for name, _, _ in first.curves]),
        "lengths": np.array([len(calls) for _, calls, _ in first.curves]),
        "calls": np.concatenate([calls for _, calls, _ in first.curves]),
    }


def main() -> None:
    arrays = make()
    np.savez_compressed(OUTPUT, **arrays)
    print(f"wrote {OUTPUT.relative_to(ROOT)} ({OUTPUT.stat().st_size / 1024:.0f} KB)")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
