"""Figures of the Cayley–Hamilton page: arrays in, ``go.Figure`` out."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from figures.style import BLUE, GREY, ORANGE, VERMILLION, figure, layout, panel_titles


def signed_log(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``sign(x) · log10(1 + |x|)``: keeps the sign, tames numbers that grow like λᵏ."""
    x = np.asarray(x, dtype=np.float64)
    return np.sign(x) * np.log10(1 + np.abs(x))


def powers_figure(
    eigenvalues: NDArray[np.complex128],
    remainder: Sequence[float],
    *,
    titles: tuple[str, str],
    axis_titles: tuple[str, str, str, str],
    names: tuple[str, str] = ("eigenvalues λ", "coefficient r_j"),
) -> go.Figure:
    """Left: the eigenvalues in the complex plane with the circle |z| = spectral radius.
    Right: the coefficients of r(t) = t^k mod F_A(t), i.e. A^k = Σ r_j A^j, on a signed log
    scale. The left panel and the layout depend on A only, not on k.

    Traces: [0] eigenvalues (x/y), [1] bars r_j (x2/y2). Shapes: [0] the circle.
    """
    lam = np.asarray(eigenvalues, dtype=np.complex128)
    rho = float(np.abs(lam).max()) if lam.size else 1.0
    lim = 1.15 * max(rho, 1e-9)
    lay = layout(title="", x=axis_titles[0], y=axis_titles[1], height=360)
    lay["xaxis"].update({"domain": [0.0, 0.40], "range": [-lim, lim]})
    lay["yaxis"].update({"range": [-lim, lim], "scaleanchor": "x", "constrain": "domain"})
    n = len(remainder)
    labels = ["I", "A"] + [f"A{_sup(j)}" for j in range(2, n)]
    lay["xaxis2"] = {
        **lay["xaxis"],
        "domain": [0.52, 1.0],
        "anchor": "y2",
        "type": "category",
        "title": {"text": axis_titles[2]},
        "range": [-0.5, n - 0.5],
    }
    lay["xaxis2"].pop("scaleanchor", None)
    lay["yaxis2"] = {
        **{k: v for k, v in lay["yaxis"].items() if k not in ("range", "scaleanchor", "constrain")},
        "anchor": "x2",
        "title": {"text": axis_titles[3]},
    }
    lay["annotations"] = panel_titles(titles[:2], (0.0, 0.52))
    lay["shapes"] = [
        {
            "type": "circle",
            "xref": "x",
            "yref": "y",
            "x0": -rho,
            "x1": rho,
            "y0": -rho,
            "y1": rho,
            "line": {"color": GREY, "dash": "dash", "width": 1},
        },
    ]
    lay["margin"] = {"l": 60, "r": 15, "t": 40, "b": 60}
    lay["showlegend"] = False
    r = np.array([float(c) for c in remainder])
    data = [
        {
            "type": "scatter",
            "x": lam.real.tolist(),
            "y": lam.imag.tolist(),
            "mode": "markers",
            "name": names[0],
            "marker": {"size": 12, "color": ORANGE, "line": {"color": "black", "width": 1}},
            "hovertemplate": "λ = %{x:.4f} %{y:+.4f} i<extra></extra>",
        },
        {
            "type": "bar",
            "x": labels,
            "y": signed_log(r).tolist(),
            "xaxis": "x2",
            "yaxis": "y2",
            "name": names[1],
            "customdata": r.tolist(),
            "marker": {"color": [BLUE if c >= 0 else VERMILLION for c in r]},
            "hovertemplate": "%{x}: r = %{customdata:.6g}<extra></extra>",
        },
    ]
    # the plain-dict path (figures.style.figure): a validated go.Figure took about 12 ms of
    # every run of the theorem view (tests/figures validate it)
    return figure(data, lay)


def _sup(j: int) -> str:
    return str(j).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
