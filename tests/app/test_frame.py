"""The frame: every page registered, every registered page runs, every string defined."""

from __future__ import annotations

import json
import re

import pytest

from tests.app.conftest import ROOT, live_controls, open_page
from ui.i18n import strings
from ui.registry import CONCEPTS, SECTIONS

READY = list(CONCEPTS)


def test_the_navigation_lists_exactly_the_files_in_pages():
    registered = ["home.py"] + [c.page for c in CONCEPTS]
    on_disk = {p.name for p in (ROOT / "pages").glob("*.py") if not p.name.startswith("_")}
    assert len(registered) == len(set(registered)), "a page registered twice"
    assert on_disk - set(registered) == set(), "add these pages to ui/registry.py"
    assert set(registered) - on_disk == set(), "registered pages whose file is missing"


def test_every_page_goes_through_the_entrypoint_guard():
    """``kit.Page.run`` (or the home page itself) calls ``require_entrypoint`` first."""
    for path in (ROOT / "pages").glob("*.py"):
        text = path.read_text()
        assert "require_entrypoint()" in text or "\npage.run()" in text, path.name


def test_live_parts_use_the_kit_fragment():
    """``kit.fragment`` writes the URL after the fragment's chart; a bare ``st.fragment``
    would leave a slider's value out of the address bar until the next full run."""
    for path in (ROOT / "pages").glob("*.py"):
        assert "st.fragment" not in path.read_text(), f"{path.name}: use @kit.fragment"


def test_registry_is_consistent():
    slugs = [c.slug for c in CONCEPTS]
    assert len(slugs) == len(set(slugs))
    assert {c.section for c in CONCEPTS} <= set(SECTIONS)
    for c in READY:
        assert c.probe is not None, f"{c.slug}: bench/latency needs a (slider, chart) probe"
        assert (ROOT / "assets/content/en" / f"{c.slug}.md").is_file()


def test_home_runs_and_lists_every_concept():
    at = open_page(None)
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    en = dict(strings("en"))
    for c in CONCEPTS:
        assert en[f"{c.slug}.title"] in text


def test_the_sidebar_links_every_page_once_in_one_element():
    """One element draws the sidebar's links (``ui.nav``, not an ``st.page_link`` each):
    every page once, under its section's heading in the session's language, in the
    registry's order, with its icon, the open page marked."""
    at = open_page("softmax.py", {"lang": "ja"})
    assert not at.exception and not at.sidebar.get("page_link")
    [element] = [e for e in at.get("bidi_component") if e.proto.component_name == "adlab.nav"]
    data = json.loads(element.proto.json)
    ja = strings("ja")
    sections = [s for s in SECTIONS if any(c.section == s for c in CONCEPTS)]
    assert [s["heading"] for s in data["sections"]] == [""] + [ja[f"section.{s}"] for s in sections]
    links = [link for s in data["sections"] for link in s["links"]]
    order = [c for s in sections for c in CONCEPTS if c.section == s]
    assert [link["href"] for link in links] == ["/"] + [f"/{c.slug}" for c in order]
    assert [link["title"] for link in links] == [ja["home.nav"]] + [
        ja[f"{c.slug}.title"] for c in order
    ]
    assert [link["icon"] for link in links[1:]] == [c.icon[len(":material/") : -1] for c in order]
    assert [link["href"] for link in links if link["current"]] == ["/softmax"]
    assert data["label"] == ja["app.pages"]


def test_the_sidebar_links_live_under_the_servers_base_path():
    """Hosted under a path (``server.baseUrlPath``), the links keep it: a relative address
    would lose it on the home page (``/course`` + ``softmax`` is ``/softmax``)."""
    from streamlit import config

    before = config.get_option("server.baseUrlPath")
    config.set_option("server.baseUrlPath", "/course/")
    try:
        at = open_page("wallis.py")
        [element] = [e for e in at.get("bidi_component") if e.proto.component_name == "adlab.nav"]
        hrefs = [
            link["href"] for s in json.loads(element.proto.json)["sections"] for link in s["links"]
        ]
    finally:
        config.set_option("server.baseUrlPath", before)
    assert hrefs[0] == "/course/" and "/course/wallis" in hrefs
    assert all(h.startswith("/course/") for h in hrefs)


