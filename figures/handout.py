"""Offline exports for slides and handouts: a chart as a standalone interactive HTML file, and
a whole view (figures, formulas with today's numbers, badges, the link) as one HTML file.

Both work with no network: plotly.js is inside the file, and formulas are MathML (converted
on the server by ``latex2mathml``), which browsers draw natively, so no script or font is
fetched. A chart's toolbar in these files saves SVG (vector, for slides); in the app it
saves PNG at three times the screen size (``ui.kit.PLOTLY_CONFIG``), sharp on a projector.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import plotly.graph_objects as go
import plotly.io as pio
from latex2mathml.converter import convert

SVG_TOOLBAR = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "svg"},
    "modeBarButtonsToRemove": ["lasso2d", "select2d"],
}

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem;
       color: #1f1f1f; line-height: 1.5; }
h1 { font-size: 2rem; } figure { margin: 1.5rem 0; } figcaption { color: #55534f; }
.formula { font-size: 1.25rem; margin: 1rem 0; overflow-x: auto; overflow-y: hidden; }
.ok { color: #1b5e20; } .bad { color: #b71c1c; } footer { color: #55534f; margin-top: 3rem; }
"""


@dataclass(frozen=True)
class Badge:
    """An invariant as it was checked: ``label`` (and ``detail``) held when ``ok``."""

    label: str
    ok: bool
    detail: str = ""


@dataclass(frozen=True)
class Formula:
    """A formula in LaTeX with the badges shown under it."""

    latex: str
    badges: Sequence[Badge] = ()
    caption: str = ""


_OUTER = re.compile(r"^\s*\\begin\{gathered\}(.*)\\end\{gathered\}\s*$", re.DOTALL)
_TOKEN = re.compile(r"\\begin\{\w+\}|\\end\{\w+\}|\\\\(?:\[[^\]]*\])?")


def formula_lines(latex: str) -> list[str]:
    """The lines of a ``gathered`` formula (its top-level ``\\\\``), or the formula itself.

    A line break inside a nested environment (a matrix, an array) stays where it is.
    """
    outer = _OUTER.match(latex)
    if not outer:
        return [latex]
    body, lines, depth, start = outer.group(1), [], 0, 0
    for token in _TOKEN.finditer(body):
        text = token.group()
        if text.startswith("\\begin"):
            depth += 1
        elif text.startswith("\\end"):
            depth -= 1
        elif depth == 0:
            lines.append(body[start : token.start()])
            start = token.end()
    lines.append(body[start:])
    return [line.strip() for line in lines if line.strip()]


def mathml(latex: str) -> str:
    """``latex`` as display MathML, one block a line of a ``gathered`` formula; the LaTeX
    source itself if a line cannot be converted."""
    blocks = []
    for line in formula_lines(latex):
        try:
            out = convert(line)
        except Exception:  # noqa: BLE001 (any converter failure: show the source instead)
            return f"<pre>{html.escape(latex)}</pre>"
        blocks.append(out.replace('display="inline"', 'display="block"', 1))
    return "\n".join(blocks)


def chart_html(fig: go.Figure, *, with_plotly_js: bool) -> str:
    """A ``<div>`` drawing ``fig`` (and plotly.js itself, once a page)."""
    spec = fig.to_plotly_json()
    layout = dict(spec.get("layout", {}))
    if isinstance(layout.get("template"), str):  # figures.style names "none": no template
        layout["template"] = {}
    return pio.to_html(
        {"data": spec.get("data", []), "layout": layout, "frames": spec.get("frames", [])},
        include_plotlyjs=with_plotly_js,
        full_html=False,
        config=SVG_TOOLBAR,
        validate=False,
    )


def standalone_chart(fig: go.Figure, title: str) -> str:
    """One chart as a complete HTML page with plotly.js inside (works offline)."""
    body = chart_html(fig, with_plotly_js=True)
    return _page(title, f"<h1>{html.escape(title)}</h1>\n{body}", lang="en")


def handout(
    title: str,
    intro: str,
    link: str,
    figures: Sequence[tuple[str, go.Figure]],
    formulas: Sequence[Formula],
    *,
    lang: str = "en",
    made: datetime | None = None,
) -> str:
    """The view as one offline HTML file: title, intro, figures, formulas with badges, link."""
    parts = [
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{_plain(intro)}</p>",
        f'<p><a href="{html.escape(link)}">{html.escape(link)}</a></p>',
    ]
    for index, (name, fig) in enumerate(figures):
        chart = chart_html(fig, with_plotly_js=index == 0)
        parts.append(f"<figure>{chart}<figcaption>{html.escape(name)}</figcaption></figure>")
    for formula in formulas:
        parts.append(f'<div class="formula">{mathml(formula.latex)}</div>')
        if formula.caption:
            parts.append(f"<p><em>{html.escape(formula.caption)}</em></p>")
        if formula.badges:
            items = "".join(
                f'<li class="{"ok" if b.ok else "bad"}">{"✓" if b.ok else "✗"} '
                f"{html.escape(b.label)}{' — ' + html.escape(b.detail) if b.detail else ''}</li>"
                for b in formula.badges
            )
            parts.append(f"<ul>{items}</ul>")
    stamp = (made or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    parts.append(f"<footer>{html.escape(stamp)}</footer>")
    return _page(title, "\n".join(parts), lang=lang)


def _plain(markdown: str) -> str:
    """Markdown prose as escaped text with its bold and italics kept."""
    text = html.escape(markdown)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"(?<!\*)\*(?!\*)(.+?)\*", r"<em>\1</em>", text).replace("\n\n", "</p><p>")


def _page(title: str, body: str, *, lang: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="{html.escape(lang)}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )
