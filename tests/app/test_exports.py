""" ""Data tables & export" on every page: the page state as JSON and one CSV per chart
drawn, each with a header and rows of numbers."""

from __future__ import annotations

import csv
import io

import pytest

from figures import handout
from figures.export import figure_csv, has_data
from tests.app.conftest import open_page
from ui.registry import CONCEPTS


def download_ids(at) -> list[str]:
    return [b.proto.id.rsplit("-", 1)[-1] for b in at.get("download_button")]


@pytest.mark.parametrize("concept", CONCEPTS, ids=lambda c: c.slug)
def test_every_chart_is_exported_with_its_data(concept):
    at = open_page(concept.page)
    at.session_state[f"{concept.slug}_data"] = True
    at.run()
    assert not at.exception and not at.error
    figures = at.session_state["_kit_figures"]
    assert figures, "the page drew no kit.chart"
    ids = download_ids(at)
    assert f"{concept.slug}_json" in ids and f"{concept.slug}_handout" in ids
    assert sorted(i for i in ids if i.endswith("_html")) == sorted(f"{k}_html" for k in figures)
    exported = sorted(f"{k}_csv" for k, fig in figures.items() if has_data(fig))
    assert exported, "at least one chart with numbers"
    assert sorted(i for i in ids if i.endswith("_csv")) == exported
    for key, fig in figures.items():
        if not has_data(fig):
            continue  # a picture (image trace) has no table
        rows = list(csv.reader(io.StringIO(figure_csv(fig))))
        assert len(rows) >= 2 and len(rows[0]) >= 2, f"{key}: a header and at least one row"
        numbers = [cell for row in rows[1:] for cell in row if cell.strip()]
        assert any(_is_number(cell) for cell in numbers), f"{key}: no numbers exported"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_is_number():
    assert _is_number("-1.5e-3") and not _is_number("q₁")


@pytest.mark.parametrize("concept", CONCEPTS, ids=lambda c: c.slug)
def test_every_formula_of_the_handout_becomes_mathml(concept):
    at = open_page(concept.page)
    formulas = at.session_state["_kit_formulas"]
    assert formulas, "the page drew no kit.formula"
    for formula in formulas.values():
        assert not handout.mathml(formula.latex).startswith("<pre>"), formula.latex[:200]
