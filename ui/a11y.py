"""Accessibility every page shares (checked by axe-core in tests/browser/test_accessibility.py).

- The document's language follows the language selector (``<html lang="ja">``), so screen
  readers pronounce Japanese as Japanese and browsers pick CJK fonts and line breaking.
- Every chart is announced as a figure with a name: its title, and where its numbers are
  (the "Data tables & export" expander, reachable by keyboard, has each chart's data as a
  table or CSV). One observer per browser tab labels charts as Plotly draws them, so a
  slider step costs nothing extra.
- A display formula wider than its column (a narrow window, or the page zoomed for reading)
  scrolls sideways; that one is made reachable by Tab and named, so a keyboard scrolls it
  with the arrow keys (WCAG 2.1.1; axe's scrollable-region-focusable). One that fits adds no
  tab stop. Checked when the browser is idle after a change, so a slider step is not slowed.
- An invariant badge wider than its column wraps onto a second line: Streamlit cuts a badge
  off with "…" (one line, overflow hidden), which in a narrow window or at 200 % zoom hid
  the end of a check's numbers (WCAG 1.4.10, reflow).
- Secondary text (captions) keeps a contrast of at least 4.5:1 (WCAG AA) on the page's and
  the sidebar's backgrounds: Streamlit draws captions in the text colour at opacity 0.6,
  which gives #7f7e7d on the sidebar's #f8f8f7, 3.8:1. We draw them opaque in a grey that
  still reads as secondary.

The shared style also shows a new chart from Plotly's first draw on
(``ui.streamlit_internals.SHOW_NEW_CHARTS_CSS``), and the page's script installs the
address bar's writer (``ui.state.flush``), whose elements the style hides.
"""

from __future__ import annotations

import json

import streamlit as st

from ui.state import URL_QUEUE, URL_RUN
from ui.streamlit_internals import SHOW_NEW_CHARTS_CSS

CAPTION_COLOUR = "#55534f"  # 7.0:1 on white, 6.6:1 on the sidebar's #f8f8f7

BASE_CSS = f"""
<style>
[data-testid="stCaptionContainer"] {{ opacity: 1; color: {CAPTION_COLOUR}; }}
[data-testid="stCaptionContainer"] p {{ color: {CAPTION_COLOUR}; }}
{SHOW_NEW_CHARTS_CSS}
[data-testid="stElementContainer"]:has(script[data-adlab-url]) {{ display: none; }}
[data-testid="stMain"] [data-testid="stMarkdownContainer"] span.stMarkdownBadge {{
  white-space: normal; text-overflow: clip;
}}
</style>
"""


# The address bar's writer (ui.state.flush): drains the queue of writes that each run's
# scripts add. A key keeps the value of its newest write in this session (an element drawn
# again, or drawn before a later one, never brings back an older value). history.replaceState:
# no history entry, no message to Streamlit's app.
_WRITE_URL = f"""
window.{URL_RUN} = () => {{
  const queue = window.{URL_QUEUE} || [];
  window.{URL_QUEUE} = [];
  const url = new URL(location.href);
  for (const write of queue) {{
    if (window.__adlabUrlSession !== write.session) {{
      window.__adlabUrlSession = write.session;
      window.__adlabUrlWritten = {{}};
    }}
    const written = window.__adlabUrlWritten;
    for (const [k, v] of Object.entries(write.set)) {{
      if ((written[k] ?? -1) >= write.n) continue;
      written[k] = write.n;
      url.searchParams.set(k, v);
    }}
  }}
  if (url.href !== location.href) history.replaceState(history.state, '', url.href);
}};
window.{URL_RUN}();
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
  // a formula wider than its column: a tab stop with a name (fitting, none); measured when
  // idle, since reading widths forces a layout
  let pending = false;
  const reach = () => {
    pending = false;
    document.querySelectorAll('[data-testid="stMain"] .katex-display').forEach((box) => {
      const wide = box.scrollWidth > box.clientWidth + 1;
      if (wide === box.hasAttribute('tabindex')) return;
      if (wide) {
        box.tabIndex = 0;
        box.setAttribute('role', 'group');
        box.setAttribute('aria-label', window.__adlabWideFormula || 'Formula');
      } else {
        ['tabindex', 'role', 'aria-label'].forEach((a) => box.removeAttribute(a));
      }
    });
  };
  const later = () => {
    if (pending) return;
    pending = true;
    (window.requestIdleCallback || setTimeout)(reach, {timeout: 1000});
  };
  new MutationObserver(() => { label(); later(); })
    .observe(document.body, {childList: true, subtree: true});
  window.addEventListener('resize', later);
  label();
  later();
}
"""


def page_basics(lang: str, data_hint: str, wide_formula: str) -> None:
    """The shared style, ``<html lang>`` set to the session's language, charts labelled,
    formulas wider than the column reachable by keyboard.

    Args:
        lang: the session's language code.
        data_hint: where a chart's numbers are, appended to every chart's name.
        wide_formula: the name of a formula that scrolls sideways (says how to scroll it).
    """
    st.html(BASE_CSS)
    script = (
        f"document.documentElement.lang = {json.dumps(lang)};"
        f"window.__adlabDataHint = {json.dumps(data_hint)};"
        f"window.__adlabWideFormula = {json.dumps(wide_formula)};{_LABEL_CHARTS}{_WRITE_URL}"
    )
    st.html(f"<script>{script}</script>", unsafe_allow_javascript=True, width="content")