@pytest.mark.parametrize("concept", READY, ids=lambda c: c.slug)
def test_every_registered_page_runs_without_exception(concept):
    at = open_page(concept.page)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.title[0].value == strings("en")[f"{concept.slug}.title"]
    # the page contract: formula, invariant badges (all green), try-this, show-the-code
    formulas = [m.value for m in at.markdown if m.value.startswith("$$")]
    assert formulas, "a formula with the current numbers"
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    if not badges:  # a live control (ui.live) draws the badges with each of its states
        states = [s for data in live_controls(at) for s in data["states"]]
        badges = [s["html"] for s in states if "live-badge" in s["html"]]
        assert len(badges) == len(states), "every state of a live control has its badges"
    assert badges and all(":red-badge[" not in b and ' live-bad"' not in b for b in badges), badges
    keys = {e.key for e in at.expander}
    assert {f"{concept.slug}_code", f"{concept.slug}_data", f"{concept.slug}_ex_box"} <= keys


def string_keys_used(text: str) -> set[str]:
    """The literal string keys a module asks for: ``t("a.b")``, ``tr("a.b")``,
    ``tr_in(lang, "a.b")`` and, on a ``kit.Page("concept", ...)`` page, ``page.tr("name")``
    (= ``concept.name``)."""
    used = set(re.findall(r"""(?<![.\w])(?:t|tr|t_tex)\(\s*f?["']([\w.]+)["']""", text))
    used |= set(re.findall(r"""(?<![.\w])tr_in\(\s*\w+\s*,\s*f?["']([\w.]+)["']""", text))
    concept = re.search(r"""kit\.Page\(\s*["'](\w+)["']""", text)
    if concept:
        names = re.findall(r"""\bpage\.tr\(\s*["'](\w+)["']""", text)
        used |= {f"{concept.group(1)}.{name}" for name in names}
    return used


def test_the_key_finder_sees_page_strings():
    text = 'page = kit.Page("wallis")\npage.tr("n_axis")\ntr("kit.seed")\ntr_in(lang, "kit.data")'
    assert string_keys_used(text) == {"wallis.n_axis", "kit.seed", "kit.data"}


def test_every_string_key_used_in_the_code_exists_in_english():
    en = dict(strings("en"))
    used = set()
    for folder in ("app.py", "pages", "ui", "figures"):
        for path in [ROOT / folder] if folder.endswith(".py") else (ROOT / folder).rglob("*.py"):
            used |= string_keys_used(path.read_text())
    missing = sorted(k for k in used if "{" not in k and k not in en)
    assert missing == []


def test_every_content_section_used_exists():
    for c in READY:
        md = (ROOT / "assets/content/en" / f"{c.slug}.md").read_text()
        for name in ("intro", "try"):
            assert f"<!-- section: {name} -->" in md, (c.slug, name)


def test_prose_has_no_inline_katex():
    """Inline $...$ in static prose is re-rendered by the browser on every slider step."""
    for path in (ROOT / "assets/content").glob("*/*.md"):
        lines = path.read_text(encoding="utf-8").splitlines()
        body = "\n".join(line for line in lines if not line.startswith("<!--"))
        name = f"{path.parent.name}/{path.name}"
        assert "$" not in body, f"{name}: write the maths in Unicode, keep KaTeX for kit.formula"


def test_a_direct_link_that_started_alone_reroutes_though_another_session_switched_first(
    monkeypatch,
):
    """A class opens direct links to a fresh server: each session starts the page file on
    its own (Streamlit's ``pages/`` mode), and another session's ``app.py`` may switch the
    process to ``st.navigation`` before this one reaches ``require_entrypoint``. It must
    still rerun through ``app.py``: its sidebar, not Streamlit's list of files. Before the
    fix it drew the page alone (seen in Chromium, 2 sessions of 3 on a cold server)."""
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import script_runner
    from streamlit.testing.v1 import app_test
    from streamlit.testing.v1.app_test import AppTest

    monkeypatch.setattr(app_test, "PagesManager", PagesManager)  # a fresh server's first run
    alone = script_runner._mpa_v1

    def another_session_switches_meanwhile(main_script_path):
        PagesManager.uses_pages_directory = False  # what st.navigation does in app.py
        alone(main_script_path)

    monkeypatch.setattr(script_runner, "_mpa_v1", another_session_switches_meanwhile)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page("pages/softmax.py").run()
    assert not at.exception
    assert [s.label for s in at.sidebar.selectbox] == [strings("en")["app.language"]]
    assert strings("en")["softmax.title"] in at.title[0].value
