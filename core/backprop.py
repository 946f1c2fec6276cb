"""Backpropagation through one Transformer encoder block, by hand (numpy float64).

The block is **post-LN**, as in Vaswani et al. 2017 §3.1 ("LayerNorm(x + Sublayer(x))") and
torch's ``nn.TransformerEncoderLayer`` with its default ``norm_first=False``:

    m = MHA(x) = Concat(head_1..head_h) W_o + b_o,   head_i = softmax(Q_i K_iᵀ / √d_k) V_i
    Q = x W_q + b_q,  K = x W_k + b_k,  V = x W_v + b_v                          (§3.2.2)
    u = x + m;        h = LN₁(u)                                  (residual, LayerNorm)
    z = h W_1 + b_1;  r = ReLU(z);  f = r W_2 + b_2                            (§3.3)
    v = h + f;        y = LN₂(v)
    LN(u) = γ ⊙ (u − μ) / √(σ² + ε) + β  per token, σ² the biased variance, ε = 1e-5.

Backward, in reverse order (each rule is tested against torch autograd and central
finite differences in ``tests/core/test_backprop.py``):

    softmax row a = softmax(s):   ∂L/∂s = (diag(a) − a aᵀ) ∂L/∂a = a ⊙ (g − (g·a))
    LayerNorm:                    ∂L/∂u = (ĝ − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂)) / √(σ² + ε),  ĝ = γ ⊙ g
    residual u = x + m(x):        ∂L/∂x = ∂L/∂u + (∂m/∂x)ᵀ ∂L/∂u     (the gradient splits)

The course's numpy Transformer (seeds/003) skips the off-diagonal −a aᵀ of the softmax
Jacobian; :func:`diagonal_only_softmax_backward` keeps that rule so the page can show the
error it makes.

Shape legend: B batch (optional leading axes), N tokens, D = d_model, h heads,
d_k = D / h, F = d_ff, V vocabulary, T training steps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from core import attention as att
from core.arrays import Array, IntArray
from core.errors import CoreError
from core.softmax import masked_softmax
from core.validation import finite_array, integer, one_of, positive, positive_int

EPS = 1e-5  # LayerNorm's ε (torch's default)
WEIGHTS = ("W_q", "W_k", "W_v", "W_o", "W_1", "W_2")
PARAM_NAMES = (
    "W_q",
    "b_q",
    "W_k",
    "b_k",
    "W_v",
    "b_v",
    "W_o",
    "b_o",
    "gamma1",
    "beta1",
    "W_1",
    "b_1",
    "W_2",
    "b_2",
    "gamma2",
    "beta2",
)
# the block's tensors in forward order (the gradients view can pick each of them)
TENSOR_NAMES = ("x", "Q", "K", "V", "S", "A", "O", "m", "u", "h", "z", "r", "f", "v", "y")
MAX_D_MODEL, MAX_TOKENS = 64, 64


# ---- parameters ----------------------------------------------------------------------------


def init_params(d_model: int, n_heads: int, d_ff: int, rng: np.random.Generator) -> dict[str, Any]:
    """Learnable arrays of one block, plus ``"n_heads"`` (an int setting, not learned).

    Weights N(0, 1/fan_in) (they keep unit-variance features), biases and β zero, γ one.

    Args:
        d_model: D, the width of a token.
        n_heads: h, must divide D.
        d_ff: F, the width of the feed-forward layer.
        rng: the source of the random weights.

    Returns:
        ``{"W_q": (D, D), "b_q": (D,), …, "W_1": (D, F), "b_1": (F,), "W_2": (F, D),
        "b_2": (D,), "gamma1"/"beta1"/"gamma2"/"beta2": (D,), "n_heads": h}``; weights act as
        ``x @ W`` (the paper's X W^Q).

    >>> p = init_params(8, 2, 16, np.random.default_rng(0))
    >>> p["W_1"].shape, p["n_heads"]
    ((8, 16), 2)
    """
    D = positive_int(d_model, "d_model", MAX_D_MODEL)
    h = positive_int(n_heads, "n_heads", D)
    F = positive_int(d_ff, "d_ff", 4 * MAX_D_MODEL)
    att.check_heads(D, h)
    shapes = {
        "W_q": (D, D),
        "W_k": (D, D),
        "W_v": (D, D),
        "W_o": (D, D),
        "W_1": (D, F),
        "W_2": (F, D),
    }
    params: dict[str, Any] = {}
    for name in PARAM_NAMES:
        if name in shapes:
            fan_in = shapes[name][0]
            params[name] = rng.standard_normal(shapes[name]) / np.sqrt(fan_in)
        else:
            size = F if name == "b_1" else D
            params[name] = np.ones(size) if name.startswith("gamma") else np.zeros(size)
    params["n_heads"] = h
    return params


def learnable(params: dict[str, Any]) -> dict[str, Array]:
    """The float arrays of ``params`` (what a gradient step changes)."""
    return {k: v for k, v in params.items() if isinstance(v, np.ndarray)}


def _check_params(params: dict[str, Any]) -> tuple[int, int]:
    missing = [name for name in PARAM_NAMES if name not in params]
    if missing or "n_heads" not in params:
        raise CoreError(
            "backprop_params",
            "the parameters lack {names}",
            names=", ".join(missing or ["n_heads"]),
        )
    D = np.shape(params["W_q"])[0]
    h = integer(params["n_heads"], "n_heads", 1, D)
    att.check_heads(D, h)
    return D, h


# ---- the pieces ------------------------------------------------------------------------------


def layer_norm_forward(
    u: Array, gamma: Array, beta: Array, eps: float = EPS
) -> tuple[Array, Array, Array]:
    """LayerNorm over the last axis: ``(y, x̂, 1/σ)`` with σ = √(var + ε), var biased.

    >>> y, xhat, inv = layer_norm_forward(np.array([[1.0, 3.0]]), np.ones(2), np.zeros(2))
    >>> xhat.round(4).tolist()
    [[-1.0, 1.0]]
    """
    mu = u.mean(-1, keepdims=True)
    inv_std = 1.0 / np.sqrt(((u - mu) ** 2).mean(-1, keepdims=True) + eps)  # (..., N, 1)
    xhat = (u - mu) * inv_std
    return gamma * xhat + beta, xhat, inv_std


def layer_norm_backward(
    g: Array, xhat: Array, inv_std: Array, gamma: Array
) -> tuple[Array, Array, Array]:
    """Gradients of LayerNorm: ``(∂L/∂u, ∂L/∂γ, ∂L/∂β)`` from g = ∂L/∂y.

    With ĝ = γ ⊙ g, per token (D entries):
        ∂L/∂u = (ĝ − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂)) / σ
    (the mean term comes from μ, the x̂ term from σ); ∂L/∂γ = Σ_tokens g ⊙ x̂, ∂L/∂β = Σ g.
    """
    ghat = g * gamma
    du = (
        ghat - ghat.mean(-1, keepdims=True) - xhat * (ghat * xhat).mean(-1, keepdims=True)
    ) * inv_std
    axes = tuple(range(g.ndim - 1))
    return du, (g * xhat).sum(axes), g.sum(axes)


def softmax_jacobian(a: Array) -> Array:
    """J = diag(a) − a aᵀ of one softmax row a (n,): J_ij = ∂a_i/∂s_j.

    Symmetric, its rows sum to 0 (adding a constant to s changes nothing).

    >>> softmax_jacobian(np.array([0.5, 0.5])).tolist()
    [[0.25, -0.25], [-0.25, 0.25]]
    """
    a = np.asarray(a, dtype=np.float64)
    return np.diag(a) - np.outer(a, a)


def softmax_backward(a: Array, g: Array) -> Array:
    """∂L/∂s from g = ∂L/∂a, row-wise along the last axis: a ⊙ (g − Σ_j g_j a_j) = J g."""
    return a * (g - (g * a).sum(-1, keepdims=True))


def diagonal_only_softmax_backward(a: Array, g: Array) -> Array:
    """The course's rule g ⊙ a ⊙ (1 − a): only the diagonal of J (wrong; shown for contrast)."""
    return g * a * (1.0 - a)


