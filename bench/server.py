"""Start a real ``streamlit run`` server on a free loopback port (tests and benchmarks).

>>> with streamlit_server(ROOT / "app.py") as server:   # doctest: +SKIP
...     print(server.url, server.pid)                    # http://127.0.0.1:PORT 12345
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def chromium_path() -> str:
    """The system Chromium (Playwright must not download its own)."""
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if candidate and Path(candidate).is_file():
            return candidate
    raise RuntimeError("Chromium not found: install the Debian package 'chromium'")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r,
        ):
            if r.status == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"Streamlit at {url} did not become healthy in {timeout:.0f} s")


@dataclass(frozen=True)
class RunningServer:
    url: str
    port: int
    pid: int


@contextlib.contextmanager
def streamlit_server(
    script: Path,
    *,
    cwd: Path | None = None,
    port: int | None = None,
    extra_args: list[str] | None = None,
    log_path: Path | None = None,
) -> Iterator[RunningServer]:
    """Run ``streamlit run script`` on 127.0.0.1 and yield its URL, port and pid.

    ``cwd`` decides which ``.streamlit/config.toml`` applies: the project root for the app,
    an empty folder for the bare baseline app ("default settings").
    """
    port = port or free_port()
    args = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(script),
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        *(extra_args or []),
    ]
    log = open(log_path, "wb") if log_path else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(args, cwd=cwd or ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url)
        yield RunningServer(url=url, port=port, pid=proc.pid)
    finally:
        stop(proc)
        if log_path:
            log.close()


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after 10 s; wait for the process either way."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# Resolves once the Plotly chart inside ``.st-key-<key>`` differs from the given HTML.
CHART_REDRAWN_JS = """([key, before]) => {
    const el = document.querySelector(`.st-key-${key} .js-plotly-plot`);
    return el && el.innerHTML !== before;
}"""


def rss_mib(pid: int) -> float:
    """Resident memory of a process in MiB (from /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")
