"""Home: what the app is for, a map of every concept, how to use it in class."""

import streamlit as st

from ui.boot import require_entrypoint
from ui.i18n import content, t
from ui.registry import CONCEPTS, SECTIONS

require_entrypoint()

st.title(t("home.title"))
st.markdown(f"*{t('app.tagline')}*")
st.markdown(content("home", "intro"))

st.header(t("home.map"))
for section in SECTIONS:
    members = [c for c in CONCEPTS if c.section == section]
    if not members:
        continue
    st.subheader(t(f"section.{section}"))
    for row in range(0, len(members), 3):
        for col, c in zip(st.columns(3), members[row : row + 3], strict=False):
            with col, st.container(border=True, height="stretch"):
                st.markdown(f"**{t(f'{c.slug}.title')}**")
                st.caption(t(f"{c.slug}.summary"))
                st.page_link(f"pages/{c.page}", label=t("home.open"), icon=c.icon)

st.header(t("home.in_class"))
st.markdown(content("home", "in_class"))