# ---- the block ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BlockCache:
    """What the backward pass needs, and the page shows: every tensor of the forward pass.

    Attributes:
        params: the parameters used.
        x: (..., N, D) input. Q, K, V: (..., h, N, d_k). S: (..., h, N, N) scores Q Kᵀ/√d_k.
        A: (..., h, N, N) attention weights. O: (..., N, D) concatenated heads.
        m: (..., N, D) attention output. u: x + m. h: LN₁(u). z: (..., N, F) pre-ReLU.
        r: ReLU(z). f: (..., N, D) feed-forward output. v: h + f. y: LN₂(v).
        xhat1, inv_std1, xhat2, inv_std2: LayerNorm's normalised inputs and 1/σ.
    """

    params: dict[str, Any]
    x: Array
    Q: Array
    K: Array
    V: Array
    S: Array
    A: Array
    O: Array  # noqa: E741 — the paper's name
    m: Array
    u: Array
    h: Array
    z: Array
    r: Array
    f: Array
    v: Array
    y: Array
    xhat1: Array
    inv_std1: Array
    xhat2: Array
    inv_std2: Array

    def tensor(self, name: str) -> Array:
        """One of ``TENSOR_NAMES`` or ``PARAM_NAMES``."""
        return self.params[name] if name in PARAM_NAMES else getattr(self, name)


