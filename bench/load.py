"""Load test: N simulated browsers on one page, each moving a slider with think time.

Every session speaks Streamlit's websocket protocol like the frontend does (see
``bench/st_protocol.py``): it opens the page, then drags the page's probe slider to a random
other stop, waits for the run to finish, thinks, and repeats until ``--duration``. It prints
rerun times (send of the widget change -> ``script_finished`` of that run), payload bytes per
rerun, errors by kind and the server's resident memory, and exits 1 if there was any error.

    python -m bench.load                                  # app.py, attention maps, 100 x 60 s
    python -m bench.load --sessions 20 --duration 30 --script bench/bare_app.py \\
        --slider bare_slider                              # the bare baseline, default config
    python -m bench.load --soak 600 --after 120           # memory stays bounded?
    python -m bench.load --soak 600 --server-arg=--runner.postScriptGC=true   # vs default GC
    python -m bench.load --url http://127.0.0.1:8501 --pid 1234   # an already running server

Only loopback targets are allowed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import math
import random
import resource
import socket
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.server import ROOT, rss_mib, streamlit_server
from bench.st_protocol import BrowserSession, Run, SessionError

# Errors after which a session cannot go on (it closes; the others keep going).
FATAL_KINDS = {"connect", "connection_closed", "slider_not_found", "protocol", "cache_miss"}
MAX_ERROR_SAMPLES = 5


# ---------------------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------------------


def think_range(text: str) -> tuple[float, float]:
    """Parse ``LOW:HIGH`` seconds (or a single number) into a range."""
    low, _, high = text.partition(":")
    lo, hi = float(low), float(high or low)
    if not 0 <= lo <= hi:
        raise argparse.ArgumentTypeError(f"think range must be 0 <= LOW <= HIGH, got {text!r}")
    return lo, hi


# The default page and the Streamlit slider its sessions move. Attention maps' d reruns the
# page's part (embeddings, map, every query's row) as most controls do; the live controls of
# ui/live.py (softmax's T, attention maps' query) send a component's value, not a slider's.
DEFAULT_PAGE, DEFAULT_SLIDER = "attention_maps", "attention_maps_d"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n\n")[0])
    p.add_argument("--sessions", type=int, default=100, help="concurrent browsers (100)")
    p.add_argument("--duration", type=float, default=60.0, help="seconds of load (60)")
    p.add_argument("--think", type=think_range, default=(0.5, 1.5), help="LOW:HIGH s (0.5:1.5)")
    p.add_argument("--ramp", type=float, default=5.0, help="spread session starts over s (5)")
    p.add_argument(
        "--page", help=f"URL path of the page (default: {DEFAULT_PAGE}; '' with --script)"
    )
    p.add_argument(
        "--slider",
        help=f"user key of the slider (default: {DEFAULT_SLIDER} on {DEFAULT_PAGE}, else the "
        "page's probe)",
    )
    p.add_argument("--script", help="run this script instead of app.py, with default config")
    p.add_argument("--url", help="target a running server, e.g. http://127.0.0.1:8501")
    p.add_argument("--pid", type=int, help="with --url: the server pid whose RSS to sample")
    p.add_argument("--soak", type=float, help="run the load this long instead of --duration")
    p.add_argument(
        "--after",
        type=float,
        default=120.0,
        help="soak: sample RSS this long after closing all sessions (120); Streamlit may drop "
        "disconnected sessions only after server.disconnectedSessionTTL = 120 s",
    )
    p.add_argument("--sample-every", type=float, default=2.0, help="RSS sampling period s (2)")
    p.add_argument("--timeout", type=float, default=30.0, help="per-run timeout s (30)")
    p.add_argument("--seed", type=int, default=1, help="random seed (1)")
    p.add_argument(
        "--server-arg",
        action="append",
        default=[],
        help="extra 'streamlit run' argument, e.g. --server-arg=--runner.postScriptGC=true",
    )
    p.add_argument("--out", type=Path, default=ROOT / "bench/results/load.json")
    args = p.parse_args(argv)
    if args.sessions < 1 or args.duration <= 0 or args.timeout <= 0:
        p.error("--sessions, --duration and --timeout must be positive")
    if args.url and args.server_arg:
        p.error("--server-arg only applies when bench.load starts the server")
    if args.page is None:
        args.page = "" if args.script else DEFAULT_PAGE
    if args.slider is None:
        args.slider = DEFAULT_SLIDER if args.page == DEFAULT_PAGE else default_slider(args.page, p)
    return args


def default_slider(page: str, parser: argparse.ArgumentParser) -> str:
    """The probe slider key registered for ``page`` in ui/registry.py."""
    from ui.registry import concept

    try:
        probe = concept(page).probe
    except KeyError:
        probe = None
    if probe is None:
        parser.error(f"page {page!r} has no registered probe: give --slider KEY")
    return probe[0]


def require_loopback(url: str) -> None:
    """Refuse any target whose host does not resolve only to 127.0.0.0/8 or ::1.

    Raises:
        SystemExit: for a non-loopback or unresolvable host.
    """
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https", "ws", "wss"} or not parts.hostname:
        raise SystemExit(f"bench.load: not an http(s) URL: {url!r}")
    try:
        infos = socket.getaddrinfo(parts.hostname, parts.port or 80, proto=socket.IPPROTO_TCP)
    except socket.gaierror as exc:
        raise SystemExit(f"bench.load: cannot resolve {parts.hostname!r}: {exc}") from exc
    addresses = {ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos}
    if not addresses or not all(a.is_loopback for a in addresses):
        shown = ", ".join(sorted(map(str, addresses)))
        raise SystemExit(f"bench.load: refusing non-loopback target {parts.hostname} ({shown})")


# ---------------------------------------------------------------------------------------
# Measurements
# ---------------------------------------------------------------------------------------


@dataclass
class Recorder:
    """Everything the sessions and samplers measure, shared by all tasks."""

    t0: float = field(default_factory=time.monotonic)
    loads: list[Run] = field(default_factory=list)
    reruns: list[Run] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: dict[str, list[str]] = field(default_factory=dict)
    rss: list[tuple[float, float, str]] = field(default_factory=list)
    loop_lag: list[float] = field(default_factory=list)
    unsupported_widgets: set[str] = field(default_factory=set)
    fragment_ids: set[str] = field(default_factory=set)
    slider_kind: str = ""
    sessions_started: int = 0
    sessions_loaded: int = 0
    sessions_lost: int = 0
    phase: str = "load"

    def error(self, kind: str, detail: str) -> None:
        self.errors[kind] += 1
        samples = self.error_samples.setdefault(kind, [])
        if len(samples) < MAX_ERROR_SAMPLES and detail not in samples:
            samples.append(detail)

    def add(self, run: Run) -> None:
        (self.loads if run.kind == "load" else self.reruns).append(run)


async def sample_rss(pid: int, every: float, rec: Recorder) -> None:
    """Append ``(seconds since start, VmRSS MiB, phase)`` every ``every`` seconds."""
    while True:
        try:
            mib = rss_mib(pid)
        except OSError:
            rec.error("server_exited", f"pid {pid} is gone")
            return
        rec.rss.append((round(time.monotonic() - rec.t0, 2), round(mib, 1), rec.phase))
        await asyncio.sleep(every)


async def sample_loop_lag(rec: Recorder, period: float = 0.1) -> None:
    """How late this client's event loop wakes up: if high, the client is the bottleneck."""
    while True:
        start = time.perf_counter()
        await asyncio.sleep(period)
        rec.loop_lag.append(time.perf_counter() - start - period)


