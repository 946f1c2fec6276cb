"""English and Japanese: nothing missing, nothing stale, and a gap falls back to English."""

from __future__ import annotations

import json
import re
import string

import pytest

from tests.app.conftest import open_page
from ui import i18n
from ui.i18n import LANGUAGES, strings
from ui.registry import CONCEPTS, ROOT

CONTENT = ROOT / "assets" / "content"
OTHER = [lang for lang in LANGUAGES if lang != i18n.DEFAULT_LANG]


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def sections(path) -> list[str]:
    return i18n._SECTION.findall(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", OTHER)
def test_every_english_string_is_translated(lang):
    en, other = strings("en"), strings(lang)
    missing = sorted(set(en) - set(other))
    assert not missing, f"{len(missing)} keys missing in {lang}: {missing}"
    stale = sorted(set(other) - set(en))
    assert not stale, f"keys in {lang} that English no longer has: {stale}"


@pytest.mark.parametrize("lang", OTHER)
def test_translations_keep_every_placeholder(lang):
    en, other = strings("en"), strings(lang)
    wrong = [k for k in en if k in other and placeholders(en[k]) != placeholders(other[k])]
    assert not wrong, f"placeholders differ in {lang}: {wrong}"


@pytest.mark.parametrize("lang", OTHER)
def test_every_explanation_is_translated_section_by_section(lang):
    missing = []
    for path in sorted((CONTENT / "en").glob("*.md")):
        theirs = CONTENT / lang / path.name
        if not theirs.is_file():
            missing.append(path.name)
        elif sections(theirs) != sections(path):
            missing.append(f"{path.name}: {sections(path)} vs {sections(theirs)}")
    assert not missing, f"explanations missing or cut differently in {lang}: {missing}"


def test_a_missing_translation_falls_back_to_english(tmp_path, monkeypatch):
    (tmp_path / "i18n").mkdir()
    (tmp_path / "i18n" / "en.json").write_text(json.dumps({"a": "Hello {name}", "b": "Bye"}))
    (tmp_path / "i18n" / "ja.json").write_text(json.dumps({"a": "こんにちは {name}"}))
    (tmp_path / "content" / "en").mkdir(parents=True)
    (tmp_path / "content" / "en" / "x.md").write_text("<!-- section: intro -->\nEnglish intro\n")
    monkeypatch.setattr(i18n, "ASSETS", tmp_path)
    monkeypatch.setattr(i18n, "current_lang", lambda: "ja")
    i18n.strings.cache_clear()
    i18n._sections.cache_clear()
    try:
        assert i18n.t("a", name="Ada") == "こんにちは Ada"
        assert i18n.t("b") == "Bye"  # not translated: English
        assert i18n.t("nowhere") == "nowhere"  # unknown everywhere: the key, never a crash
        assert i18n.content("x", "intro") == "English intro"
    finally:
        i18n.strings.cache_clear()
        i18n._sections.cache_clear()


@pytest.mark.parametrize("concept", list(CONCEPTS), ids=lambda c: c.slug)
def test_every_page_runs_in_japanese(concept):
    at = open_page(concept.page, {"lang": "ja"})
    assert not at.exception
    assert at.title[0].value == strings("ja")[f"{concept.slug}.title"]
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", at.markdown[0].value), "intro not Japanese"


def test_an_unknown_language_falls_back_to_english_with_a_notice():
    at = open_page("softmax.py", {"lang": "xx"})
    assert not at.exception
    assert at.title[0].value == strings("en")["softmax.title"]
    assert any("lang" in c.value for c in at.caption)
