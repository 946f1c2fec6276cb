"""The cohort's nginx main configuration (deploy/nginx-main.conf, mounted by compose.yaml)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAIN = ROOT / "deploy" / "nginx-main.conf"


def test_compose_mounts_the_main_config_and_the_site():
    compose = (ROOT / "deploy" / "compose.yaml").read_text()
    assert "./nginx-main.conf:/etc/nginx/nginx.conf:ro" in compose
    assert "./nginx.conf:/etc/nginx/conf.d/default.conf:ro" in compose


def test_main_config_leaves_room_for_two_connections_per_student():
    text = MAIN.read_text()
    connections = int(re.search(r"worker_connections\s+(\d+);", text).group(1))
    files = int(re.search(r"worker_rlimit_nofile\s+(\d+);", text).group(1))
    assert connections >= 2 * 2000  # a cohort of 2,000 students on one worker
    assert files >= 2 * connections  # a socket to the student and one to the replica
    assert "include /etc/nginx/conf.d/*.conf;" in text


def test_main_config_with_the_site_passes_nginx_own_check(nginx, tmp_path):
    """``nginx -t`` on the main file with deploy/nginx.conf as its only site (replica
    names resolved as in compose are replaced by a loopback address)."""
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    site = re.sub(r"server\s+app:8501", "server 127.0.0.1:8501", site)
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "default.conf").write_text(site)
    main = MAIN.read_text().replace("/etc/nginx/conf.d/", f"{tmp_path}/conf.d/")
    main = main.replace("/var/log/nginx/", f"{tmp_path}/").replace("/run/", f"{tmp_path}/")
    (tmp_path / "nginx.conf").write_text(main)
    done = subprocess.run(
        [nginx, "-t", "-c", str(tmp_path / "nginx.conf"), "-e", str(tmp_path / "error.log")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