# ---------------------------------------------------------------------------------------
# Sessions
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """What every simulated user does."""

    url: str
    page: str
    slider: str
    think: tuple[float, float]
    timeout: float
    deadline: float  # time.monotonic() after which no new interaction starts
    seed: int


async def run_user(index: int, start_in: float, plan: Plan, rec: Recorder) -> None:
    """One browser: open the page, then move the slider with think time until the deadline."""
    await asyncio.sleep(start_in)
    if time.monotonic() >= plan.deadline:
        return
    rng = random.Random(plan.seed * 100_003 + index)
    session = BrowserSession(plan.url, plan.page, plan.slider, rec.error, rng)
    rec.sessions_started += 1
    try:
        await session.connect(plan.timeout)
        rec.add(await session.open_page(plan.timeout))
        rec.sessions_loaded += 1
        note_probe(session, rec)
        await interact(session, rng, plan, rec)
    except SessionError as exc:
        rec.error(exc.kind, exc.detail)
        rec.sessions_lost += 1
    except Exception as exc:  # a bug in this client: count it, keep the other sessions going
        rec.error("client", repr(exc))
        rec.sessions_lost += 1
    finally:
        rec.unsupported_widgets |= session.unsupported
        await session.close()


def note_probe(session: BrowserSession, rec: Recorder) -> None:
    probe = session.probe
    if probe is not None:
        rec.slider_kind = "select_slider" if probe.proto.options else "slider"
        if probe.fragment_id:
            rec.fragment_ids.add(probe.fragment_id)


async def interact(session: BrowserSession, rng: random.Random, plan: Plan, rec: Recorder) -> None:
    """Think, move, wait; non-fatal errors (timeouts, bad statuses) are counted and survived."""
    while True:
        think = rng.uniform(*plan.think)
        if time.monotonic() + think >= plan.deadline:
            return
        await asyncio.sleep(think)
        try:
            rec.add(await session.move_slider(plan.timeout))
        except SessionError as exc:
            if exc.kind in FATAL_KINDS:
                raise
            rec.error(exc.kind, exc.detail)


