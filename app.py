"""Entry point: page config, navigation over pages/, the shared sidebar. Nothing else."""

import streamlit as st

from ui import nav, perf
from ui.i18n import t

st.set_page_config(
    page_title=t("app.title"),
    page_icon=":material/functions:",
    layout="wide",
    initial_sidebar_state="auto",
)
perf.freeze_import_heap()

page = st.navigation(nav.pages())
with st.sidebar:
    st.caption(t("app.sidebar_about"))
page.run()
