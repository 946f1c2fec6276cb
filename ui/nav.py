"""Navigation: the ``st.Page`` objects for ``st.navigation``, and the sidebar's links.

``app.py`` hides Streamlit's own navigation menu and draws :func:`sidebar_links` instead: the
built-in menu puts section headings (``div``) inside its ``ul`` and list items outside any
list, which screen readers announce wrongly (axe-core: ``list``, ``listitem``, serious). Our
links are a ``nav`` of section headings and lists of plain links, in the same order, every
page always shown, the open one marked (``aria-current``).

The links are one element (a component, ``ui/nav/``), not one ``st.page_link`` each: every
run of the whole page sends the sidebar again, and its 32 elements cost each such run
(a view switch, a data setting) about a fifth of its script time on the server (Cayley–
Hamilton's view, py-spy: 20 of 104 ms) and their redrawing in the browser. A plain click
opens the page in the same session, as ``st.page_link`` does (``ui/nav/nav.js``); any other
way of opening a link follows its address.
"""

from __future__ import annotations

import base64
import functools
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit.components.v2 import component

from ui import state
from ui.i18n import current_lang, t
from ui.registry import CONCEPTS, ROOT, SECTIONS
from ui.streamlit_internals import running_server

FAVICON = ROOT / "assets" / "favicon.png"
FOLDER = Path(__file__).with_name("nav")  # nav.js, nav.css
LINKS_KEY = "nav_links"  # the component's key; its container is keyed "nav"
_PAGES = "_nav_pages"  # st.session_state: this session's pages, by language (pages())


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
    """``{section heading: [pages]}``, home first, then each section's concepts in order.

    Made once per session and language: each ``st.Page`` resolves its file's path on the
    disk, 9 ms of every run of the whole page on a slow machine (py-spy, Cayley–Hamilton's
    view). Not shared between sessions: ``st.navigation`` marks the page it returns as the
    one its run may call, and another session's run would race for that mark.
    """
    made = st.session_state.setdefault(_PAGES, {})
    lang = current_lang()
    if lang not in made:
        made[lang] = _pages()
    return made[lang]


def _pages() -> dict[str, list[st.Page]]:
    groups: dict[str, list[st.Page]] = {"": [home_page()]}
    for section in SECTIONS:
        members = [concept_page(c.slug) for c in CONCEPTS if c.section == section]
        if members:
            groups[t(f"section.{section}")] = members
    return groups


def links(pages: dict[str, list[st.Page]], current: str) -> dict[str, Any]:
    """What the sidebar draws: each section's heading and its pages' addresses (under the
    server's ``baseUrlPath``), titles and Material icon names, the page at ``current`` (a url
    path) marked."""
    root = state.app_root()
    return {
        "label": t("app.pages"),
        "sections": [
            {
                "heading": heading,
                "links": [
                    {
                        "href": root + p.url_path,
                        "title": p.title,
                        "icon": p.icon.removeprefix(":material/").removesuffix(":"),
                        "current": p.url_path == current,
                    }
                    for p in members
                ],
            }
            for heading, members in pages.items()
        ],
    }


def sidebar_links(pages: dict[str, list[st.Page]], current: str) -> None:
    """Every page as a link, under its section's heading (call inside ``st.sidebar``)."""
    with st.container(key="nav"):
        draw = _component()
        if draw is not None:  # a server run (AppTest included)
            draw(key=LINKS_KEY, data=links(pages, current))


def _component() -> Any:
    """The links' component, registered once per server (an AppTest run has a server of its
    own); ``None`` outside a server run."""
    server = running_server()
    return None if server is None else _registered(server)


@functools.lru_cache(maxsize=4)
def _registered(runtime: Any) -> Any:
    js, css = ((FOLDER / f"nav.{ext}").read_text(encoding="utf-8") for ext in ("js", "css"))
    return component("adlab.nav", js=js, css=css, isolate_styles=False)