async def run_load(args: argparse.Namespace, url: str, pid: int | None) -> Recorder:
    """Run all sessions (and, in soak mode, the idle period) while sampling memory."""
    rec = Recorder()
    samplers = [asyncio.create_task(sample_loop_lag(rec))]
    if pid is not None:
        samplers.append(asyncio.create_task(sample_rss(pid, args.sample_every, rec)))
    await asyncio.sleep(0)  # the first RSS sample: before any session
    load_seconds = args.soak or args.duration
    plan = Plan(
        url=url,
        page=args.page,
        slider=args.slider,
        think=args.think,
        timeout=args.timeout,
        deadline=time.monotonic() + load_seconds,
        seed=args.seed,
    )
    ramp = min(args.ramp, load_seconds / 2)
    starts = [ramp * i / args.sessions for i in range(args.sessions)]
    users = [run_user(i, start, plan, rec) for i, start in enumerate(starts)]
    # In-flight runs may finish after the deadline, each bounded by its own timeout.
    await asyncio.wait_for(asyncio.gather(*users), load_seconds + 2 * args.timeout + 30)
    rec.phase = "idle"
    await asyncio.sleep(args.after if args.soak else min(args.sample_every, 2.0))
    for task in samplers:
        task.cancel()
    await asyncio.gather(*samplers, return_exceptions=True)
    return rec


# ---------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in 0..100), None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def spread(values: list[float], scale: float = 1.0, digits: int = 1) -> dict[str, Any]:
    """``n``, ``p50``, ``p95`` and ``max`` of ``values`` times ``scale``."""
    out: dict[str, Any] = {"n": len(values)}
    for name, q in (("p50", 50), ("p95", 95), ("max", 100)):
        v = percentile(values, q)
        out[name] = None if v is None else round(v * scale, digits)
    return out


def slope_per_minute(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of ``(seconds, value)`` points, in value per minute."""
    if len(points) < 3:
        return None
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    var = sum((t - mean_t) ** 2 for t, _ in points)
    if var == 0:
        return None
    cov = sum((t - mean_t) * (v - mean_v) for t, v in points)
    return round(cov / var * 60, 2)


def memory_summary(rss: list[tuple[float, float, str]]) -> dict[str, Any]:
    """RSS at start, peak, end of load, after idle, and the trend of the load's 2nd half."""
    load = [(t, v) for t, v, phase in rss if phase == "load"]
    idle = [(t, v) for t, v, phase in rss if phase == "idle"]
    if not load:
        return {}
    half = load[-1][0] / 2
    return {
        "start_mib": load[0][1],
        "peak_mib": max(v for _, v, _ in rss),
        "end_of_load_mib": load[-1][1],
        "after_idle_mib": idle[-1][1] if idle else None,
        "idle_seconds": round(idle[-1][0] - load[-1][0], 1) if idle else 0,
        "load_2nd_half_slope_mib_per_min": slope_per_minute([p for p in load if p[0] >= half]),
        "idle_slope_mib_per_min": slope_per_minute(idle),
    }


def summarize(args: argparse.Namespace, url: str, rec: Recorder, wall: float) -> dict[str, Any]:
    finished = [r for r in rec.reruns if r.seconds is not None]
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "target": {
            "url": url,
            "page": args.page,
            "slider": args.slider,
            "slider_kind": rec.slider_kind,
            "fragment_ids": sorted(rec.fragment_ids),
            "script": "external server" if args.url else args.script or "app.py",
            "server_args": args.server_arg,
        },
        "config": {
            "sessions": args.sessions,
            "load_seconds": args.soak or args.duration,
            "think": list(args.think),
            "ramp": args.ramp,
            "timeout": args.timeout,
            "soak": bool(args.soak),
            "after": args.after if args.soak else 0,
            "seed": args.seed,
        },
        "sessions": {
            "started": rec.sessions_started,
            "loaded": rec.sessions_loaded,
            "lost": rec.sessions_lost,
        },
        "page_load_ms": spread([r.seconds for r in rec.loads if r.seconds is not None], 1000),
        "rerun_ms": spread([r.seconds for r in finished], 1000),
        "fragment_reruns": sum(r.fragment for r in finished),
        "st_rerun_calls": {
            "load": sum(r.script_reruns for r in rec.loads),
            "rerun": sum(r.script_reruns for r in rec.reruns),
        },
        "reruns_per_s": round(len(finished) / (args.soak or args.duration), 1),
        "bytes_per_rerun": spread([float(r.bytes) for r in finished], 1, 0),
        "messages_per_rerun": spread([float(r.messages) for r in finished], 1, 0),
        "errors": dict(rec.errors),
        "error_samples": rec.error_samples,
        "unsupported_widgets": sorted(rec.unsupported_widgets),
        "memory": memory_summary(rec.rss),
        "rss_samples": rec.rss,
        "client": {
            "loop_lag_ms": spread(rec.loop_lag, 1000),
            "cpu_s": round(cpu.ru_utime + cpu.ru_stime, 1),
            "wall_s": round(wall, 1),
        },
    }


