"""Set Transformer blocks in torch: MAB, SAB, ISAB, PMA (Lee et al. 2019, ICML, §3).

    Multihead(Q, K, V) = concat(O_1, …, O_h) W^O,
        O_j = softmax((Q W_j^Q)(K W_j^K)ᵀ / √d_h) (V W_j^V)                (§3.1, Vaswani et al.)
    MAB(X, Y) = LN(H + rFF(H)),   H = LN(X + Multihead(X, Y, Y))            (§3.1, eq. 6-7)
    SAB(X)    = MAB(X, X)                                     one n×n map   (§3.2, eq. 8)
    ISAB_m(X) = MAB(X, H),  H = MAB(I, X),  I ∈ ℝ^{m×d}       m×n and n×m   (§3.2, eq. 9-10)
    PMA_k(Z)  = MAB(S, rFF(Z)),  S ∈ ℝ^{k×d}                  one k×n map   (§3.2, eq. 11)
    Deep Sets: ρ(pool_i φ(x_i)) with pool = Σ, mean or max                  (Zaheer et al. 2017)

SAB and ISAB are permutation-equivariant (shuffle the rows of X and the output rows shuffle
the same way) and PMA and the Deep Sets pools are permutation-invariant, for *any* weights:
every row-wise layer (the projections, rFF, LayerNorm) treats each element alone, and the
attention softmax over the keys is a sum over the set, whose value does not depend on the
order of its terms. That is why these blocks are shown here with seeded, untrained weights.

Conventions (checked in ``tests/core/test_set_transformer.py``):

- **scale**: the logits are divided by √d_h, d_h = dim_v / h, the width of one head, as in
  Vaswani et al. and in ``torch.nn.MultiheadAttention`` and
  ``torch.nn.functional.scaled_dot_product_attention``. The reference code
  (juho-lee/set_transformer ``modules.py``) divides by √dim_V, the full width, i.e. it runs
  every head at a softmax temperature √h higher. With h = 1 the two agree.
- **residual**: the paper writes X + Multihead(X, Y, Y), which needs X to have the output
  width already. As in the reference code, the residual carries X in that width as the
  projected queries XW^Q + b (for ISAB's MAB(X, H), X has dim_in ≠ dim_out columns).
- **W^O and rFF**: Multihead ends with the output projection W^O (the reference code has
  none); rFF(H) = ReLU(H W₁ + b₁) W₂ + b₂ row by row. ``ln=True`` (the default) uses the
  paper's two LayerNorms; ``ln=False`` leaves them out (the reference code's default).
- **PMA** applies rFF to Z before pooling as eq. 11 says (the reference code leaves it out).
- **weights**: every forward can return its softmax weights, shape (B, h, n_q, n_k), each
  row summing to 1; nothing is stored on the module.
- **seeds**: construction draws every parameter from the ``torch.Generator`` passed in, or
  from torch's global generator when none is given, as ``nn.Linear`` does (one convention
  for every torch layer here: ``core.lambda_layer`` does the same).
  Linear layers use torch's default range U(±1/√fan_in); I and S are Xavier-uniform as in
  the reference code.

Shape legend: B batch, n set size, d channels (dim_in, dim_out), h heads, d_h = d / h,
m inducing points, k seed vectors (PMA outputs).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

Pool = Literal["sum", "mean", "max"]
POOLS: tuple[str, ...] = ("sum", "mean", "max")


def _generator(generator: torch.Generator | None) -> torch.Generator:
    """``generator``, or torch's global generator when none is given (as ``nn.Linear``)."""
    return torch.default_generator if generator is None else generator


def _check_sizes(num_heads: int, **dims: int) -> None:
    for name, value in dims.items():
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    if num_heads < 1:
        raise ValueError(f"the number of heads must be at least 1, got {num_heads}")
    width = dims.get("dim_v", dims.get("dim_out", dims.get("dim")))
    if width is not None and width % num_heads:
        raise ValueError(
            f"{num_heads} heads do not split the width {width}: choose a width that is a "
            "multiple of the number of heads"
        )


