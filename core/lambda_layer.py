"""Lambda layers: content and position lambdas instead of an attention map.

Bello 2021, "LambdaNetworks: Modeling Long-Range Interactions Without Attention" (ICLR):
Sec. 3 (a lambda summarises the context into a linear function λ ∈ R^{k×v} that is applied
to each query, y_n = λ_nᵀ q_n), Sec. 4.1 (keys normalised by a softmax over the context
positions; content lambda λᶜ = K̄ᵀV, shared by every query; position lambdas λᵖ_n = E_nᵀV
with position embeddings E_n ∈ R^{m×k}; y_n = (λᶜ + λᵖ_n)ᵀ q_n), Sec. 4.2 (multi-query
lambdas: h heads of queries share one λ, v = d/h) and Sec. 4.3 (the lambda convolution: for a
local context of r×r positions the position lambdas are a convolution of the values with a
kernel R ∈ R^{k×r×r}, zero padding at the border). Conventions follow lucidrains/lambda-networks
(channels-first input, keys of depth k for all heads, ``u = 1``); the batch normalisation of
q and v that the paper applies is left out (in eval mode it is a fixed per-channel scaling).

Shape legend: B batch, C input channels, H×W image, n = H·W query positions, m context
positions (m = n global, r² local), k query/key depth, h heads, v = dim_out / h value depth.
Tensors are token-major: a (B, C, H, W) input becomes n tokens in row-major order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.overrides import TorchFunctionMode

from core import validation
from core.errors import CoreError


@dataclass(frozen=True)
class LambdaExplanation:
    """Every intermediate of one forward pass, for one query position n (batch first).

    Attributes:
        q: q_n, the h queries of position n, (B, h, k).
        keys: K̄, softmax over the m context positions, (B, m, k).
        values: V, (B, m, v).
        content_lambda: λᶜ = K̄ᵀV, the same for every query, (B, k, v).
        position_embedding: E_n, (m, k).
        position_lambda: λᵖ_n = E_nᵀV, (B, k, v).
        content_output: (λᶜ)ᵀ q_n per head, the content part of y_n, (B, h, v).
        y_n: (λᶜ + λᵖ_n)ᵀ q_n per head, (B, h, v).
        y: the full output, (B, dim_out, H, W).
    """

    q: torch.Tensor
    keys: torch.Tensor
    values: torch.Tensor
    content_lambda: torch.Tensor
    position_embedding: torch.Tensor
    position_lambda: torch.Tensor
    content_output: torch.Tensor
    y_n: torch.Tensor
    y: torch.Tensor


class LambdaLayer(nn.Module):
    """A lambda layer with a global (n positions) or a local (r×r) context.

    Args:
        dim: C, channels of the input.
        dim_out: channels of the output, h·v.
        dim_k: k, depth of queries and keys.
        heads: h, query heads sharing one lambda; must divide ``dim_out``.
        n: global context: the layer takes images of exactly n = H·W positions and learns
            one embedding E_{nm} ∈ R^k per (query, context) pair.
        r: local context (the lambda convolution): an odd kernel side; any image size.
        generator: the source of the random initial weights; ``None`` draws them from
            torch's global generator, as ``nn.Linear`` does.
        dtype: of the parameters (and of the inputs the layer expects).

    Exactly one of ``n`` and ``r`` is given. Positions: the global context here learns an
    **absolute** table E_{nm} (one embedding per query-context pair), so it is not
    translation-equivariant; the paper's global lambdas use *relative* embeddings E_{n−m}.
    The local context (the lambda convolution) is relative by construction: the same kernel
    R around every n, so shifting the image shifts the output (away from the border).

    The weights are untrained: W_Q, W_K, W_V with
    entries N(0, 1/C); E with N(0, 1/n) and R with N(0, 1/r²), so that λᵖ and λᶜ have
    similar sizes. Everything the page shows (λᶜ shared by all queries, keys summing to 1,
    no n×n map) is structure and holds for any weights.

    >>> g = torch.Generator().manual_seed(0)
    >>> LambdaLayer(8, 16, 4, 2, r=5, generator=g)(torch.zeros(1, 8, 6, 7)).shape
    torch.Size([1, 16, 6, 7])
    """

    def __init__(
        self,
        dim: int,
        dim_out: int,
        dim_k: int,
        heads: int,
        n: int | None = None,
        r: int | None = None,
        *,
        generator: torch.Generator | None = None,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        dim, dim_out = (
            validation.positive_int(dim, "dim"),
            validation.positive_int(dim_out, "dim_out"),
        )
        dim_k, heads = (
            validation.positive_int(dim_k, "dim_k"),
            validation.positive_int(heads, "heads"),
        )
        if dim_out % heads:
            raise CoreError(
                "lambda_heads",
                "dim_out = {dim_out} is not divisible by heads = {heads}: every "
                "head needs values of the same size v = dim_out / heads",
                dim_out=dim_out,
                heads=heads,
            )
        if (n is None) == (r is None):
            raise CoreError(
                "lambda_context", "give exactly one of n (global context) or r (local context)"
            )
        if n is not None:
            n = validation.positive_int(n, "n")
        if r is not None:
            r = validation.positive_int(r, "r")
            if r % 2 == 0:
                raise CoreError(
                    "lambda_odd_r", "the local context size r must be odd (centred), not {r}", r=r
                )
        self.dim, self.dim_out, self.dim_k, self.heads = dim, dim_out, dim_k, heads
        self.dim_v = dim_out // heads
        self.n, self.r = n, r

        def weight(*shape: int, std: float) -> nn.Parameter:
            return nn.Parameter(torch.randn(*shape, generator=generator, dtype=dtype) * std)

        k, v = dim_k, self.dim_v
        self.w_q = weight(dim, heads * k, std=dim**-0.5)  # (C, h·k)
        self.w_k = weight(dim, k, std=dim**-0.5)  # (C, k)
        self.w_v = weight(dim, v, std=dim**-0.5)  # (C, v)
        if n is not None:
            # E_{nm} ∈ R^k stored as (n, k, m): E_nᵀV is then one matmul that never copies E
            self.pos_emb = weight(n, k, n, std=n**-0.5)
        else:
            self.pos_kernel = weight(k, r, r, std=1.0 / r)  # R: (k, r, r)

    # ---- the three projections ----
    def project(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Queries, softmax-normalised keys and values of every position.

        Args:
            x: (B, C, H, W).

        Returns:
            q (B, n, h, k); K̄ (B, m, k) with Σ_m K̄[b, m, j] = 1; V (B, m, v).
        """
        B, C, H, W = self._check_input(x)
        X = x.flatten(2).transpose(1, 2).contiguous()  # (B, n, C), row-major positions
        q = (X @ self.w_q).view(B, H * W, self.heads, self.dim_k)  # (B, n, h, k)
        keys = (X @ self.w_k).softmax(dim=1)  # (B, m, k): softmax over the context positions
        values = X @ self.w_v  # (B, m, v)
        return q, keys, values

    def position_lambdas(self, values: torch.Tensor, height: int, width: int) -> torch.Tensor:
        """λᵖ_n = E_nᵀ V for every query position n, (B, m, v) -> (B, n, k, v).

        Global: one batched matmul with the learned E. Local: the lambda convolution of the
        values with R (zero padding), so no (n, m) tensor is ever formed.
        """
        B, N, v = values.shape
        k = self.dim_k
        if self.n is not None:
            # λᵖ[b, n] = Σ_m E[n, :, m] V[b, m, :]
            return torch.einsum("nkm,bmv->bnkv", self.pos_emb, values)  # (B, n, k, v)
        p = self.r // 2
        V = values.transpose(1, 2).reshape(B, 1, v, height, width)  # (B, 1, v, H, W)
        kernel = self.pos_kernel.unsqueeze(1).unsqueeze(1)  # (k, 1, 1, r, r)
        lam = F.conv3d(V, kernel, padding=(0, p, p))  # (B, k, v, H, W)
        return lam.flatten(3).permute(0, 3, 1, 2).reshape(B, N, k, v)  # (B, n, k, v)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) -> (B, dim_out, H, W): y_n = (λᶜ + λᵖ_n)ᵀ q_n for every head."""
        B, _, H, W = self._check_input(x)
        q, keys, values = self.project(x)
        content = torch.einsum("bmk,bmv->bkv", keys, values)  # λᶜ = K̄ᵀV: (B, k, v)
        position = self.position_lambdas(values, H, W)  # (B, n, k, v)
        y = torch.einsum("bnhk,bkv->bnhv", q, content)  # λᶜᵀ q_n: (B, n, h, v)
        y = y + torch.einsum("bnhk,bnkv->bnhv", q, position)  # + λᵖ_nᵀ q_n
        return y.reshape(B, H, W, self.dim_out).permute(0, 3, 1, 2)  # (B, h·v, H, W)

    # ---- what the page shows ----
    def position_embedding(self, position: int, height: int, width: int) -> torch.Tensor:
        """E_n ∈ R^{m×k} of query position n (row-major), (m, k).

        Global: the learned row. Local: the kernel R placed around n, i.e.
        E_n[m] = R[:, dy + r//2, dx + r//2] for m = n + (dy, dx) inside the image and 0
        elsewhere: the dense form of the lambda convolution (for pictures and tests).
        """
        N = height * width
        position = validation.integer(position, "position", 0, N - 1)
        if self.n is not None:
            return self.pos_emb[position].T  # (m, k)
        R = self.pos_kernel
        r, p = self.r, self.r // 2
        y0, x0 = divmod(position, width)
        E = R.new_zeros(N, self.dim_k)
        dy = torch.arange(r) - p
        ys, xs = torch.meshgrid(y0 + dy, x0 + dy, indexing="ij")  # (r, r) context coordinates
        inside = (ys >= 0) & (ys < height) & (xs >= 0) & (xs < width)
        E[(ys * width + xs)[inside]] = R.permute(1, 2, 0)[inside]  # (r, r, k) -> rows of E
        return E

    @torch.no_grad()
    def explain(self, x: torch.Tensor, position: int) -> LambdaExplanation:
        """Every intermediate of the forward pass, for query position n = ``position``.

        λᵖ_n is taken from the all-positions computation of the forward pass (the lambda
        convolution for a local context), E_n from :meth:`position_embedding`. Computed
        without gradients.
        """
        B, _, H, W = self._check_input(x)
        E_n = self.position_embedding(position, H, W).detach()
        q, keys, values = self.project(x)
        content = torch.einsum("bmk,bmv->bkv", keys, values)  # λᶜ = K̄ᵀV: (B, k, v)
        position_lambda = self.position_lambdas(values, H, W)[:, position]  # (B, k, v)
        q_n = q[:, position]  # (B, h, k)
        content_output = torch.einsum("bhk,bkv->bhv", q_n, content)  # (λᶜ)ᵀ q_n: (B, h, v)
        y_n = content_output + torch.einsum("bhk,bkv->bhv", q_n, position_lambda)  # (B, h, v)
        return LambdaExplanation(
            q=q_n,
            keys=keys,
            values=values,
            content_lambda=content,
            position_embedding=E_n,
            position_lambda=position_lambda,
            content_output=content_output,
            y_n=y_n,
            y=self(x),
        )

    def _check_input(self, x: torch.Tensor) -> tuple[int, int, int, int]:
        """(B, C, H, W) of an input this layer accepts, else a :class:`CoreError`."""
        if x.dim() != 4:
            raise CoreError(
                "lambda_input_shape",
                "the input must be (B, C, H, W), not of shape {shape}",
                shape=tuple(x.shape),
            )
        B, C, H, W = x.shape
        if self.dim != C:
            raise CoreError(
                "lambda_channels",
                "the layer expects {dim} input channels, not {C}",
                dim=self.dim,
                C=C,
            )
        if self.n is not None and self.n != H * W:
            raise CoreError(
                "lambda_global_size",
                "this global lambda layer has a context of n = {n} "
                "positions, but a {H}×{W} image has {HW}: build it with n = H·W",
                n=self.n,
                H=H,
                W=W,
                HW=H * W,
            )
        return B, C, H, W


