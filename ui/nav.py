"""Navigation: the ``st.Page`` objects for ``st.navigation``, grouped by section."""

from __future__ import annotations

import streamlit as st

from ui.i18n import t
from ui.registry import CONCEPTS, SECTIONS


def home_page() -> st.Page:
    return st.Page("pages/home.py", title=t("home.nav"), icon=":material/home:", default=True)


def concept_page(slug: str) -> st.Page:
    c = next(c for c in CONCEPTS if c.slug == slug)
    return st.Page(f"pages/{c.page}", title=t(f"{slug}.title"), icon=c.icon, url_path=slug)


def pages() -> dict[str, list[st.Page]]:
    """``{section heading: [pages]}``, home first, then each section's concepts in order."""
    groups: dict[str, list[st.Page]] = {"": [home_page()]}
    for section in SECTIONS:
        members = [concept_page(c.slug) for c in CONCEPTS if c.section == section]
        if members:
            groups[t(f"section.{section}")] = members
    return groups
