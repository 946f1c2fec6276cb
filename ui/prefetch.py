"""The next stops of the control a student is moving, computed while they look (issue 21).

A student moves one control at a time, one stop at a time, and reads the result before the
next step. Where a step that picks a value not seen before must compute for a while (the
reverse-diffusion quality curves: 0.25 s; the attention gallery's methods on a new input:
50–70 ms), the page names the calls that the moved control's neighbouring stops would make
(:func:`next_settings`, :func:`ahead`). One daemon thread per server process makes those
calls, into the same bounded ``st.cache_data`` caches the page reads, so the next step is a
cache hit. A step that arrives while its call is still running waits for that call instead
of computing it again: ``st.cache_data`` computes a key once, under a per-key lock.

Bounded and second in line: the queue keeps the ``MAX_PENDING`` newest calls and drops older
ones (the student has moved on); the thread makes one call at a time, newest first, never
the same call twice, and starts one only while no page is running (:func:`foreground`,
around every page run and live part in ``ui.kit``). So the guesses fill the gaps while
students read; a class moving sliders together leaves few gaps (``bench.load``: no change
in rerun times, ``bench/controls_report.md``, round 8).

Used only where the benchmark shows a gain: where the step's chart is large, the browser's
drawing dominates the step, and on one machine a guess competes with it (round 8).
``ADLAB_PREFETCH=0`` switches it off (the tests do, so their caches stay their own; a test
turns it back on).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import streamlit as st
from streamlit.logger import get_logger

ENV = "ADLAB_PREFETCH"
MAX_PENDING = 8
MAX_MADE = 256  # calls remembered as made: a guess already made is not made again
LOG = get_logger("adlab.prefetch")
T = TypeVar("T")


def enabled() -> bool:
    return os.environ.get(ENV, "1") != "0"


class Worker:
    """One thread making queued calls, newest first, each while no script is in the
    foreground; a failing call is logged and dropped (the page makes it again, and shows its
    error itself, if the student picks that value).

    A call with a ``key`` already submitted (among the last ``MAX_MADE``) is not queued
    again: a cache hit still costs a copy of the result (``st.cache_data`` unpickles it), and
    a class on one page would otherwise ask for the same neighbours over and over.
    """

    def __init__(self, max_pending: int = MAX_PENDING) -> None:
        self._jobs: collections.deque[Callable[[], Any]] = collections.deque(maxlen=max_pending)
        self._made: collections.OrderedDict[Any, None] = collections.OrderedDict()
        self._ready = threading.Condition()
        self._busy = False
        self._scripts = 0  # page runs in flight
        self._thread = threading.Thread(target=self._loop, name="adlab-prefetch", daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[], Any], key: Any = None) -> None:
        """Queue ``job`` to run before every job queued earlier (the oldest drops out when
        full), unless a job with the same ``key`` was submitted before (an unhashable key
        counts as none)."""
        if key is not None and _unhashable(key):
            key = None
        with self._ready:
            if key is not None:
                if key in self._made:
                    self._made.move_to_end(key)
                    return
                self._made[key] = None
                if len(self._made) > MAX_MADE:
                    self._made.popitem(last=False)
            self._jobs.append(job)
            self._ready.notify()

    def forget(self) -> None:
        """Forget which calls were made (after their caches were cleared)."""
        with self._ready:
            self._made.clear()

    @contextlib.contextmanager
    def foreground(self) -> Iterator[None]:
        """A page run: no call starts until it (and every other one) has finished."""
        with self._ready:
            self._scripts += 1
        try:
            yield
        finally:
            with self._ready:
                self._scripts -= 1
                self._ready.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until nothing is queued or running; ``False`` if ``timeout`` seconds ran out."""
        with self._ready:
            return self._ready.wait_for(lambda: not self._jobs and not self._busy, timeout)

    def _loop(self) -> None:
        while True:
            with self._ready:
                self._ready.wait_for(lambda: bool(self._jobs) and not self._scripts)
                job, self._busy = self._jobs.pop(), True
            try:
                job()
            except Exception:  # noqa: BLE001 (a guess that failed costs nothing)
                LOG.warning("adlab prefetch: %r failed", job, exc_info=True)
            finally:
                with self._ready:
                    self._busy = False
                    self._ready.notify_all()


def _unhashable(key: Any) -> bool:
    try:
        hash(key)
    except TypeError:  # a tuple holding a list or an array
        return True
    return False


@functools.cache
def worker() -> Worker:
    """The server's prefetch thread (started on first use)."""
    return Worker()


def foreground() -> contextlib.AbstractContextManager[None]:
    """Around a page run and a live part (``ui.kit``): guesses wait until no page runs."""
    return worker().foreground()


def ahead(fn: Callable[..., Any], calls: Sequence[tuple[Any, ...]]) -> None:
    """Make ``fn(*args)`` for each ``args`` of ``calls`` in the background, the last first,
    unless it was asked for before (with unhashable ``args``, it is made every time)."""
    if not enabled():
        return
    for args in calls:
        worker().submit(functools.partial(fn, *args), (fn, *args))


def moved(scope: str, **values: Any) -> dict[str, Any]:
    """The controls among ``values`` whose value changed since this session's last call with
    ``scope``, each with its value then (``{}`` on the first call)."""
    key = f"_prefetch_{scope}"
    before = st.session_state.get(key, {})
    st.session_state[key] = values
    return {k: before[k] for k, v in values.items() if k in before and before[k] != v}


def next_settings(scope: str, stops: dict[str, tuple[Sequence[Any], Any]]) -> list[dict[str, Any]]:
    """The settings one step away along every control that moved since this session's last
    call with ``scope`` (:func:`moved`): ``stops`` maps each control to its options and value;
    each result is every control's value, with one of them at a neighbouring stop. In the
    order to pass to :func:`ahead`: the likeliest next step last."""
    now = {name: value for name, (_, value) in stops.items()}
    return [
        now | {name: v}
        for name, before in moved(scope, **now).items()
        for v in next_stops(stops[name][0], now[name], before)
    ]


def next_stops(options: Sequence[T], value: T, before: T | None = None) -> list[T]:
    """The stops either side of ``value`` in ``options``; the one the control would reach by
    moving on in the direction it came from (``before`` → ``value``) is last, so it runs first."""
    if value not in options:
        return []
    i = options.index(value)
    out = [options[j] for j in (i - 1, i + 1) if 0 <= j < len(options)]
    if before is not None and before in options and options.index(before) > i:
        out.reverse()  # moving down: the lower stop goes last
    return out
