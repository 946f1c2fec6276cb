"""A class opens direct links to a server that has just started.

Until one session has run ``app.py``, Streamlit runs a direct link's page file on its own
(``ui/boot.py``). Each such session must reroute through ``app.py``: the app's sidebar, not
Streamlit's list of the files in ``pages/``, and no error from another session's imports.
Its own server: the shared one has long been warm. A race, so this catches it often, not
always (before the fix: a session drew the page alone in 3 runs of 4 with these links);
``tests/app/test_frame.py`` forces the losing order deterministically.
"""

from __future__ import annotations

import contextlib

from playwright.sync_api import Browser
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bench.server import ROOT, streamlit_server
from tests.browser.conftest import TIMEOUT_MS, VIEWPORT, wait_for_app

LINKS = [
    "softmax",
    "forward_diffusion",
    "swin_windows",
    "attention_maps",
    "sparse_attention",
    "reverse_diffusion",
    "set_transformer",
    "permutations",
]
LINKS_JS = '[data-testid="stSidebarUserContent"] a[href]'
STAGGER_MS = 150  # students do not click in the same millisecond: the race needs overlap


def test_direct_links_opened_together_on_a_fresh_server_all_get_the_app(browser: Browser):
    log = ROOT / "artifacts" / "cold-start-server.log"
    log.parent.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py", log_path=log) as srv:
        contexts = [browser.new_context(viewport=VIEWPORT) for _ in LINKS]
        try:
            pages = [ctx.new_page() for ctx in contexts]
            # all in flight before the first session's first run ends
            for pg, slug in zip(pages, LINKS, strict=True):
                pg.set_default_timeout(TIMEOUT_MS * 2)
                pg.goto(f"{srv.url}/{slug}", wait_until="commit")
                pg.wait_for_timeout(STAGGER_MS)
            seen = []
            for pg, slug in zip(pages, LINKS, strict=True):
                wait_for_app(pg)
                # a rerouted session's first run drew nothing, and the status widget shows
                # only after a moment: wait for the links (drawn last), and report what is
                # on the page if they never come
                with contextlib.suppress(PlaywrightTimeout):
                    pg.wait_for_function(
                        "sel => document.querySelectorAll(sel).length >= 20", arg=LINKS_JS
                    )
                seen.append(
                    pg.evaluate(
                        """([slug, sel]) => ({
                        slug,
                        files: !!document.querySelector('[data-testid="stSidebarNav"]'),
                        errors: document.querySelectorAll('[data-testid="stException"]').length,
                        links: document.querySelectorAll(sel).length,
                        at: new URL(location.href).pathname,
                    })""",
                        [slug, LINKS_JS],
                    )
                )
        finally:
            for ctx in contexts:
                ctx.close()
    wrong = [
        s
        for s in seen
        if s["files"] or s["errors"] or s["links"] < 20 or s["at"] != f"/{s['slug']}"
    ]
    assert wrong == [], wrong