class SeededLinear(nn.Linear):
    """``nn.Linear`` drawn from a ``torch.Generator``, in torch's default range U(±1/√fan_in).

    (Constructing on the meta device and re-initialising would also avoid the global
    generator, but costs ~0.4 ms a layer; here ``reset_parameters`` simply draws nothing.)
    """

    def __init__(self, d_in: int, d_out: int, generator: torch.Generator) -> None:
        super().__init__(d_in, d_out)  # allocates; the reset_parameters below draws nothing
        bound = 1.0 / math.sqrt(d_in)
        with torch.no_grad():
            self.weight.uniform_(-bound, bound, generator=generator)
            self.bias.uniform_(-bound, bound, generator=generator)

    def reset_parameters(self) -> None:
        """No draw from torch's global generator: ``__init__`` fills the parameters."""


def _points(count: int, dim: int, generator: torch.Generator) -> nn.Parameter:
    """(count, dim) learned points (I or S), Xavier-uniform like the reference code."""
    p = torch.empty(count, dim)
    nn.init.xavier_uniform_(p, generator=generator)
    return nn.Parameter(p)


class RowFF(nn.Module):
    """rFF(H) = ReLU(H W₁ + b₁) W₂ + b₂ applied to every element (row) on its own."""

    def __init__(self, dim: int, generator: torch.Generator | None = None) -> None:
        super().__init__()
        g = _generator(generator)
        self.fc1, self.fc2 = SeededLinear(dim, dim, g), SeededLinear(dim, dim, g)

    def forward(self, H: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(H)))


