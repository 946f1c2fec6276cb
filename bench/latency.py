"""Keypress on a slider → chart redrawn, for every page, against a bare one-slider app.

Run from the project root::

    python -m bench.latency [--steps N] [--pages softmax,...] [--out bench/results/latency.json]

Two servers run for the whole run: ``bench/bare_app.py`` with default settings (cwd = an empty
temp folder, so the project's ``.streamlit/config.toml`` does not apply) and ``app.py`` (cwd =
the project root). One headless Chromium opens each target in its own browser context, focuses
the probe slider (``ui.registry`` ``Concept.probe``) and presses ArrowRight/ArrowLeft, bouncing
at the ends so the value always changes.

A step's latency is measured on the page clock: the ``keydown`` event's timestamp → the
animation frame after the first DOM mutation after which the chart's ``.js-plotly-plot``
content differs from its snapshot taken just before the keypress (see
``bench/_latency_js.py``): the frame that shows the change. The step ends once the chart has been
quiet for ``QUIET_MS`` and Streamlit shows no running status; its payload is the sum of the
websocket frames the server sent in that span. Any frontend debounce of the slider is part of
the latency, identically in both apps.

Before any step, the app is opened once and the run waits for its server's warm-up
(``ui/warmup.py``, about 13 s of one core after the first page view) to finish: steps measured
meanwhile would share the machine's cores with it, and only the first pages measured would.
Then, after the warm-up steps, steps run in blocks, alternating targets (bare, page, ...,
then the reverse order) so machine drift hits every target alike. Budgets: page p95 / bare
p95 ≤ 1.0 and payload p95 ≤ 200 KB (KB = 1024 bytes) per step.

Exit codes: 0 ok, 1 any failed step (no redraw within the timeout, exception shown, slider did
not move) or setup failure, 2 over budget (0 with ``--no-fail-budget``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, WebSocket, sync_playwright
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from bench._latency_js import INSTALL_JS, SEND_HOOK_JS
from bench.server import CHROMIUM_FLAGS, ROOT, chromium_path, streamlit_server
from ui import warmup
from ui.registry import CONCEPTS, Concept

BARE_APP = ROOT / "bench" / "bare_app.py"
APP = ROOT / "app.py"
BARE_PROBE = ("bare_slider", "bare_chart")
BARE_NAME = "bare"
AA_NAME = "bare (A/A)"

DEFAULT_STEPS = 30
DEFAULT_WARMUP = 3
DEFAULT_BLOCK = 5
STEP_TIMEOUT_MS = 10_000
LOAD_TIMEOUT_MS = 60_000
QUIET_MS = 300
POLL_MS = 20
BUDGET_RATIO = 1.0
BUDGET_PAYLOAD_KB = 200.0
KB = 1024
APP_LOG = "latency-app.log"  # the app server's log, beside the results JSON
WARMUP_DONE = "adlab warm-up: done"  # ui/warmup.py's last line
WARMUP_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class Target:
    """A page to measure: its URL, the key of the control to press and what to watch.

    ``chart_key`` is a chart's key, or ``#i`` for the i-th element of the main area compared by
    its text (a control that redraws a formula or table, no chart). ``kind`` is ``slider`` (also
    a select-slider), ``live`` (a ``ui.live`` control: redrawn in the browser, its value sent
    once it settles), ``radio`` or ``number``: which arrow keys step it.
    """

    name: str
    url: str
    slider_key: str
    chart_key: str
    kind: str = "slider"


# the keys that step each kind of control forward and back (a radio group wraps at its ends)
KEYS = {
    "slider": ("ArrowRight", "ArrowLeft"),
    "live": ("ArrowRight", "ArrowLeft"),  # ui/live.py: a range input redrawn in the browser
    "radio": ("ArrowDown", "ArrowUp"),
    "number": ("ArrowUp", "ArrowDown"),
}


@dataclass
class Step:
    """One keypress.

    Attributes:
        key: ``ArrowRight`` or ``ArrowLeft``.
        latency_ms: keydown → the animation frame after the first chart change (page clock):
            what a student sees; ``None`` if it never redrew. (Until round 12 it was the
            change itself; a new chart is now shown from Plotly's first draw, one long task
            whose first change came 30–40 ms before its paint.)
        change_ms: keydown → the first chart change.
        send_ms: keydown → the frontend's first websocket send (debounce + frontend work).
        received_ms: keydown → the last websocket message handled before the chart changed
            (``received_ms - send_ms`` ≈ server time, ``latency_ms - received_ms`` ≈ render).
        paint_ms: keydown → the animation frame after that change (= ``latency_ms``).
        settle_ms: keydown → the last chart mutation of the step.
        payload_bytes: websocket bytes received from the server between keypress and settle.
        frames: number of those websocket frames.
        value_before: slider value (or option index) before the keypress.
        value_after: slider value after the step.
        error: why the step failed, ``None`` if it succeeded.
    """

    key: str
    latency_ms: float | None = None
    change_ms: float | None = None
    send_ms: float | None = None
    received_ms: float | None = None
    paint_ms: float | None = None
    settle_ms: float | None = None
    payload_bytes: int = 0
    frames: int = 0
    value_before: float | None = None
    value_after: float | None = None
    error: str | None = None


@dataclass
class Summary:
    """Percentiles of one target's recorded steps (successful steps only).

    ``send_p50_ms`` (keydown → value sent), ``server_p50_ms`` (sent → last message before the
    redraw) and ``render_p50_ms`` (that message → the frame showing the change) show where
    the latency goes.
    """

    n: int
    errors: int
    p50_ms: float
    p95_ms: float
    send_p50_ms: float
    server_p50_ms: float
    render_p50_ms: float
    payload_p50_kb: float
    payload_p95_kb: float


@dataclass
class _FrameCounter:
    """Counts bytes of websocket frames the server sends to one page."""

    bytes: int = 0
    frames: int = 0
    sockets: list[str] = field(default_factory=list)

    def attach(self, ws: WebSocket) -> None:
        self.sockets.append(ws.url)
        ws.on("framereceived", self._on_frame)

    def _on_frame(self, payload: str | bytes) -> None:
        self.bytes += len(payload.encode() if isinstance(payload, str) else payload)
        self.frames += 1

    def reset(self) -> None:
        self.bytes = 0
        self.frames = 0


class Probe:
    """One target open in its own browser context, ready to be stepped."""

    def __init__(self, context: BrowserContext, target: Target) -> None:
        self.target = target
        self.page: Page = context.new_page()
        self.page.add_init_script(SEND_HOOK_JS)
        self.counter = _FrameCounter()
        self.page.on("websocket", self.counter.attach)
        self._forward = True

    def open(self) -> None:
        """Load the page, install the in-page probe and wait until the chart is drawn.

        Raises:
            RuntimeError: the page shows an error or never draws the slider and chart.
        """
        t = self.target
        self.page.goto(t.url, wait_until="domcontentloaded", timeout=LOAD_TIMEOUT_MS)
        self.page.evaluate(INSTALL_JS)
        try:
            self.page.wait_for_function(
                "([s, c]) => window.__latency.ready(s, c)",
                arg=[t.slider_key, t.chart_key],
                timeout=LOAD_TIMEOUT_MS,
                polling=100,
            )
        except PlaywrightTimeoutError as exc:
            raise RuntimeError(
                f"{t.name}: no slider .st-key-{t.slider_key} and drawn chart "
                f".st-key-{t.chart_key} at {t.url} within {LOAD_TIMEOUT_MS // 1000} s"
            ) from exc
        problems = self.page.evaluate("() => window.__latency.errors()")
        if problems["exception"] or problems["errorAlert"]:
            raise RuntimeError(f"{t.name}: the page shows an error right after loading: {problems}")
        self._wait_idle()

    def step(self) -> Step:
        """Press an arrow key on the slider and wait for the chart to redraw and settle."""
        t = self.target
        self.page.evaluate("k => window.__latency.focus(k)", t.slider_key)
        state = self.page.evaluate(
            "([s, c]) => window.__latency.arm(s, c)", [t.slider_key, t.chart_key]
        )
        key = self._next_key(state)
        self.counter.reset()
        self.page.keyboard.press(key)
        timed_out = False
        try:
            self.page.wait_for_function(
                "q => window.__latency.settled(q)",
                arg=QUIET_MS,
                timeout=STEP_TIMEOUT_MS,
                polling=POLL_MS,
            )
        except PlaywrightTimeoutError:
            timed_out = True
        raw = self.page.evaluate("() => window.__latency.collect()")
        step = _step_from(key, raw, self.counter, timed_out=timed_out, focused=state["focused"])
        if step.error:
            self._wait_idle()
        return step

    def _next_key(self, state: dict) -> str:
        """Keep the current direction; turn around at either end of the control."""
        value, lo, hi = state["value"], state["min"], state["max"]
        if value is not None:
            if hi is not None and value >= hi:
                self._forward = False
            elif lo is not None and value <= lo:
                self._forward = True
        forward, back = KEYS[self.target.kind]
        return forward if self._forward else back

    def turn(self) -> None:
        """Step the other way from now on (a control with no max that stopped moving)."""
        self._forward = not self._forward

    def _wait_idle(self) -> None:
        """Wait (best effort) until the chart is quiet and no script run is in flight."""
        with contextlib.suppress(PlaywrightTimeoutError):
            self.page.wait_for_function(
                "q => window.__latency.idle(q)",
                arg=QUIET_MS,
                timeout=STEP_TIMEOUT_MS,
                polling=POLL_MS,
            )


_STAMPS = (
    ("latency_ms", "painted"),
    ("change_ms", "firstChange"),
    ("send_ms", "sent"),
    ("received_ms", "received"),
    ("paint_ms", "painted"),
    ("settle_ms", "lastChange"),
)


def _step_from(
    key: str, raw: dict | None, counter: _FrameCounter, *, timed_out: bool, focused: bool
) -> Step:
    """Turn the in-page stamps of one step into a ``Step`` (with the error, if any)."""
    step = Step(key=key, payload_bytes=counter.bytes, frames=counter.frames)
    if raw is None:
        step.error = "probe lost (page reloaded?)"
        return step
    step.value_before, step.value_after = raw["valueBefore"], raw["valueAfter"]
    down = raw["keydown"]
    if down is not None:
        for name, stamp in _STAMPS:
            if raw[stamp] is not None:
                setattr(step, name, round(raw[stamp] - down, 2))
    step.error = _step_error(raw, timed_out=timed_out, focused=focused)
    if step.error:
        step.latency_ms = None
    return step


def _step_error(raw: dict, *, timed_out: bool, focused: bool) -> str | None:
    """Why a step failed, or ``None``."""
    if raw["exception"]:
        return "stException shown"
    if raw["errorAlert"]:
        return "st.error alert shown"
    if raw["keydown"] is None:
        return f"keydown not seen (slider focused: {focused})"
    if raw["valueBefore"] is not None and raw["valueBefore"] == raw["valueAfter"]:
        return "slider value did not change"
    if timed_out:
        if raw["firstChange"] is None:
            return f"no redraw within {STEP_TIMEOUT_MS // 1000} s"
        return f"chart did not settle within {STEP_TIMEOUT_MS // 1000} s"
    return None


@contextlib.contextmanager
def _browser() -> Iterator[Browser]:
    """The system Chromium, headless, with the project's flags."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