# ---- memory: what a forward pass allocates ----
def _tensors(obj: Any) -> list[torch.Tensor]:
    """The tensors in a (nested) tuple / list / dict of arguments or results."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for item in obj for t in _tensors(item)]
    if isinstance(obj, dict):
        return [t for item in obj.values() for t in _tensors(item)]
    return []


@dataclass(frozen=True)
class Allocation:
    """A tensor a torch function returned in new storage: which function, what shape."""

    function: str
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        """Its number of elements."""
        return math.prod(self.shape)


class _Allocations(TorchFunctionMode):
    """Records an :class:`Allocation` for every tensor a torch function returns in new storage."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[Allocation] = []

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        shared = {t.untyped_storage().data_ptr() for t in _tensors((args, kwargs))}
        out = func(*args, **kwargs)
        for t in _tensors(out):
            # a view or an in-place result shares an input's storage: nothing was allocated
            if t.untyped_storage().data_ptr() not in shared:
                self.records.append(
                    Allocation(getattr(func, "__name__", str(func)), tuple(t.shape))
                )
        return out


def forward_allocations(layer: nn.Module, x: torch.Tensor) -> list[Allocation]:
    """Every tensor a forward pass ``layer(x)`` allocates (torch function, shape), in order.

    Recorded with a ``torch.overrides.TorchFunctionMode``: each result of a torch function
    (``einsum``, ``conv3d``, ``softmax``, a ``reshape`` that copies, …) that does not share
    the storage of an argument. Views and the parameters themselves allocate nothing.
    (Buffers inside one function are not seen; tests/core/test_lambda_layer.py checks with
    torch's operator-level dispatch that none of them is larger.)
    """
    with torch.no_grad(), _Allocations() as rec:
        layer(x)
    return rec.records


