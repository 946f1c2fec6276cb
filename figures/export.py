"""A figure's data as plain tables: CSV for download, and a table for every heatmap.

Every chart of the app can be exported (``ui.kit.page_tools``), and every heatmap has a
data-table alternative for readers who cannot see colours. Works on any figure built by
``figures/``: traces with ``x``/``y`` (lines, markers, bars, histograms) and heatmaps
(``z`` with optional ``x``/``y`` labels). Images carry pixels, not data, and are skipped.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

TABLE_TYPES = ("heatmap",)


@dataclass(frozen=True)
class Table:
    """One heatmap as a grid: ``values[i, j]`` at row label ``rows[i]``, column ``columns[j]``."""

    title: str
    rows: list[str]
    columns: list[str]
    values: np.ndarray


def _array(values: Any) -> np.ndarray:
    return np.asarray([] if values is None else values, dtype=object)


def _label(v: Any) -> str:
    if isinstance(v, float | np.floating):
        return f"{float(v):.6g}"
    return str(v)


def _trace_name(trace: Any, index: int) -> str:
    return str(trace.name) if trace.name else f"{trace.type} {index + 1}"


def _numeric(trace: Any) -> bool:
    return trace.type not in ("image",)


def _heatmap_table(trace: Any, index: int) -> Table | None:
    if trace.type not in TABLE_TYPES or trace.z is None:
        return None
    z = np.asarray(trace.z, dtype=float)
    if z.ndim != 2:
        return None
    rows = [_label(v) for v in trace.y] if trace.y is not None else []
    cols = [_label(v) for v in trace.x] if trace.x is not None else []
    if len(rows) != z.shape[0]:
        rows = [str(r) for r in range(z.shape[0])]
    if len(cols) != z.shape[1]:
        cols = [str(c) for c in range(z.shape[1])]
    return Table(_trace_name(trace, index), rows, cols, z)


def heatmap_tables(fig: go.Figure) -> list[Table]:
    """Every heatmap trace of ``fig`` as a :class:`Table` (labels default to 0, 1, …)."""
    tables = (_heatmap_table(trace, i) for i, trace in enumerate(fig.data))
    return [table for table in tables if table is not None]


def _rows(fig: go.Figure) -> Iterator[Sequence[Any]]:
    yield ("trace", "x", "y", "z")
    for i, trace in enumerate(fig.data):
        if not _numeric(trace):
            continue
        name = _trace_name(trace, i)
        table = _heatmap_table(trace, i)
        if table is not None:
            for r, row in zip(table.rows, table.values, strict=True):
                for c, v in zip(table.columns, row, strict=True):
                    yield (name, c, r, _label(v))
            continue
        if trace.type in TABLE_TYPES:
            continue
        x, y = _array(getattr(trace, "x", None)), _array(getattr(trace, "y", None))
        n = max(len(x), len(y))
        if len(x) == 0 and trace.type != "histogram":  # Plotly's implicit x = 0, 1, …
            x = np.arange(n, dtype=object)
        for k in range(n):
            xv = _label(x[k]) if k < len(x) else ""
            yv = _label(y[k]) if k < len(y) else ""
            yield (name, xv, yv, "")


def has_data(fig: go.Figure) -> bool:
    """Whether ``fig`` has a trace with numbers to export (a picture alone has none)."""
    return any(_numeric(trace) for trace in fig.data)


def figure_csv(fig: go.Figure) -> str:
    """The data of every trace of ``fig`` in long form: ``trace, x, y, z`` (one row a point)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(_rows(fig))
    return out.getvalue()
