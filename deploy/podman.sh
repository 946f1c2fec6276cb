# shellcheck shell=bash disable=SC2034  # (variables used by the scripts that source it)
# Sourced by the deploy scripts: run Podman the way this kind of machine needs.
#
# - runtime runc: crun fails on this machine's cgroup layout (cgroup v1 controllers, no
#   systemd);
# - default_ulimits = []: Podman's default open-files limit is above this machine's hard
#   limit, so every container start would fail;
# - host networking (no CNI/netavark bridge here) and --pull=never (no registry reachable).
#
# The settings live in deploy/podman/containers.conf, selected with CONTAINERS_CONF, so the
# machine's /etc/containers is left alone. On a machine with Docker none of this is needed:
# `docker build -t adlab .` is enough.

DEPLOY_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT_DIR="$(dirname "$DEPLOY_DIR")"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$DEPLOY_DIR/podman/containers.conf}"

# The Dockerfile's base image, as real users pull it; here it is made by make_base_image.sh.
BASE_IMAGE="${BASE_IMAGE:-docker.io/library/python:3.11-slim-bookworm}"
IMAGE="${IMAGE:-localhost/adlab:latest}"
# The machine's CA bundle (PyPI is reached through it) and pip's local wheel folder.
CA_BUNDLE="${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"

need_podman() {
  local missing=()
  for cmd in podman runc; do
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
  done
  if ((${#missing[@]})); then
    echo "Installing Debian's podman and runc" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      podman runc uidmap >/dev/null
  fi
}

# The folder pip takes the torch CPU wheel from (pip's configured find-links), if any.
torch_wheel_dir() {
  local dir
  for dir in ${PIP_FIND_LINKS:-} $(pip config get global.find-links 2>/dev/null || true) /opt/wheels; do
    if compgen -G "$dir/torch-*+cpu-cp311-*.whl" >/dev/null; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}
