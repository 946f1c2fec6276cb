"""The Vision Transformer's input and its multi-head self-attention, step by step (numpy).

Dosovitskiy et al. 2021, "An Image is Worth 16x16 Words", §3.1, Eq. 1:

    z₀ = [x_class; x_p¹E; x_p²E; …; x_pᴺE] + E_pos,   E ∈ ℝ^{(P²C)×D},  E_pos ∈ ℝ^{(N+1)×D}

An image (H, W, C) is cut into N = HW/P² patches of P×P pixels, each flattened to P²C
numbers ("(h p1) (w p2) c -> (h w) (p1 p2 c)" in einops) and mapped linearly to D numbers.
The reference code (google-research/vision_transformer, timm's ``PatchEmbed``) writes that
linear map as a ``Conv2d(C, D, kernel_size=P, stride=P)``: :func:`conv_patch_embedding`
shows the two are the same map. A learnable [class] token is prepended and a learnable
position embedding added; the encoder's multi-head self-attention (Vaswani et al. 2017,
§3.2.2) then mixes the N + 1 tokens with scale 1/√d, d = D/h the size of one head.

The course's from-scratch code divides the scores by √h (the number of heads); the paper
and torch divide by √d = √(D/h).

Shape legend: H, W pixels, C channels, P patch side, N patches, T = N + 1 tokens, D width,
h heads, d = D / h.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from core import attention as att
from core import images, validation
from core.arrays import Array, BoolArray
from core.errors import CoreError

MAX_UPLOAD_BYTES = images.MAX_BYTES


# ---- an image in ---------------------------------------------------------------------------


def load_image(data: bytes, side: int) -> NDArray[np.uint8]:
    """An uploaded PNG/JPEG as a (side, side, 3) RGB image, or a :class:`CoreError` that says
    what is wrong (empty, too large, not PNG/JPEG, too many pixels, damaged).

    Validation is ``core.images.load_image``'s (content sniffing, header size checked before
    decoding); here its problems get codes so the page can say them in its language.
    """
    if not data:
        raise CoreError("vit_upload_empty", "the file is empty")
    if len(data) > MAX_UPLOAD_BYTES:
        raise CoreError(
            "vit_upload_too_big",
            "the file has {mb} MB; at most {limit} MB",
            mb=f"{len(data) / 1e6:.1f}",
            limit=f"{MAX_UPLOAD_BYTES / 1e6:.1f}",
        )
    try:
        fmt, (W, H) = images.declared_size(data)
    except ValueError:
        raise CoreError("vit_upload_type", "this file is not a PNG or JPEG image") from None
    if W * H > images.MAX_PIXELS:
        raise CoreError(
            "vit_upload_pixels",
            "the image declares {W} × {H} pixels; at most {max}",
            W=W,
            H=H,
            max=f"{images.MAX_PIXELS:,}",
        )
    try:
        return images.load_image(data, side)
    except ValueError:
        raise CoreError(
            "vit_upload_damaged", "this {fmt} file could not be decoded", fmt=fmt
        ) from None


def check_patch(side: int, patch: int) -> tuple[int, int]:
    """(S, P) if P divides the image side S, else a :class:`CoreError`."""
    S = validation.positive_int(side, "image side", 4096)
    P = validation.positive_int(patch, "patch size", S)
    if S % P:
        raise CoreError("vit_patch", "P = {P} does not divide the image side {S}", P=P, S=S)
    return S, P


# ---- patches and their embedding ----------------------------------------------------------------


def patchify(image: Array, patch: int) -> Array:
    """(H, W, C) → (N, P²C): "(h p1) (w p2) c -> (h w) (p1 p2 c)", patches in row-major order.

    >>> patchify(np.arange(16.0).reshape(4, 4, 1), 2)[0].tolist()
    [0.0, 1.0, 4.0, 5.0]
    """
    x = validation.finite_array(image, "image", ndim=3)
    H, W, C = x.shape
    check_patch(H, patch)
    check_patch(W, patch)
    P = int(patch)
    x = x.reshape(H // P, P, W // P, P, C)  # (h, p1, w, p2, C)
    return x.transpose(0, 2, 1, 3, 4).reshape(H // P * (W // P), P * P * C)  # (N, P²C)


def unpatchify(patches: Array, patch: int, height: int, width: int) -> Array:
    """(N, P²C) → (H, W, C): the inverse of :func:`patchify`."""
    x = validation.finite_array(patches, "patches", ndim=2)
    P = int(patch)
    h, w = height // P, width // P
    C = x.shape[1] // (P * P)
    x = x.reshape(h, w, P, P, C).transpose(0, 2, 1, 3, 4)  # (h, p1, w, p2, C)
    return x.reshape(height, width, C)


@dataclass(frozen=True)
class ViTWeights:
    """An untrained ViT input layer and one attention layer.

    Attributes:
        E: (P²C, D) patch embedding; b: (D,) its bias.
        cls: (D,) the [class] token; pos: (N + 1, D) position embeddings.
        w_q, w_k, w_v, w_o: (D, D), applied as ``x @ w``.
    """

    E: Array
    b: Array
    cls: Array
    pos: Array
    w_q: Array
    w_k: Array
    w_v: Array
    w_o: Array


def init_vit(
    patch: int, channels: int, d_model: int, n_patches: int, rng: np.random.Generator
) -> ViTWeights:
    """Random weights: E, W ~ N(0, 1/fan_in); [class] and positions ~ N(0, 0.02²) as in ViT."""
    P = validation.positive_int(patch, "patch size", 1024)
    C = validation.positive_int(channels, "channels", 16)
    D = validation.positive_int(d_model, "width D", 4096)
    N = validation.positive_int(n_patches, "patches", 1_000_000)
    fan_in = P * P * C
    E = rng.standard_normal((fan_in, D)) / np.sqrt(fan_in)
    w = rng.standard_normal((4, D, D)) / np.sqrt(D)
    return ViTWeights(
        E, np.zeros(D), 0.02 * rng.standard_normal(D), 0.02 * rng.standard_normal((N + 1, D)), *w
    )


def patch_embedding(patches: Array, E: Array, b: Array) -> Array:
    """x_p E + b: (N, P²C) @ (P²C, D) → (N, D)."""
    x = validation.finite_array(patches, "patches", ndim=2)
    if x.shape[1] != E.shape[0]:
        raise CoreError(
            "vit_embedding_shape",
            "patches of {n} numbers need E with {n} rows, not {r}",
            n=x.shape[1],
            r=E.shape[0],
        )
    return x @ E + b


def conv_weight(E: Array, patch: int, channels: int) -> Array:
    """E (P²C, D) as a Conv2d weight (D, C, P, P): E[(p1 p2 c), d] = W[d, c, p1, p2]."""
    P, C = int(patch), int(channels)
    return E.reshape(P, P, C, -1).transpose(3, 2, 0, 1)  # (D, C, P, P)


def conv_patch_embedding(image: Array, E: Array, b: Array, patch: int) -> Array:
    """The same embedding by ``torch.nn.Conv2d(C, D, kernel_size=P, stride=P)``: (N, D).

    The convolution's output (D, H/P, W/P) read row-major is one token per patch.
    """
    import torch  # lazily: only the pages that show this torch layer pay for it

    x = validation.finite_array(image, "image", ndim=3)
    H, W, C = x.shape
    P = int(patch)
    conv = torch.nn.Conv2d(C, E.shape[1], kernel_size=P, stride=P, dtype=torch.float64)
    with torch.no_grad():
        conv.weight.copy_(torch.from_numpy(conv_weight(E, P, C).copy()))
        conv.bias.copy_(torch.from_numpy(np.asarray(b, dtype=np.float64)))
        y = conv(torch.from_numpy(x.transpose(2, 0, 1).copy())[None])[0]  # (D, H/P, W/P)
    return y.reshape(E.shape[1], -1).T.numpy()  # (N, D)


def input_tokens(image: Array, w: ViTWeights, patch: int) -> Array:
    """z₀ = [x_class; x_p E + b] + E_pos: (N + 1, D), the [class] token first."""
    tokens = patch_embedding(patchify(image, patch), w.E, w.b)  # (N, D)
    if len(tokens) + 1 != len(w.pos):
        raise CoreError(
            "vit_positions",
            "{n} patches need {t} position embeddings, not {p}",
            n=len(tokens),
            t=len(tokens) + 1,
            p=len(w.pos),
        )
    return np.vstack([w.cls[None], tokens]) + w.pos  # (T, D)


# ---- multi-head self-attention, one einsum at a time ---------------------------------------


@dataclass(frozen=True)
class MHSASteps:
    """Every intermediate of multi-head self-attention (shapes for T tokens, h heads).

    Attributes:
        x: (T, D) input; q, k, v: (T, D) projections.
        q_heads, k_heads, v_heads: (h, T, d) split into heads.
        scores: (h, T, T) q·k / √d; weights: (h, T, T) softmax over keys.
        heads: (h, T, d) weighted values; merged: (T, D) heads side by side; out: (T, D).
        scale: 1/√d.
    """

    x: Array
    q: Array
    k: Array
    v: Array
    q_heads: Array
    k_heads: Array
    v_heads: Array
    scores: Array
    weights: Array
    heads: Array
    merged: Array
    out: Array
    scale: float


def mhsa_steps(
    x: Array,
    w_q: Array,
    w_k: Array,
    w_v: Array,
    w_o: Array,
    n_heads: int,
    mask: BoolArray | None = None,
    *,
    scale: float | None = None,
) -> MHSASteps:
    """Multi-head self-attention written with einsum, keeping every step.

    Args:
        x: (T, D) tokens; w_*: (D, D) applied as ``x @ w``.
        n_heads: h, dividing D.
        mask: bool (T, T), True = may attend (``core.attention``'s convention).
        scale: default 1/√d with d = D/h.
    """
    X = validation.finite_array(x, "x", ndim=2)
    T, D = X.shape
    d = att.check_heads(D, n_heads)
    h = n_heads
    q = np.einsum("td,de->te", X, w_q)  # (T, D)
    k = np.einsum("td,de->te", X, w_k)
    v = np.einsum("td,de->te", X, w_v)
    # "t (h d) -> h t d"
    q_h, k_h, v_h = (a.reshape(T, h, d).transpose(1, 0, 2) for a in (q, k, v))  # (h, T, d)
    s = 1.0 / np.sqrt(d) if scale is None else float(scale)
    scores = np.einsum("hid,hjd->hij", q_h, k_h) * s  # (h, T, T)
    weights = att.masked_softmax(scores, mask)
    heads = np.einsum("hij,hjd->hid", weights, v_h)  # (h, T, d)
    merged = heads.transpose(1, 0, 2).reshape(T, D)  # "h t d -> t (h d)"
    out = np.einsum("te,ed->td", merged, w_o)  # (T, D)
    return MHSASteps(X, q, k, v, q_h, k_h, v_h, scores, weights, heads, merged, out, s)


def torch_mha(
    x: Array,
    w_q: Array,
    w_k: Array,
    w_v: Array,
    w_o: Array,
    n_heads: int,
    mask: BoolArray | None = None,
) -> tuple[Array, Array]:
    """The same layer as ``torch.nn.MultiheadAttention`` (no biases): (out (T, D), weights
    (h, T, T)).

    torch computes ``x @ Wᵀ`` and keeps W^Q, W^K, W^V stacked in one ``in_proj_weight``
    (3D, D); its bool ``attn_mask`` is True where attention is *blocked*, the opposite of
    ours, so the mask is flipped on the way in.
    """
    import torch  # lazily

    X = validation.finite_array(x, "x", ndim=2)
    D = X.shape[1]
    mha = torch.nn.MultiheadAttention(D, n_heads, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.from_numpy(np.concatenate([w_q.T, w_k.T, w_v.T])))
        mha.out_proj.weight.copy_(torch.from_numpy(np.ascontiguousarray(w_o.T)))
        blocked = None if mask is None else torch.from_numpy(~np.asarray(mask, dtype=bool))
        t = torch.from_numpy(X)[None]
        out, weights = mha(t, t, t, attn_mask=blocked, average_attn_weights=False)
    return out[0].numpy(), weights[0].numpy()


# ---- cost against the patch size -------------------------------------------------------------


@dataclass(frozen=True)
class ViTCost:
    """Tokens and attention cost of one ViT layer on an S × S image.

    Attributes:
        patches: N = (S/P)²; tokens: T = N + 1; patch_dim: P²C numbers per patch.
        entries: h · T² attention weights; flops: 4 · T² · D floating-point operations of
            QKᵀ and AV, each T² · D multiply-adds (over the h heads), 2 FLOPs apiece.
    """

    side: int
    patch: int
    patches: int
    tokens: int
    patch_dim: int
    entries: int
    flops: int


def vit_cost(side: int, patch: int, d_model: int, n_heads: int, channels: int = 3) -> ViTCost:
    """Token count and attention cost at patch size P.

    >>> vit_cost(224, 16, 768, 12).tokens          # ViT-B/16: 196 patches + [class]
    197
    """
    S, P = check_patch(side, patch)
    D = validation.positive_int(d_model, "width D", 1_000_000)
    h = validation.positive_int(n_heads, "heads", D)
    N = (S // P) ** 2
    T = N + 1
    return ViTCost(S, P, N, T, P * P * int(channels), h * T * T, 4 * T * T * D)
