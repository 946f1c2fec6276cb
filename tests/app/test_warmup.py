"""The server's warm-up (ui/warmup.py) fills the very cache entries the pages read."""

from __future__ import annotations

import threading
from collections import Counter

from streamlit.runtime.caching import get_data_cache_stats_provider

from tests.app.conftest import open_page
from ui import warmup


def cached_bytes() -> Counter:
    """Bytes held per ``st.cache_data`` function (every entry's), in this process."""
    out = Counter()
    for s in get_data_cache_stats_provider().get_stats().get("cache_memory_bytes", []):
        out[s.cache_name.removeprefix("ui.")] += s.byte_length
    return out


def test_the_warm_up_computes_what_the_default_views_then_find_in_the_cache():
    box = {}
    # as on a server: in a thread of its own, outside any script run
    thread = threading.Thread(target=lambda: box.update(warmup.run()))
    thread.start()
    thread.join()
    assert set(box) == {  # none failed
        "reverse_diffusion",
        "simclr",
        "backprop_by_hand",
        "attention_gallery",
        "attention_gallery_compare",
        "forward_diffusion",
        "vision_transformer",
    }
    warm = cached_bytes()
    names = (
        "cache_reverse.exact_run",
        "cache_reverse.learned_run",
        "cache_reverse.exact_quality",
        "cache_reverse.learned_quality",
        "live._memo_wire",  # the reverse scrub's payloads (kit.chart's memo)
        "cache_simclr.default_run",
        "cache_backprop.default_runs",
        "cache_gallery.timing_at",
        "cache_gallery._score",
        "cache_forward.scrub_images",
        "cache_vit.patches",
        "cache_vit.attention",
    )
    assert all(warm[name] > 0 for name in names), warm

    # the default views, and one click of the sampler or the variance, are cache hits: a
    # miss would store one more entry (a key the warm-up got wrong, e.g. 0 where the page has
    # 0.0, or 100 steps where it has 50)
    for query in (
        {"reverse_diffusion_view": "sampling"},
        {"reverse_diffusion_view": "sampling", "reverse_diffusion_sampler": "ddpm"},
        {
            "reverse_diffusion_view": "sampling",
            "reverse_diffusion_sampler": "ddpm",
            "reverse_diffusion_variance": "beta",
        },
        {"reverse_diffusion_view": "sampling", "reverse_diffusion_sampler": "heun"},
        {"reverse_diffusion_view": "sampling", "reverse_diffusion_eta": "0.7"},  # DDIM's η
        {"reverse_diffusion_view": "sampling", "reverse_diffusion_steps": "1000"},  # its steps
        {"reverse_diffusion_view": "sampling", "reverse_diffusion_steps": "1"},
        {"reverse_diffusion_view": "sampling", "reverse_diffusion_eta": "0.3", "lang": "ja"},
        {"reverse_diffusion_view": "quality"},
    ):
        at = open_page("reverse_diffusion.py", query)
        assert not at.exception and not at.error, query
    # the η slider as a browser moves it (three steps of 0.1 add up to 0.30000000000000004)
    at = open_page("reverse_diffusion.py", {"reverse_diffusion_view": "sampling"})
    at.slider(key="reverse_diffusion_eta").set_value(0.1 + 0.1 + 0.1).run()
    assert not at.exception and not at.error
    assert "σ = 0" not in "\n".join(m.value for m in at.markdown)  # η > 0 was sampled
    # the gallery's time view at its default knobs and at other options of PVT's and Swin's
    for query in (
        {},
        {"attention_gallery_ratio": "8"},
        {"attention_gallery_ratio": "1", "attention_gallery_window": "2"},
    ):
        at = open_page("attention_gallery.py", {"attention_gallery_view": "time", **query})
        assert not at.exception and not at.error, query
        assert at.select_slider(key="attention_gallery_ratio").value == int(
            query.get("attention_gallery_ratio", 2)
        )
    # the gallery's compare view at other options of its knobs: one knob of a method with
    # many combinations (BigBird), several of one with few (Reformer, dilated, Swin)
    for query in (
        {"attention_gallery_clusters": "16"},
        {"attention_gallery_clusters": "1", "attention_gallery_buckets": "32"},
        {"attention_gallery_buckets": "2", "attention_gallery_rounds": "4"},
        {"attention_gallery_width": "64", "attention_gallery_dilation": "4"},
        {"attention_gallery_per_row": "0"},
        {"attention_gallery_window": "8", "attention_gallery_shift": "0"},
    ):
        at = open_page("attention_gallery.py", {"attention_gallery_view": "compare", **query})
        assert not at.exception and not at.error, query
    for name in ("sunset", "shapes", "checker", "scene"):  # every sample image's scrub
        for T in (None, "50", "2000"):  # at the default T and at the ends of its stops
            query = {"forward_diffusion_image": name} | ({"forward_diffusion_T": T} if T else {})
            at = open_page("forward_diffusion.py", query)
            assert not at.exception and not at.error, query
    for P in ("4", "8", "16", "32"):  # the Vision Transformer's two views at every P
        for view, key in (("patches", "P"), ("attention", "attention_P")):
            query = {"vision_transformer_view": view, f"vision_transformer_{key}": P}
            at = open_page("vision_transformer.py", query)
            assert not at.exception and not at.error, query
    for page, view in (("simclr.py", "training"), ("backprop_by_hand.py", None)):
        at = open_page(page, {} if view is None else {page.removesuffix(".py") + "_view": view})
        assert not at.exception and not at.error, page
    after = cached_bytes()
    assert {n: after[n] for n in names} == {n: warm[n] for n in names}


def test_it_can_be_switched_off(monkeypatch):
    monkeypatch.setenv(warmup.ENV, "0")
    assert not warmup.enabled()
    monkeypatch.setenv(warmup.ENV, "1")
    assert warmup.enabled()
