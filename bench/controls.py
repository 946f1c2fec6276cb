"""Every control of every page: keypress → redraw, against the bare app; worst control per page.

Run from the project root::

    python -m bench.controls [--steps N] [--pages softmax,...] [--controls softmax_seed,...]
                             [--out bench/results/controls.json] [--resume] [--minutes M]

``bench.latency`` presses one probe slider per page; students move every control. This run
opens each page (``app.py``) and each of its views in headless Chromium, finds the page's
controls in the browser (keyed sliders, select-sliders, live controls of ``ui/live.py``, radios
and number inputs of the main area whose key is ``<slug>_…``: the view picker, the seed, every
setting; not the exercise),
and for each one:

1. calibrates: presses it once and compares every chart (by key) and every element of the main
   area (by text) before and after. The control watches the first chart that changed, or, if no
   chart did, the first element whose text changed (a formula, a table), by its place in the
   main area; where another step puts a chart at that place, its drawing counts too (a step
   that only moves its traces). A control that changes nothing on screen is reported and
   skipped.
2. records ``--steps`` keypresses exactly as ``bench.latency`` does (keydown → the animation
   frame after the first change of the watched element, page clock), bouncing at the
   control's ends; after every ``--block`` steps, one step of the bare one-slider app, so
   the bare sample spans the whole run.

A control's ratio is its p95 over the bare app's p95 in the steps taken around it (its own
interleaved ones and ``LOCAL_BARE_STEPS`` either side, of its run: the machine's speed
drifts over a run of hours), with the 90 % bootstrap interval. As in ``bench.latency``,
nothing is measured before the app's warm-up (``ui/warmup.py``) has finished. Budget (issue
21): ratio ≤ 1.0 and the interval's upper end ≤ 1.2, and payload p95 ≤ 200 KB per step. The
JSON (``--out``) is rewritten after every control, so an interrupted run keeps what it
measured.

Every control at 100 steps takes hours on a small machine (1.5–3.5 min a control), so a run can
be spread over several: ``--minutes M`` starts no control after M minutes, and ``--resume``
keeps the controls already in ``--out`` and measures the others. Each run of a resumed file
has its own bare steps and meta (its commit, ``meta.runs``); a control is compared with the
bare steps taken around it in the run that measured it (each control keeps where its own
are, ``bare_at``; in a run recorded before that, they are located by their order when none
of its controls was forgotten, else the run's every bare step is used). After a change
to what a control draws, ``--forget`` drops it (a page, a key, or ``key[view]``) from
``--out``, so the next ``--resume`` measures it again.

Exit codes: 0 ok, 1 a failed step or setup failure, 2 over budget (0 with ``--no-fail-budget``).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import math
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, Page
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from bench import latency as lat
from bench._latency_js import INSTALL_JS
from bench.server import ROOT
from ui.registry import Concept

DEFAULT_STEPS = 20
DEFAULT_WARMUP = 2
DEFAULT_BLOCK = 5
CALIBRATE_QUIET_MS = 600
CALIBRATE_TIMEOUT_MS = 30_000
DISCOVER_QUIET_MS = 1500
BUDGET_UPPER = 1.2
# a control is compared with its own 20 bare steps (100 steps, one bare step every 5) and this
# many on either side: ~100 steps, the few minutes around it (:func:`bare_around`)
LOCAL_BARE_STEPS = 40
RADIO = "label:has(input[type='radio'])"


@dataclass
class Control:
    """One control of one page view and its recorded steps.

    Attributes:
        page: the page's slug.
        view: the view's index in the page's view picker (0 for a page with one view).
        key: the control's widget key (``<slug>_<name>``, also its URL parameter).
        kind: ``slider``, ``live`` (a ``ui.live`` control), ``radio`` or ``number``.
        watch: the chart key the control redraws first, ``#i`` for the main area's i-th element
            (compared by text), or ``None`` if one press changed nothing on screen.
        steps: the recorded steps.
        run: which run of the results file measured it (``--resume`` adds runs).
        bare_at: where its own interleaved bare steps are in the results' bare steps
            (``[start, end)``); ``None`` in records from before it was kept.
    """

    page: str
    view: int
    key: str
    kind: str
    watch: str | None = None
    steps: list[lat.Step] = field(default_factory=list)
    run: int = 0
    bare_at: tuple[int, int] | None = None

    @property
    def name(self) -> str:
        return f"{self.page}[{self.view}] {self.key}"


def _wait_quiet(page: Page, quiet_ms: int = CALIBRATE_QUIET_MS) -> None:
    """Wait until nothing on the page moved for ``quiet_ms`` and no script run is in flight."""
    page.wait_for_timeout(150)  # let the keypress reach the server and the status show
    page.wait_for_function(
        "q => window.__latency.quiet(q)",
        arg=quiet_ms,
        timeout=CALIBRATE_TIMEOUT_MS,
        polling=lat.POLL_MS,
    )


def watched_element(
    before: dict, after: dict, *, text_only: bool = False, own: str | None = None
) -> str | None:
    """What a press changed: the first chart (page order) whose content differs, else ``#i``
    for the first main-area element whose text differs; ``None`` if nothing changed.

    ``text_only`` skips the charts (the view picker: each view has charts of its own, so no
    chart key survives the next step). ``own``: the live control's own chart, watched if it
    changed. The browser redraws it; what follows the control once it settles (a chart above
    it whose mark follows, the formula) comes from a rerun after the settle (``ui.live``).
    """
    if own in after["charts"] and before["charts"].get(own) != after["charts"][own]:
        return own
    if not text_only:
        for key, digest in after["charts"].items():
            if before["charts"].get(key) != digest:
                return key
    a, b = before["texts"], after["texts"]
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"#{i}"
    return f"#{min(len(a), len(b))}" if len(a) != len(b) else None


# the key of the chart inside a live control's element (``ui.live``: ``st-key-<chart key>``)
OWN_CHART_JS = """k => {
  const plot = document.querySelector(`.st-key-${CSS.escape(k)} .js-plotly-plot`);
  const box = plot && plot.closest('[class*="st-key-"]');
  return box ? [...box.classList].find((c) => c.startsWith('st-key-')).slice(7) : null;
}"""


def _snapshot(page: Page) -> dict:
    return page.evaluate("() => window.__latency.snapshot()")


def calibrate(probe: lat.Probe, control: Control) -> str | None:
    """Press the control once and return what it redraws (see :func:`watched_element`)."""
    page = probe.page
    _wait_quiet(page)
    before = _snapshot(page)
    page.evaluate("k => window.__latency.focus(k)", control.key)
    state = page.evaluate("k => window.__latency.arm(k, k)", control.key)
    page.keyboard.press(probe._next_key(state))
    _wait_quiet(page)
    page.evaluate("() => window.__latency.collect()")
    own = page.evaluate(OWN_CHART_JS, control.key) if control.kind == "live" else None
    return watched_element(
        before, _snapshot(page), text_only=control.key.endswith("_view"), own=own
    )


def _open(browser: Browser, url: str, concept: Concept) -> lat.Probe:
    """The page at its default view, loaded, probe installed (its probe slider and chart drawn)."""
    target = lat.Target(concept.slug, url, concept.probe[0], concept.probe[1])
    return lat._open_probe(browser, target)


def _views(page: Page, slug: str) -> int:
    """How many views the page's view picker offers (1 without a picker)."""
    return max(1, page.locator(f".st-key-{slug}_view {RADIO}").count())


