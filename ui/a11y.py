"""Accessibility every page shares (checked by axe-core in tests/browser/test_accessibility.py).

- The document's language follows the language selector (``<html lang="ja">``), so screen
  readers pronounce Japanese as Japanese and browsers pick CJK fonts and line breaking.
- Secondary text (captions) keeps a contrast of at least 4.5:1 (WCAG AA) on the page's and
  the sidebar's backgrounds: Streamlit draws captions in the text colour at opacity 0.6,
  which gives #7f7e7d on the sidebar's #f8f8f7, 3.8:1. We draw them opaque in a grey that
  still reads as secondary.
"""

from __future__ import annotations

import streamlit as st

CAPTION_COLOUR = "#55534f"  # 7.0:1 on white, 6.6:1 on the sidebar's #f8f8f7

BASE_CSS = f"""
<style>
[data-testid="stCaptionContainer"] {{ opacity: 1; color: {CAPTION_COLOUR}; }}
[data-testid="stCaptionContainer"] p {{ color: {CAPTION_COLOUR}; }}
</style>
"""


def page_basics(lang: str) -> None:
    """The shared style, and ``<html lang>`` set to the session's language."""
    st.html(BASE_CSS)
    # A script of one statement, run by the browser in the page itself (not an iframe).
    st.html(
        f"<script>document.documentElement.lang = {lang!r};</script>",
        unsafe_allow_javascript=True,
        width="content",
    )