def wait_for_warmup(log_path: Path, timeout: float = WARMUP_TIMEOUT_S, poll: float = 0.25) -> bool:
    """Wait until the server log at ``log_path`` says the warm-up finished; ``False`` if
    ``timeout`` seconds ran out first."""
    deadline = time.monotonic() + timeout
    while True:
        if log_path.is_file() and WARMUP_DONE in log_path.read_text(errors="replace"):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)


def warm_app(browser: Browser, app_url: str, log_path: Path) -> None:
    """Open the app once, which starts its server's warm-up, and wait for the warm-up to
    finish (nothing to wait for when ``ADLAB_WARMUP=0``, as the servers inherit it)."""
    if not warmup.enabled():
        return
    start = time.monotonic()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        context.new_page().goto(app_url, timeout=LOAD_TIMEOUT_MS)
        if not wait_for_warmup(log_path):
            raise RuntimeError(f"the app's warm-up did not finish within {WARMUP_TIMEOUT_S:.0f} s")
    finally:
        context.close()
    print(f"the app's warm-up finished after {time.monotonic() - start:.1f} s", file=sys.stderr)


def _open_probe(browser: Browser, target: Target) -> Probe:
    probe = Probe(browser.new_context(viewport={"width": 1280, "height": 900}), target)
    probe.open()
    return probe


