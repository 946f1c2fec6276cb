"""ui.perf: what happens once per server process, checked in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

from bench.server import ROOT

FRESH = """
import sys
from ui import perf
assert "pandas" not in sys.modules, "already imported: the check below would prove nothing"
frozen = perf.freeze_import_heap()
module = sys.modules["pandas"]  # imported whole by the call, not by this script
assert hasattr(module, "Series") and hasattr(module, "Index"), "half-initialised"
assert frozen > 0 and perf.freeze_import_heap() == frozen  # once per process
print("ok")
"""


def test_the_first_page_view_imports_pandas_whole_before_any_other_thread_can():
    """Plotly's validators read pandas from ``sys.modules`` without importing it; a page
    building a figure while the warm-up's thread was still importing pandas failed. The
    first page view's ``freeze_import_heap`` imports it whole first."""
    run = subprocess.run(
        [sys.executable, "-c", FRESH], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]