def _show_view(probe: lat.Probe, slug: str, view: int) -> None:
    page = probe.page
    radios = page.locator(f".st-key-{slug}_view {RADIO}")
    if radios.count():
        radios.nth(view).click()
        _wait_quiet(page)


def _step_control(probe: lat.Probe, control: Control) -> lat.Step:
    step = probe.step()
    if step.error == "slider value did not change" and control.kind == "number":
        probe.turn()  # a number input with no max that stopped: go the other way
    return step


def _open_at(browser: Browser, url: str, name: str, key: str, kind: str) -> lat.Probe:
    """A fresh session (its own browser context) at ``url``, once control ``key`` is drawn
    and the page is quiet: every control starts from the view's link, not from where the
    controls measured before it left the page."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    probe = lat.Probe(context, lat.Target(name, url, key, "", kind))
    page = probe.page
    page.goto(url, wait_until="domcontentloaded", timeout=lat.LOAD_TIMEOUT_MS)
    page.evaluate(INSTALL_JS)
    page.wait_for_function(
        "([k, q]) => (window.__latency.openControls(k) || true)"
        " && window.__latency.controls(k).some((c) => c.key === k)"
        " && window.__latency.quiet(q)",
        arg=[key, CALIBRATE_QUIET_MS],
        timeout=lat.LOAD_TIMEOUT_MS,
        polling=100,
    )
    return probe


def _discover(browser: Browser, url: str, slug: str) -> list[dict]:
    """The controls a fresh session sees at ``url`` once the page has settled: the run over,
    no lazily loaded element waiting, nothing moving for ``DISCOVER_QUIET_MS`` (a view that
    loads torch first draws its live part seconds later)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(url, wait_until="domcontentloaded", timeout=lat.LOAD_TIMEOUT_MS)
        page.evaluate(INSTALL_JS)
        page.wait_for_selector('[data-testid="stMain"] h1', timeout=lat.LOAD_TIMEOUT_MS)
        page.wait_for_function(
            "q => window.__latency.quiet(q) && !document.querySelector("
            "'.stSkeleton, [data-testid=\"stSkeleton\"]')",
            arg=DISCOVER_QUIET_MS,
            timeout=lat.LOAD_TIMEOUT_MS,
            polling=100,
        )
        if page.evaluate("p => window.__latency.openControls(p)", f"{slug}_"):
            page.wait_for_timeout(500)  # the expanders' content laid out
        return page.evaluate("p => window.__latency.controls(p)", f"{slug}_")
    finally:
        context.close()


