"""Make sure every page runs under ``app.py``'s ``st.navigation``.

Until some session has run ``app.py``, a direct link such as ``/softmax`` runs
``pages/softmax.py`` on its own (see :mod:`ui.streamlit_internals`): no page config, no
navigation, no sidebar. :func:`require_entrypoint` (called by ``kit.Page.run`` and the home
page before anything else) then switches the process to ``st.navigation`` mode and reruns;
the rerun goes through ``app.py`` to the same page.
"""

from __future__ import annotations

import streamlit as st

from ui import streamlit_internals


def require_entrypoint() -> None:
    """Rerun through ``app.py`` if Streamlit ran this page file directly (legacy mode)."""
    if streamlit_internals.legacy_pages_mode():
        streamlit_internals.leave_legacy_pages_mode()
        st.rerun()
