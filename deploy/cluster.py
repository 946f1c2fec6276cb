"""N real ``streamlit run app.py`` replicas behind nginx (Debian package) on loopback.

nginx runs as a plain foreground process with deploy/nginx.conf, edited three ways: ``listen``
on a free loopback port, the upstream ``server app:8501`` line replaced by one line per
replica (same parameters), and an ``X-Upstream: $upstream_addr`` response header that names
the replica that answered (on failover nginx lists every address it tried; the last served).
Used by tests/deploy/test_replicas.py and, from the command line, for load tests:

    python -m deploy.cluster --replicas 2                   # serve until Ctrl-C
    python -m deploy.cluster --replicas 2 -- python -m bench.load --url {url} --sessions 100
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench.server import ROOT, free_port, stop, streamlit_server

NGINX_CONF = ROOT / "deploy" / "nginx.conf"
NGINX_MAIN_CONF = ROOT / "deploy" / "nginx-main.conf"
COOKIE = "adlab_replica"

MAIN_CONF = """\
{user}worker_processes 1;
{limits}
pid {tmp}/nginx.pid;
error_log {tmp}/error.log notice;
events {{ {connections} }}
http {{
    log_format upstream '$remote_addr [$time_local] "$request" $status $body_bytes_sent '
                        'upstream=$upstream_addr cookie=$cookie_adlab_replica rt=$request_time';
    access_log {tmp}/access.log upstream;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {tmp}/adlab.conf;
}}
"""


def _cohort_limits() -> dict[str, str]:
    """The connection limits of the cohort's nginx (deploy/nginx-main.conf), as directives."""
    text = NGINX_MAIN_CONF.read_text()
    return {
        "limits": re.search(r"worker_rlimit_nofile\s+\d+;", text).group(0),
        "connections": re.search(r"worker_connections\s+\d+;", text).group(0),
    }


def nginx_binary() -> str | None:
    """The nginx binary (Debian's lives in /usr/sbin, not always on PATH), or None."""
    found = shutil.which("nginx") or "/usr/sbin/nginx"
    return found if Path(found).is_file() else None


def balancer_config(upstreams: list[str], port: int) -> str:
    """deploy/nginx.conf with the loopback listen port, the given replicas and X-Upstream."""
    text = NGINX_CONF.read_text()
    text, n = re.subn(r"(?m)^(\s*)listen\s+\d+;", rf"\g<1>listen 127.0.0.1:{port};", text)
    assert n == 1, "deploy/nginx.conf must have one 'listen PORT;' line"
    match = re.search(r"(?m)^(\s*)server app:8501([^;]*);$", text)
    assert match, "deploy/nginx.conf must have one 'server app:8501 ...;' upstream line"
    indent, params = match.groups()
    servers = "\n".join(f"{indent}server {u}{params};" for u in upstreams)
    text = text[: match.start()] + servers + text[match.end() :]
    text, n = re.subn(
        r"(?m)^(\s*)(add_header Set-Cookie .*;)$",
        r"\g<1>\g<2>\n\g<1>add_header X-Upstream $upstream_addr always;",
        text,
    )
    assert n == 1, "deploy/nginx.conf must set the cookie with one add_header line"
    return text


def wait_listening(port: int, proc: subprocess.Popen, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"nginx exited with {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.1)
    raise RuntimeError(f"nginx did not listen on {port} in {timeout:.0f} s")


@contextlib.contextmanager
def run_nginx(binary: str, upstreams: list[str], workdir: Path) -> Iterator[str]:
    """nginx in the foreground with the balancer config; yields its base URL."""
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    (workdir / "adlab.conf").write_text(balancer_config(upstreams, port))
    # As root, workers would run as 'nobody' and could not use the temp folders here.
    user = "user root;\n" if os.geteuid() == 0 else ""
    (workdir / "nginx.conf").write_text(
        MAIN_CONF.format(tmp=workdir, user=user, **_cohort_limits())
    )
    args = [binary, "-p", str(workdir), "-e", str(workdir / "error.log")]
    args += ["-c", str(workdir / "nginx.conf"), "-g", "daemon off;"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        wait_listening(port, proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


@dataclass
class Cluster:
    """nginx at ``url`` in front of replicas keyed by ``127.0.0.1:PORT`` (X-Upstream)."""

    url: str
    replicas: dict[str, contextlib.ExitStack] = field(default_factory=dict)
    logs: dict[str, Path] = field(default_factory=dict)

    def stop(self, addr: str) -> None:
        """Stop one replica's streamlit process (SIGTERM, then SIGKILL) and wait for it."""
        self.replicas.pop(addr).close()


@contextlib.contextmanager
def run_cluster(binary: str, workdir: Path, n: int = 2) -> Iterator[Cluster]:
    with contextlib.ExitStack() as outer:
        replicas: dict[str, contextlib.ExitStack] = {}
        logs: dict[str, Path] = {}
        for i in range(n):
            stack = outer.enter_context(contextlib.ExitStack())
            log = workdir / f"replica{i}.log"
            server = stack.enter_context(streamlit_server(ROOT / "app.py", log_path=log))
            addr = f"127.0.0.1:{server.port}"
            replicas[addr], logs[addr] = stack, log
        url = outer.enter_context(run_nginx(binary, list(replicas), workdir / "nginx"))
        yield Cluster(url=url, replicas=replicas, logs=logs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="N app replicas behind nginx on loopback.")
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--workdir", type=Path, help="logs and nginx config (a new temp dir)")
    parser.add_argument("command", nargs="*", help="run this with {url} replaced, then stop")
    args = parser.parse_args(argv)
    binary = nginx_binary()
    if binary is None:
        parser.error("nginx not found: install Debian's nginx (make chromium installs it)")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="adlab-cluster-"))
    workdir.mkdir(parents=True, exist_ok=True)
    with run_cluster(binary, workdir, args.replicas) as cluster:
        print(f"nginx {cluster.url} -> replicas {', '.join(cluster.replicas)} (logs: {workdir})")
        sys.stdout.flush()
        if not args.command:
            with contextlib.suppress(KeyboardInterrupt):
                signal.pause()
            return 0
        command = [part.replace("{url}", cluster.url) for part in args.command]
        return subprocess.run(command, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