def view_links(browser: Browser, app_url: str, concept: Concept) -> list[tuple[str, list[dict]]]:
    """Each view's link (the URL after picking it) and the controls it shows, in page order."""
    slug = concept.slug
    probe = _open(browser, f"{app_url}/{slug}", concept)
    urls = []
    try:
        for view in range(_views(probe.page, slug)):
            _show_view(probe, slug, view)
            urls.append(probe.page.url)
    finally:
        probe.page.context.close()
    return [(url, _discover(browser, url, slug)) for url in urls]


def measure_page(
    browser: Browser,
    app_url: str,
    concept: Concept,
    bare: lat.Probe,
    results: Results,
    args: argparse.Namespace,
    until: float = math.inf,
) -> bool:
    """Every control of every view of one page not yet in ``results``, each in a fresh session
    at its view's link, with bare steps interleaved; ``results`` is saved after each. The view
    picker is measured from the first view. Returns False if it stopped at ``until``
    (``time.monotonic()``) with controls left."""
    slug = concept.slug
    done = {(c.page, c.view, c.key) for c in results.controls}
    for view, (url, found) in enumerate(view_links(browser, app_url, concept)):
        for c in found:
            key, kind = c["key"], c["kind"]
            if key.startswith(f"{slug}_ex") or (key == f"{slug}_view" and view):
                continue  # the exercise; the view picker once
            if args.controls and not {key, f"{key}[{view}]"} & args.controls:
                continue  # neither the key nor the key in this view ("seed[2]") asked for
            if (slug, view, key) in done:
                continue  # measured by an earlier run of this file
            if time.monotonic() >= until:
                return False
            control = Control(slug, view, key, kind, run=results.run)
            probe = _open_at(browser, url, control.name, key, kind)
            try:
                _measure_control(probe, control, bare, results, args)
            finally:
                probe.page.context.close()
            results.controls.append(control)  # whole: a stopped run measures it again
            results.save(args.out)
    return True


def _measure_control(
    probe: lat.Probe,
    control: Control,
    bare: lat.Probe,
    results: Results,
    args: argparse.Namespace,
) -> None:
    try:
        control.watch = calibrate(probe, control)
    except PlaywrightTimeoutError:
        control.watch = None
    if control.watch is None:
        print(f"  {control.name}: one press changed nothing on screen; skipped", file=sys.stderr)
        return
    probe.target = lat.Target(
        control.name, probe.target.url, control.key, control.watch, control.kind
    )
    for _ in range(args.warmup):
        _step_control(probe, control)
    start = len(results.bare_steps)
    while len(control.steps) < args.steps:
        for _ in range(min(args.block, args.steps - len(control.steps))):
            control.steps.append(_step_control(probe, control))
        results.add_bare(bare.step())
    control.bare_at = (start, len(results.bare_steps))
    s = lat.summarize(control.steps)
    print(
        f"  {control.name} ({control.kind} → {control.watch}): p50 {s.p50_ms:.0f} "
        f"p95 {s.p95_ms:.0f} ms, {s.payload_p95_kb:.1f} KB, {s.errors} errors",
        file=sys.stderr,
    )


