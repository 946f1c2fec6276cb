"""Reading numbers a student typed: plain decimals only (``float`` per token, never ``eval``)."""

from __future__ import annotations

import math


def read_numbers(text: object, *, max_chars: int, max_count: int, noun: str) -> list[float]:
    """The finite numbers in ``text``, separated by commas, semicolons and/or spaces.

    Raises ``ValueError`` with a message for the page on anything else: not text, too long,
    more than ``max_count`` ``noun``, a token that is not a number, inf or nan. The caller
    checks how few are too few and the range, whose messages depend on what is typed.

    >>> read_numbers("5, 6; 7", max_chars=50, max_count=3, noun="logits")
    [5.0, 6.0, 7.0]
    """
    if not isinstance(text, str):
        raise ValueError(f"expected text, got {type(text).__name__}")
    if len(text) > max_chars:
        raise ValueError(f"that is too long: type at most {max_count} numbers")
    tokens = text.replace(",", " ").replace(";", " ").split()
    if len(tokens) > max_count:
        raise ValueError(f"at most {max_count} {noun}, please (you typed {len(tokens)})")
    values = []
    for tok in tokens:
        try:
            v = float(tok)
        except ValueError:
            raise ValueError(f"'{tok[:20]}' is not a number") from None
        if not math.isfinite(v):
            raise ValueError(f"'{tok[:20]}' is not a finite number")
        values.append(v)
    return values
