"""Navigation: the ``st.Page`` objects for ``st.navigation``, and the sidebar's links.

``app.py`` hides Streamlit's own navigation menu and draws :func:`sidebar_links` instead: the
built-in menu puts section headings (``div``) inside its ``ul`` and list items outside any
list, which screen readers announce wrongly (axe-core: ``list``, ``listitem``, serious). Our
links are headings and plain links, in the same order, and every page is always shown.
"""

from __future__ import annotations

import base64
import functools

import streamlit as st

from ui.i18n import t
from ui.registry import CONCEPTS, ROOT, SECTIONS

FAVICON = ROOT / "assets" / "favicon.png"


@functools.cache
def favicon() -> str:
    """The page icon as a ``data:`` URL (305 bytes of PNG).

    Streamlit sets the page's icon link again on every script run, fragment runs included.
    Served from this server (``/media/…png``, no cache headers), that made the browser fetch
    it on every slider step: one HTTP request more for the server's event loop while it sends
    the step's messages. A ``data:`` URL is never fetched. (A ``:material/…:`` icon is
    fetched from fonts.gstatic.com: nothing may be fetched from elsewhere at run time.)
    """
    return "data:image/png;base64," + base64.b64encode(FAVICON.read_bytes()).decode("ascii")


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


def sidebar_links(pages: dict[str, list[st.Page]]) -> None:
    """Every page as a link, under its section's heading (call inside ``st.sidebar``)."""
    with st.container(key="nav"):
        for heading, members in pages.items():
            if heading:
                st.markdown(f"**{heading}**")
            for page in members:
                st.page_link(page, label=page.title, icon=page.icon)
