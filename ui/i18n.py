"""Every user-facing string, per language.

Short strings (labels, headings, badges) live in ``assets/i18n/<lang>.json`` and, per
concept, ``assets/i18n/<lang>/<concept>.json`` (merged; keys ``<concept>.<name>``); long
explanations in ``assets/content/<lang>/<concept>.md``, cut into named sections by lines of
the form ``<!-- section: name -->``. A missing language, key or section falls back to English.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from types import MappingProxyType
from typing import Any

import streamlit as st

from ui.registry import ROOT

LANGUAGES: dict[str, str] = {"en": "English", "ja": "日本語"}
DEFAULT_LANG = "en"
ASSETS = ROOT / "assets"
_SECTION = re.compile(r"^<!--\s*section:\s*([\w-]+)\s*-->\s*$", re.MULTILINE)


def current_lang() -> str:
    """The language of this session: the sidebar's choice, else ``?lang=``, else English."""
    lang = st.session_state.get("lang") or st.query_params.get("lang", DEFAULT_LANG)
    return lang if lang in LANGUAGES else DEFAULT_LANG


@lru_cache(maxsize=8)
def strings(lang: str) -> MappingProxyType[str, str]:
    """The read-only table of short strings of ``lang`` (empty if there are no files)."""
    folder = ASSETS / "i18n"
    paths = [folder / f"{lang}.json", *sorted((folder / lang).glob("*.json"))]
    table: dict[str, str] = {}
    for path in paths:
        if path.is_file():
            table.update(json.loads(path.read_text(encoding="utf-8")))
    return MappingProxyType(table)


def tr(key: str, **values: Any) -> str:
    """The string ``key`` in the session's language, formatted with ``values``.

    Named ``tr`` (translate) so that pages keep ``t`` for the paper's symbols (a timestep).
    """
    return tr_in(current_lang(), key, **values)


def tr_in(lang: str, key: str, **values: Any) -> str:
    """:func:`tr` in ``lang`` (work done outside a session: the server's warm-up)."""
    text = strings(lang).get(key) or strings(DEFAULT_LANG).get(key)
    if text is None:  # tests/app/test_i18n.py lists keys the code uses but en.json lacks
        return key
    return text.format(**values) if values else text


t = tr  # the older name, still used by pages that have not moved to ``kit.Page``


def t_tex(key: str, **math: str) -> str:
    """``t(key)`` inside a KaTeX formula: its words in ``\\text{}``, its {placeholders} ``math``.

    The translation decides the word order, so numbers and symbols stay outside ``\\text``.
    """
    parts = tr(key, **{name: f"\0{name}\0" for name in math}).split("\0")
    return " ".join(math[p] if i % 2 else f"\\text{{{p}}}" for i, p in enumerate(parts) if p)


@lru_cache(maxsize=64)
def _sections(lang: str, concept: str) -> MappingProxyType[str, str]:
    path = ASSETS / "content" / lang / f"{concept}.md"
    if not path.is_file():
        return MappingProxyType({})
    parts = _SECTION.split(path.read_text(encoding="utf-8"))
    # parts = [preamble, name1, body1, name2, body2, ...]
    return MappingProxyType({n: b.strip() for n, b in zip(parts[1::2], parts[2::2], strict=True)})


def content(concept: str, section: str) -> str:
    """Section ``section`` of ``assets/content/<lang>/<concept>.md`` (English fallback)."""
    text = _sections(current_lang(), concept).get(section) or _sections(DEFAULT_LANG, concept).get(
        section
    )
    if text is None:
        raise KeyError(f"no section '{section}' in assets/content/{DEFAULT_LANG}/{concept}.md")
    return text


def has_section(concept: str, section: str) -> bool:
    """Whether the concept's explanation has a section ``section`` (in English at least)."""
    return section in _sections(DEFAULT_LANG, concept)
