"""core.set_transformer: property tests (Hypothesis: permutation symmetry, softmax rows, sizes)
and oracles (torch.nn.MultiheadAttention, scaled_dot_product_attention, the paper's
definitions written out with torch's functional layers)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.overrides import TorchFunctionMode

from core import set_transformer as stf
from core import toydata
from core.errors import CoreError

HEADS = st.sampled_from([1, 2, 4])


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def tensor(seed: int, *shape: int) -> torch.Tensor:
    """A float64 (B, n, d) input drawn from its own generator."""
    return torch.randn(*shape, generator=gen(1000 + seed), dtype=torch.float64)


@st.composite
def sets(draw, max_n: int = 12, max_batch: int = 2):
    """(X (B, n, dim_in), permutation of range(n), seed) for small sets."""
    n = draw(st.integers(1, max_n))
    B, dim_in = draw(st.integers(1, max_batch)), draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**16))
    perm = draw(st.permutations(range(n)))
    return tensor(seed, B, n, dim_in), torch.tensor(perm), seed


def blocks(dim_in: int, h: int, m: int, seed: int, ln: bool = True):
    """ISAB, SAB and PMA with width 4h, seeded, in float64."""
    d = 4 * h
    g = gen(seed)
    isab = stf.ISAB(dim_in, d, h, m, ln=ln, generator=g).double()
    sab = stf.SAB(dim_in, d, h, ln=ln, generator=g).double()
    pma = stf.PMA(d, h, num_seeds=2, ln=ln, generator=g).double()
    return isab, sab, pma


# ---- properties: shapes, softmax rows, permutation symmetry ----------------------------------
@settings(max_examples=40)  # each example builds torch modules
@given(sets(), HEADS, st.integers(1, 6), st.booleans())
def test_shapes_and_attention_rows(case, h, m, ln):
    X, _, seed = case
    B, n, _ = X.shape
    isab, sab, pma = blocks(X.shape[-1], h, m, seed, ln)
    with torch.no_grad():
        r_isab, r_sab = isab.explain(X), sab.explain(X)
        r_pma = pma.explain(r_isab.out)
    Z, A_IX, A_XH = r_isab.out, r_isab.weights_ix, r_isab.weights_xh
    S, A_S, P, A_P = r_sab.out, r_sab.weights, r_pma.out, r_pma.weights
    d = 4 * h
    assert Z.shape == S.shape == (B, n, d) and P.shape == (B, 2, d)
    assert A_IX.shape == (B, h, m, n) and A_XH.shape == (B, h, n, m)
    assert A_S.shape == (B, h, n, n) and A_P.shape == (B, h, 2, n)
    for A in (A_IX, A_XH, A_S, A_P):
        assert (A >= 0).all()
        assert torch.allclose(A.sum(-1), torch.ones(A.shape[:-1], dtype=A.dtype), atol=1e-12)
    assert r_isab.summaries.shape == (B, m, d)
    # forward returns the tensor explain computes; the weights are not needed for it
    assert torch.equal(isab(X), Z) and torch.equal(sab(X), S) and torch.equal(pma(Z), P)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r_isab.out = S  # type: ignore[misc]


@settings(max_examples=40)  # each example builds torch modules
@given(sets(), HEADS, st.integers(1, 6))
def test_isab_and_sab_are_permutation_equivariant(case, h, m):
    X, p, seed = case
    isab, sab, _ = blocks(X.shape[-1], h, m, seed)
    with torch.no_grad():
        (Z, _, A_IX, A_XH), (Zp, _, A_IXp, A_XHp) = (
            dataclasses.astuple(isab.explain(x)) for x in (X, X[:, p])
        )
        (S, A_S), (Sp, A_Sp) = (dataclasses.astuple(sab.explain(x)) for x in (X, X[:, p]))
    assert torch.allclose(Zp, Z[:, p], atol=1e-12)  # ISAB(πX) = π ISAB(X)
    assert torch.allclose(Sp, S[:, p], atol=1e-12)  # SAB(πX) = π SAB(X)
    assert torch.allclose(A_IXp, A_IX[..., p], atol=1e-12)  # columns follow the set
    assert torch.allclose(A_XHp, A_XH[:, :, p], atol=1e-12)  # rows follow the set
    assert torch.allclose(A_Sp, A_S[:, :, p][..., p], atol=1e-12)  # P A Pᵀ


@settings(max_examples=40)  # each example builds torch modules
@given(sets(), HEADS)
def test_pma_and_deep_sets_pools_are_permutation_invariant(case, h):
    X, p, seed = case
    _, _, pma = blocks(X.shape[-1], h, 1, seed)
    Z = tensor(seed, *X.shape[:2], 4 * h)  # any (B, n, 4h) set
    with torch.no_grad():
        P, A = dataclasses.astuple(pma.explain(Z))
        Pp, Ap = dataclasses.astuple(pma.explain(Z[:, p]))
    assert torch.allclose(Pp, P, atol=1e-12)
    assert torch.allclose(Ap, A[..., p], atol=1e-12)
    for kind in stf.POOLS:
        assert torch.allclose(stf.set_pool(Z[:, p], kind), stf.set_pool(Z, kind), atol=1e-12)


def test_position_weighted_sum_is_not_a_set_function():
    Z = tensor(0, 1, 5, 3)
    p = torch.tensor([4, 3, 2, 1, 0])
    assert not torch.allclose(stf.position_weighted_sum(Z[:, p]), stf.position_weighted_sum(Z))
    w = torch.arange(1, 6, dtype=torch.float64) / 5
    assert torch.allclose(stf.position_weighted_sum(Z), (w[None, :, None] * Z).sum(1))


class ShapeRecorder(TorchFunctionMode):
    """Records the shape of every tensor any torch function returns."""

    def __init__(self) -> None:
        super().__init__()
        self.shapes: list[tuple[int, ...]] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if isinstance(out, torch.Tensor):
            self.shapes.append(tuple(out.shape))
        return out


@pytest.mark.parametrize(("n", "m"), [(37, 3), (53, 7), (101, 16)])
def test_isab_never_builds_an_n_by_n_map(n, m):
    """Every intermediate tensor of ISAB's forward: nothing has n×n trailing dimensions."""
    isab = stf.ISAB(2, 8, 2, m, generator=gen(n)).double()
    X = tensor(n, 1, n, 2)
    with torch.no_grad(), ShapeRecorder() as rec:
        result = isab.explain(X)
    A_IX, A_XH = result.weights_ix, result.weights_xh
    assert rec.shapes and not [s for s in rec.shapes if s[-2:] == (n, n)]
    assert (1, 2, m, n) in rec.shapes and (1, 2, n, m) in rec.shapes
    assert A_IX[0, 0].numel() + A_XH[0, 0].numel() == stf.isab_attention_entries(n, m) == 2 * n * m
    sab = stf.SAB(2, 8, 2, generator=gen(n)).double()
    with torch.no_grad(), ShapeRecorder() as rec:
        sab(X)
    assert (1, 2, n, n) in rec.shapes and stf.sab_attention_entries(n) == n * n


