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
- **weights**: ``forward`` returns a tensor; ``explain`` runs the same computation and
  returns a frozen dataclass with the softmax weights, shape (B, h, n_q, n_k), each row
  summing to 1, and the intermediate results; nothing is stored on the module.
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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
from torch import nn

from core import validation
from core.errors import CoreError

Pool = Literal["sum", "mean", "max"]
POOLS: tuple[Pool, ...] = ("sum", "mean", "max")


def _generator(generator: torch.Generator | None) -> torch.Generator:
    """``generator``, or torch's global generator when none is given (as ``nn.Linear``)."""
    return torch.default_generator if generator is None else generator


def _check_sizes(num_heads: int, width: int, **dims: int) -> None:
    """Every size ≥ 1 (``validation.positive_int``) and h dividing the attention width."""
    for name, value in dims.items():
        validation.positive_int(value, name)
    h = validation.positive_int(num_heads, "num_heads")
    if validation.positive_int(width, "width") % h:
        raise CoreError(
            "set_transformer_heads",
            "{h} heads do not split the width {width}: choose a "
            "width that is a multiple of the number of heads",
            h=h,
            width=width,
        )


@dataclass(frozen=True)
class MABResult:
    """MAB(X, Y) and the softmax weights it used (what :meth:`MAB.explain` returns).

    Attributes:
        out: MAB(X, Y), (B, n_q, dim_v).
        weights: A, (B, h, n_q, n_k); every row sums to 1.
    """

    out: torch.Tensor
    weights: torch.Tensor