def largest_allocation(layer: nn.Module, x: torch.Tensor) -> Allocation:
    """The biggest tensor (most elements) a forward pass ``layer(x)`` allocates (the first
    of equal ones)."""
    return max(forward_allocations(layer, x), key=lambda a: a.size)


# ---- cost of an attention map vs a lambda layer, per image (batch 1) ----
@dataclass(frozen=True)
class AttentionCost:
    """Multi-head self-attention over n = side² tokens (what a lambda layer avoids).

    Attributes:
        n: tokens; entries: h·n² attention weights; flops: 2·h·n²·(k + v) for QKᵀ and the
        weighted sum; largest: the largest tensor, the maps (h·n²).
    """

    n: int
    entries: int
    flops: int
    largest: int


@dataclass(frozen=True)
class LambdaCost:
    """A lambda layer over n = side² positions, global (m = n) or local (m = r²) context.

    Attributes:
        n: positions; m: context positions of one position lambda; flops: 2nkv(1 + m + h);
        lambdas: n·k·v numbers of all position lambdas; largest: the largest activation;
        embeddings: parameters of the position embeddings (n·m·k for E, r²·k for R).
    """

    n: int
    m: int
    flops: int
    lambdas: int
    largest: int
    embeddings: int


def attention_cost(side: int, heads: int, dim_k: int, dim_v: int) -> AttentionCost:
    """Multi-head self-attention over a side×side image (n = side² tokens).

    Returns ``entries`` of the attention maps h·n², ``flops`` 2·h·n²·(k + v) of QKᵀ and of
    the weighted sum of values, and ``largest`` = the largest tensor, the maps (h·n²).
    Projections, softmax and additions are left out (a lambda layer pays them too).
    """
    side, heads = validation.positive_int(side, "side"), validation.positive_int(heads, "heads")
    dim_k, dim_v = validation.positive_int(dim_k, "dim_k"), validation.positive_int(dim_v, "dim_v")
    n = side * side
    entries = heads * n * n
    return AttentionCost(n, entries, 2 * heads * n * n * (dim_k + dim_v), entries)