def forward_with(
    x: Array, params: dict[str, Any], nudge: dict[str, Array] | None = None
) -> tuple[Array, BlockCache]:
    """:func:`block_forward` that adds ``nudge[name]`` to the tensor ``name`` as it is made.

    Finite differences of an inner tensor (S, A, h, …) perturb it here, mid-way.
    """
    nudge = nudge or {}

    def at(name: str, t: Array) -> Array:
        return t + nudge[name] if name in nudge else t

    p = params
    n_heads = int(p["n_heads"])
    x = at("x", x)
    d_k = x.shape[-1] // n_heads
    Q, K, V = (
        at(n, att.split_heads(x @ p[f"W_{n.lower()}"] + p[f"b_{n.lower()}"], n_heads))
        for n in ("Q", "K", "V")
    )  # (..., h, N, d_k) each
    S = at("S", Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k))  # (..., h, N, N)
    A = at("A", masked_softmax(S))
    O = at("O", att.merge_heads(A @ V))  # noqa: E741  (..., N, D)
    m = at("m", O @ p["W_o"] + p["b_o"])
    u = at("u", x + m)  # residual
    ln1, xhat1, inv1 = layer_norm_forward(u, p["gamma1"], p["beta1"])
    h = at("h", ln1)
    z = at("z", h @ p["W_1"] + p["b_1"])  # (..., N, F)
    r = at("r", np.maximum(z, 0.0))
    f = at("f", r @ p["W_2"] + p["b_2"])
    v = at("v", h + f)  # residual
    ln2, xhat2, inv2 = layer_norm_forward(v, p["gamma2"], p["beta2"])
    y = at("y", ln2)
    cache = BlockCache(p, x, Q, K, V, S, A, O, m, u, h, z, r, f, v, y, xhat1, inv1, xhat2, inv2)
    return y, cache


def block_forward(x: Array, params: dict[str, Any]) -> tuple[Array, BlockCache]:
    """One post-LN encoder block: ``(y, cache)`` for x (N, D) (or (..., N, D) for a batch).

    >>> p = init_params(4, 2, 8, np.random.default_rng(0))
    >>> y, cache = block_forward(np.random.default_rng(1).standard_normal((3, 4)), p)
    >>> y.shape, cache.A.shape
    ((3, 4), (2, 3, 3))
    """
    D, _ = _check_params(params)
    X = finite_array(x, "x", min_ndim=2)
    if X.shape[-1] != D:
        raise CoreError(
            "backprop_width",
            "x has {got} channels, the block expects D = {D}",
            got=X.shape[-1],
            D=D,
        )
    integer(X.shape[-2], "N", 1, MAX_TOKENS)
    return forward_with(X, params)


