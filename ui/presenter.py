"""For the classroom: presenter mode's look, and the "copy link to this view" control."""

from __future__ import annotations

import streamlit as st

from ui import kit
from ui.i18n import t

# Large type for a projector, full width, tighter spacing between controls. Only selectors
# Streamlit documents as stable test ids, so an upgrade does not silently drop the style.
PRESENTER_CSS = """
<style>
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 3.5rem 2.5rem 4rem; }
[data-testid="stMain"] p, [data-testid="stMain"] li { font-size: 1.4rem; line-height: 1.5; }
[data-testid="stMain"] h1 { font-size: 2.8rem; }
[data-testid="stMain"] .katex-display { font-size: 1.45em; }
[data-testid="stMain"] [data-testid="stWidgetLabel"] p { font-size: 1.15rem; }
[data-testid="stMain"] [data-testid="stVerticalBlock"] { gap: 0.6rem; }
[data-testid="stMain"] [data-testid="stCaptionContainer"] p { font-size: 1.1rem; }
[data-testid="stMain"] input, [data-testid="stMain"] textarea { font-size: 1.2rem; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] span[class*="badge"] { font-size: 1rem; }
</style>
"""


def style() -> None:
    """Switch the page to presenter mode's look (called by app.py when presenting)."""
    st.html(PRESENTER_CSS)


def share_link(concept: str | None) -> None:
    """A popover with the address of this exact view and a copy button (lazy: built on open)."""
    box = st.popover(
        t("app.share"), icon=":material/link:", key="share_link", on_change="rerun", width="stretch"
    )
    if not box.open:
        return
    with box:
        st.caption(t("app.share_how"))
        st.code(kit.view_link(concept), language=None, wrap_lines=True)