@given(st.integers(1, 10_000), st.integers(1, 512))
def test_isab_is_cheaper_than_sab_exactly_when_n_exceeds_2m(n, m):
    assert (stf.isab_attention_entries(n, m) < stf.sab_attention_entries(n)) == (n > 2 * m)


# ---- oracles ---------------------------------------------------------------------------------
def torch_mha_like(mab: stf.MAB, dim_k: int) -> torch.nn.MultiheadAttention:
    """nn.MultiheadAttention carrying MAB's W^Q, W^K, W^V, W^O (and biases)."""
    E = mab.dim_v
    mha = torch.nn.MultiheadAttention(
        E, mab.num_heads, batch_first=True, kdim=dim_k, vdim=dim_k, dtype=torch.float64
    )
    with torch.no_grad():
        if mha._qkv_same_embed_dim:
            mha.in_proj_weight.copy_(torch.cat([mab.fc_q.weight, mab.fc_k.weight, mab.fc_v.weight]))
        else:
            mha.q_proj_weight.copy_(mab.fc_q.weight)
            mha.k_proj_weight.copy_(mab.fc_k.weight)
            mha.v_proj_weight.copy_(mab.fc_v.weight)
        mha.in_proj_bias.copy_(torch.cat([mab.fc_q.bias, mab.fc_k.bias, mab.fc_v.bias]))
        mha.out_proj.weight.copy_(mab.fc_o.weight)
        mha.out_proj.bias.copy_(mab.fc_o.bias)
    return mha


