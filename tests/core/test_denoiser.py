"""core.denoiser: seeding, shapes, a save/read round trip, training that learns the exact ε*
of a Gaussian (the closed form is the oracle) for every target, and the shipped weights
reproduced by their script."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from core import denoiser as dn
from core import diffusion as dif
from core import reverse as rv

ROOT = Path(__file__).resolve().parents[2]
SMALL = dn.TrainSettings(
    steps=600, batch=256, learning_rate=3e-3, hidden=48, depth=2, n_frequencies=8
)


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_a_generator_seeds_every_weight_and_leaves_the_global_rng_alone():
    state = torch.random.get_rng_state()
    a = dn.Denoiser(generator=torch.Generator().manual_seed(1))
    b = dn.Denoiser(generator=torch.Generator().manual_seed(1))
    c = dn.Denoiser(generator=torch.Generator().manual_seed(2))
    assert torch.equal(torch.random.get_rng_state(), state)
    for (name, p), q, r in zip(
        a.state_dict().items(), b.state_dict().values(), c.state_dict().values(), strict=True
    ):
        assert torch.equal(p, q) and not torch.equal(p, r), name


@given(st.integers(1, 6), st.integers(1, 4), st.integers(1, 3))
def test_forward_maps_a_batch_to_the_data_shape(B, d, depth):
    model = dn.Denoiser(d, 16, depth, 4, generator=torch.Generator().manual_seed(0))
    out = model(torch.randn(B, d), torch.rand(B))
    assert out.shape == (B, d) and torch.all(torch.isfinite(out))


def test_time_features_are_points_on_unit_circles():
    f = dn.time_features(torch.linspace(0, 1, 11), 8)
    assert f.shape == (11, 16)
    assert torch.allclose(f[:, :8] ** 2 + f[:, 8:] ** 2, torch.ones(11, 8))
    assert torch.allclose(f[0], torch.cat([torch.zeros(8), torch.ones(8)]))  # t = 0


def test_saved_weights_read_back_to_the_same_network():
    s = dif.make_schedule("linear", 100)
    trained = dn.train_denoiser(
        np.zeros((10, 2)), s, "v", 3, dn.TrainSettings(steps=3, hidden=8, depth=1, n_frequencies=2)
    )
    spec = dn.TrainSpec(num_steps=100, prediction="v", seed=3)
    back = dn.read_weights(dn.save_weights(trained, spec), spec)
    assert back.prediction == "v" and back.num_steps == 100 and back.settings == trained.settings
    assert np.allclose(back.losses, trained.losses, rtol=1e-6)
    x = np.random.default_rng(0).standard_normal((4, 2))
    assert np.array_equal(dn.eps_model(back, s)(x, 50), dn.eps_model(trained, s)(x, 50))
    with pytest.raises(ValueError, match="trained on"):
        dn.read_weights(dn.save_weights(trained, spec), dn.TrainSpec())


def test_progress_is_reported_with_the_losses_so_far():
    seen = []
    dn.train_denoiser(
        np.zeros((10, 2)),
        dif.make_schedule("linear", 10),
        "eps",
        0,
        dn.TrainSettings(steps=25, hidden=8, depth=1, n_frequencies=2),
        on_progress=lambda k, losses: seen.append((k, len(losses))),
        progress_every=10,
    )
    assert seen == [(10, 10), (20, 20), (25, 25)]


@pytest.mark.parametrize("prediction", dn.TRAINABLE)
def test_training_learns_the_exact_eps_of_a_gaussian(prediction):
    """Oracle: for x_0 ~ N(μ, σ²I), E[ε | x_t] = √(1−ᾱ)(x_t − √ᾱ μ)/(ᾱσ² + 1 − ᾱ). After
    training, ε̂ (converted from ε, x_0 or v) is far closer to it than before training."""
    s = dif.make_schedule("cosine", 100)
    mu, sigma = np.array([0.8, -0.5]), 0.3
    data = mu + sigma * np.random.default_rng(0).standard_normal((2000, 2))
    trained = dn.train_denoiser(data, s, prediction, 0, SMALL)
    untrained = dn.train_denoiser(
        data,
        s,
        prediction,
        0,
        dn.TrainSettings(steps=1, learning_rate=1e-12, hidden=48, depth=2, n_frequencies=8),
    )
    x = np.random.default_rng(1).standard_normal((500, 2))
    errors = []
    for model in (trained, untrained):
        eps_hat = dn.eps_model(model, s)
        errors.append(
            np.mean(
                [
                    np.abs(eps_hat(x, t) - rv.gmm_eps(x, t, s, mu[None], [sigma], [1])).mean()
                    for t in (30, 50, 70)
                ]
            )
        )
    assert errors[0] < 0.08 and errors[0] < errors[1] / 5
    assert trained.losses[-100:].mean() < trained.losses[:20].mean()


def test_the_same_seed_trains_the_same_weights():
    s = dif.make_schedule("linear", 50)
    data = np.random.default_rng(0).standard_normal((100, 2))
    settings = dn.TrainSettings(steps=20, hidden=8, depth=1, n_frequencies=2)
    a, b, c = (dn.train_denoiser(data, s, "eps", seed, settings) for seed in (4, 4, 5))
    assert all(np.array_equal(a.weights[k], b.weights[k]) for k in a.weights)
    assert not np.array_equal(a.weights["out.weight"], c.weights["out.weight"])


def test_the_shipped_default_weights_are_what_their_script_makes():
    """assets/models/make_reverse_weights.py, run again (≈ 5-10 s), reproduces the file."""
    path = ROOT / "assets" / "models" / "make_reverse_weights.py"
    module_spec = importlib.util.spec_from_file_location("make_reverse_weights", path)
    script = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(script)
    shipped = dict(np.load(script.OUTPUT))
    assert script.OUTPUT.stat().st_size < 300_000
    made = script.make()
    assert shipped.keys() == made.keys()
    for key, value in made.items():
        if value.dtype.kind in "fc":
            assert np.allclose(shipped[key], value, rtol=0, atol=1e-5), key
        else:
            assert np.array_equal(shipped[key], value), key
    trained = dn.read_weights(shipped, dn.TrainSpec())
    assert math.isclose(
        float(trained.losses[-200:].mean()), float(made["meta.losses"][-200:].mean()), rel_tol=1e-4
    )