def all_gradients(dy: Array, cache: BlockCache) -> dict[str, Array]:
    """∂L/∂(every tensor and every parameter) from dy = ∂L/∂y, in reverse order.

    Keys: ``TENSOR_NAMES`` and ``PARAM_NAMES``; each gradient has its tensor's shape.
    """
    c, p = cache, cache.params
    g: dict[str, Array] = {"y": np.asarray(dy, dtype=np.float64)}
    lead = tuple(range(c.x.ndim - 1))  # the axes a parameter's gradient sums over
    d_k = c.Q.shape[-1]
    # y = LN₂(v)
    g["v"], g["gamma2"], g["beta2"] = layer_norm_backward(g["y"], c.xhat2, c.inv_std2, p["gamma2"])
    # v = h + f: the gradient goes to both branches unchanged
    g["f"] = g["v"]
    g["W_2"], g["b_2"] = _flat(c.r).T @ _flat(g["f"]), g["f"].sum(lead)  # (F, D), (D,)
    g["r"] = g["f"] @ p["W_2"].T
    g["z"] = g["r"] * (c.z > 0)  # ReLU passes the gradient where z > 0
    g["W_1"], g["b_1"] = _flat(c.h).T @ _flat(g["z"]), g["z"].sum(lead)
    g["h"] = g["v"] + g["z"] @ p["W_1"].T  # residual split: skip path + feed-forward path
    # h = LN₁(u)
    g["u"], g["gamma1"], g["beta1"] = layer_norm_backward(g["h"], c.xhat1, c.inv_std1, p["gamma1"])
    g["m"] = g["u"]  # u = x + m
    g["W_o"], g["b_o"] = _flat(c.O).T @ _flat(g["m"]), g["m"].sum(lead)
    g["O"] = g["m"] @ p["W_o"].T
    dO = att.split_heads(g["O"], c.Q.shape[-3])  # (..., h, N, d_k)
    g["A"] = dO @ np.swapaxes(c.V, -1, -2)  # (..., h, N, N)
    dV = np.swapaxes(c.A, -1, -2) @ dO  # Aᵀ dO
    g["S"] = softmax_backward(c.A, g["A"])  # (diag(a) − a aᵀ) g, row by row
    dQ = g["S"] @ c.K / np.sqrt(d_k)
    dK = np.swapaxes(g["S"], -1, -2) @ c.Q / np.sqrt(d_k)  # S = Q Kᵀ: both sides
    g["Q"], g["K"], g["V"] = dQ, dK, dV
    g["x"] = g["u"]  # residual: the skip path …
    for name, d in (("q", dQ), ("k", dK), ("v", dV)):
        merged = att.merge_heads(d)  # (..., N, D)
        g[f"W_{name}"], g[f"b_{name}"] = _flat(c.x).T @ _flat(merged), merged.sum(lead)
        g["x"] = g["x"] + merged @ p[f"W_{name}"].T  # … plus the three projections
    return g


def _flat(t: Array) -> Array:
    return t.reshape(-1, t.shape[-1])


def block_backward(dy: Array, cache: BlockCache) -> dict[str, Array]:
    """∂L/∂(every learnable array) and ∂L/∂x, from dy = ∂L/∂y (same shape as y)."""
    dy = finite_array(dy, "dy")
    if dy.shape != cache.y.shape:
        raise CoreError(
            "backprop_dy_shape", "dy must have the shape of y, {shape}", shape=cache.y.shape
        )
    g = all_gradients(dy, cache)
    return {name: g[name] for name in (*PARAM_NAMES, "x")}