def lambda_cost(side: int, heads: int, dim_k: int, dim_v: int, r: int | None = None) -> LambdaCost:
    """A lambda layer over a side×side image: global context (r None) or r×r local context.

    Returns ``m`` context positions of a position lambda (n or r²); ``flops``: 2·n·k·v for
    λᶜ = K̄ᵀV, 2·n·m·k·v for all λᵖ_n, 2·n·h·k·v for (λᶜ + λᵖ_n)ᵀq_n; ``lambdas`` the
    position lambdas of all positions, n·k·v; ``largest`` the largest activation, the
    position lambdas (or q, n·h·k, or the output, n·h·v, if bigger);
    ``embeddings`` the parameters of the position embeddings: n·m·k for E, r²·k for R.
    """
    side, heads = validation.positive_int(side, "side"), validation.positive_int(heads, "heads")
    dim_k, dim_v = validation.positive_int(dim_k, "dim_k"), validation.positive_int(dim_v, "dim_v")
    if r is not None:
        r = validation.positive_int(r, "r")
    n = side * side
    k, v = dim_k, dim_v
    m = n if r is None else r * r
    flops = 2 * n * k * v + 2 * n * m * k * v + 2 * n * heads * k * v
    largest = max(n * k * v, n * heads * k, n * heads * v)
    return LambdaCost(n, m, flops, n * k * v, largest, m * k if r is not None else n * m * k)


def translation_gap(layer: LambdaLayer, x: torch.Tensor, shift: int = 1) -> float | None:
    """How far ``layer`` is from translation equivariance along the width, max |Δ|.

    Shifts the image circularly by ``shift`` columns and compares y(shifted) at column
    j + shift with y(x) at column j. λᶜ sums over every position, so a circular shift leaves
    it unchanged; what remains is the position term. Only columns whose r×r window stays
    inside the image in both (away from the border and from the seam of the roll) are
    compared for a local layer; ``None`` if there is no such column. A relative embedding
    (the lambda convolution) gives rounding error; the absolute table E_{nm} does not.

    Args:
        layer: a :class:`LambdaLayer` (global or local context).
        x: (B, C, H, W) with H·W = n for a global layer.
        shift: columns, 1 ≤ shift < W.
    """
    W = x.shape[-1]
    shift = validation.integer(shift, "shift", 1)
    half = (layer.r // 2) if layer.r is not None else 0
    if W - half - shift <= half:
        return None  # no column whose window stays inside the image in both
    cols = torch.arange(half, W - half - shift)  # j with both windows inside the image
    with torch.no_grad():
        y, y_shifted = layer(x), layer(torch.roll(x, shifts=shift, dims=-1))
    return float((y_shifted[..., cols + shift] - y[..., cols]).abs().max())
