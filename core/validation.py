"""Argument checks shared by every ``core`` module; each raises a :class:`CoreError`.

The codes below are the keys ``errors.<code>`` of ``assets/i18n/<lang>.json``; a test checks
that every code used in ``core`` has an English and a Japanese text with the same
placeholders.

>>> positive_int(3, "heads")
3
>>> finite_array([[1.0, 2.0]], "q", ndim=2).shape
(1, 2)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

import numpy as np
from numpy.typing import ArrayLike

from core.arrays import Array
from core.errors import CoreError

S = TypeVar("S", bound=str)


def finite_array(x: ArrayLike, name: str, *, ndim: int | None = None, min_ndim: int = 0) -> Array:
    """``x`` as float64: non-empty, finite, with ``ndim`` (or at least ``min_ndim``) axes."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise CoreError("not_numbers", "{name} must be an array of numbers", name=name) from None
    if ndim is not None and arr.ndim != ndim:
        raise CoreError(
            "wrong_ndim",
            "{name} needs {ndim} axes, got shape {shape}",
            name=name,
            ndim=ndim,
            shape=arr.shape,
        )
    if arr.ndim < min_ndim:
        raise CoreError(
            "too_few_axes",
            "{name} needs at least {ndim} axes, got shape {shape}",
            name=name,
            ndim=min_ndim,
            shape=arr.shape,
        )
    if arr.size == 0:
        raise CoreError("empty", "{name} is empty (shape {shape})", name=name, shape=arr.shape)
    if not np.all(np.isfinite(arr)):
        raise CoreError(
            "not_finite", "{name} must be finite numbers (no nan or infinity)", name=name
        )
    return arr


def integer(value: object, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as an int in ``[lo, hi]`` (either bound may be open); bools are refused."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float | np.floating) and float(value).is_integer():
            value = int(value)
        else:
            raise CoreError(
                "not_integer",
                "{name} must be a whole number, got {value!r}",
                name=name,
                value=value,
            )
    n = int(value)
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        raise CoreError(
            "out_of_range",
            "{name} must be between {lo} and {hi}, got {value}",
            name=name,
            lo="−∞" if lo is None else lo,
            hi="∞" if hi is None else hi,
            value=n,
        )
    return n


def positive_int(value: object, name: str, hi: int | None = None) -> int:
    """An int ≥ 1 (and ≤ ``hi``)."""
    return integer(value, name, 1, hi)


def positive(value: object, name: str) -> float:
    """A finite float > 0 (a temperature, a variance, a spread)."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        x = math.nan
    if not math.isfinite(x) or x <= 0:
        raise CoreError(
            "not_positive",
            "{name} must be a positive finite number, got {value!r}",
            name=name,
            value=value,
        )
    return x


def non_negative(value: object, name: str) -> float:
    """A finite float ≥ 0."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        x = math.nan
    if not math.isfinite(x) or x < 0:
        raise CoreError(
            "negative", "{name} must be a finite number ≥ 0, got {value!r}", name=name, value=value
        )
    return x


def one_of(value: S, name: str, options: Sequence[S]) -> S:
    """``value`` if it is one of ``options``."""
    if value not in options:
        raise CoreError(
            "not_an_option",
            "{name} must be one of {options}, got {value!r}",
            name=name,
            options=", ".join(map(str, options)),
            value=value,
        )
    return value


def divides(divisor: int, n: int, what: str) -> None:
    """Refuse ``n`` that ``divisor`` does not divide (``what`` says which sizes)."""
    if n % divisor:
        raise CoreError(
            "not_divisible",
            "{what}: {divisor} does not divide {n}",
            what=what,
            divisor=divisor,
            n=n,
        )