# ---- checks: finite differences, relative error ---------------------------------------------


def squared_error_loss(y: Array, target: Array) -> tuple[float, Array]:
    """L = ½‖y − t‖² and its gradient dy = y − t (the loss of the gradients view)."""
    diff = y - target
    return 0.5 * float((diff**2).sum()), diff


def finite_difference_gradient(
    x: Array, params: dict[str, Any], target: Array, name: str, step: float = 1e-5
) -> Array:
    """Central differences (L(θ + he) − L(θ − he)) / 2h for every entry of tensor ``name``.

    ``name`` is a parameter (the parameter is perturbed) or an inner tensor (perturbed
    where the forward pass makes it, see :func:`forward_with`).
    """
    h = positive(step, "step")
    _, cache = forward_with(x, params)
    shape = cache.tensor(name).shape
    grad = np.zeros(shape)

    def loss(delta: Array) -> float:
        if name in PARAM_NAMES:
            nudged = dict(params)
            nudged[name] = params[name] + delta
            y, _ = forward_with(x, nudged)
        else:
            y, _ = forward_with(x, params, {name: delta})
        return squared_error_loss(y, target)[0]

    for index in np.ndindex(shape):
        e = np.zeros(shape)
        e[index] = h
        grad[index] = (loss(e) - loss(-e)) / (2 * h)
    return grad


