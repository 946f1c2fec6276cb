"""Entry point: page config, navigation over pages/, the shared sidebar. Nothing else."""

import streamlit as st

from ui import a11y, boot, kit, nav, perf, presenter, state, warmup
from ui.i18n import DEFAULT_LANG, LANGUAGES, current_lang, t

st.set_page_config(
    page_title=t("app.title"),
    page_icon=nav.favicon(),  # a data: URL, never fetched (ui.nav.favicon)
    layout="wide",
    initial_sidebar_state="collapsed" if kit.presenting() else "auto",
)
perf.freeze_import_heap()

pages = nav.pages()
page = st.navigation(pages, position="hidden")  # drawn by nav.sidebar_links (accessible markup)
state.on_page(page.url_path)
with st.sidebar:
    links = st.container()  # filled after the page: its ~30 links are not sent before it
    state.selectbox(
        t("app.language"),
        "lang",
        list(LANGUAGES),
        current_lang() or DEFAULT_LANG,
        format_func=LANGUAGES.get,
    )
    state.toggle(t("app.present"), "present", False, help=t("app.present_help"))
    st.caption(t("app.sidebar_about"))
a11y.page_basics(current_lang(), t("kit.chart_data_hint"), t("kit.wide_formula"))
if kit.presenting():
    presenter.style()
boot.entering_page()
try:
    page.run()
finally:  # a page that fails still gets the links
    with links:
        nav.sidebar_links(pages, page.url_path)
with st.sidebar:
    presenter.share_link(page.url_path or None)
state.flush()
warmup.start()  # once per server, after its first page view: the slow defaults (ui/warmup.py)