def measure(
    page_url: str,
    slider_key: str,
    chart_key: str,
    steps: int,
    *,
    warmup: int = DEFAULT_WARMUP,
    browser: Browser | None = None,
) -> list[Step]:
    """Measure ``steps`` keypresses on one page of an already running Streamlit server.

    Uses ``browser`` (e.g. a test's running Chromium: Playwright's sync API allows one per
    thread) or launches its own headless Chromium; usable from tests (assert on
    ``Step.error``, not on timings).

    Args:
        page_url: full URL of the page, e.g. ``f"{server.url}/softmax"``.
        slider_key: ``key=`` of the slider to press (its ``.st-key-…`` wrapper is used).
        chart_key: ``key=`` of the ``st.plotly_chart`` that must redraw.
        steps: number of recorded steps.
        warmup: unrecorded steps before those.

    Returns:
        The recorded steps, in order.
    """
    target = Target(name=page_url, url=page_url, slider_key=slider_key, chart_key=chart_key)
    with contextlib.ExitStack() as stack:
        if browser is None:
            browser = stack.enter_context(_browser())
        probe = _open_probe(browser, target)
        try:
            for _ in range(warmup):
                probe.step()
            return [probe.step() for _ in range(steps)]
        finally:
            probe.page.context.close()


def run_interleaved(
    browser: Browser, targets: Sequence[Target], steps: int, warmup: int, block: int
) -> dict[str, list[Step]]:
    """Warm up every target, then record ``steps`` steps each in alternating blocks.

    Round r steps through the targets in order (reversed on odd rounds), ``block`` steps each,
    so slow phases of the machine are shared by all targets.
    """
    probes = [_open_probe(browser, t) for t in targets]
    results: dict[str, list[Step]] = {t.name: [] for t in targets}
    for probe in probes:
        for _ in range(warmup):
            probe.step()
    for r in range(math.ceil(steps / block)):
        order = probes if r % 2 == 0 else probes[::-1]
        for probe in order:
            done = results[probe.target.name]
            for _ in range(min(block, steps - len(done))):
                done.append(probe.step())
        _progress(r, results, steps)
    return results