def max_relative_error(a: Array, b: Array, floor: float = 1e-5) -> float:
    """max over entries of |a − b| / max(|a|, |b|, floor) (cs231n's relative error).

    Entries smaller than ``floor`` are compared absolutely: a gradient that is exactly 0
    (∂L/∂b_k) against finite differences' rounding noise (~10⁻⁹) is not a relative error of 1.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), floor)
    return float((np.abs(a - b) / scale).max())


def example(
    n_tokens: int, d_model: int, n_heads: int, d_ff: int, seed: int
) -> tuple[Array, dict[str, Any], Array]:
    """``(x, params, target)`` of the gradient views: random tokens, a random block whose
    γ, β and biases are random too (so every rule is exercised), a random target."""
    rng = np.random.default_rng(seed)
    params = init_params(d_model, n_heads, d_ff, rng)
    for name in PARAM_NAMES:
        if name.startswith(("b_", "beta")):
            params[name] = 0.1 * rng.standard_normal(params[name].shape)
        elif name.startswith("gamma"):
            params[name] = 1.0 + 0.2 * rng.standard_normal(params[name].shape)
    N = positive_int(n_tokens, "N", MAX_TOKENS)
    x = rng.standard_normal((N, params["W_q"].shape[0]))
    return x, params, rng.standard_normal((N, params["W_q"].shape[0]))


# ---- a tiny training run: reverse or copy a sequence ---------------------------------------

Task = Literal["reverse", "copy"]
TASKS: tuple[str, ...] = ("reverse", "copy")


@dataclass(frozen=True)
class TinyTask:
    """Every sequence of ``length`` symbols from ``vocab``, and its target.

    Attributes:
        tokens: (B, N) int, all vocab^N sequences. targets: (B, N) reversed or copied.
    """

    tokens: IntArray
    targets: IntArray

    @property
    def vocab(self) -> int:
        return int(self.tokens.max()) + 1


def tiny_task(kind: str, length: int, vocab: int) -> TinyTask:
    """All ``vocab ** length`` sequences and their targets (reverse: t_i = s_{N−1−i})."""
    one_of(kind, "task", TASKS)
    N, V = integer(length, "length", 2, 6), integer(vocab, "vocab", 2, 5)
    tokens = np.array(np.meshgrid(*[np.arange(V)] * N, indexing="ij")).reshape(N, -1).T
    targets = tokens[:, ::-1] if kind == "reverse" else tokens
    return TinyTask(tokens.astype(np.int64), np.ascontiguousarray(targets).astype(np.int64))


def init_model(task: TinyTask, d_model: int, n_heads: int, d_ff: int, seed: int) -> dict[str, Any]:
    """The block's parameters plus ``E`` (V, D) token and ``P`` (N, D) position embeddings and
    the read-out ``W_out`` (D, V), ``b_out`` (V,)."""
    rng = np.random.default_rng(seed)
    params = init_params(d_model, n_heads, d_ff, rng)
    V, N, D = task.vocab, task.tokens.shape[1], d_model
    params["E"] = rng.standard_normal((V, D))
    params["P"] = rng.standard_normal((N, D))
    params["W_out"] = rng.standard_normal((D, V)) / np.sqrt(D)
    params["b_out"] = np.zeros(V)
    return params


def model_loss_and_gradients(
    model: dict[str, Any], task: TinyTask
) -> tuple[float, float, dict[str, Array], Array]:
    """Mean cross-entropy over every token of every sequence, by hand.

    x = E[s] + P → block → logits = y W_out + b_out → softmax cross-entropy.
    ∂L/∂logits = (softmax − one-hot) / (B·N); then W_out, the block, E (scatter-add), P.

    Returns:
        ``(loss, accuracy, gradients of every learnable array, attention weights (B, h, N, N))``.
    """
    s, t = task.tokens, task.targets
    B, N = s.shape
    x = model["E"][s] + model["P"]  # (B, N, D)
    y, cache = forward_with(x, model)
    logits = y @ model["W_out"] + model["b_out"]  # (B, N, V)
    probs = masked_softmax(logits)
    shifted = logits - logits.max(-1, keepdims=True)  # log softmax without overflow
    log_probs = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    loss = float(-np.take_along_axis(log_probs, t[..., None], -1).mean())
    accuracy = float((probs.argmax(-1) == t).mean())
    dlogits = probs - (np.arange(probs.shape[-1]) == t[..., None])  # softmax − one-hot
    dlogits /= B * N
    grads = {"W_out": _flat(y).T @ _flat(dlogits), "b_out": dlogits.sum((0, 1))}
    g = all_gradients(dlogits @ model["W_out"].T, cache)
    grads.update({name: g[name] for name in PARAM_NAMES})
    dE = np.zeros_like(model["E"])
    np.add.at(dE, s, g["x"])  # every occurrence of a symbol adds its token's gradient
    grads["E"], grads["P"] = dE, g["x"].sum(0)
    return loss, accuracy, grads, cache.A


@dataclass(frozen=True)
class TrainRun:
    """A training run: ``losses`` (T + 1,), ``accuracies`` (T + 1,) before each step and
    after the last, and ``attention`` (T + 1, h, N, N) of the first-shown sequence."""

    losses: Array
    accuracies: Array
    attention: Array


def train(
    task: TinyTask,
    model: dict[str, Any],
    steps: int,
    lr: float,
    shown: int = 0,
    on_step: Callable[[int], None] | None = None,
) -> TrainRun:
    """Full-batch gradient descent θ ← θ − η ∂L/∂θ, with the hand-written gradients.

    ``model`` is not changed; ``shown`` is the sequence whose attention is recorded.
    """
    T = integer(steps, "steps", 0, 5000)
    eta = positive(lr, "learning rate")
    model = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in model.items()}
    losses, accuracies, maps = [], [], []
    for step in range(T + 1):
        with np.errstate(over="ignore", invalid="ignore"):  # a diverging run is caught below
            loss, acc, grads, A = model_loss_and_gradients(model, task)
        if not np.isfinite(loss):
            raise CoreError(
                "backprop_diverged",
                "the loss blew up at step {step}: take a smaller learning rate than {lr}",
                step=step,
                lr=eta,
            )
        losses.append(loss)
        accuracies.append(acc)
        maps.append(A[shown])
        if step < T:
            for name, grad in grads.items():
                model[name] = model[name] - eta * grad
        if on_step is not None:
            on_step(step)
    return TrainRun(np.array(losses), np.array(accuracies), np.array(maps))