def _ms(s: dict[str, Any]) -> str:
    if not s["n"]:
        return "n=0"
    return f"n={s['n']:<6} p50 {s['p50']:>7} ms   p95 {s['p95']:>7} ms   max {s['max']:>7} ms"


def _kib(s: dict[str, Any]) -> str:
    if not s["n"]:
        return "n/a"
    return f"p50 {s['p50'] / 1024:.1f} KiB   p95 {s['p95'] / 1024:.1f} KiB"


def _mib(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.0f} MiB"


def _slope(v: float | None) -> str:
    return "n/a" if v is None else f"{v:+.2f} MiB/min"


def format_report(r: dict[str, Any]) -> str:
    t, c, m = r["target"], r["config"], r["memory"]
    where = "in fragment" if t["fragment_ids"] else "not in a fragment"
    lines = [
        f"bench.load: {c['sessions']} sessions x {c['load_seconds']:.0f} s on {t['url']}"
        f"/{t['page']}  ({' '.join([t['script'], *t['server_args']])})",
        f"  probe       {t['slider']} ({t['slider_kind'] or '?'}, {where}), "
        f"think {c['think'][0]}-{c['think'][1]} s",
        f"  sessions    started {r['sessions']['started']}, page loaded "
        f"{r['sessions']['loaded']}, lost {r['sessions']['lost']}",
        f"  page load   {_ms(r['page_load_ms'])}",
        f"  rerun       {_ms(r['rerun_ms'])}",
        f"              {r['fragment_reruns']} fragment reruns, {r['reruns_per_s']} reruns/s, "
        f"st.rerun() in {r['st_rerun_calls']['load']} loads/{r['st_rerun_calls']['rerun']} reruns",
        f"  bytes/rerun {_kib(r['bytes_per_rerun'])}   (websocket payload, decompressed)",
    ]
    if m:
        lines.append(
            f"  server RSS  start {_mib(m['start_mib'])}   peak {_mib(m['peak_mib'])}   "
            f"end of load {_mib(m['end_of_load_mib'])}"
            + (
                f"   after {m['idle_seconds']:.0f} s idle {_mib(m['after_idle_mib'])}"
                if m["after_idle_mib"] is not None and c["soak"]
                else ""
            )
        )
        lines.append(
            f"  RSS trend   {_slope(m['load_2nd_half_slope_mib_per_min'])} over the load's "
            f"2nd half" + (f", {_slope(m['idle_slope_mib_per_min'])} idle" if c["soak"] else "")
        )
    else:
        lines.append("  server RSS  n/a (give --pid with --url)")
    lag = r["client"]["loop_lag_ms"]
    lines.append(
        f"  client      CPU {r['client']['cpu_s']} s in {r['client']['wall_s']} s, "
        f"event-loop lag p95 {lag['p95']} ms max {lag['max']} ms"
    )
    if r["unsupported_widgets"]:
        lines.append(f"  note        widget states not sent for: {r['unsupported_widgets']}")
    total = sum(r["errors"].values())
    lines.append(f"  errors      {total}")
    for kind, count in sorted(r["errors"].items()):
        lines.append(f"    {kind}: {count}   e.g. {r['error_samples'][kind][0][:120]!r}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def target(args: argparse.Namespace) -> Iterator[tuple[str, int | None]]:
    """Yield ``(base URL, server pid or None)``: the given server, or one started here."""
    if args.url:
        require_loopback(args.url)
        yield args.url.rstrip("/"), args.pid
        return
    script = Path(args.script) if args.script else ROOT / "app.py"
    script = script if script.is_absolute() else ROOT / script
    if not script.is_file():
        raise SystemExit(f"bench.load: no such script {script}")
    log = args.out.with_name(args.out.stem + "_server.log")
    with contextlib.ExitStack() as stack:
        # --script runs with default settings: an empty folder has no .streamlit/config.toml.
        cwd = Path(stack.enter_context(tempfile.TemporaryDirectory())) if args.script else None
        server = stack.enter_context(
            streamlit_server(script, cwd=cwd, extra_args=args.server_arg, log_path=log)
        )
        yield server.url, server.pid


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with target(args) as (url, pid):
        start = time.monotonic()
        rec = asyncio.run(run_load(args, url, pid))
        report = summarize(args, url, rec, time.monotonic() - start)
    args.out.write_text(json.dumps(report, indent=1))
    print(format_report(report))
    print(f"  written     {args.out}")
    return 1 if report["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
