"""core.lambda_layer (Bello 2021): property tests (Hypothesis) and oracles (the paper's
equations written out with plain torch.einsum, a dense-embedding global layer, F.unfold)."""

from __future__ import annotations

import dataclasses

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st
from torch.utils._python_dispatch import TorchDispatchMode

from core import lambda_layer as ll
from core.errors import CoreError

DT = torch.float64


@st.composite
def layers(draw, local: bool | None = None):
    """(layer, x) with small random sizes; local (r) or global (n) context."""
    B, C = draw(st.integers(1, 2)), draw(st.integers(1, 4))
    H, W = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    k, h, v = draw(st.integers(1, 4)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    is_local = draw(st.booleans()) if local is None else local
    ctx = {"r": draw(st.sampled_from([1, 3, 5, 7]))} if is_local else {"n": H * W}
    seed = draw(st.integers(0, 2**31 - 1))
    g = torch.Generator().manual_seed(seed)
    layer = ll.LambdaLayer(C, h * v, k, h, generator=g, dtype=DT, **ctx)
    x = torch.randn(B, C, H, W, generator=g, dtype=DT)
    return layer, x


def same_weights(src: ll.LambdaLayer, dst: ll.LambdaLayer) -> None:
    with torch.no_grad():
        for name in ("w_q", "w_k", "w_v"):
            getattr(dst, name).copy_(getattr(src, name))


# ---- reference: the paper's equations (Sec. 4.1, 4.3), dense, with plain einsum ----
def dense_local_embeddings(kernel: torch.Tensor, H: int, W: int) -> torch.Tensor:
    """E[n, m, :] = R[:, m_y − n_y + r//2, m_x − n_x + r//2] inside the r×r window, else 0."""
    k, r, _ = kernel.shape
    p = r // 2
    E = torch.zeros(H * W, H * W, k, dtype=kernel.dtype)
    for ny in range(H):
        for nx in range(W):
            for my in range(H):
                for mx in range(W):
                    dy, dx = my - ny + p, mx - nx + p
                    if 0 <= dy < r and 0 <= dx < r:
                        E[ny * W + nx, my * W + mx] = kernel[:, dy, dx]
    return E  # (n, m, k)


def reference_lambda(x, w_q, w_k, w_v, E, heads):
    """y = (λᶜ + λᵖ_n)ᵀ q_n from the paper, with E (n, m, k); returns (B, h·v, H, W)."""
    B, C, H, W = x.shape
    X = torch.einsum("bchw->bhwc", x).reshape(B, H * W, C)
    Q = torch.einsum("bnc,cd->bnd", X, w_q).reshape(B, H * W, heads, -1)
    K = torch.einsum("bmc,ck->bmk", X, w_k)
    V = torch.einsum("bmc,cv->bmv", X, w_v)
    K_bar = torch.exp(K) / torch.exp(K).sum(dim=1, keepdim=True)  # σ over context positions
    lam_c = torch.einsum("bmk,bmv->bkv", K_bar, V)
    lam_p = torch.einsum("nmk,bmv->bnkv", E, V)
    Y = torch.einsum("bnkv,bnhk->bnhv", lam_c[:, None] + lam_p, Q)
    return torch.einsum("bhwd->bdhw", Y.reshape(B, H, W, -1))


def dense_embeddings(layer: ll.LambdaLayer, H: int, W: int) -> torch.Tensor:
    if layer.n is not None:
        return layer.pos_emb.detach().permute(0, 2, 1)  # stored (n, k, m) -> (n, m, k)
    return dense_local_embeddings(layer.pos_kernel.detach(), H, W)


class OperatorAllocations(TorchDispatchMode):
    """Operator-level record (below einsum and reshape): numel of every result in new storage."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[int] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        inputs = [t for t in (*args, *(kwargs or {}).values()) if isinstance(t, torch.Tensor)]
        inputs += [
            t
            for a in args
            if isinstance(a, (list, tuple))
            for t in a
            if isinstance(t, torch.Tensor)
        ]
        shared = {t.untyped_storage().data_ptr() for t in inputs}
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (list, tuple)) else [out]:
            if isinstance(t, torch.Tensor) and t.untyped_storage().data_ptr() not in shared:
                self.sizes.append(t.numel())
        return out


# ---- properties ----
@given(layers())
def test_output_shape_is_dim_out_by_the_same_image(case):
    layer, x = case
    B, _, H, W = x.shape
    with torch.no_grad():
        y = layer(x)
    assert y.shape == (B, layer.heads * layer.dim_v, H, W)
    assert torch.isfinite(y).all()


@given(layers())
def test_keys_are_a_softmax_over_the_context_positions(case):
    layer, x = case
    with torch.no_grad():
        _, keys, _ = layer.project(x)
    assert (keys >= 0).all()
    assert torch.allclose(keys.sum(dim=1), torch.ones(1, dtype=DT), atol=1e-12)


@given(layers(), st.data())
def test_content_lambda_is_shared_by_every_query_position(case, data):
    layer, x = case
    N = x.shape[2] * x.shape[3]
    n1, n2 = data.draw(st.integers(0, N - 1)), data.draw(st.integers(0, N - 1))
    with torch.no_grad():
        first, second = layer.explain(x, n1), layer.explain(x, n2)
        assert torch.equal(first.content_lambda, second.content_lambda)
        # and it does not see the queries at all: new W_Q, same λᶜ, different q
        layer.w_q.mul_(-3.0).add_(1.0)
        after = layer.explain(x, n1)
    assert torch.equal(after.content_lambda, first.content_lambda)
    assert not torch.equal(after.q, first.q)


@given(layers(), st.data())
def test_output_is_content_plus_position_lambda_applied_to_each_query(case, data):
    layer, x = case
    B, _, H, W = x.shape
    with torch.no_grad():
        y = layer(x).reshape(B, layer.heads, layer.dim_v, H * W)  # (B, h, v, n)
        q, keys, V = layer.project(x)
        lam_c = torch.einsum("bmk,bmv->bkv", keys, V)
        for n in range(H * W):
            E_n = layer.position_embedding(n, H, W)
            lam_p = torch.einsum("mk,bmv->bkv", E_n, V)  # λᵖ_n = E_nᵀ V, explicitly
            y_n = torch.einsum("bkv,bhk->bhv", lam_c + lam_p, q[:, n])
            assert torch.allclose(y[:, :, :, n], y_n, atol=1e-12)
        n = data.draw(st.integers(0, H * W - 1))
        parts = layer.explain(x, n)
    lam_p = torch.einsum("mk,bmv->bkv", parts.position_embedding, parts.values)
    assert torch.allclose(parts.position_lambda, lam_p, atol=1e-12)
    y_n = torch.einsum("bkv,bhk->bhv", parts.content_lambda + lam_p, parts.q)
    assert torch.allclose(parts.y_n, y_n, atol=1e-12)
    content = torch.einsum("bkv,bhk->bhv", parts.content_lambda, parts.q)  # (λᶜ)ᵀ q_n
    assert torch.allclose(parts.content_output, content, atol=1e-12)
    assert torch.equal(parts.y, layer(x).detach())
    with pytest.raises(dataclasses.FrozenInstanceError):
        parts.y = y_n  # type: ignore[misc]


@given(layers(local=True), st.integers(0, 3), st.integers(0, 3))
def test_local_position_lambdas_are_translation_equivariant_away_from_borders(case, a, b):
    layer, x = case
    p = layer.r // 2
    x = torch.randn(1, layer.dim, 2 * p + 4 + a, 2 * p + 4 + b, dtype=DT)  # room to move
    H, W = x.shape[2:]
    crop = x[:, :, a:, b:]  # the image moved up by a and left by b
    with torch.no_grad():
        lam = layer.position_lambdas(layer.project(x)[2], H, W)
        lam_crop = layer.position_lambdas(layer.project(crop)[2], H - a, W - b)
    Hc, Wc = H - a, W - b
    for y in range(p, Hc - p):  # windows that stay inside both images
        for xx in range(p, Wc - p):
            assert torch.allclose(
                lam_crop[0, y * Wc + xx], lam[0, (y + a) * W + xx + b], atol=1e-12
            )


@given(layers(local=True))
def test_local_embedding_is_the_kernel_moved_to_the_query(case):
    layer, x = case
    _, _, H, W = x.shape
    with torch.no_grad():
        dense = dense_local_embeddings(layer.pos_kernel, H, W)
        for n in range(H * W):
            assert torch.equal(layer.position_embedding(n, H, W), dense[n])


def test_seeded_construction_is_reproducible_and_leaves_the_global_rng_alone():
    state = torch.get_rng_state()
    a = ll.LambdaLayer(5, 6, 3, 2, r=3, generator=torch.Generator().manual_seed(7))
    b = ll.LambdaLayer(5, 6, 3, 2, r=3, generator=torch.Generator().manual_seed(7))
    c = ll.LambdaLayer(5, 6, 3, 2, r=3, generator=torch.Generator().manual_seed(8))
    assert torch.equal(torch.get_rng_state(), state)
    for (name, pa), pb, pc in zip(
        a.named_parameters(), b.parameters(), c.parameters(), strict=True
    ):
        assert torch.equal(pa, pb), name
        assert not torch.equal(pa, pc), name


# ---- oracles ----
@given(layers())
def test_layer_matches_the_papers_equations_written_with_einsum(case):
    layer, x = case
    _, _, H, W = x.shape
    E = dense_embeddings(layer, H, W)
    with torch.no_grad():
        expected = reference_lambda(x, layer.w_q, layer.w_k, layer.w_v, E, layer.heads)
        assert torch.allclose(layer(x), expected, atol=1e-10)


@given(layers(local=True))
def test_local_layer_equals_a_global_layer_with_zero_padded_embeddings(case):
    layer, x = case
    B, C, H, W = x.shape
    big = ll.LambdaLayer(
        C,
        layer.dim_out,
        layer.dim_k,
        layer.heads,
        n=H * W,
        dtype=DT,
        generator=torch.Generator().manual_seed(0),
    )
    same_weights(layer, big)
    with torch.no_grad():
        big.pos_emb.copy_(dense_local_embeddings(layer.pos_kernel, H, W).permute(0, 2, 1))
        assert torch.allclose(layer(x), big(x), atol=1e-12)


@pytest.mark.parametrize(("H", "W"), [(1, 1), (3, 4), (5, 5)])
def test_a_kernel_covering_the_whole_image_fills_every_global_embedding(H, W):
    """r = 2·max(H, W) − 1: every offset m − n fits in the kernel, no zeros are padded."""
    r = 2 * max(H, W) - 1
    g = torch.Generator().manual_seed(3)
    local = ll.LambdaLayer(3, 4, 2, 2, r=r, generator=g, dtype=DT)
    E = dense_local_embeddings(local.pos_kernel.detach(), H, W)
    assert (E != 0).all()
    glob = ll.LambdaLayer(3, 4, 2, 2, n=H * W, generator=g, dtype=DT)
    same_weights(local, glob)
    x = torch.randn(2, 3, H, W, generator=g, dtype=DT)
    with torch.no_grad():
        glob.pos_emb.copy_(E.permute(0, 2, 1))
        assert torch.allclose(local(x), glob(x), atol=1e-12)


@given(layers(local=True))
def test_lambda_convolution_matches_unfold(case):
    """λᵖ_n = Σ over the r×r patch of n (zero padded) of R ⊙ V: F.unfold gathers the patches."""
    layer, x = case
    B, _, H, W = x.shape
    r = layer.r
    with torch.no_grad():
        V = layer.project(x)[2]  # (B, m, v)
        lam = layer.position_lambdas(V, H, W)  # (B, n, k, v)
        img = V.transpose(1, 2).reshape(B, -1, H, W)  # (B, v, H, W)
        patches = F.unfold(img, r, padding=r // 2).reshape(B, -1, r * r, H * W)  # (B, v, r², n)
        expected = torch.einsum("kp,bvpn->bnkv", layer.pos_kernel.reshape(-1, r * r), patches)
        assert torch.allclose(lam, expected, atol=1e-12)


@pytest.mark.parametrize("local", [False, True])
@pytest.mark.parametrize(
    ("B", "side", "C", "k", "h", "v"),
    [(1, 8, 7, 4, 2, 4), (2, 12, 3, 4, 4, 2), (1, 16, 16, 16, 4, 16)],
)
def test_no_n_by_n_tensor_is_allocated_in_a_forward_pass(local, B, side, C, k, h, v):
    n = side * side
    g = torch.Generator().manual_seed(0)
    ctx = {"r": 5} if local else {"n": n}
    layer = ll.LambdaLayer(C, h * v, k, h, generator=g, **ctx)
    x = torch.randn(B, C, side, side, generator=g)
    records = ll.forward_allocations(layer, x)
    sizes = [torch.Size(a.shape).numel() for a in records]
    assert ll.largest_allocation(layer, x).size == max(sizes) == max(a.size for a in records)
    assert max(sizes) == B * max(n * k * v, n * h * k, n * h * v, n * C)
    assert max(sizes) < B * h * n * n  # the attention maps: h·n² for each image
    if k * v < n:
        assert max(sizes) < B * n * n  # even below a single head's n×n map
    if k * v >= C:  # the copied input is not the largest: the formula of lambda_cost
        assert max(sizes) == B * ll.lambda_cost(side, h, k, v, 5 if local else None).largest
    # below einsum and reshape (e.g. a copy of E made to multiply it) nothing is larger
    with torch.no_grad(), OperatorAllocations() as ops:
        layer(x)
    assert max(ops.sizes) == max(sizes)


def test_the_recorder_sees_a_copy_but_not_a_view():
    x = torch.zeros(4, 6)
    with torch.no_grad(), ll._Allocations() as rec:
        x.T.reshape(24)  # non-contiguous: a copy
        x.reshape(24)  # a view
        x.add_(1)  # in place
    assert [a.shape for a in rec.records] == [(24,)] and rec.records[0].size == 24


def test_cost_formulas():
    att = ll.attention_cost(64, 4, 16, 16)
    n = 64 * 64
    assert att.entries == 4 * n * n == att.largest
    assert att.flops == 2 * 4 * n * n * 32
    glob, loc = ll.lambda_cost(64, 4, 16, 16), ll.lambda_cost(64, 4, 16, 16, r=23)
    assert glob.largest == loc.largest == glob.lambdas == n * 256
    assert ll.lambda_cost(8, 8, 4, 16).largest == 64 * 8 * 16 > 64 * 4 * 16  # q·h > k·v
    assert att.entries // glob.largest == 4 * n // 256  # h·n / (k·v)
    assert glob.embeddings == n * n * 16 and loc.embeddings == 23 * 23 * 16
    assert loc.flops == 2 * n * 256 * (1 + 23 * 23 + 4)


# ---- bad arguments ----
@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"dim": 4, "dim_out": 6, "dim_k": 2, "heads": 4, "n": 4}, "lambda_heads"),  # 6 / 4
        ({"dim": 4, "dim_out": 4, "dim_k": 2, "heads": 2}, "lambda_context"),  # neither n nor r
        ({"dim": 4, "dim_out": 4, "dim_k": 2, "heads": 2, "n": 4, "r": 3}, "lambda_context"),
        ({"dim": 4, "dim_out": 4, "dim_k": 2, "heads": 2, "r": 4}, "lambda_odd_r"),
        ({"dim": 4, "dim_out": 4, "dim_k": 0, "heads": 2, "r": 3}, "out_of_range"),
        ({"dim": 0, "dim_out": 4, "dim_k": 2, "heads": 2, "r": 3}, "out_of_range"),
        ({"dim": 4, "dim_out": 4, "dim_k": 2, "heads": 2, "n": 0}, "out_of_range"),
        ({"dim": 4, "dim_out": 4, "dim_k": 2.5, "heads": 2, "r": 3}, "not_integer"),
    ],
)
def test_bad_arguments_raise_a_core_error_with_its_code(kwargs, code):
    with pytest.raises(CoreError) as err:
        ll.LambdaLayer(**kwargs, generator=torch.Generator())
    assert err.value.code == code and str(err.value)


def test_bad_inputs_raise_a_core_error_with_its_code():
    g = torch.Generator().manual_seed(0)
    glob = ll.LambdaLayer(3, 4, 2, 2, n=16, generator=g)
    calls = [
        (lambda: glob(torch.zeros(1, 3, 5, 5)), "lambda_global_size"),
        (lambda: glob(torch.zeros(1, 2, 4, 4)), "lambda_channels"),
        (lambda: glob(torch.zeros(3, 4, 4)), "lambda_input_shape"),
        (lambda: glob.explain(torch.zeros(1, 3, 4, 4), 16), "out_of_range"),
        (lambda: ll.attention_cost(0, 1, 1, 1), "out_of_range"),
        (lambda: ll.lambda_cost(8, 1, 1, 1, r=0), "out_of_range"),
        (lambda: ll.translation_gap(glob, torch.zeros(1, 3, 4, 4), shift=0), "out_of_range"),
    ]
    for call, code in calls:
        with pytest.raises(CoreError) as err:
            call()
        assert err.value.code == code, code
    with pytest.raises(ValueError, match="n = 16"):  # a CoreError is a ValueError
        glob(torch.zeros(1, 3, 5, 5))


def test_works_without_a_generator_from_the_global_rng_like_nn_linear():
    torch.manual_seed(3)
    a = ll.LambdaLayer(4, 8, 4, 2, r=3)
    torch.manual_seed(3)
    b = ll.LambdaLayer(4, 8, 4, 2, r=3)
    c = ll.LambdaLayer(4, 8, 4, 2, r=3)  # the global generator has moved on
    assert torch.equal(a.w_q, b.w_q) and not torch.equal(b.w_q, c.w_q)
    assert a(torch.randn(1, 4, 5, 5)).shape == (1, 8, 5, 5)


@pytest.mark.parametrize("side", [8, 12])
def test_the_lambda_convolution_is_translation_equivariant_the_absolute_table_is_not(side):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1, 4, side, side, dtype=torch.float64, generator=g)
    local = ll.LambdaLayer(4, 8, 4, 2, r=3, generator=g, dtype=torch.float64)
    absolute = ll.LambdaLayer(4, 8, 4, 2, n=side * side, generator=g, dtype=torch.float64)
    assert ll.translation_gap(local, x) < 1e-12
    assert ll.translation_gap(absolute, x) > 1e-3
    assert ll.translation_gap(ll.LambdaLayer(4, 8, 4, 2, r=9, generator=g), x[..., :8, :8]) is None
