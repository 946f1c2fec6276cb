"""The torch twin of ``core.backprop``: the same block in torch (float64), gradients by autograd.

Two twins, both oracles for the hand-written backward pass:

- :func:`encoder_layer` copies the numpy parameters into torch's own
  ``nn.TransformerEncoderLayer(norm_first=False, dropout=0, activation="relu")``, the post-LN
  block of Vaswani et al. 2017; :func:`layer_gradients` differentiates it.
- :func:`autograd_gradients` writes the block with torch functions step by step and keeps the
  gradient of every inner tensor (``retain_grad``), so S, A, h, … can be checked too; a test
  checks that it equals the layer.

torch is imported when this module is (pages import it lazily, inside a cached function).
Shape legend as in ``core.backprop``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from core import backprop as bp
from core.arrays import Array

DTYPE = torch.float64


def _t(a: Array) -> torch.Tensor:
    return torch.tensor(np.asarray(a), dtype=DTYPE)


def encoder_layer(params: dict[str, Any]) -> nn.TransformerEncoderLayer:
    """torch's ``nn.TransformerEncoderLayer`` (float64, batch first) with our weights.

    torch stores ``Linear`` weights as (out, in) and applies ``x Wᵀ``: ours are their
    transposes; ``in_proj_weight`` stacks W_qᵀ, W_kᵀ, W_vᵀ.
    """
    D, F_ = params["W_1"].shape
    layer = nn.TransformerEncoderLayer(
        D,
        int(params["n_heads"]),
        F_,
        dropout=0.0,
        activation="relu",
        layer_norm_eps=bp.EPS,
        batch_first=True,
        norm_first=False,
        dtype=DTYPE,
    )
    p = params
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(
            _t(np.concatenate([p["W_q"].T, p["W_k"].T, p["W_v"].T]))
        )
        layer.self_attn.in_proj_bias.copy_(_t(np.concatenate([p["b_q"], p["b_k"], p["b_v"]])))
        layer.self_attn.out_proj.weight.copy_(_t(p["W_o"].T))
        layer.self_attn.out_proj.bias.copy_(_t(p["b_o"]))
        layer.linear1.weight.copy_(_t(p["W_1"].T))
        layer.linear1.bias.copy_(_t(p["b_1"]))
        layer.linear2.weight.copy_(_t(p["W_2"].T))
        layer.linear2.bias.copy_(_t(p["b_2"]))
        for k in (1, 2):
            getattr(layer, f"norm{k}").weight.copy_(_t(p[f"gamma{k}"]))
            getattr(layer, f"norm{k}").bias.copy_(_t(p[f"beta{k}"]))
    return layer


def _layer_grads(layer: nn.TransformerEncoderLayer, D: int) -> dict[str, Array]:
    """The layer's parameter gradients under our names and layout."""
    sa = layer.self_attn
    w, b = sa.in_proj_weight.grad.numpy(), sa.in_proj_bias.grad.numpy()
    g = {
        "W_q": w[:D].T,
        "W_k": w[D : 2 * D].T,
        "W_v": w[2 * D :].T,
        "b_q": b[:D],
        "b_k": b[D : 2 * D],
        "b_v": b[2 * D :],
        "W_o": sa.out_proj.weight.grad.numpy().T,
        "b_o": sa.out_proj.bias.grad.numpy(),
        "W_1": layer.linear1.weight.grad.numpy().T,
        "b_1": layer.linear1.bias.grad.numpy(),
        "W_2": layer.linear2.weight.grad.numpy().T,
        "b_2": layer.linear2.bias.grad.numpy(),
    }
    for k in (1, 2):
        g[f"gamma{k}"] = getattr(layer, f"norm{k}").weight.grad.numpy()
        g[f"beta{k}"] = getattr(layer, f"norm{k}").bias.grad.numpy()
    return {k: np.array(v) for k, v in g.items()}


def layer_gradients(x: Array, params: dict[str, Any], dy: Array) -> tuple[Array, dict[str, Array]]:
    """``(y, grads)`` of ``nn.TransformerEncoderLayer``: autograd of Σ dy ⊙ y, i.e. the
    vector–Jacobian product the hand-written backward computes; keys ``PARAM_NAMES`` + "x"."""
    layer = encoder_layer(params)
    xt = _t(x).requires_grad_(True)
    y = layer(xt[None])[0] if xt.ndim == 2 else layer(xt)
    y.backward(_t(dy))
    grads = _layer_grads(layer, params["W_q"].shape[0])
    grads["x"] = xt.grad.numpy().copy()
    return y.detach().numpy(), grads


