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


@cache
def freeze_import_heap() -> int:
    """Collect once, then freeze everything alive now (the imported libraries).

    Runs once per process (``functools.cache``); returns the number of frozen objects.
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