@pytest.mark.parametrize(("dim_k", "h", "n_q", "n_k"), [(8, 2, 5, 7), (3, 4, 4, 9), (8, 1, 6, 1)])
def test_multihead_equals_torch_multihead_attention(dim_k, h, n_q, n_k):
    """Same weights, same scale 1/√d_h: torch's MHA gives our output and our weights.

    torch wants the query already in the model width E = dim_v, so dim_q = dim_v here.
    """
    mab = stf.MAB(8, dim_k, 8, h, generator=gen(h)).double()
    X, Y = tensor(1, 2, n_q, 8), tensor(2, 2, n_k, dim_k)
    mha = torch_mha_like(mab, dim_k)
    with torch.no_grad():
        _, M, A = mab.multihead(X, Y)
        ref, ref_A = mha(X, Y, Y, need_weights=True, average_attn_weights=False)
    assert torch.allclose(M, ref, atol=1e-12)
    assert torch.allclose(A, ref_A, atol=1e-12)


@settings(max_examples=40)  # each example builds torch modules
@given(st.integers(1, 9), st.integers(1, 9), HEADS, st.integers(0, 2**16))
def test_attention_matches_an_explicit_einsum_softmax_and_sdpa(n_q, n_k, h, seed):
    dim_v = 4 * h
    mab = stf.MAB(3, 5, dim_v, h, generator=gen(seed)).double()
    X, Y = tensor(seed, 2, n_q, 3), tensor(seed + 1, 2, n_k, 5)
    with torch.no_grad():
        Q, M, A = mab.multihead(X, Y)
        q, k, v = (
            t.unflatten(-1, (h, 4)).transpose(1, 2)  # (B, h, n, d_h)
            for t in (Q, mab.fc_k(Y), mab.fc_v(Y))
        )
        logits = torch.einsum("bhie,bhje->bhij", q, k) / math.sqrt(dim_v // h)
        assert torch.allclose(A, torch.softmax(logits, dim=-1), atol=1e-12)
        O = F.scaled_dot_product_attention(q, k, v)  # torch's default scale 1/√d_h
        assert torch.allclose(mab.fc_o(O.transpose(1, 2).reshape(2, n_q, dim_v)), M, atol=1e-12)
        # the reference code's scale 1/√dim_V: the same logits at temperature √h
        A_ref = torch.softmax(torch.einsum("bhie,bhje->bhij", q, k) / math.sqrt(dim_v), dim=-1)
        assert torch.allclose(A_ref, torch.softmax(logits / math.sqrt(h), dim=-1), atol=1e-12)
        same = torch.allclose(A_ref, A, atol=1e-12)
        assert same if h == 1 or n_k == 1 else not same


@pytest.mark.parametrize("ln", [True, False])
def test_mab_is_the_papers_two_residual_steps(ln):
    """MAB(X, Y) = LN(H + rFF(H)), H = LN(XW^Q + Multihead(X, Y, Y)), written out by hand."""
    mab = stf.MAB(3, 5, 8, 2, ln=ln, generator=gen(7)).double()
    X, Y = tensor(3, 2, 4, 3), tensor(4, 2, 6, 5)
    norm = (lambda t: F.layer_norm(t, (8,))) if ln else (lambda t: t)  # fresh LN: γ = 1, β = 0
    with torch.no_grad():
        Q, M, _ = mab.multihead(X, Y)
        assert torch.equal(Q, X @ mab.fc_q.weight.T + mab.fc_q.bias)
        H = norm(Q + M)
        rff = F.linear(
            F.relu(F.linear(H, mab.rff.fc1.weight, mab.rff.fc1.bias)),
            mab.rff.fc2.weight,
            mab.rff.fc2.bias,
        )
        assert torch.allclose(mab(X, Y), norm(H + rff), atol=1e-12)


def test_blocks_follow_the_papers_definitions():
    """SAB = MAB(X, X); ISAB = MAB(X, MAB(I, X)); PMA = MAB(S, rFF(Z))."""
    isab, sab, pma = blocks(3, 2, 4, seed=11)
    X = tensor(5, 2, 10, 3)
    with torch.no_grad():
        assert torch.equal(sab(X), sab.mab(X, X))
        I = isab.I.expand(2, -1, -1)
        assert torch.equal(isab(X), isab.mab1(X, isab.mab0(I, X)))
        Z = isab(X)
        S = pma.S.expand(2, -1, -1)
        assert torch.equal(pma(Z), pma.mab(S, pma.rff(Z)))
    assert isab.I.shape == (4, 8) and pma.S.shape == (2, 8)


def test_construction_is_seeded_and_leaves_the_global_generator_alone():
    before = torch.random.get_rng_state()
    a, b = stf.ISAB(2, 8, 2, 3, generator=gen(5)), stf.ISAB(2, 8, 2, 3, generator=gen(5))
    c = stf.ISAB(2, 8, 2, 3, generator=gen(6))
    assert torch.equal(torch.random.get_rng_state(), before)
    pa, pb, pc = (torch.cat([p.flatten() for p in x.parameters()]) for x in (a, b, c))
    assert torch.equal(pa, pb) and not torch.equal(pa, pc)
    bound = 1 / math.sqrt(2)  # torch's default Linear range U(±1/√fan_in)
    assert a.mab0.fc_k.weight.abs().max() <= bound


def test_without_a_generator_blocks_draw_from_torchs_global_rng_like_nn_linear():
    """No silent seed-0 fallback: the same global seed gives the same block, a new draw not."""
    torch.manual_seed(7)
    a = stf.SAB(2, 8, 2)
    torch.manual_seed(7)
    b = stf.SAB(2, 8, 2)
    c = stf.SAB(2, 8, 2)  # the global generator has moved on
    assert torch.equal(a.mab.fc_q.weight, b.mab.fc_q.weight)
    assert not torch.equal(b.mab.fc_q.weight, c.mab.fc_q.weight)


def test_isab_weights_do_not_depend_on_m():
    """I is drawn last: a new m changes the inducing points only (the page's m slider)."""
    a, b = stf.ISAB(2, 8, 2, 3, generator=gen(4)), stf.ISAB(2, 8, 2, 9, generator=gen(4))
    shared = [k for k in a.state_dict() if k != "I"]
    assert all(torch.equal(a.state_dict()[k], b.state_dict()[k]) for k in shared)
    assert a.I.shape == (3, 8) and b.I.shape == (9, 8)


def test_circle_clusters_are_seeded_and_cover_every_cluster():
    X, labels = toydata.circle_clusters(50, 4, np.random.default_rng(3))
    Y, _ = toydata.circle_clusters(50, 4, np.random.default_rng(3))
    assert X.shape == (50, 2) and labels.shape == (50,) and np.array_equal(X, Y)
    assert set(labels.tolist()) == {0, 1, 2, 3}
    centres = np.array([X[labels == c].mean(0) for c in range(4)])
    assert np.allclose(np.linalg.norm(centres, axis=1), 2.5, atol=0.6)


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: stf.MAB(3, 3, 6, 4), "set_transformer_heads"),
        (lambda: stf.ISAB(2, 8, 2, 0), "out_of_range"),
        (lambda: stf.PMA(8, 0), "out_of_range"),
        (lambda: stf.SAB(0, 8, 2), "out_of_range"),
        (lambda: stf.SetTransformer(2, 3, dim=10, num_heads=4), "set_transformer_heads"),
        (lambda: stf.set_pool(torch.zeros(1, 2, 2), "median"), "not_an_option"),
        (lambda: stf.isab_attention_entries(10, 0), "out_of_range"),
        (lambda: stf.sab_attention_entries(0), "out_of_range"),
        (lambda: stf.model_attention_cost(10, 0, 4), "out_of_range"),
        (lambda: toydata.circle_clusters(5, 6, np.random.default_rng(0)), "out_of_range"),
    ],
)
def test_bad_arguments_raise_a_core_error_with_its_code(call, code):
    """A CoreError (a ValueError) whose code names a text in both languages."""
    with pytest.raises(CoreError) as err:
        call()
    assert err.value.code == code and str(err.value)


