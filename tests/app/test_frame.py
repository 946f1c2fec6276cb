"""The frame: every page registered, every registered page runs, every string defined."""

from __future__ import annotations

import re

import pytest

from tests.app.conftest import ROOT, open_page
from ui.i18n import strings
from ui.registry import CONCEPTS, SECTIONS

READY = [c for c in CONCEPTS if c.ready]


def test_every_file_in_pages_is_registered_in_the_navigation():
    registered = {"home.py"} | {c.page for c in CONCEPTS if c.page}
    on_disk = {p.name for p in (ROOT / "pages").glob("*.py") if not p.name.startswith("_")}
    assert on_disk - registered == set(), "add these pages to ui/registry.py"
    assert registered - on_disk == set() or all(
        not c.ready for c in CONCEPTS if c.page not in on_disk
    )


def test_every_page_calls_the_entrypoint_guard():
    for path in (ROOT / "pages").glob("*.py"):
        assert "require_entrypoint()" in path.read_text(), path.name


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


@pytest.mark.parametrize("concept", READY, ids=lambda c: c.slug)
def test_every_registered_page_runs_without_exception(concept):
    at = open_page(concept.page)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.title[0].value == dict(strings("en"))[f"{concept.slug}.title"]
    # the page contract: formula, invariant badges (all green), try-this, show-the-code
    formulas = [m.value for m in at.markdown if m.value.startswith("$$")]
    assert formulas, "a formula with the current numbers"
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert badges and all(":red-badge[" not in b for b in badges), badges
    assert any(e.label.startswith("Show the tested code") for e in at.expander)


def test_every_string_key_used_in_the_code_exists_in_english():
    en = dict(strings("en"))
    used = set()
    for folder in ("app.py", "pages", "ui", "figures"):
        for path in [ROOT / folder] if folder.endswith(".py") else (ROOT / folder).rglob("*.py"):
            used |= set(re.findall(r"""\bt(?:_tex)?\(\s*f?["']([\w.]+)["']""", path.read_text()))
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
