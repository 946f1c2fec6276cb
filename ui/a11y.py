"""Accessibility every page shares (checked by axe-core in tests/browser/test_accessibility.py).

- The document's language follows the language selector (``<html lang="ja">``), so screen
  readers pronounce Japanese as Japanese and browsers pick CJK fonts and line breaking.
- Every chart is announced as a figure with a name: its title, and where its numbers are
  (the "Data tables & export" expander, reachable by keyboard, has each chart's data as a
  table or CSV). One observer per browser tab labels charts as Plotly draws them, so a
  slider step costs nothing extra.
- Secondary text (captions) keeps a contrast of at least 4.5:1 (WCAG AA) on the page's and
  the sidebar's backgrounds: Streamlit draws captions in the text colour at opacity 0.6,
  which gives #7f7e7d on the sidebar's #f8f8f7, 3.8:1. We draw them opaque in a grey that
  still reads as secondary.

The shared style also shows a new chart from Plotly's first draw on
(``ui.streamlit_internals.SHOW_NEW_CHARTS_CSS``).
"""

from __future__ import annotations

import json

import streamlit as st

from ui.streamlit_internals import SHOW_NEW_CHARTS_CSS

CAPTION_COLOUR = "#55534f"  # 7.0:1 on white, 6.6:1 on the sidebar's #f8f8f7

BASE_CSS = f"""
<style>
[data-testid="stCaptionContainer"] {{ opacity: 1; color: {CAPTION_COLOUR}; }}
[data-testid="stCaptionContainer"] p {{ color: {CAPTION_COLOUR}; }}
{SHOW_NEW_CHARTS_CSS}
</style>
"""


# Runs in the page itself (st.html with JavaScript, not an iframe); installs its observer once.
_LABEL_CHARTS = """
if (!window.__adlabCharts) {
  window.__adlabCharts = true;
  const label = () => document.querySelectorAll('.js-plotly-plot').forEach((plot) => {
    const title = [...plot.querySelectorAll('.gtitle, .annotation-text')]
      .map((t) => t.textContent.trim()).filter(Boolean).join(' · ') || 'Chart';
    const name = `${title}. ${window.__adlabDataHint || ''}`.trim();
    if (plot.getAttribute('aria-label') !== name) {
      plot.setAttribute('role', 'figure');
      plot.setAttribute('aria-label', name);
    }
  });
  new MutationObserver(label).observe(document.body, {childList: true, subtree: true});
  label();
}
"""


def page_basics(lang: str, data_hint: str) -> None:
    """The shared style, ``<html lang>`` set to the session's language, charts labelled.

    Args:
        lang: the session's language code.
        data_hint: where a chart's numbers are, appended to every chart's name.
    """
    st.html(BASE_CSS)
    script = (
        f"document.documentElement.lang = {json.dumps(lang)};"
        f"window.__adlabDataHint = {json.dumps(data_hint)};{_LABEL_CHARTS}"
    )
    st.html(f"<script>{script}</script>", unsafe_allow_javascript=True, width="content")
