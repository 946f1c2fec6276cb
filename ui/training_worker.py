"""Train denoisers in a separate process, so a training never holds the server's GIL.

A training step is a few torch kernels (which release the GIL) and a fair amount of Python
(autograd bookkeeping, Adam's loop over parameters) that holds it. Run in the server process,
a 5-second training slowed another thread's Python-heavy 6 ms task to 9 ms at the median and
its p95 by 1.65× (measured on the 2-core machine). In a child process it competes only for
a CPU core, and the server of a classroom is bound by its GIL, i.e. about one core.

:class:`TrainingWorker` (one per server process, from ``ui.cache_reverse``) starts the child
on first use ("spawn": a clean interpreter that imports only ``core.denoiser`` and torch)
and runs one training at a time; a second caller waits its turn. The child runs at a lower
CPU priority (``os.nice``), with one torch thread, and exits when the server goes away.

Messages, child → parent: ``("progress", steps_done, losses_so_far)``, then
``("done", arrays)`` (``core.denoiser.save_weights``) or ``("error", text)``.
This module does not import streamlit: the child imports it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
import types
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from core.denoiser import Trained, TrainSpec

NICENESS = 10  # the child yields a core to the server's threads when both are busy


def serve(conn: Connection) -> None:
    """The child's loop: train each spec it receives, reporting progress, until EOF."""
    import torch

    from core import denoiser as dn

    torch.set_num_threads(1)
    with contextlib.suppress(OSError):  # not allowed here: train at normal priority
        os.nice(NICENESS)
    while True:
        try:
            spec = conn.recv()
        except (EOFError, OSError):
            return

        def report(done: int, losses: np.ndarray) -> None:
            conn.send(("progress", done, np.asarray(losses, dtype=np.float32)))

        try:
            trained = dn.train_spec(spec, on_progress=report)
            conn.send(("done", dn.save_weights(trained, spec)))
        except Exception as err:  # noqa: BLE001 — the parent shows it; the child stays up
            conn.send(("error", f"{type(err).__name__}: {err}"))


class TrainingWorker:
    """A child process that trains one :class:`core.denoiser.TrainSpec` at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: Any = None
        self._conn: Connection | None = None

    def _start(self) -> Connection:
        if self._process is not None and self._process.is_alive() and self._conn is not None:
            return self._conn
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        self._process = ctx.Process(
            target=serve, args=(child,), daemon=True, name="denoiser-training"
        )
        # "spawn" re-runs the parent's __main__ file in the child unless __main__ has none;
        # Streamlit puts the app script there (and AppTest too), which must not run twice
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            self._process.start()
        finally:
            if main is not None:
                sys.modules["__main__"] = main
        child.close()
        self._conn = parent
        return parent

    def _stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join(timeout=5)
        self._process, self._conn = None, None

    def train(
        self,
        spec: TrainSpec,
        on_progress: Callable[[int, np.ndarray], None] | None = None,
        on_wait: Callable[[], None] | None = None,
        on_result: Callable[[Trained], Trained] | None = None,
        lookup: Callable[[], Trained | None] | None = None,
    ) -> Trained:
        """Train ``spec`` in the child and return the result (passed through ``on_result``).

        Args:
            on_progress: ``(steps done, losses so far)`` as the child reports them. If it
                raises (Streamlit stops a script that way when the student changes a
                control), the training still runs to its end, ``on_result`` still gets it
                (a cache keeps it for the rerun), and the exception is raised again.
            on_wait: called once if another training must finish first.
            on_result: called with the result before it is returned (or the interruption
                re-raised); returns what :meth:`train` returns.
            lookup: asked once this caller's turn has come: a result found there (trained
                by the caller before in the queue) is returned without training again.
        """
        from core import denoiser as dn

        if not self._lock.acquire(blocking=False):
            if on_wait is not None:
                on_wait()
            self._lock.acquire()
        interrupted: BaseException | None = None
        try:
            found = lookup() if lookup is not None else None
            if found is not None:
                return found
            conn = self._start()
            try:
                conn.send(spec)
                while True:
                    message = conn.recv()
                    if message[0] == "progress":
                        if on_progress is not None and interrupted is None:
                            try:
                                on_progress(message[1], np.asarray(message[2], dtype=float))
                            except BaseException as err:  # noqa: BLE001 — re-raised below
                                interrupted = err
                    elif message[0] == "done":
                        result = dn.read_weights(message[1], spec)
                        break
                    else:
                        raise RuntimeError(f"training failed: {message[1]}")
            except (EOFError, OSError) as err:
                self._stop()
                raise RuntimeError("the training process stopped; try again") from err
        finally:
            self._lock.release()
        if on_result is not None:
            result = on_result(result)
        if interrupted is not None:
            raise interrupted
        return result

    def close(self) -> None:
        """Stop the child (tests; the server's child ends with the server)."""
        with self._lock:
            self._stop()
