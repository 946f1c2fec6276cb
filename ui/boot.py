"""Make sure every page runs under ``app.py``'s ``st.navigation``.

Until some session has run ``app.py``, a direct link such as ``/softmax`` runs
``pages/softmax.py`` on its own (see :mod:`ui.streamlit_internals`): no page config, no
navigation, no sidebar, and Streamlit's own list of the files in ``pages/``.
:func:`require_entrypoint` (called by ``kit.Page.run`` and the home page before anything
else) then switches the process to ``st.navigation`` mode and reruns; the rerun goes
through ``app.py`` to the same page.

Whether *this run* went through ``app.py`` is a fact of the run, not of the process:
``app.py`` says so (:func:`entering_page`) just before it runs the page. When a class opens
direct links to a freshly started server, several sessions start on their own at once; the
first to reach its page switches the process, and the others, already past the switch,
must rerun all the same (they drew Streamlit's file list and no sidebar, and met pandas
half-imported by another session's ``app.py``: ``tests/browser/test_cold_start_in_chromium.py``).
"""

from __future__ import annotations

import threading

import streamlit as st

from ui import streamlit_internals

ENTRYPOINT = "app.py"

_run = threading.local()  # a session's script runs in its own thread, one run at a time


def entering_page() -> None:
    """``app.py``: this run goes through ``st.navigation`` (call just before ``page.run()``)."""
    _run.through_entrypoint = True


def require_entrypoint() -> None:
    """Rerun through ``app.py`` if Streamlit ran this page file on its own."""
    through = getattr(_run, "through_entrypoint", False)
    _run.through_entrypoint = False  # the next run says so again
    if through:
        return
    if streamlit_internals.main_script_name() != ENTRYPOINT:
        return  # a bare ``streamlit run pages/x.py``: no app.py to reroute to
    streamlit_internals.leave_legacy_pages_mode()
    st.rerun()