def autograd_gradients(
    x: Array, params: dict[str, Any], dy: Array
) -> tuple[Array, dict[str, Array]]:
    """``(y, grads)`` of the block written with torch functions; grads of every tensor of
    ``TENSOR_NAMES`` and every parameter of ``PARAM_NAMES`` (autograd of Σ dy ⊙ y)."""
    p = {k: _t(v).requires_grad_(True) for k, v in params.items() if isinstance(v, np.ndarray)}
    h_ = int(params["n_heads"])
    keep: dict[str, torch.Tensor] = {}

    def kept(name: str, t: torch.Tensor) -> torch.Tensor:
        t.retain_grad()
        keep[name] = t
        return t

    x_t = kept("x", _t(x).requires_grad_(True))
    *lead, N, D = x_t.shape
    d_k = D // h_

    def heads(t: torch.Tensor) -> torch.Tensor:  # (..., N, D) -> (..., h, N, d_k)
        return t.reshape(*lead, N, h_, d_k).transpose(-3, -2)

    Q = kept("Q", heads(x_t @ p["W_q"] + p["b_q"]))
    K = kept("K", heads(x_t @ p["W_k"] + p["b_k"]))
    V = kept("V", heads(x_t @ p["W_v"] + p["b_v"]))
    S = kept("S", Q @ K.transpose(-1, -2) / d_k**0.5)
    A = kept("A", torch.softmax(S, -1))
    O = kept("O", (A @ V).transpose(-3, -2).reshape(*lead, N, D))  # noqa: E741
    m = kept("m", O @ p["W_o"] + p["b_o"])
    u = kept("u", x_t + m)
    h = kept("h", F.layer_norm(u, (D,), p["gamma1"], p["beta1"], bp.EPS))
    z = kept("z", h @ p["W_1"] + p["b_1"])
    r = kept("r", torch.relu(z))
    f = kept("f", r @ p["W_2"] + p["b_2"])
    v = kept("v", h + f)
    y = kept("y", F.layer_norm(v, (D,), p["gamma2"], p["beta2"], bp.EPS))
    y.backward(_t(dy))
    grads = {name: t.grad.numpy().copy() for name, t in keep.items()}
    grads.update({name: t.grad.numpy().copy() for name, t in p.items()})
    return y.detach().numpy(), grads


def train(
    task: bp.TinyTask,
    model: dict[str, Any],
    steps: int,
    lr: float,
    shown: int = 0,
    on_step: Callable[[int], None] | None = None,
) -> bp.TrainRun:
    """:func:`core.backprop.train` with torch: ``nn.TransformerEncoderLayer``, autograd,
    ``F.cross_entropy`` and ``torch.optim.SGD`` from the same initial numbers."""
    layer = encoder_layer(model)
    E, P = (nn.Parameter(_t(model[k])) for k in ("E", "P"))
    readout = nn.Linear(*model["W_out"].shape, dtype=DTYPE)
    with torch.no_grad():
        readout.weight.copy_(_t(model["W_out"].T))
        readout.bias.copy_(_t(model["b_out"]))
    opt = torch.optim.SGD([*layer.parameters(), E, P, *readout.parameters()], lr=float(lr))
    s, t = torch.from_numpy(task.tokens), torch.from_numpy(task.targets)
    maps = []

    def watch(module: nn.Module, args: tuple, output: tuple) -> None:
        maps.append(output[1][shown].detach().numpy().copy())  # (h, N, N) of one sequence

    # the layer asks its attention for no weights; ask for them, per head, without changing y
    attn_forward = layer.self_attn.forward

    def with_weights(*args: Any, **kwargs: Any) -> Any:
        kwargs.update(need_weights=True, average_attn_weights=False)
        return attn_forward(*args, **kwargs)

    layer.self_attn.forward = with_weights  # type: ignore[method-assign]
    hook = layer.self_attn.register_forward_hook(watch)
    losses, accuracies = [], []
    for step in range(int(steps) + 1):
        opt.zero_grad()
        logits = readout(layer(E[s] + P))  # (B, N, V)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), t.reshape(-1))
        losses.append(float(loss.detach()))
        accuracies.append(float((logits.argmax(-1) == t).double().mean()))
        if step < steps:
            loss.backward()
            opt.step()
        if on_step is not None:
            on_step(step)
    hook.remove()
    return bp.TrainRun(np.array(losses), np.array(accuracies), np.array(maps))