def _progress(round_index: int, results: dict[str, list[Step]], steps: int) -> None:
    done = min(len(v) for v in results.values())
    print(f"  round {round_index + 1}: {done}/{steps} steps per target", file=sys.stderr)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) with linear interpolation (numpy's default); NaN if empty."""
    if not values:
        return math.nan
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summarize(steps: Sequence[Step]) -> Summary:
    """p50/p95 latency and payload of the successful steps, and the error count."""
    ok = [s for s in steps if s.error is None and s.latency_ms is not None]
    lat = [s.latency_ms for s in ok if s.latency_ms is not None]
    kb = [s.payload_bytes / KB for s in ok]
    return Summary(
        n=len(ok),
        errors=len(steps) - len(ok),
        p50_ms=percentile(lat, 50),
        p95_ms=percentile(lat, 95),
        send_p50_ms=_median_part(ok, None, "send_ms"),
        server_p50_ms=_median_part(ok, "send_ms", "received_ms"),
        render_p50_ms=_median_part(ok, "received_ms", "latency_ms"),
        payload_p50_kb=percentile(kb, 50),
        payload_p95_kb=percentile(kb, 95),
    )


def _median_part(steps: Sequence[Step], start: str | None, end: str) -> float:
    """Median over ``steps`` of stamp ``end`` minus stamp ``start`` (keydown if ``None``)."""
    parts = []
    for s in steps:
        a = 0.0 if start is None else getattr(s, start)
        b = getattr(s, end)
        if a is not None and b is not None:
            parts.append(b - a)
    return percentile(parts, 50)


def _fmt(x: float, digits: int = 1) -> str:
    return "-" if math.isnan(x) else f"{x:.{digits}f}"


def ratio_interval(
    page: Sequence[float],
    bare: Sequence[float],
    *,
    q: float = 95,
    level: float = 90,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """Bootstrap interval of p``q``(page) / p``q``(bare): how far the ratio moves by chance.

    Both samples are resampled with replacement; the interval is the central ``level`` %
    of the resampled ratios. (NaN, NaN) when a sample is empty.
    """
    if not page or not bare:
        return math.nan, math.nan
    import numpy as np  # only here: the rest of the instrument is plain Python

    rng = np.random.default_rng(seed)
    a, b = np.asarray(page), np.asarray(bare)
    ra = np.percentile(rng.choice(a, (resamples, len(a))), q, axis=1)
    rb = np.percentile(rng.choice(b, (resamples, len(b))), q, axis=1)
    lo, hi = np.percentile(ra / rb, [(100 - level) / 2, (100 + level) / 2])
    return float(lo), float(hi)


def _latencies(steps: Sequence[Step]) -> list[float]:
    return [s.latency_ms for s in steps if s.error is None and s.latency_ms is not None]


def format_table(
    summaries: dict[str, Summary],
    bare: str = BARE_NAME,
    results: dict[str, list[Step]] | None = None,
) -> str:
    """The plain-text results table, one row per target, the bare app first.

    With ``results`` (the steps), a column gives the 90 % bootstrap interval of the ratio.
    """
    b = summaries[bare]
    header = (
        "page",
        "n",
        "p50 ms",
        "p95 ms",
        "bare p50",
        "bare p95",
        "ratio p95",
        "90% interval",
        "KB/step (p95)",
        "errors",
    )
    rows = [header]
    for name, s in summaries.items():
        ratio = s.p95_ms / b.p95_ms if b.p95_ms else math.nan
        lo, hi = math.nan, math.nan
        if results is not None:
            lo, hi = ratio_interval(_latencies(results[name]), _latencies(results[bare]))
        rows.append(
            (
                name,
                str(s.n),
                _fmt(s.p50_ms),
                _fmt(s.p95_ms),
                _fmt(b.p50_ms),
                _fmt(b.p95_ms),
                _fmt(ratio, 2),
                f"{_fmt(lo, 2)}–{_fmt(hi, 2)}",
                _fmt(s.payload_p95_kb),
                str(s.errors),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [
        " | ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def format_breakdown(summaries: dict[str, Summary]) -> str:
    """Where the time goes, per target (medians of each part, so they need not sum to p50)."""
    lines = ["p50 parts (ms): keydown→value sent | sent→last message (server) | →redraw (render)"]
    for name, s in summaries.items():
        parts = (s.send_p50_ms, s.server_p50_ms, s.render_p50_ms)
        lines.append(f"  {name}: " + " | ".join(_fmt(x) for x in parts))
    return "\n".join(lines)


def budget_misses(summaries: dict[str, Summary], bare: str = BARE_NAME) -> list[str]:
    """One ``OVER BUDGET`` line per page whose p95 ratio or p95 payload is over budget."""
    misses = []
    b = summaries[bare]
    for name, s in summaries.items():
        if name in (bare, AA_NAME):
            continue
        ratio = s.p95_ms / b.p95_ms if b.p95_ms else math.nan
        if ratio > BUDGET_RATIO:
            misses.append(
                f"OVER BUDGET {name}: p95 {s.p95_ms:.1f} ms is {ratio:.2f}x the bare app's "
                f"{b.p95_ms:.1f} ms (budget {BUDGET_RATIO:.2f}x)"
            )
        if s.payload_p95_kb > BUDGET_PAYLOAD_KB:
            misses.append(
                f"OVER BUDGET {name}: payload p95 {s.payload_p95_kb:.1f} KB per step "
                f"(budget {BUDGET_PAYLOAD_KB:.0f} KB)"
            )
    return misses


def probed_concepts(slugs: Sequence[str] | None) -> list[Concept]:
    """The registered concepts that are ready and have a probe, in registry order.

    Args:
        slugs: restrict to these slugs (each must be ready and probed); ``None`` for all.

    Raises:
        SystemExit: a requested slug is unknown, not ready, or has no probe.
    """
    usable = {c.slug: c for c in CONCEPTS}
    if slugs is None:
        return list(usable.values())
    missing = [s for s in slugs if s not in usable]
    if missing:
        raise SystemExit(f"not ready or no probe in ui/registry.py: {', '.join(missing)}")
    return [usable[s] for s in slugs]


def page_targets(app_url: str, concepts: Sequence[Concept]) -> list[Target]:
    """One target per concept: ``{app_url}/{slug}`` with the concept's probe keys."""
    return [
        Target(name=c.slug, url=f"{app_url}/{c.slug}", slider_key=c.probe[0], chart_key=c.probe[1])
        for c in concepts
        if c.probe
    ]


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.latency", description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=DEFAULT_STEPS, help="recorded steps per page")
    p.add_argument("--warmup", type=int, default=DEFAULT_WARMUP, help="unrecorded steps first")
    p.add_argument("--block", type=int, default=DEFAULT_BLOCK, help="steps per page per round")
    p.add_argument("--pages", help="comma-separated slugs (default: every ready page)")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "latency.json")
    p.add_argument(
        "--aa",
        action="store_true",
        help="also measure a second bare app as a page (A/A check of the method's noise)",
    )
    p.add_argument(
        "--no-fail-budget", action="store_true", help="exit 0 when only budgets are missed"
    )
    args = p.parse_args(argv)
    if args.steps < 1 or args.block < 1 or args.warmup < 0:
        p.error("--steps and --block must be ≥ 1, --warmup ≥ 0")
    return args


@contextlib.contextmanager
def _servers(
    want_app: bool, want_aa: bool, log_dir: Path
) -> Iterator[tuple[str, str | None, str | None]]:
    """Start the bare app (default settings), and optionally app.py and a second bare app."""
    log_dir.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        bare_cwd = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bare-app-")))
        bare = stack.enter_context(
            streamlit_server(BARE_APP, cwd=bare_cwd, log_path=log_dir / "latency-bare.log")
        )
        app = aa = None
        if want_app:
            app = stack.enter_context(
                streamlit_server(APP, cwd=ROOT, log_path=log_dir / APP_LOG)
            ).url
        if want_aa:
            aa = stack.enter_context(
                streamlit_server(BARE_APP, cwd=bare_cwd, log_path=log_dir / "latency-aa.log")
            ).url
        yield bare.url, app, aa


def _report(args: argparse.Namespace, targets: list[Target], results: dict[str, list[Step]]) -> int:
    """Print the table and budget lines, write the JSON; return the exit code."""
    summaries = {name: summarize(steps) for name, steps in results.items()}
    print(format_table(summaries, results=results))
    print(format_breakdown(summaries))
    misses = budget_misses(summaries)
    for line in misses:
        print(line)
    errors = sum(s.errors for s in summaries.values())
    for name, steps in results.items():
        for i, s in enumerate(steps):
            if s.error:
                print(f"ERROR {name} step {i}: {s.error}")
    _write_json(args, targets, results, summaries, misses)
    print(f"wrote {args.out}", file=sys.stderr)
    if errors:
        return 1
    return 0 if not misses or args.no_fail_budget else 2


def commit() -> str | None:
    """The checkout's commit (short), with ``+dirty`` if tracked files differ from it; ``None``
    outside a Git checkout. The records in ``bench/records`` do not count: a record run
    rewrites its own file (and ``--forget`` before it), which is not a change to what it
    measures."""

    def git(*cmd: str) -> str:
        done = subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/records")
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty else "")


def run_meta(args: argparse.Namespace) -> dict[str, object]:
    """When, where, on what and how a run measured (the ``meta`` of every results JSON)."""
    return {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "commit": commit(),
        "host": platform.node(),
        "python": platform.python_version(),
        "steps": args.steps,
        "warmup": args.warmup,
        "block": args.block,
        "quiet_ms": QUIET_MS,
        "step_timeout_ms": STEP_TIMEOUT_MS,
        "kb": KB,
    }


def _write_json(
    args: argparse.Namespace,
    targets: list[Target],
    results: dict[str, list[Step]],
    summaries: dict[str, Summary],
    misses: list[str],
) -> None:
    args.out.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "meta": run_meta(args),
        "budget": {"ratio_p95": BUDGET_RATIO, "payload_p95_kb": BUDGET_PAYLOAD_KB},
        "targets": [
            {
                **asdict(t),
                "summary": asdict(summaries[t.name]),
                "steps": [asdict(s) for s in results[t.name]],
            }
            for t in targets
        ],
        "over_budget": misses,
    }
    args.out.write_text(json.dumps(_without_nan(doc), indent=2, allow_nan=False) + "\n")


def _without_nan(obj: object) -> object:
    """``obj`` with every NaN float replaced by ``None`` (strict JSON)."""
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if isinstance(obj, dict):
        return {k: _without_nan(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_without_nan(v) for v in obj]
    return obj


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; see the module docstring for options and exit codes."""
    args = _parse_args(argv)
    slugs = [s.strip() for s in args.pages.split(",") if s.strip()] if args.pages else None
    concepts = probed_concepts(slugs) if APP.is_file() or slugs else []
    if concepts and not APP.is_file():
        raise SystemExit(f"{APP} does not exist")
    if not concepts:
        print("note: no ready page with a probe; measuring the bare app only", file=sys.stderr)
    with _servers(bool(concepts), args.aa, args.out.parent) as (bare_url, app_url, aa_url):
        targets = [Target(BARE_NAME, bare_url, *BARE_PROBE)]
        if aa_url:
            targets.append(Target(AA_NAME, aa_url, *BARE_PROBE))
        if app_url:
            targets += page_targets(app_url, concepts)
        print(f"measuring {', '.join(t.name for t in targets)}", file=sys.stderr)
        try:
            with _browser() as browser:
                if app_url:
                    warm_app(browser, app_url, args.out.parent / APP_LOG)
                results = run_interleaved(browser, targets, args.steps, args.warmup, args.block)
        except (RuntimeError, PlaywrightError) as exc:
            print(f"ERROR {exc} (server logs: {args.out.parent}/latency-*.log)", file=sys.stderr)
            return 1
    return _report(args, targets, results)


if __name__ == "__main__":
    sys.exit(main())
