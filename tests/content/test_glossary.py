"""Japanese uses one term per idea: the glossary's, never one of its 'avoid' variants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = json.loads((ROOT / "assets" / "i18n" / "glossary.json").read_text(encoding="utf-8"))


def japanese_texts() -> dict[str, str]:
    """Every Japanese text the app shows: string tables, explanations, formula templates."""
    assets = ROOT / "assets"
    paths = [
        assets / "i18n" / "ja.json",
        *sorted((assets / "i18n" / "ja").glob("*.json")),
        *sorted((assets / "content" / "ja").glob("*.md")),
        *sorted((assets / "formulas").glob("*.tex")),
    ]
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in paths if p.is_file()}


TEXTS = japanese_texts()


def test_the_glossary_is_well_formed() -> None:
    terms = GLOSSARY["terms"]
    assert len(terms) >= 30
    for term in terms:
        assert set(term) == {"en", "ja", "avoid"}, term
        for bad in term["avoid"]:
            assert bad not in term["ja"], f"{term['en']}: '{bad}' is both preferred and avoided"


def test_the_scanner_sees_every_language_file() -> None:
    names = " ".join(TEXTS)
    assert "assets/i18n/ja.json" in names and "assets/content/ja/softmax.md" in names


@pytest.mark.parametrize("path", sorted(TEXTS))
def test_japanese_uses_the_glossary_terms(path: str) -> None:
    text = TEXTS[path]
    found = [
        f"'{bad}' (use '{term['ja']}' for {term['en']})"
        for term in GLOSSARY["terms"]
        for bad in term["avoid"]
        if bad in text
    ]
    assert not found, f"{path}: " + "; ".join(found)
