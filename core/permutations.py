"""Permutations of {1, …, n} and their sign, computed three independent ways.

Textbook conventions, 1-based: a permutation p is the tuple of its one-line notation
``(p(1), …, p(n))``; ``compose(s, t) = s∘t`` maps i ↦ s(t(i)) (t first). A cycle
``(i1 i2 … ik)`` sends i1 → i2 → … → ik → i1.

The sign three ways (they must agree):
    sgn p = (−1)^{#inversions}                 inversions: i < j with p(i) > p(j)
          = (−1)^{Σ (k − 1)}                    a k-cycle is k − 1 transpositions
          = D(x_{p(1)}, …, x_{p(n)}) / D(x_1, …, x_n),   D(x) = Π_{i<j} (x_j − x_i)
Legend: n size, p σ τ permutations, k cycle length.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import sympy

Perm = tuple[int, ...]
MAX_N = 9
MAX_TEXT = 200
_ALLOWED = set("0123456789 ,()\t")


def _check(p: Sequence[int]) -> Perm:
    p = tuple(int(x) for x in p)
    if sorted(p) != list(range(1, len(p) + 1)):
        raise ValueError(f"{p} is not a permutation of 1 … {len(p)}")
    return p


def _number(token: str, n_max: int) -> int:
    if not token.isdigit() or len(token) > 3:
        raise ValueError(f"'{token[:12]}' is not a whole number from 1 to {n_max}")
    x = int(token)
    if not 1 <= x <= n_max:
        raise ValueError(f"{x} is out of range: the entries are 1 … n with n ≤ {n_max}")
    return x


def parse_permutation(text: str, n_max: int = MAX_N) -> Perm:
    """Read a permutation typed in one-line notation or as a product of disjoint cycles.

    Only digits, spaces, commas and parentheses are accepted, read one number at a time.
    With cycles, n is the largest number written (write ``(5)`` to add a fixed point).

    >>> parse_permutation("2 4 3 1"), parse_permutation("(1 2 4)(3)")
    ((2, 4, 3, 1), (2, 4, 3, 1))
    """
    if not isinstance(text, str):
        raise ValueError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise ValueError(f"that is too long: at most {MAX_TEXT} characters, please")
    text = text.strip()
    if not text:
        raise ValueError("type a permutation, e.g. 2 4 3 1 or (1 2 4)(3)")
    bad = sorted(set(text) - _ALLOWED)
    if bad:
        raise ValueError(
            f"only numbers, spaces, commas and brackets are allowed, not {''.join(bad[:5])!r}"
        )
    if "(" not in text and ")" not in text:
        p = [_number(tok, n_max) for tok in text.replace(",", " ").split()]
        if sorted(p) != list(range(1, len(p) + 1)):
            seen = {x for x in p if p.count(x) > 1}
            missing = sorted(set(range(1, len(p) + 1)) - set(p))
            why = f"{min(seen)} appears twice" if seen else f"{missing[0]} is missing"
            raise ValueError(f"one-line notation lists each of 1 … {len(p)} once: {why}")
        return tuple(p)
    cycles: list[list[int]] = []
    depth, current = 0, ""
    for ch in text:
        if ch == "(":
            if depth:
                raise ValueError("cycles cannot be nested: write (1 2)(3 4)")
            depth, current = 1, ""
        elif ch == ")":
            if not depth:
                raise ValueError("a ')' has no matching '('")
            cycles.append([_number(tok, n_max) for tok in current.replace(",", " ").split()])
            depth = 0
        elif depth:
            current += ch
        elif ch not in " ,\t":
            raise ValueError("in cycle notation every number sits inside brackets: (1 2 4)(3)")
    if depth:
        raise ValueError("a '(' is never closed")
    if any(not c for c in cycles):
        raise ValueError("a cycle () is empty")
    used = [x for c in cycles for x in c]
    twice = {x for x in used if used.count(x) > 1}
    if twice:
        raise ValueError(f"{min(twice)} appears twice: the cycles must be disjoint")
    n = max(used)
    p = list(range(1, n + 1))
    for c in cycles:
        for a, b in zip(c, c[1:] + c[:1], strict=True):
            p[a - 1] = b
    return tuple(p)


def inversions(p: Sequence[int]) -> list[tuple[int, int]]:
    """Pairs of positions ``i < j`` with ``p(i) > p(j)`` (1-based).

    >>> inversions((2, 4, 3, 1))
    [(1, 4), (2, 3), (2, 4), (3, 4)]
    """
    p = _check(p)
    n = len(p)
    return [(i + 1, j + 1) for i in range(n) for j in range(i + 1, n) if p[i] > p[j]]


def sign(p: Sequence[int]) -> int:
    """``(−1)^{#inversions}``: +1 for an even permutation, −1 for an odd one."""
    return -1 if len(inversions(p)) % 2 else 1


def cycles(p: Sequence[int]) -> list[Perm]:
    """Disjoint cycles, each starting at its smallest element; fixed points omitted.

    >>> cycles((2, 4, 3, 1))
    [(1, 2, 4)]
    """
    p = _check(p)
    seen, out = set(), []
    for start in range(1, len(p) + 1):
        if start in seen or p[start - 1] == start:
            continue
        cycle, i = [], start
        while i not in seen:
            seen.add(i)
            cycle.append(i)
            i = p[i - 1]
        out.append(tuple(cycle))
    return out


def sign_by_cycles(p: Sequence[int]) -> int:
    """``(−1)^{Σ(k−1)}`` over the cycles: a k-cycle is k − 1 transpositions."""
    return -1 if sum(len(c) - 1 for c in cycles(p)) % 2 else 1


def transpositions(p: Sequence[int]) -> list[tuple[int, int]]:
    """Transpositions whose composition (rightmost applied first) is ``p``.

    A cycle ``(i1 … ik) = (i1 ik)(i1 ik−1)…(i1 i2)``; disjoint cycles commute.

    >>> transpositions((2, 4, 3, 1))
    [(1, 4), (1, 2)]
    """
    out: list[tuple[int, int]] = []
    for c in cycles(p):
        out += [(c[0], c[m]) for m in range(len(c) - 1, 0, -1)]
    return out


def transposition(n: int, a: int, b: int) -> Perm:
    """The permutation of 1 … n that swaps a and b."""
    p = list(range(1, n + 1))
    p[a - 1], p[b - 1] = b, a
    return tuple(p)


def difference_product(n: int) -> sympy.Expr:
    """``D(x_1, …, x_n) = Π_{i<j} (x_j − x_i)`` as an unexpanded sympy product."""
    x = sympy.symbols(f"x1:{n + 1}")
    return sympy.Mul(*[x[j] - x[i] for i in range(n) for j in range(i + 1, n)])


def sign_by_difference_product(p: Sequence[int]) -> int:
    """``D(x_{p(1)}, …, x_{p(n)}) / D(x_1, …, x_n)`` simplified symbolically: +1 or −1.

    Both products are built from sympy symbols x_1 … x_n and the quotient is reduced by
    polynomial cancellation (``sympy.cancel``), so the answer is a symbolic identity, not a
    numerical check.
    """
    p = _check(p)
    n = len(p)
    if n < 2:
        return 1
    x = sympy.symbols(f"x1:{n + 1}")
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    D = sympy.Mul(*[x[j] - x[i] for i, j in pairs])  # D(x_1, …, x_n)
    D_p = sympy.Mul(*[x[p[j] - 1] - x[p[i] - 1] for i, j in pairs])  # D(x_p(1), …, x_p(n))
    ratio = sympy.cancel(D_p / D)
    if ratio not in (1, -1):
        raise AssertionError(f"the difference product changed by {ratio}, not by a sign")
    return int(ratio)


def compose(s: Sequence[int], t: Sequence[int]) -> Perm:
    """``s∘t``: i ↦ s(t(i)) (t is applied first). The shorter one is padded with fixed points.

    >>> compose((2, 1, 3), (1, 3, 2))
    (2, 3, 1)
    """
    n = max(len(s), len(t))
    s, t = extend(s, n), extend(t, n)
    return tuple(s[t[i] - 1] for i in range(n))


def inverse(p: Sequence[int]) -> Perm:
    """``p⁻¹``: p⁻¹(p(i)) = i."""
    p = _check(p)
    out = [0] * len(p)
    for i, v in enumerate(p, start=1):
        out[v - 1] = i
    return tuple(out)


def power(p: Sequence[int], k: int) -> Perm:
    """``p^k`` for an integer k (negative k uses the inverse)."""
    p = _check(p)
    base = p if k >= 0 else inverse(p)
    out = tuple(range(1, len(p) + 1))
    for _ in range(abs(k)):
        out = compose(base, out)
    return out


def order(p: Sequence[int]) -> int:
    """The smallest k ≥ 1 with p^k = id: the lcm of the cycle lengths."""
    return math.lcm(1, *(len(c) for c in cycles(p)))


def extend(p: Sequence[int], n: int) -> Perm:
    """``p`` as a permutation of 1 … n (n ≥ len(p)), fixing the new points."""
    p = _check(p)
    if n < len(p):
        raise ValueError(f"cannot shrink a permutation of {len(p)} to {n}")
    return p + tuple(range(len(p) + 1, n + 1))


def permutation_matrix(p: Sequence[int]) -> np.ndarray:
    """The n×n 0/1 matrix P with P e_i = e_{p(i)}, so P_s P_t = P_{s∘t} and det P = sgn p."""
    p = _check(p)
    n = len(p)
    P = np.zeros((n, n), dtype=np.int64)
    P[np.array(p) - 1, np.arange(n)] = 1
    return P


def random_permutation(n: int, rng: np.random.Generator) -> Perm:
    """A uniformly random permutation of 1 … n."""
    if not 1 <= n <= MAX_N:
        raise ValueError(f"n must be between 1 and {MAX_N}")
    return tuple(int(x) + 1 for x in rng.permutation(n))


def one_line(p: Sequence[int]) -> str:
    """``"2 4 3 1"``."""
    return " ".join(str(x) for x in p)


def cycle_notation(p: Sequence[int]) -> str:
    """``"(1 2 4)"``; the identity is ``"id"``."""
    cs = cycles(p)
    return "".join("(" + " ".join(str(x) for x in c) + ")" for c in cs) if cs else "id"
