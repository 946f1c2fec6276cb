"""Full Plotly validation of a figure our builders made without it (figures.style.figure),
and a reader of the pictures figures draw as SVG."""

from __future__ import annotations

import re
from urllib.parse import unquote

import numpy as np
import plotly.graph_objects as go


def assert_valid_plotly(fig: go.Figure) -> None:
    """Rebuild ``fig`` with Plotly's validation on: raises on any unknown or bad property."""
    spec = fig.to_plotly_json()
    go.Figure(spec)  # validated: ValueError names the offending property


def dots_of(source: str) -> tuple[np.ndarray, str]:
    """A layout image's dots (figures.reverse.dots_image) back as (n, 2) points in axis
    units, and its SVG."""
    svg = svg_of(source)
    path = re.fullmatch(r".*<path d='([^']*)'.*", svg, flags=re.S)
    assert path is not None
    pairs = re.findall(r"M(-?\d+),(-?\d+)h0", path.group(1))
    assert "".join(f"M{x},{y}h0" for x, y in pairs) == path.group(1)  # nothing else drawn
    return np.array([[int(x) / 100, -int(y) / 100] for x, y in pairs]).reshape(-1, 2), svg


def paths_of(source: str) -> list[tuple[dict[str, str], list[np.ndarray]]]:
    """A layout image's paths (figures.reverse._picture: hundredths of a unit, y up) back as
    (attributes, polylines in axis units, each (k, 2)), in the order drawn; nothing but
    paths of straight lines may be in it (the test fails otherwise)."""
    body = re.fullmatch(r"<svg [^>]*>(.*)</svg>", svg_of(source), flags=re.S)
    assert body is not None
    elements = re.findall(r"<path ([^/>]*)/>", body.group(1))
    assert "".join(f"<path {e}/>" for e in elements) == body.group(1)  # nothing else drawn
    out = []
    for element in elements:
        attrs = dict(re.findall(r"([\w-]+)='([^']*)'", element))
        polylines = []
        for run in re.findall(r"M[^M]*", attrs.pop("d")):
            points = re.findall(r"(-?\d+),(-?\d+)", run)
            assert re.fullmatch(r"M-?\d+,-?\d+(L-?\d+,-?\d+)*Z?", run), run
            polylines.append(np.array([[int(x) / 100, -int(y) / 100] for x, y in points]))
        out.append((attrs, polylines))
    return out


def svg_of(source: str) -> str:
    """The SVG text of a picture's data URI (``data:image/svg+xml,`` and URL-encoded)."""
    head = "data:image/svg+xml,"
    assert source.startswith(head)
    return unquote(source[len(head) :])