class MAB(nn.Module):
    """Multihead attention block MAB(X, Y): the queries X attend the set Y.

    Args:
        dim_q: columns of X (the queries). dim_k: columns of Y (keys and values).
        dim_v: width of the attention and of the output.
        num_heads: h; must divide dim_v.
        ln: use the two LayerNorms of the paper.
        generator: seeds every parameter.
    """

    def __init__(
        self, dim_q: int, dim_k: int, dim_v: int, num_heads: int, ln: bool = True,
        generator: torch.Generator | None = None,
    ) -> None:  # fmt: skip
        super().__init__()
        _check_sizes(num_heads, dim_q=dim_q, dim_k=dim_k, dim_v=dim_v)
        g = _generator(generator)
        self.dim_v, self.num_heads = dim_v, num_heads
        self.fc_q, self.fc_k, self.fc_v = (SeededLinear(d, dim_v, g) for d in (dim_q, dim_k, dim_k))
        self.fc_o = SeededLinear(dim_v, dim_v, g)  # W^O
        self.rff = RowFF(dim_v, g)
        self.ln0 = nn.LayerNorm(dim_v) if ln else nn.Identity()
        self.ln1 = nn.LayerNorm(dim_v) if ln else nn.Identity()

    def multihead(self, X: torch.Tensor, Y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Multihead(X, Y, Y) and its softmax weights A (B, h, n_q, n_k).

        Returns:
            (Q, M, A): the projected queries XW^Q + b (B, n_q, dim_v), the multihead output
            concat(O_1..O_h) W^O (B, n_q, dim_v) and the weights A.
        """
        B, n_q, _ = X.shape
        h, d_h = self.num_heads, self.dim_v // self.num_heads
        Q, K, V = self.fc_q(X), self.fc_k(Y), self.fc_v(Y)  # (B, n, dim_v)
        # "b n (h e) -> b h n e"
        q, k, v = (t.unflatten(-1, (h, d_h)).transpose(1, 2) for t in (Q, K, V))
        # A = softmax(q kᵀ / √d_h) over the keys (the reference divides by √dim_v instead)
        A = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_h), dim=-1)  # (B, h, n_q, n_k)
        O = (A @ v).transpose(1, 2).reshape(B, n_q, self.dim_v)  # "b h n e -> b n (h e)"
        return Q, self.fc_o(O), A

    def forward(
        self, X: torch.Tensor, Y: torch.Tensor, return_attention: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """MAB(X, Y) (B, n_q, dim_v); with ``return_attention`` also A (B, h, n_q, n_k)."""
        Q, M, A = self.multihead(X, Y)
        # H = LN(X + Multihead(X, Y, Y)), X carried in the output width as XW^Q + b
        H = self.ln0(Q + M)
        # MAB = LN(H + rFF(H))
        out = self.ln1(H + self.rff(H))
        return (out, A) if return_attention else out


class SAB(nn.Module):
    """Set attention block SAB(X) = MAB(X, X): every element attends every element (n×n)."""

    def __init__(
        self, dim_in: int, dim_out: int, num_heads: int, ln: bool = True,
        generator: torch.Generator | None = None,
    ) -> None:  # fmt: skip
        super().__init__()
        _check_sizes(num_heads, dim_in=dim_in, dim_out=dim_out)
        self.mab = MAB(dim_in, dim_in, dim_out, num_heads, ln, _generator(generator))

    def forward(
        self, X: torch.Tensor, return_attention: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """SAB(X) (B, n, dim_out); with ``return_attention`` also A (B, h, n, n)."""
        return self.mab(X, X, return_attention)


class ISAB(nn.Module):
    """Induced set attention block: m learned inducing points I summarise the set.

    H = MAB(I, X) reads the set into m rows (weights m×n), ISAB(X) = MAB(X, H) reads them
    back (weights n×m): 2·n·m attention weights per head instead of SAB's n².
    """

    def __init__(
        self, dim_in: int, dim_out: int, num_heads: int, num_inducing: int, ln: bool = True,
        generator: torch.Generator | None = None,
    ) -> None:  # fmt: skip
        super().__init__()
        _check_sizes(num_heads, dim_in=dim_in, dim_out=dim_out, num_inducing=num_inducing)
        g = _generator(generator)
        self.mab0 = MAB(dim_out, dim_in, dim_out, num_heads, ln, g)  # MAB(I, X)
        self.mab1 = MAB(dim_in, dim_out, dim_out, num_heads, ln, g)  # MAB(X, H)
        self.I = _points(num_inducing, dim_out, g)  # (m, d), drawn last: same MABs for every m

    def forward(
        self, X: torch.Tensor, return_attention: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """ISAB(X) (B, n, dim_out); with ``return_attention`` also (A_IX, A_XH).

        A_IX (B, h, m, n): inducing points → set. A_XH (B, h, n, m): set → summaries H.
        """
        I = self.I.expand(X.shape[0], -1, -1)  # (B, m, d)
        H, A_IX = self.mab0(I, X, return_attention=True)  # H = MAB(I, X): (B, m, d)
        out, A_XH = self.mab1(X, H, return_attention=True)  # MAB(X, H): (B, n, d)
        return (out, (A_IX, A_XH)) if return_attention else out


class PMA(nn.Module):
    """Pooling by multihead attention PMA_k(Z) = MAB(S, rFF(Z)) with k learned seeds S."""

    def __init__(
        self, dim: int, num_heads: int, num_seeds: int = 1, ln: bool = True,
        generator: torch.Generator | None = None,
    ) -> None:  # fmt: skip
        super().__init__()
        _check_sizes(num_heads, dim=dim, num_seeds=num_seeds)
        g = _generator(generator)
        self.rff = RowFF(dim, g)
        self.mab = MAB(dim, dim, dim, num_heads, ln, g)
        self.S = _points(num_seeds, dim, g)  # (k, d), drawn last: same MAB for every k

    def forward(
        self, Z: torch.Tensor, return_attention: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """PMA(Z) (B, k, d), the same for every order of Z's rows; A (B, h, k, n)."""
        S = self.S.expand(Z.shape[0], -1, -1)  # (B, k, d)
        return self.mab(S, self.rff(Z), return_attention)


class SetTransformer(nn.Module):
    """The whole model of Lee et al. 2019, §3.3 (eq. 12-13): encoder, decoder, output.

        Encoder(X) = ISAB_m(ISAB_m(X))   (or SAB(SAB(X)) with ``num_inducing=None``)
        Decoder(Z) = rFF(SAB(PMA_k(Z)))  then a linear map to ``dim_out``

    The encoder is permutation-*equivariant*, PMA makes the output permutation-*invariant*:
    k output vectors that do not depend on the order of the set's elements, for any weights.

    Args:
        dim_in, dim_out: widths of an element and of each output vector.
        dim: width inside the model; num_heads: h, divides ``dim``.
        num_inducing: m of each ISAB, ``None`` for SAB (n² weights) in the encoder.
        num_seeds: k, the number of output vectors.
        generator: seeds every parameter.
    """

    def __init__(
        self, dim_in: int, dim_out: int, dim: int = 16, num_heads: int = 4,
        num_inducing: int | None = 8, num_seeds: int = 1, generator: torch.Generator | None = None,
    ) -> None:  # fmt: skip
        super().__init__()
        g = _generator(generator)
        if num_inducing is None:
            blocks = [SAB(d, dim, num_heads, generator=g) for d in (dim_in, dim)]
        else:
            blocks = [ISAB(d, dim, num_heads, num_inducing, generator=g) for d in (dim_in, dim)]
        self.encoder = nn.ModuleList(blocks)
        self.pool = PMA(dim, num_heads, num_seeds, generator=g)
        self.mix = SAB(dim, dim, num_heads, generator=g)  # the k outputs read each other
        self.rff = RowFF(dim, g)
        self.out = SeededLinear(dim, dim_out, g)

    def stages(self, X: torch.Tensor) -> list[tuple[str, torch.Tensor]]:
        """Every intermediate result, in order: (name, tensor) from the input to the output."""
        out = [("X", X)]
        Z = X
        for i, block in enumerate(self.encoder, start=1):
            Z = block(Z)
            out.append((f"encoder {i}", Z))  # (B, n, dim)
        P = self.pool(Z)
        out.append(("PMA", P))  # (B, k, dim)
        M = self.mix(P)
        out.append(("SAB", M))  # (B, k, dim)
        out.append(("output", self.out(self.rff(M))))  # (B, k, dim_out)
        return out

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """(B, n, dim_in) → (B, k, dim_out), the same for every order of the n elements."""
        return self.stages(X)[-1][1]


def seeded_blocks(
    seed: int, dim_in: int, dim: int, num_heads: int, num_inducing: int
) -> tuple[ISAB, SAB, PMA]:
    """Untrained float64 blocks drawn from ``seed``: ISAB (seed), SAB (seed + 1), PMA (seed + 2).

    One place for the seeding, so every view of a set (its maps, its symmetries, a cached
    forward) shows the same blocks. ISAB and SAB map dim_in → dim; PMA pools dim with 1 seed.
    """
    isab = ISAB(dim_in, dim, num_heads, num_inducing, generator=torch.Generator().manual_seed(seed))
    sab = SAB(dim_in, dim, num_heads, generator=torch.Generator().manual_seed(seed + 1))
    pma = PMA(dim, num_heads, 1, generator=torch.Generator().manual_seed(seed + 2))
    return isab.double(), sab.double(), pma.double()


def set_pool(Z: torch.Tensor, kind: Pool) -> torch.Tensor:
    """Deep Sets pooling over the elements: Σ_i z_i, mean_i z_i or max_i z_i, (B, n, d) → (B, d)."""
    if kind == "sum":
        return Z.sum(dim=-2)
    if kind == "mean":
        return Z.mean(dim=-2)
    if kind == "max":
        return Z.amax(dim=-2)
    raise ValueError(f"unknown pooling '{kind}': choose one of {', '.join(POOLS)}")


def position_weighted_sum(Z: torch.Tensor) -> torch.Tensor:
    """Σ_i (i / n) z_i (B, n, d) → (B, d): weights by position, so NOT a function of the set."""
    n = Z.shape[-2]
    w = torch.arange(1, n + 1, dtype=Z.dtype) / n  # (n,)
    return torch.einsum("n,bnd->bd", w, Z)


# ---- cost and the example set ---------------------------------------------------------------


def sab_attention_entries(n: int) -> int:
    """Attention weights one head of SAB computes for a set of n: the n×n map."""
    if n < 1:
        raise ValueError(f"the set needs at least one element, got n = {n}")
    return n * n


def isab_attention_entries(n: int, m: int) -> int:
    """Attention weights one head of ISAB computes: m×n (I → X) plus n×m (X → H) = 2nm."""
    if n < 1 or m < 1:
        raise ValueError(f"need n ≥ 1 elements and m ≥ 1 inducing points, got n = {n}, m = {m}")
    return m * n + n * m


def clustered_points(
    n: int, n_clusters: int, rng: np.random.Generator, spread: float = 0.45, radius: float = 2.5
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """A 2-D set of n points in Gaussian clusters whose centres sit on a circle.

    Returns:
        (X (n, 2), labels (n,)): the points in a random order and their cluster ids.
    """
    if n < 1:
        raise ValueError(f"the set needs at least one point, got n = {n}")
    if not 1 <= n_clusters <= n:
        raise ValueError(f"choose between 1 and n = {n} clusters, got {n_clusters}")
    angles = 2 * np.pi * (np.arange(n_clusters) / n_clusters + rng.uniform())
    centres = radius * np.stack([np.cos(angles), np.sin(angles)], axis=1)  # (c, 2)
    labels = rng.integers(0, n_clusters, size=n)
    labels[:n_clusters] = np.arange(n_clusters)  # every cluster has a point
    labels = rng.permutation(labels)
    X = centres[labels] + spread * rng.standard_normal((n, 2))
    return X, labels.astype(np.int64)