def test_seeded_blocks_are_float64_and_drawn_from_their_own_seeds():
    isab, sab, pma = stf.seeded_blocks(7, 2, 8, 2, 3)
    again = stf.seeded_blocks(7, 2, 8, 2, 3)
    other = stf.seeded_blocks(8, 2, 8, 2, 3)
    for block, same, different in zip((isab, sab, pma), again, other, strict=True):
        params = list(block.parameters())
        assert all(p.dtype == torch.float64 for p in params)
        assert all(torch.equal(a, b) for a, b in zip(params, same.parameters(), strict=True))
        assert not all(
            torch.equal(a, b) for a, b in zip(params, different.parameters(), strict=True)
        )
    # ISAB from seed, SAB from seed + 1, PMA from seed + 2 (not one shared stream)
    direct = stf.SAB(2, 8, 2, generator=torch.Generator().manual_seed(8)).double()
    assert all(
        torch.equal(a, b) for a, b in zip(sab.parameters(), direct.parameters(), strict=True)
    )


@given(st.integers(2, 12), st.integers(0, 10_000), st.sampled_from([None, 1, 3]))
@settings(deadline=None, max_examples=25)
def test_the_whole_set_transformer_is_permutation_invariant(n, seed, m):
    model = stf.SetTransformer(
        2,
        3,
        dim=8,
        num_heads=2,
        num_inducing=m,
        num_seeds=2,
        generator=torch.Generator().manual_seed(seed),
    ).double()
    X = torch.randn(1, n, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
    p = torch.from_numpy(np.random.default_rng(seed).permutation(n))
    with torch.inference_mode():
        y, yp = model(X), model(X[:, p])
    assert y.shape == (1, 2, 3)
    assert torch.allclose(y, yp, atol=1e-10)


def test_the_set_transformer_explains_encoder_decoder_output():
    model = stf.SetTransformer(
        2,
        5,
        dim=8,
        num_heads=2,
        num_inducing=4,
        num_seeds=3,
        generator=torch.Generator().manual_seed(0),
    ).double()
    X = torch.randn(2, 7, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    with torch.inference_mode():
        result = model.explain(X)
    assert [tuple(t.shape) for t in result.chain] == [
        (2, 7, 2),
        (2, 7, 8),
        (2, 7, 8),
        (2, 3, 8),
        (2, 3, 8),
        (2, 3, 5),
    ]
    # the maps: ISAB (m×n, n×m) twice, PMA (k×n), the decoder's SAB (k×k)
    assert [tuple(A.shape[-2:]) for A in result.weights] == [
        (4, 7),
        (7, 4),
        (4, 7),
        (7, 4),
        (3, 7),
        (3, 3),
    ]
    assert torch.equal(model(X), result.output)
    # the decoder is the paper's rFF(SAB(PMA_k(Z))) followed by the output layer
    with torch.inference_mode():
        Z = model.encoder[1](model.encoder[0](X))
        direct = model.out(model.rff(model.mix(model.pool(Z))))
    assert torch.equal(result.encoded[-1], Z) and torch.allclose(direct, result.output)
    # the encoder is equivariant: shuffling X shuffles the rows of encoder 2 the same way
    p = torch.tensor([3, 0, 6, 1, 5, 2, 4])
    with torch.inference_mode():
        Z, Zp = model.explain(X).encoded[-1], model.explain(X[:, p]).encoded[-1]
    assert torch.allclose(Zp, Z[:, p], atol=1e-10)


@given(st.integers(1, 40), st.integers(1, 4), st.sampled_from([None, 1, 3, 8]))
@settings(deadline=None, max_examples=20)
def test_the_model_attention_cost_counts_every_map_the_model_computes(n, k, m):
    """model_attention_cost against the maps a real forward pass returns (per head)."""
    model = stf.SetTransformer(
        2,
        3,
        dim=4,
        num_heads=2,
        num_inducing=m,
        num_seeds=k,
        generator=torch.Generator().manual_seed(n),
    ).double()
    with torch.inference_mode():
        result = model.explain(torch.zeros(1, n, 2, dtype=torch.float64))
    counted = [A[0, 0].numel() for A in result.weights]  # one head
    cost = stf.model_attention_cost(n, k, m)
    assert cost.total == sum(counted) == cost.encoder + cost.pool + cost.mix
    assert cost.encoder == sum(counted[:-2]) and (cost.pool, cost.mix) == (k * n, k * k)
    assert cost.sab_only == n * n


def test_the_whole_model_without_a_generator_draws_from_the_global_rng():
    torch.manual_seed(3)
    a = stf.SetTransformer(2, 3, dim=8, num_heads=2)
    torch.manual_seed(3)
    b = stf.SetTransformer(2, 3, dim=8, num_heads=2)
    pa, pb = (torch.cat([p.flatten() for p in x.parameters()]) for x in (a, b))
    assert torch.equal(pa, pb)


@settings(max_examples=30, deadline=None)  # each example builds torch modules
@given(sets(max_n=8, max_batch=1), HEADS)
def test_shuffle_test_names_each_blocks_symmetry_and_agrees_with_permutation_matrices(case, h):
    """Oracle: π f(X) written as the permutation matrix P_π times f(X), P_π[k, π(k)] = 1."""
    X, p, seed = case
    n = X.shape[1]
    isab, sab, pma = blocks(X.shape[-1], h, 2, seed)
    P = torch.zeros(n, n, dtype=torch.float64)
    P[torch.arange(n), p] = 1.0  # (P X)_k = x_{π(k)}
    assert torch.equal(P @ X[0], X[0, p])
    for block in (isab, sab):
        test = stf.shuffle_test(block, X, p)
        assert torch.allclose(test.out_of_shuffled[0], P @ test.out[0], atol=1e-12)
        assert test.equivariance_gap < 1e-12
        assert test.symmetry() == (
            "invariant" if n == 1 or test.invariance_gap < 1e-9 else "equivariant"
        )
    assert stf.shuffle_test(lambda Z: pma(isab(Z)), X, p).symmetry() == "invariant"
    for kind in stf.POOLS:
        assert (
            stf.shuffle_test(lambda Z, kind=kind: stf.set_pool(Z, kind), X, p).invariance_gap
            < 1e-12
        )
    weighted = stf.shuffle_test(stf.position_weighted_sum, X, p)
    assert weighted.equivariance_gap == math.inf  # one vector: no rows to shuffle
    if not torch.allclose(X[0, p], X[0]):  # a real shuffle of distinct points
        assert weighted.symmetry() == "neither" and weighted.invariance_gap > 1e-9


def test_shuffle_test_refuses_a_list_that_is_not_a_permutation():
    with pytest.raises(CoreError) as err:
        stf.shuffle_test(lambda Z: Z, torch.zeros(1, 3, 2), torch.tensor([0, 0, 1]))
    assert err.value.code == "set_transformer_perm"


def test_shuffle_order_is_a_permutation_drawn_from_its_seed():
    from core.set_transformer import shuffle_order

    for n, seed in [(1, 1), (7, 3), (50, 99)]:
        pi = shuffle_order(n, seed)
        assert sorted(pi.tolist()) == list(range(n))
        np.testing.assert_array_equal(pi, np.random.default_rng(seed).permutation(n))
