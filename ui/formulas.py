"""Formula templates: the KaTeX of each page lives in ``assets/formulas/<concept>.tex``.

A file holds named templates, each introduced by a line ``%% name``. Inside a template

- ``<<value>>`` is replaced by the page's value of that name (already formatted, see
  :mod:`ui.tex`): every placeholder must be given and every value used;
- ``[[key]]`` is replaced by ``\\text{…}`` with the string ``<concept>.key`` in the page's
  language (a key with a dot, ``[[kit.rows]]``, is used as it is).

So the words of a formula are translated like every other string, and the page's Python
holds the numbers only.

>>> fill("x = <<x>>\\\\ [[word]]", {"x": "2"}, lambda key: key.upper())
'x = 2\\\\ \\\\text{WORD}'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from types import MappingProxyType

from ui.i18n import ASSETS, tr

_NAME = re.compile(r"^%%\s*([\w-]+)\s*$", re.MULTILINE)
VALUE = re.compile(r"<<(\w+)>>")
WORDS = re.compile(r"\[\[([\w.]+)\]\]")


@lru_cache(maxsize=64)
def templates(concept: str) -> Mapping[str, str]:
    """The templates of ``assets/formulas/<concept>.tex`` by name (empty if no file)."""
    path = ASSETS / "formulas" / f"{concept}.tex"
    if not path.is_file():
        return MappingProxyType({})
    parts = _NAME.split(path.read_text(encoding="utf-8"))
    return MappingProxyType({n: b.strip() for n, b in zip(parts[1::2], parts[2::2], strict=True)})


def fill(template: str, values: Mapping[str, object], words: Callable[[str], str]) -> str:
    """``template`` with its ``<<value>>`` and ``[[key]]`` placeholders filled in."""
    wanted = set(VALUE.findall(template))
    if missing := wanted - set(values):
        raise KeyError(f"formula needs values for {sorted(missing)}")
    if unused := set(values) - wanted:
        raise KeyError(f"formula has no placeholder for {sorted(unused)}")
    text = VALUE.sub(lambda m: str(values[m.group(1)]), template)
    return WORDS.sub(lambda m: f"\\text{{{words(m.group(1))}}}", text)


def render(concept: str, name: str, **values: object) -> str:
    """Template ``name`` of ``concept`` in the session's language with ``values`` filled in."""
    try:
        template = templates(concept)[name]
    except KeyError:
        raise KeyError(f"no formula '{name}' in assets/formulas/{concept}.tex") from None
    return fill(template, values, lambda key: tr(key if "." in key else f"{concept}.{key}"))
