"""Every private Streamlit detail the app relies on, in one place (pinned: streamlit==1.67.0).

``tests/app/test_streamlit_internals.py`` fails when an upgrade renames or changes any of
them, so a Streamlit bump is a deliberate, checked step rather than a silent breakage.

- ``PagesManager.uses_pages_directory``: a process-wide flag that starts ``True`` because
  ``pages/`` sits beside ``app.py`` and turns ``False`` only once ``st.navigation`` ran. Until
  then a direct link such as ``/softmax`` runs ``pages/softmax.py`` alone, without
  ``app.py`` (no page config, no navigation). :func:`ui.boot.require_entrypoint` uses it.
- ``MESSAGE_FLUSH_INTERVAL_SECS``: how often the server sends queued messages; the page kit
  lets a chart go that much ahead of a formula (see :func:`ui.kit.chart`).
"""

from __future__ import annotations

from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.runtime_util import MESSAGE_FLUSH_INTERVAL_SECS

__all__ = ["MESSAGE_FLUSH_INTERVAL_SECS", "legacy_pages_mode", "leave_legacy_pages_mode"]


def legacy_pages_mode() -> bool:
    """Whether this process still runs ``pages/*.py`` files on their own (see above)."""
    return bool(PagesManager.uses_pages_directory)


def leave_legacy_pages_mode() -> None:
    """Make the process route every page through ``app.py``'s ``st.navigation``."""
    PagesManager.uses_pages_directory = False