@dataclass(frozen=True)
class ISABResult:
    """ISAB(X) with its two maps (what :meth:`ISAB.explain` returns).

    Attributes:
        out: ISAB(X) = MAB(X, H), (B, n, d).
        summaries: H = MAB(I, X), (B, m, d).
        weights_ix: A_IX, inducing points → set, (B, h, m, n).
        weights_xh: A_XH, set → summaries H, (B, h, n, m).
    """

    out: torch.Tensor
    summaries: torch.Tensor
    weights_ix: torch.Tensor
    weights_xh: torch.Tensor


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
        self,
        dim_q: int,
        dim_k: int,
        dim_v: int,
        num_heads: int,
        ln: bool = True,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        _check_sizes(num_heads, dim_v, dim_q=dim_q, dim_k=dim_k)
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

    def explain(self, X: torch.Tensor, Y: torch.Tensor) -> MABResult:
        """MAB(X, Y) (B, n_q, dim_v) and its weights A (B, h, n_q, n_k)."""
        Q, M, A = self.multihead(X, Y)
        # H = LN(X + Multihead(X, Y, Y)), X carried in the output width as XW^Q + b
        H = self.ln0(Q + M)
        # MAB = LN(H + rFF(H))
        return MABResult(self.ln1(H + self.rff(H)), A)

    def forward(self, X: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
        """MAB(X, Y): (B, n_q, dim_q), (B, n_k, dim_k) -> (B, n_q, dim_v)."""
        return self.explain(X, Y).out


class SAB(nn.Module):
    """Set attention block SAB(X) = MAB(X, X): every element attends every element (n×n)."""

    def __init__(
        self,
        dim_in: int,
        dim_out: int,
        num_heads: int,
        ln: bool = True,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        _check_sizes(num_heads, dim_out, dim_in=dim_in)
        self.mab = MAB(dim_in, dim_in, dim_out, num_heads, ln, _generator(generator))

    def explain(self, X: torch.Tensor) -> MABResult:
        """SAB(X) (B, n, dim_out) and its n×n weights A (B, h, n, n)."""
        return self.mab.explain(X, X)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """SAB(X): (B, n, dim_in) -> (B, n, dim_out)."""
        return self.mab(X, X)


class ISAB(nn.Module):
    """Induced set attention block: m learned inducing points I summarise the set.

    H = MAB(I, X) reads the set into m rows (weights m×n), ISAB(X) = MAB(X, H) reads them
    back (weights n×m): 2·n·m attention weights per head instead of SAB's n².
    """

    def __init__(
        self,
        dim_in: int,
        dim_out: int,
        num_heads: int,
        num_inducing: int,
        ln: bool = True,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        _check_sizes(num_heads, dim_out, dim_in=dim_in, num_inducing=num_inducing)
        g = _generator(generator)
        self.mab0 = MAB(dim_out, dim_in, dim_out, num_heads, ln, g)  # MAB(I, X)
        self.mab1 = MAB(dim_in, dim_out, dim_out, num_heads, ln, g)  # MAB(X, H)
        self.I = _points(num_inducing, dim_out, g)  # (m, d), drawn last: same MABs for every m

    def explain(self, X: torch.Tensor) -> ISABResult:
        """ISAB(X) (B, n, dim_out), the summaries H and both maps A_IX, A_XH."""
        I = self.I.expand(X.shape[0], -1, -1)  # (B, m, d)
        read = self.mab0.explain(I, X)  # H = MAB(I, X): (B, m, d), A_IX (B, h, m, n)
        back = self.mab1.explain(X, read.out)  # MAB(X, H): (B, n, d), A_XH (B, h, n, m)
        return ISABResult(back.out, read.out, read.weights, back.weights)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """ISAB(X): (B, n, dim_in) -> (B, n, dim_out)."""
        I = self.I.expand(X.shape[0], -1, -1)  # (B, m, d)
        return self.mab1(X, self.mab0(I, X))  # MAB(X, MAB(I, X))


class PMA(nn.Module):
    """Pooling by multihead attention PMA_k(Z) = MAB(S, rFF(Z)) with k learned seeds S."""

    def __init__(
        self,
        dim: int,
        num_heads: int,
        num_seeds: int = 1,
        ln: bool = True,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        _check_sizes(num_heads, dim, num_seeds=num_seeds)
        g = _generator(generator)
        self.rff = RowFF(dim, g)
        self.mab = MAB(dim, dim, dim, num_heads, ln, g)
        self.S = _points(num_seeds, dim, g)  # (k, d), drawn last: same MAB for every k

    def explain(self, Z: torch.Tensor) -> MABResult:
        """PMA(Z) (B, k, d) and its weights A (B, h, k, n): seeds → set."""
        S = self.S.expand(Z.shape[0], -1, -1)  # (B, k, d)
        return self.mab.explain(S, self.rff(Z))

    def forward(self, Z: torch.Tensor) -> torch.Tensor:
        """PMA(Z): (B, n, d) -> (B, k, d), the same for every order of Z's rows."""
        S = self.S.expand(Z.shape[0], -1, -1)  # (B, k, d)
        return self.mab(S, self.rff(Z))


@dataclass(frozen=True)
class SetTransformerResult:
    """Every intermediate of :class:`SetTransformer`, input to output (``explain``).

    Attributes:
        X: the input set, (B, n, dim_in).
        encoded: the output of each encoder block, (B, n, dim) each.
        pooled: PMA_k of the encoded set, (B, k, dim).
        mixed: SAB of the k pooled vectors, (B, k, dim).
        output: the linear map of rFF(mixed), (B, k, dim_out).
        weights: every softmax map in order, (B, h, rows, cols) each: per ISAB A_IX (m×n)
            and A_XH (n×m), or per SAB one n×n; then PMA (k×n) and the decoder's SAB (k×k).
    """

    X: torch.Tensor
    encoded: tuple[torch.Tensor, ...]
    pooled: torch.Tensor
    mixed: torch.Tensor
    output: torch.Tensor
    weights: tuple[torch.Tensor, ...]

    @property
    def chain(self) -> tuple[torch.Tensor, ...]:
        """The tensors from input to output: X, encoder 1, encoder 2, PMA, SAB, output."""
        return (self.X, *self.encoded, self.pooled, self.mixed, self.output)


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
        generator: seeds every parameter; ``None``: torch's global generator.

    >>> model = SetTransformer(2, 3, num_seeds=2, generator=torch.Generator().manual_seed(0))
    >>> model(torch.zeros(1, 10, 2)).shape
    torch.Size([1, 2, 3])
    """

    def __init__(
        self,
        dim_in: int,
        dim_out: int,
        dim: int = 16,
        num_heads: int = 4,
        num_inducing: int | None = 8,
        num_seeds: int = 1,
        *,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        validation.positive_int(dim_out, "dim_out")
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

    def explain(self, X: torch.Tensor) -> SetTransformerResult:
        """Every intermediate result and every attention map, from the input to the output."""
        encoded, weights = [], []
        Z = X
        for block in self.encoder:
            step = block.explain(Z)
            Z = step.out  # (B, n, dim)
            encoded.append(Z)
            maps = (
                (step.weights_ix, step.weights_xh)
                if isinstance(step, ISABResult)
                else (step.weights,)
            )
            weights.extend(maps)
        pooled = self.pool.explain(Z)  # PMA_k: (B, k, dim), weights (B, h, k, n)
        mixed = self.mix.explain(pooled.out)  # SAB: (B, k, dim), weights (B, h, k, k)
        output = self.out(self.rff(mixed.out))  # (B, k, dim_out)
        return SetTransformerResult(
            X,
            tuple(encoded),
            pooled.out,
            mixed.out,
            output,
            (*weights, pooled.weights, mixed.weights),
        )

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """(B, n, dim_in) → (B, k, dim_out), the same for every order of the n elements."""
        Z = X
        for block in self.encoder:
            Z = block(Z)  # Encoder: (B, n, dim)
        return self.out(self.rff(self.mix(self.pool(Z))))  # Decoder: (B, k, dim_out)


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
    validation.one_of(kind, "pooling", POOLS)
    return Z.amax(dim=-2)


Symmetry = Literal["invariant", "equivariant", "neither"]


@dataclass(frozen=True)
class ShuffleTest:
    """A function of a set run on X and on the shuffled set πX (what :func:`shuffle_test`
    returns), and how far it is from each symmetry.

    Attributes:
        out: f(X). out_of_shuffled: f(πX).
        perm: π as indices, (πX)_k = x_{π(k)}: element π[k] of X sits at position k of πX.
    """

    out: torch.Tensor
    out_of_shuffled: torch.Tensor
    perm: torch.Tensor

    @property
    def invariance_gap(self) -> float:
        """max |f(πX) − f(X)|: 0 (to rounding) for a permutation-invariant f."""
        return float((self.out_of_shuffled - self.out).abs().max())

    @property
    def equivariance_gap(self) -> float:
        """max |f(πX) − π f(X)|: 0 (to rounding) for a permutation-equivariant f; ``inf``
        when f(X) has no row per element to shuffle (rows are axis −2 of a batched
        (B, …, n, d) output)."""
        n = len(self.perm)
        if self.out.dim() < 3 or self.out.shape[-2] != n:
            return math.inf
        return float((self.out_of_shuffled - self.out[..., self.perm, :]).abs().max())

    def symmetry(self, tol: float = 1e-9) -> Symmetry:
        """Which symmetry holds to ``tol``: invariance first (it is tested first)."""
        if self.invariance_gap <= tol:
            return "invariant"
        return "equivariant" if self.equivariance_gap <= tol else "neither"


def shuffle_test(
    f: Callable[[torch.Tensor], torch.Tensor], X: torch.Tensor, perm: torch.Tensor
) -> ShuffleTest:
    """Run ``f`` on X (B, n, d) and on πX = X[:, perm] without gradients.

    >>> X = torch.arange(6.0).reshape(1, 3, 2)
    >>> shuffle_test(lambda Z: Z.sum(-2), X, torch.tensor([2, 0, 1])).symmetry()
    'invariant'
    """
    perm = torch.as_tensor(perm)
    if sorted(perm.tolist()) != list(range(X.shape[-2])):
        raise CoreError(
            "set_transformer_perm",
            "π must list 0 … {last} once each, got {perm}",
            last=X.shape[-2] - 1,
            perm=perm.tolist(),
        )
    with torch.no_grad():
        return ShuffleTest(f(X), f(X[:, perm]), perm)


def position_weighted_sum(Z: torch.Tensor) -> torch.Tensor:
    """Σ_i (i / n) z_i (B, n, d) → (B, d): weights by position, so NOT a function of the set."""
    n = Z.shape[-2]
    w = torch.arange(1, n + 1, dtype=Z.dtype) / n  # (n,)
    return torch.einsum("n,bnd->bd", w, Z)


# ---- cost: attention weights per head ---------------------------------------------------------


def sab_attention_entries(n: int) -> int:
    """Attention weights one head of SAB computes for a set of n: the n×n map."""
    n = validation.positive_int(n, "n")
    return n * n


def isab_attention_entries(n: int, m: int) -> int:
    """Attention weights one head of ISAB computes: m×n (I → X) plus n×m (X → H) = 2nm."""
    n, m = validation.positive_int(n, "n"), validation.positive_int(m, "m")
    return m * n + n * m


@dataclass(frozen=True)
class ModelAttentionCost:
    """Attention weights one head of each part of :class:`SetTransformer` computes.

    Attributes:
        encoder: two ISABs, 2·(mn + nm) = 4nm, or two SABs, 2n².
        pool: PMA_k, k·n.  mix: the decoder's SAB, k².  total: their sum.
        sab_only: n², one SAB on the set, for comparison.
    """

    encoder: int
    pool: int
    mix: int
    total: int
    sab_only: int


def model_attention_cost(n: int, k: int, m: int | None) -> ModelAttentionCost:
    """Attention weights per head of the whole model on a set of n (m = None: SAB encoder).

    >>> model_attention_cost(128, 2, 8).total
    4356
    """
    n, k = validation.positive_int(n, "n"), validation.positive_int(k, "k")
    # two encoder blocks: SAB's n×n map, or ISAB's m×n and n×m maps, each
    encoder = 2 * (sab_attention_entries(n) if m is None else isab_attention_entries(n, m))
    pool, mix = k * n, k * k
    return ModelAttentionCost(encoder, pool, mix, encoder + pool + mix, sab_attention_entries(n))


def shuffle_order(n: int, seed: int) -> np.ndarray:
    """π, a permutation of 0..n−1 drawn from ``seed``: element π[k] of X goes to position k
    of πX (the same seed always shuffles the same way)."""
    return np.random.default_rng(seed).permutation(validation.positive_int(n, "n"))
