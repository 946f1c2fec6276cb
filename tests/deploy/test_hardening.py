"""The hardening settings stay in place: Streamlit's config, the Dockerfile, the build
context and the balancer. Each test names what it protects; removing a setting fails it."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from streamlit import config as st_config

from bench.server import ROOT

CONFIG = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
DOCKERFILE = (ROOT / "Dockerfile").read_text()
NGINX = re.sub(r"(?m)^\s*#.*\n", "", (ROOT / "deploy" / "nginx.conf").read_text())

HARDENED = {
    # XSRF token on uploads; the websocket only from the app's own origin.
    "server.enableXsrfProtection": True,
    "server.enableCORS": True,
    # Small uploads and websocket messages (MB).
    "server.maxUploadSize": 5,
    "server.maxMessageSize": 50,
    # No tracebacks and no developer menu for students.
    "client.showErrorDetails": "none",
    "client.toolbarMode": "viewer",
    # Nothing leaves the machine: no usage statistics, no external-IP lookup at startup.
    "browser.gatherUsageStats": False,
    "logger.hideWelcomeMessage": True,
    "server.headless": True,
}


def setting(key: str) -> object:
    section, name = key.split(".")
    return CONFIG.get(section, {}).get(name)


@pytest.mark.parametrize("key, expected", HARDENED.items(), ids=list(HARDENED))
def test_streamlit_config_keeps_its_hardening(key, expected):
    assert key in st_config._config_options_template, f"{key} is no Streamlit option (any more)"
    assert setting(key) == expected, f".streamlit/config.toml: {key} must be {expected!r}"


def test_upload_and_message_limits_stay_small():
    assert 0 < setting("server.maxUploadSize") <= 10
    assert 0 < setting("server.maxMessageSize") <= 50


def test_streamlit_is_pinned_past_the_published_advisories():
    (pin,) = re.findall(r"(?m)^streamlit==(\S+)$", (ROOT / "requirements.txt").read_text())
    assert tuple(int(x) for x in pin.split(".")[:2]) >= (1, 54), pin


# ---- Dockerfile --------------------------------------------------------------------------


def test_dockerfile_base_is_a_pinned_slim_python_311():
    (base,) = re.findall(r"(?m)^FROM\s+(\S+)", DOCKERFILE)
    assert re.fullmatch(r"python:3\.11(\.\d+)?-slim(-\w+)?(@sha256:[0-9a-f]{64})?", base), base


def test_dockerfile_runs_as_a_numeric_non_root_user():
    users = re.findall(r"(?m)^USER\s+(\S+)", DOCKERFILE)
    assert users, "no USER: the app would run as root"
    uid = users[-1].split(":")[0]
    assert uid.isdigit() and int(uid) != 0, users[-1]


def test_dockerfile_healthcheck_needs_no_extra_package():
    (check,) = re.findall(r"(?ms)^HEALTHCHECK\b.*?\n(?=\S|\Z)", DOCKERFILE)
    assert "urllib.request" in check and "/_stcore/health" in check
    assert not re.search(r"\b(curl|wget)\b", check)


def test_dockerfile_torch_is_the_cpu_build_from_a_build_argument():
    index = r"(?m)^ARG TORCH_INDEX_URL=https://download\.pytorch\.org/whl/cpu$"
    assert re.search(index, DOCKERFILE)
    assert "--no-deps" in DOCKERFILE and "--no-cache-dir" in DOCKERFILE
    assert "PIP_NO_CACHE_DIR=1" in DOCKERFILE
    assert "STREAMLIT_BROWSER_GATHER_USAGE_STATS=false" in DOCKERFILE


def local_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return {n for n in names if (ROOT / n).is_dir() or (ROOT / f"{n}.py").is_file()}


def test_the_image_gets_every_local_package_the_app_imports():
    copied = {
        Path(src).parts[0].rstrip("/")
        for line in re.findall(r"(?m)^COPY\s+(?!--from)(.+)$", DOCKERFILE)
        for src in line.split()[:-1]
        if not src.startswith("--")
    }
    needed: set[str] = set()
    todo = [ROOT / "app.py", *(ROOT / "pages").glob("*.py")]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in local_imports(path):
            needed.add(name)
            package = ROOT / name
            todo += list(package.rglob("*.py")) if package.is_dir() else [ROOT / f"{name}.py"]
    assert {"ui", "core"} <= needed, needed
    missing = needed - copied
    assert not missing, f"imported at run time but not copied into the image: {missing}"
    assert {"assets", ".streamlit"} <= copied


def test_dockerignore_keeps_tests_benchmarks_and_secrets_out():
    lines = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines[0] == "*", ".dockerignore should allow-list what the image needs"
    included = {line[1:].strip("/") for line in lines if line.startswith("!")}
    for private in ("tests", "bench", "artifacts", ".venv", ".git", ".ci", "deploy"):
        assert not any(inc == private or inc.startswith(f"{private}/") for inc in included)


def test_hadolint_finds_nothing():
    candidates = [
        shutil.which("hadolint"),
        ROOT / ".venv/bin/hadolint",
        ROOT / ".venv/tools/bin/hadolint",
    ]
    hadolint = next((str(c) for c in candidates if c and Path(c).is_file()), None)
    if hadolint is None:
        pytest.skip("hadolint not installed (make hadolint)")
    result = subprocess.run([hadolint, "Dockerfile"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout


# ---- nginx -------------------------------------------------------------------------------


def test_balancer_is_sticky_by_cookie_not_by_client_address():
    assert "ip_hash" not in NGINX and "$remote_addr" not in NGINX
    assert re.search(r"hash \$adlab_route consistent;", NGINX)
    assert re.search(r'""\s+\$request_id;', NGINX), "a browser without a cookie gets a new key"
    assert re.search(r"add_header Set-Cookie \$adlab_set_cookie;", NGINX)
    assert "HttpOnly" in NGINX and "SameSite=Lax" in NGINX


def test_balancer_proxies_websockets_and_fails_over():
    assert "proxy_set_header Upgrade $http_upgrade;" in NGINX
    assert "proxy_set_header Connection $adlab_connection;" in NGINX
    (timeout,) = re.findall(r"proxy_read_timeout (\d+)s;", NGINX)
    assert int(timeout) >= 600
    assert re.search(r"proxy_next_upstream error timeout http_502", NGINX)
    assert re.search(r"max_fails=\d+ fail_timeout=\d+s", NGINX)
    assert "server_tokens off;" in NGINX
    (body,) = re.findall(r"client_max_body_size (\d+)m;", NGINX)
    assert int(body) <= setting("server.maxUploadSize") + 2
