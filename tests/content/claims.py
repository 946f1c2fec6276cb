"""Numbers in the explanations are code: each is recomputed from ``core`` by a test.

Every concept ``c`` with ``assets/content/<lang>/c.md`` has a module
``tests/content/claims_c.py`` defining

- ``CLAIMS``: a list of :class:`Claim` — a number as the text writes it, and a function that
  recomputes it from ``core`` and formats it the same way. ``test_claims.py`` runs each one
  and checks that the number stands in the text of every language it names.
- ``NOT_CLAIMS``: ``{number as written: why it is not a computed claim}`` — a year in a
  citation, a paper's section or equation number, a size chosen for an example that the text
  then computes from, a count in a definition.

``test_every_number_is_accounted_for`` finds each number of two or more characters in the
explanations (single digits are counts and indices in prose) and fails unless it is a claim
or a stated non-claim: when the code changes a number, a stale sentence fails a test, and a
new sentence with a number must say where the number comes from.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONTENT = ROOT / "assets" / "content"
LANGS = ("en", "ja")

# 12, 0.1189, 7,900, 2,003,828,736, 1e-4 (a number glued to letters, as in x0 or ℝ3, is not one)
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:e[-−+]?\d+)?(?![\w])")


@dataclass(frozen=True)
class Claim:
    """A number in the explanation and how ``core`` recomputes it.

    Attributes:
        text: the number exactly as the text writes it (``"0.1189"``, ``"7,900"``).
        compute: recomputes it from ``core``, formatted as in the text.
        langs: the languages whose text contains it.
        why: what the number says (a short note for the reader of the test).
    """

    text: str
    compute: Callable[[], str]
    langs: tuple[str, ...] = LANGS
    why: str = ""


def page_constant(page: str, name: str) -> object:
    """A module-level constant of ``pages/<page>.py``, read from its source (a page is a
    script: importing it would run it)."""
    import ast  # noqa: PLC0415

    source = (ROOT / "pages" / f"{page}.py").read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                names = [target] if isinstance(target, ast.Name) else getattr(target, "elts", [])
                for i, item in enumerate(names):
                    if getattr(item, "id", None) == name:
                        value = ast.literal_eval(node.value)
                        return value[i] if len(names) > 1 else value
    raise KeyError(f"pages/{page}.py has no constant {name}")


def numbers_in(text: str) -> set[str]:
    """The numbers of two or more characters in ``text`` (trailing commas dropped)."""
    found = {m.group().rstrip(",") for m in NUMBER.finditer(text)}
    return {n for n in found if len(n) >= 2}


def content_text(concept: str, lang: str) -> str:
    path = CONTENT / lang / f"{concept}.md"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def concepts() -> list[str]:
    return sorted(p.stem for p in (CONTENT / "en").glob("*.md"))
