"""The same attention in PyTorch: our inputs through ``F.scaled_dot_product_attention`` and
``nn.MultiheadAttention`` (our weights copied in), next to :mod:`core.attention`'s numpy.

Two conventions differ between torch's two entry points and our code:

- a bool ``attn_mask`` of ``F.scaled_dot_product_attention`` is True where a query *may*
  attend (as ours), but ``nn.MultiheadAttention`` blocks where it is True: it gets ``~mask``;
- ``nn.MultiheadAttention`` computes ``x @ W.T``, the paper ``X W``: it gets the transposes,
  ``in_proj_weight = cat([W_Q.T, W_K.T, W_V.T])`` and ``out_proj.weight = W_O.T``.

torch is imported inside the functions, so importing this module does not load it (a page
that shows torch in one of its views only pays for it there).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from core import validation
from core.arrays import Array, BoolArray
from core.attention import check_heads, multi_head_attention, scaled_dot_product_attention
from core.errors import CoreError


@dataclass(frozen=True)
class TorchAttention:
    """torch's results for one input.

    Attributes:
        sdpa: (N, D) ``F.scaled_dot_product_attention(x W_Q, x W_K, x W_V, mask)`` (one head).
        mha_out: (N, D) ``nn.MultiheadAttention``'s output with h heads.
        mha_weights: (h, N, N) its weights per head (``average_attn_weights=False``).
    """

    sdpa: Array
    mha_out: Array
    mha_weights: Array


@dataclass(frozen=True)
class TorchGap:
    """How far :mod:`core.attention` is from torch on one input (max absolute differences).

    Attributes:
        sdpa: our single-head attention against ``F.scaled_dot_product_attention``.
        mha_out: our ``multi_head_attention`` output against ``nn.MultiheadAttention``'s.
        weights: our per-head weights against torch's.
        weights_map: (N, N) the weights' difference per cell, the largest over the heads.
    """

    sdpa: float
    mha_out: float
    weights: float
    weights_map: Array


def _checked(
    x: ArrayLike, weights: tuple[ArrayLike, ...], n_heads: int, mask: ArrayLike | None
) -> tuple[Array, list[Array], BoolArray]:
    X = validation.finite_array(x, "x", ndim=2)
    N, D = X.shape
    check_heads(D, n_heads)
    ws = [validation.finite_array(w, name, ndim=2) for w, name in zip(weights, "QKVO", strict=True)]
    for w, name in zip(ws, "QKVO", strict=True):
        if w.shape != (D, D):
            raise CoreError(
                "attention_maps_weight_shape",
                "W_{name} must be ({D}, {D}) for D = {D}, got {shape}",
                name=name,
                D=D,
                shape=w.shape,
            )
    m = np.ones((N, N), dtype=bool) if mask is None else np.asarray(mask)
    if m.dtype != np.bool_ or m.shape != (N, N):
        raise CoreError(
            "attention_maps_mask",
            "the mask must be a bool ({N}, {N}) array: True = may attend",
            N=N,
        )
    return X, ws, m


def torch_attention(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike,
    n_heads: int,
    mask: ArrayLike | None = None,
) -> TorchAttention:
    """Our tokens and projections through torch's two attentions, in float64.

    Args:
        x: (N, D) tokens.
        w_q, w_k, w_v, w_o: (D, D) projections applied as ``x @ w`` (the paper's X W^Q).
        n_heads: h for ``nn.MultiheadAttention`` (must divide D).
        mask: (N, N) bool, True = may attend (our convention); ``None``: all allowed.
    """
    import torch
    import torch.nn.functional as F

    X, (W_q, W_k, W_v, W_o), m = _checked(x, (w_q, w_k, w_v, w_o), n_heads, mask)
    D = X.shape[1]
    tq, tk, tv = (torch.tensor(X @ w) for w in (W_q, W_k, W_v))
    sdpa = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=torch.tensor(m)).numpy()
    mha = torch.nn.MultiheadAttention(D, n_heads, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():  # torch computes x @ W.T: copy the transposes
        mha.in_proj_weight.copy_(torch.tensor(np.concatenate([W_q.T, W_k.T, W_v.T])))
        mha.out_proj.weight.copy_(torch.tensor(W_o.T))
        tx = torch.tensor(X[None])
        out, w = mha(tx, tx, tx, attn_mask=torch.tensor(~m), average_attn_weights=False)
    return TorchAttention(sdpa=sdpa, mha_out=out[0].numpy(), mha_weights=w[0].numpy())


def gap_to_torch(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w_v: ArrayLike,
    w_o: ArrayLike,
    n_heads: int,
    mask: ArrayLike | None = None,
) -> TorchGap:
    """:func:`torch_attention` against our :func:`~core.attention.scaled_dot_product_attention`
    and :func:`~core.attention.multi_head_attention` on the same input (same arguments)."""
    X, ws, m = _checked(x, (w_q, w_k, w_v, w_o), n_heads, mask)
    ours_sdpa, _ = scaled_dot_product_attention(X @ ws[0], X @ ws[1], X @ ws[2], m)
    ours_out, ours_w = multi_head_attention(X, *ws, n_heads, m)
    ref = torch_attention(X, *ws, n_heads, m)
    weights = np.abs(ours_w - ref.mha_weights)
    return TorchGap(
        sdpa=float(np.abs(ours_sdpa - ref.sdpa).max()),
        mha_out=float(np.abs(ours_out - ref.mha_out).max()),
        weights=float(weights.max()),
        weights_map=weights.max(axis=0),
    )