@dataclass(frozen=True)
class Row:
    """One measured control's summary against the bare app."""

    control: Control
    summary: lat.Summary
    ratio: float
    lo: float
    hi: float

    @property
    def over(self) -> bool:
        return bool(
            self.ratio > lat.BUDGET_RATIO
            or self.hi > BUDGET_UPPER
            or self.summary.payload_p95_kb > lat.BUDGET_PAYLOAD_KB
        )


def rows(
    controls: Sequence[Control],
    bare_steps: Sequence[lat.Step],
    bare_runs: Sequence[int] | None = None,
) -> list[Row]:
    """A summary row per measured control (those with something to watch), against the bare
    steps taken around it (:func:`bare_around`), or all of them without ``bare_runs``."""
    out = []
    for c in controls:
        if c.watch is None or not c.steps:
            continue
        own = bare_around(c, bare_steps, bare_runs) if bare_runs is not None else bare_steps
        bare = lat.summarize(own)
        s = lat.summarize(c.steps)
        ratio = s.p95_ms / bare.p95_ms if bare.p95_ms else math.nan
        lo, hi = lat.ratio_interval(lat._latencies(c.steps), lat._latencies(own))
        out.append(Row(c, s, ratio, lo, hi))
    return out


def bare_around(
    c: Control, bare_steps: Sequence[lat.Step], bare_runs: Sequence[int]
) -> list[lat.Step]:
    """The bare steps a control is compared with: its own interleaved ones and
    ``LOCAL_BARE_STEPS`` on either side, of its own run (``bare_runs[i]`` is the run of
    ``bare_steps[i]``); every bare step of its run when where its own are is not known.

    The machine's speed drifts within a run of hours (one run here: the bare app's p50 from
    90 to 160 ms, bench/controls_report.md round 25), so a control measured in a
    slow stretch, compared with the whole run's bare app, came out over the budget while
    the bare steps taken with it were as slow; one measured in a quick stretch the other way.
    """
    if c.bare_at is None:
        return [s for s, r in zip(bare_steps, bare_runs, strict=True) if r == c.run]
    start, end = c.bare_at
    lo, hi = max(0, start - LOCAL_BARE_STEPS), min(len(bare_steps), end + LOCAL_BARE_STEPS)
    return [bare_steps[i] for i in range(lo, hi) if bare_runs[i] == c.run]


def worst_per_page(table: Sequence[Row]) -> dict[str, Row]:
    """Each page's control with the highest p95 ratio."""
    worst: dict[str, Row] = {}
    for r in table:
        page = r.control.page
        if page not in worst or r.ratio > worst[page].ratio:
            worst[page] = r
    return worst


