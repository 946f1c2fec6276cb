"""Numbers written for people: inside KaTeX formulas (``num``, ``sci``, ``vec``, ``paren``) and in
prose such as exercises and badges (``plain``, ``plain_vec``, ``signed``, ``sub``, ``sup``).

One place for every page, so the same number looks the same everywhere.

>>> num(2003828736), sci(5.77e-15, 3, moderate=None), paren(-2.5), vec([1, -0.5], 2)
('2{,}003{,}828{,}736', '5.77 \\\\times 10^{-15}', '(-2.5)', '(1.00,\\\\ -0.50)')
>>> plain(-0.25), signed(-0.0004), sub(12), sup(-3)
('−0.25', '0.000', '₁₂', '⁻³')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

_SUB = str.maketrans("0123456789-", "₀₁₂₃₄₅₆₇₈₉₋")
_SUP = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")

# ---- inside KaTeX ------------------------------------------------------------------------


def num(x: float) -> str:
    """A whole number with KaTeX thousands separators: ``2{,}003{,}828{,}736``."""
    return f"{x:,.0f}".replace(",", "{,}")


def sci(x: float, digits: int = 4, *, moderate: tuple[float, float] | None = (1e-3, 1e4)) -> str:
    """``digits`` significant digits; ``m \\times 10^{e}`` outside ``moderate`` (always if None).

    An exact zero is ``0``.
    """
    if x == 0:
        return "0"
    if moderate is not None and moderate[0] <= abs(x) < moderate[1]:
        return f"{x:.{digits}g}"
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{mantissa} \\times 10^{{{int(exponent)}}}"


def paren(x: float) -> str:
    """A factor after a minus sign: ``2.5`` or ``(-2.5)``."""
    return f"{x:g}" if x >= 0 else f"({x:g})"


def vec(xs: Iterable[float], digits: int = 3) -> str:
    """A row vector with ``digits`` decimals: ``(0.125,\\ -1.000)``."""
    return "(" + ",\\ ".join(f"{float(a):.{digits}f}" for a in xs) + ")"


# ---- in prose (Markdown, badges, exercises) ----------------------------------------------


def plain(x: float, digits: int = 4) -> str:
    """``digits`` significant digits with a real minus sign: ``−0.25``."""
    return f"{x:.{digits}g}".replace("-", "−")


def plain_vec(xs: Sequence[float], digits: int = 4) -> str:
    """``(1, −2, 0.5)``."""
    return "(" + ", ".join(plain(float(x), digits) for x in xs) + ")"


def signed(x: float, digits: int = 3) -> str:
    """``+0.012`` / ``−0.004`` with a real minus sign, and never ``−0.000``."""
    text = f"{x:+.{digits}f}"
    return "0." + "0" * digits if float(text) == 0 else text.replace("-", "−")


def sub(k: int) -> str:
    """``12`` → ``₁₂`` (an underscore would turn Markdown italic)."""
    return str(k).translate(_SUB)


def sup(k: int) -> str:
    """``12`` → ``¹²``: a power in plain Unicode, ``(−1)¹²``."""
    return str(k).translate(_SUP)
