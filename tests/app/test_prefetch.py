"""The next stops of a moved control are computed in the background (ui/prefetch.py), into
the very cache entries the next step reads."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from tests.app.conftest import open_page
from tests.app.test_warmup import cached_bytes
from ui import cache_gallery as cg
from ui import cache_reverse as cr
from ui import prefetch

IDLE_SECS = 60


# ---- the worker ----------------------------------------------------------------------------
def test_the_worker_runs_the_newest_first_and_drops_the_oldest_when_full():
    gate, order = threading.Event(), []
    w = prefetch.Worker(max_pending=3)
    w.submit(gate.wait)  # holds the thread while the queue fills
    for i in range(5):
        w.submit(lambda i=i: order.append(i))
    gate.set()
    assert w.wait_idle(IDLE_SECS)
    assert order == [4, 3, 2]  # 0 and 1 dropped out: the student has moved on


def test_a_call_asked_for_again_is_made_once():
    made = []
    w = prefetch.Worker()
    for key in ("a", "b", "a", "a"):
        w.submit(lambda key=key: made.append(key), key)
    assert w.wait_idle(IDLE_SECS)
    w.submit(lambda: made.append("a"), "a")  # made already: a cache hit would copy it again
    assert w.wait_idle(IDLE_SECS)
    assert sorted(made) == ["a", "b"]
    w.forget()
    w.submit(lambda: made.append("a"), "a")
    assert w.wait_idle(IDLE_SECS)
    assert sorted(made) == ["a", "a", "b"]
    for _ in range(2):  # a key that cannot be remembered: made every time, no error
        w.submit(lambda: made.append("c"), ("c", [1]))
        assert w.wait_idle(IDLE_SECS)
    assert made.count("c") == 2


def test_a_failing_call_does_not_stop_the_worker():
    done = []
    w = prefetch.Worker()
    w.submit(lambda: done.append("after"))
    w.submit(lambda: 1 / 0)
    assert w.wait_idle(IDLE_SECS)
    w.submit(lambda: done.append("later"))
    assert w.wait_idle(IDLE_SECS)
    assert done == ["after", "later"]


def test_no_call_starts_while_a_page_runs():
    done = []
    w = prefetch.Worker()
    with w.foreground(), w.foreground():  # two sessions' runs
        w.submit(lambda: done.append(1))
        assert not w.wait_idle(0.2)
    assert w.wait_idle(IDLE_SECS)
    assert done == [1]


def test_switched_off_it_computes_nothing(monkeypatch):
    monkeypatch.setenv(prefetch.ENV, "0")
    made = []
    prefetch.worker().forget()
    prefetch.ahead(made.append, [(1,), (2,)])
    assert prefetch.worker().wait_idle(IDLE_SECS)
    assert made == []
    monkeypatch.setenv(prefetch.ENV, "1")
    prefetch.ahead(made.append, [(1,), (2,)])
    assert prefetch.worker().wait_idle(IDLE_SECS)
    assert made == [2, 1]


# ---- which stops ---------------------------------------------------------------------------
@given(hs.lists(hs.integers(), min_size=1, unique=True), hs.data())
def test_next_stops_are_the_neighbours_the_way_ahead_last(options, data):
    i = data.draw(hs.integers(0, len(options) - 1))
    j = data.draw(hs.integers(0, len(options) - 1))
    got = prefetch.next_stops(options, options[i], options[j])
    assert set(got) == {options[k] for k in (i - 1, i + 1) if 0 <= k < len(options)}
    if len(got) == 2:  # moving on in the direction it came from runs first (it is last)
        assert got[-1] == (options[i - 1] if j > i else options[i + 1])
    assert prefetch.next_stops(options, object()) == []  # a value off the stops: no guess


# ---- the pages ----------------------------------------------------------------------------
def step(at, key, value):
    """Set a control, run the page, and wait until its guesses are made."""
    [w] = [w for w in (*at.slider, *at.select_slider, *at.number_input) if w.key == key]
    w.set_value(value).run()
    assert not at.exception and not at.error
    assert prefetch.worker().wait_idle(IDLE_SECS)


def test_the_next_seed_and_mixture_of_the_quality_view_are_cache_hits(monkeypatch):
    cr.exact_quality.clear()  # this test's steps must not find entries other tests left
    prefetch.worker().forget()
    monkeypatch.setenv(prefetch.ENV, "1")
    at = open_page("reverse_diffusion.py", {"reverse_diffusion_view": "quality"})
    steps = (
        ("reverse_diffusion_seed", 1, 2),  # off the shipped table (seed 0 only)
        ("reverse_diffusion_components", 5, 6),
    )
    next_steps_hit(
        monkeypatch, at, "cache_reverse.exact_quality", steps, ("reverse_diffusion_seed", 7)
    )


def next_steps_hit(monkeypatch, at, name: str, steps, miss: tuple) -> None:
    """For each (control, first, then) of ``steps``: a step to ``first`` with guesses on, then
    one to ``then`` (a neighbour) with them off stores nothing new in cache ``name``: its
    entry was made while the student looked. ``miss``, a step to a value no guess reached,
    does store (the test can fail)."""
    for key, first, then in steps:
        monkeypatch.setenv(prefetch.ENV, "1")
        step(at, key, first)
        before = cached_bytes()[name]
        monkeypatch.setenv(prefetch.ENV, "0")  # this step computes whatever it does not find
        step(at, key, then)  # computed while the student looked
        assert cached_bytes()[name] == before, key
    step(at, *miss)
    assert cached_bytes()[name] > before


@pytest.mark.parametrize("view", ["compare", "maps"])
def test_the_next_sharpness_of_the_gallery_is_a_cache_hit(monkeypatch, view):
    monkeypatch.setenv(prefetch.ENV, "1")
    for fn in (cg.shared_input, cg._full, cg._score, cg.limits, cg.method_rows):
        fn.clear()
    prefetch.worker().forget()
    at = open_page("attention_gallery.py", {"attention_gallery_view": view})
    step(at, "attention_gallery_sharpness", 3.0)
    before = cached_bytes()
    monkeypatch.setenv(prefetch.ENV, "0")
    step(at, "attention_gallery_sharpness", 4.0)
    names = [n for n in before if n.startswith("cache_gallery.")]
    assert {n: cached_bytes()[n] for n in names} == {n: before[n] for n in names}
    step(at, "attention_gallery_sharpness", 0.5)  # the test can fail: a miss stores
    assert cached_bytes()["cache_gallery._full"] > before["cache_gallery._full"]


def test_the_next_seed_and_overconfidence_of_the_calibration_view_are_cache_hits(monkeypatch):
    """A new seed or over-confidence fits T again (20-60 ms): the next stops are fitted while
    the student looks, into the entries the next step reads."""
    from ui import cache

    cache.calibration_case.clear()
    prefetch.worker().forget()
    monkeypatch.setenv(prefetch.ENV, "1")
    at = open_page("softmax.py", {"softmax_view": "calibration"})
    steps = (("softmax_seed", 1, 2), ("softmax_overconf", 2.75, 3.0))
    next_steps_hit(monkeypatch, at, "cache.calibration_case", steps, ("softmax_seed", 9))
