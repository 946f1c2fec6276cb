"""Make sure every page runs under ``app.py``'s ``st.navigation``.

Streamlit 1.67 decides per *process* whether an app uses the legacy ``pages/`` folder
(``PagesManager.uses_pages_directory``): it starts ``True`` because ``pages/`` sits beside
``app.py`` and only becomes ``False`` once ``st.navigation`` has been called. Until then a
direct link such as ``/softmax`` runs ``pages/softmax.py`` on its own, without ``app.py``:
no page config, no navigation, no sidebar. So each page calls :func:`require_entrypoint`
first; in that situation it switches the process to ``st.navigation`` mode and reruns, and
the rerun goes through ``app.py`` to the same page.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def require_entrypoint() -> None:
    """Rerun through ``app.py`` if Streamlit ran this page file directly (legacy mode)."""
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