def format_rows(table: Sequence[Row], bare: lat.Summary) -> str:
    """The per-control table (plain text), the bare app's line first."""
    header = ("control", "kind", "watch", "n", "p50", "p95", "ratio", "90% interval", "KB", "err")
    bare_row = (
        *("bare", "slider", "bare_chart", str(bare.n)),
        *(lat._fmt(bare.p50_ms), lat._fmt(bare.p95_ms), "1.00", ""),
        *(lat._fmt(bare.payload_p95_kb), str(bare.errors)),
    )
    lines = [header, bare_row]
    for r in table:
        s = r.summary
        lines.append(
            (
                r.control.name + (" *" if r.over else ""),
                r.control.kind,
                r.control.watch or "",
                str(s.n),
                lat._fmt(s.p50_ms),
                lat._fmt(s.p95_ms),
                lat._fmt(r.ratio, 2),
                f"{lat._fmt(r.lo, 2)}–{lat._fmt(r.hi, 2)}",
                lat._fmt(s.payload_p95_kb),
                str(s.errors),
            )
        )
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    text = [
        " | ".join(
            c.ljust(w) if i < 3 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in lines
    ]
    text.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(text)


def format_worst(table: Sequence[Row]) -> str:
    """One line per page: its worst control (``*`` = over budget)."""
    lines = ["worst control per page (p95 ratio, 90% interval):"]
    for page, r in worst_per_page(table).items():
        flag = " OVER BUDGET" if r.over else ""
        lines.append(
            f"  {page}: {r.control.key} [{r.control.view}] {r.ratio:.2f} "
            f"({r.lo:.2f}–{r.hi:.2f}){flag}"
        )
    return "\n".join(lines)


def format_markdown(table: Sequence[Row], bare: lat.Summary, meta: str) -> str:
    """The results as Markdown: the worst control of each page, then every control."""
    b = f"bare app: p50 {bare.p50_ms:.0f} ms, p95 {bare.p95_ms:.0f} ms ({bare.n} steps)"
    head = "| {} |\n|{}|".format
    out = [f"# bench.controls: every control of every page\n\n{meta}\n\n{b}\n"]
    runs = len({r.control.run for r in table}) > 1
    out.append("## Worst control per page\n")
    cols = ("page", "control [view]", "p50 ms", "p95 ms", "p95 ratio", "90% interval", "KB")
    out.append(head(" | ".join(cols), "|".join("---" for _ in cols)))
    for page, r in worst_per_page(table).items():
        out.append(_md_row(page, f"{r.control.key} [{r.control.view}]", r))
    out.append("\n## Every control\n")
    cols = ("page", "control [view]", "kind", "redraws", "p50 ms", "p95 ms", "p95 ratio")
    cols = (*cols, "90% interval", "KB", *(("run",) if runs else ()))
    out.append(head(" | ".join(cols), "|".join("---" for _ in cols)))
    for r in table:
        c = r.control
        row = _md_row(c.page, f"{c.key} [{c.view}]", r, c.kind, f"`{c.watch}`")
        out.append(row + (f" {c.run} |" if runs else ""))
    return "\n".join(out) + "\n"


def _md_row(page: str, control: str, r: Row, *extra: str) -> str:
    s = r.summary
    flag = " ✗" if r.over else ""
    cells = (
        page,
        control,
        *extra,
        lat._fmt(s.p50_ms, 0),
        lat._fmt(s.p95_ms, 0),
        f"{lat._fmt(r.ratio, 2)}{flag}",
        f"{lat._fmt(r.lo, 2)}–{lat._fmt(r.hi, 2)}",
        lat._fmt(s.payload_p95_kb),
    )
    return "| " + " | ".join(cells) + " |"


@dataclass
class Results:
    """What a results file holds: the controls measured, the bare app's steps (with the run
    that took each) and each run's meta (``lat.run_meta``, with its commit)."""

    controls: list[Control] = field(default_factory=list)
    bare_steps: list[lat.Step] = field(default_factory=list)
    bare_runs: list[int] = field(default_factory=list)
    runs: list[dict] = field(default_factory=list)

    @property
    def run(self) -> int:
        """The run measuring now (the last one)."""
        return len(self.runs) - 1

    def add_bare(self, step: lat.Step) -> None:
        self.bare_steps.append(step)
        self.bare_runs.append(self.run)

    def rows(self) -> list[Row]:
        return rows(self.controls, self.bare_steps, self.bare_runs)

    def forget(self, names: set[str]) -> list[Control]:
        """Drop the controls of the pages, keys or ``key[view]`` in ``names``; return them."""

        def named(c: Control) -> bool:
            return bool({c.page, c.key, f"{c.key}[{c.view}]"} & names)

        gone = [c for c in self.controls if named(c)]
        self.controls = [c for c in self.controls if not named(c)]
        return gone

    def run_lines(self) -> list[str]:
        """One line per run: when, on what commit, how many controls, its bare app."""
        lines = []
        for i, m in enumerate(self.runs):
            own = [s for s, r in zip(self.bare_steps, self.bare_runs, strict=True) if r == i]
            b = lat.summarize(own)
            n = sum(c.run == i for c in self.controls)
            lines.append(
                f"run {i}: {m.get('when')} on {m.get('commit') or 'an unknown commit'}, "
                f"{n} controls, {m.get('steps')} steps each after {m.get('warmup')} warm-up; "
                f"bare app p50 {lat._fmt(b.p50_ms, 0)} ms, p95 {lat._fmt(b.p95_ms, 0)} ms "
                f"({b.n} steps)"
            )
        return lines

    def save(self, path: Path) -> None:
        """Write the JSON (rows and worst controls included, for readers without this code)."""
        table = self.rows()
        doc = {
            "meta": self.runs[-1] if self.runs else {},
            "runs": self.runs,
            "budget": {
                "ratio_p95": lat.BUDGET_RATIO,
                "interval_upper": BUDGET_UPPER,
                "payload_p95_kb": lat.BUDGET_PAYLOAD_KB,
            },
            "bare": {
                "summary": asdict(lat.summarize(self.bare_steps)),
                "steps": [asdict(s) for s in self.bare_steps],
                "runs": self.bare_runs,
            },
            "controls": [
                {
                    "page": c.page,
                    "view": c.view,
                    "key": c.key,
                    "kind": c.kind,
                    "watch": c.watch,
                    "run": c.run,
                    "bare_at": list(c.bare_at) if c.bare_at is not None else None,
                    "steps": [asdict(s) for s in c.steps],
                }
                for c in self.controls
            ],
            "rows": [
                {
                    "name": r.control.name,
                    "run": r.control.run,
                    "summary": asdict(r.summary),
                    "ratio": r.ratio,
                    "interval": [r.lo, r.hi],
                    "over_budget": r.over,
                }
                for r in table
            ],
            "worst": {p: r.control.name for p, r in worst_per_page(table).items()},
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(lat._without_nan(doc), indent=2, allow_nan=False) + "\n"
        if path.suffix == ".gz":  # a record kept in the repository (bench/records)
            path.write_bytes(gzip.compress(text.encode(), mtime=0))
        else:
            path.write_text(text)

    @classmethod
    def load(cls, path: Path) -> Results:
        """A results file written by :meth:`save` (or by a run before ``--resume``: one run)."""
        raw = path.read_bytes()
        doc = json.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)
        bare_steps = [lat.Step(**s) for s in doc["bare"]["steps"]]
        controls = [
            Control(
                c["page"],
                c["view"],
                c["key"],
                c["kind"],
                c["watch"],
                [lat.Step(**s) for s in c["steps"]],
                c.get("run", 0),
                tuple(c["bare_at"]) if c.get("bare_at") is not None else None,
            )
            for c in doc["controls"]
        ]
        runs = doc.get("runs") or [doc["meta"]]
        bare_runs = doc["bare"].get("runs") or [0] * len(bare_steps)
        _locate_bare(controls, list(bare_runs), runs)
        return cls(controls, bare_steps, list(bare_runs), runs)


def _locate_bare(
    controls: Sequence[Control], bare_runs: Sequence[int], runs: Sequence[dict]
) -> None:
    """Set ``bare_at`` of the controls of a run recorded before it was kept, where it follows
    from the order: a run takes one bare step every ``block`` control steps, control after
    control, and the file keeps both in that order; when the run's bare steps are exactly
    as many as its controls took (none of them forgotten since), the k-th control's are the
    next ones after the (k−1)-th's. A run with a control forgotten keeps ``None``."""
    for run, meta in enumerate(runs):
        mine = [c for c in controls if c.run == run and c.steps]
        if not mine or any(c.bare_at is not None for c in mine):
            continue
        block = int(meta.get("block") or DEFAULT_BLOCK)
        takes = [-(-len(c.steps) // block) for c in mine]
        at = [i for i, r in enumerate(bare_runs) if r == run]
        if not at or len(at) != sum(takes) or at[-1] - at[0] + 1 != len(at):
            continue  # a control forgotten (or the steps not in one stretch): not known
        start = at[0]
        for c, n in zip(mine, takes, strict=True):
            c.bare_at = (start, start + n)
            start += n


def report_from_json(path: Path) -> str:
    """Markdown (:func:`format_markdown`) from a results JSON written by this module."""
    results = Results.load(path)
    meta = "\n".join(f"- {line}" for line in results.run_lines())
    return format_markdown(results.rows(), lat.summarize(results.bare_steps), meta)


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.controls", description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=DEFAULT_STEPS, help="recorded steps per control")
    p.add_argument("--warmup", type=int, default=DEFAULT_WARMUP, help="unrecorded steps first")
    p.add_argument("--block", type=int, default=DEFAULT_BLOCK, help="control steps per bare step")
    p.add_argument("--pages", help="comma-separated slugs (default: every ready page)")
    p.add_argument(
        "--controls",
        help="comma-separated control keys, or a key in one view: key[view] (default: all of them)",
    )
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "controls.json")
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the controls already in --out and measure only the others (a new run)",
    )
    p.add_argument(
        "--minutes", type=float, help="start no control after this many minutes (then --resume)"
    )
    p.add_argument(
        "--forget",
        help="drop these pages, keys or key[view] from --out (to measure them again) and exit",
    )
    p.add_argument(
        "--no-fail-budget", action="store_true", help="exit 0 when only budgets are missed"
    )
    p.add_argument(
        "--markdown", type=Path, help="print the Markdown report of this results JSON and exit"
    )
    args = p.parse_args(argv)
    if args.steps < 1 or args.block < 1 or args.warmup < 0:
        p.error("--steps and --block must be ≥ 1, --warmup ≥ 0")
    if args.minutes is not None and args.minutes <= 0:
        p.error("--minutes must be > 0")
    args.controls = {k.strip() for k in (args.controls or "").split(",") if k.strip()}
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; see the module docstring for options and exit codes."""
    args = _parse_args(argv)
    if args.markdown:
        print(report_from_json(args.markdown), end="")
        return 0
    if args.forget:
        results = Results.load(args.out)
        gone = results.forget({n.strip() for n in args.forget.split(",") if n.strip()})
        results.save(args.out)
        print(f"{args.out}: forgot {', '.join(c.name for c in gone) or 'nothing'}")
        return 0
    slugs = [s.strip() for s in args.pages.split(",") if s.strip()] if args.pages else None
    concepts = lat.probed_concepts(slugs)
    if args.controls:  # only the pages of the controls asked for (a key is <slug>_<name>)
        concepts = [c for c in concepts if any(k.startswith(f"{c.slug}_") for k in args.controls)]
    results = Results.load(args.out) if args.resume and args.out.exists() else Results()
    steps = {m.get("steps") for m in results.runs}
    if steps - {args.steps}:
        print(f"ERROR {args.out} holds runs of {steps} steps a control, not {args.steps}")
        return 1
    results.runs.append(lat.run_meta(args))
    until = time.monotonic() + 60 * args.minutes if args.minutes else math.inf
    left: list[str] = []
    with lat._servers(True, False, args.out.parent) as (bare_url, app_url, _):
        assert app_url is not None
        try:
            with lat._browser() as browser:
                lat.warm_app(browser, app_url, args.out.parent / lat.APP_LOG)
                bare_target = lat.Target(lat.BARE_NAME, bare_url, *lat.BARE_PROBE)
                bare = lat._open_probe(browser, bare_target)
                for _ in range(args.warmup):
                    bare.step()
                for i, concept in enumerate(concepts):
                    print(f"{concept.slug}", file=sys.stderr)
                    if not measure_page(browser, app_url, concept, bare, results, args, until):
                        left = [c.slug for c in concepts[i:]]
                        break
        except (RuntimeError, PlaywrightError) as exc:
            print(f"ERROR {exc} (server logs: {args.out.parent}/latency-*.log)", file=sys.stderr)
            results.save(args.out)
            return 1
    results.save(args.out)
    table = results.rows()
    print("\n".join(results.run_lines()))
    print(format_rows(table, lat.summarize(results.bare_steps)))
    print(format_worst(table))
    skipped = [c.name for c in results.controls if c.watch is None]
    if skipped:
        print(f"changed nothing on screen (not measured): {', '.join(skipped)}")
    if left:
        print(
            f"stopped after {args.minutes:g} minutes; not all measured on: {', '.join(left)} "
            f"(go on with --resume --out {args.out})"
        )
    errors = 0
    for c in results.controls:
        for i, s in enumerate(c.steps):
            if s.error:
                errors += 1
                print(f"ERROR {c.name} step {i}: {s.error}")
    print(f"wrote {args.out}", file=sys.stderr)
    if errors:
        return 1
    over = [r for r in table if r.over]
    return 0 if not over or args.no_fail_budget else 2


if __name__ == "__main__":
    # a long run is often stopped with kill: unwind, so both servers stop (the JSON holds
    # every control finished so far)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
