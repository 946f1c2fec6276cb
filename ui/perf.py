"""Process-wide performance settings that must happen once per server process.

Streamlit's default ``runner.postScriptGC`` runs ``gc.collect(2)`` after every script run:
with numpy, plotly and sympy loaded that full collection walks hundreds of thousands of
long-lived import-time objects (~30 ms holding the GIL), stalling every session. We turn it
off in ``.streamlit/config.toml`` and move the import-time heap into the permanent
generation with ``gc.freeze()``: Python's automatic generational GC keeps collecting what
the sessions create, but no longer re-walks the libraries. ``bench/load --soak`` checks that
memory stays bounded.
"""

from __future__ import annotations

import gc
from functools import cache


def single_threaded_torch() -> None:
    """One intra-op thread for torch, for the whole process (pages call it before torch work).

    Our tensors are tiny, so a second thread never pays for itself, and on a server busy with
    other sessions an OpenMP worker waits its turn for a core: with both cores busy, one ISAB
    forward took 128 ms median with torch's default 2 threads and 0.85 ms with 1 (in the
    browser benchmark, 15-60 ms inside the slider step). Each session's script thread is the
    parallelism. An environment variable would not do: a direct link's first run may import
    torch before app.py runs (see ui/boot.py).
    """
    import torch  # only pages that already use torch call this

    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)


@cache
def freeze_import_heap() -> int:
    """Import what loads lazily (:func:`import_lazy_modules`), collect once, then freeze
    everything alive now (the imported libraries).

    Runs once per process (``functools.cache``), in the first page view's script run, before
    the warm-up's thread starts; returns the number of frozen objects.
    """
    import_lazy_modules()
    return freeze_heap()


def import_lazy_modules() -> None:
    """Import pandas now, whole, in one thread.

    Streamlit and Plotly import it on first use. Plotly's validators then look it up in
    ``sys.modules`` without importing it, on every list they coerce; while another thread
    (the warm-up, or another session) was still importing it, a page building a figure read
    the half-initialised module and failed ("partially initialized module 'pandas' has no
    attribute 'Series'"): seen on the reverse-diffusion field, one fresh server in three.
    """
    import pandas  # noqa: F401


def freeze_heap() -> int:
    """Collect, then freeze everything alive now; returns the number of frozen objects.

    Frozen objects are never collected as garbage (a cycle among them stays in memory), so
    this is for what lives as long as the server: imported libraries, and what the warm-up
    computed once (``ui/warmup.py`` freezes again after it).
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
