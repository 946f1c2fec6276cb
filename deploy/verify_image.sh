#!/usr/bin/env bash
# Prove the Docker image builds and serves, with Podman on a machine without Docker or a
# registry (make verify-image):
#   1. the base image (python:3.11-slim-bookworm) made locally if absent (make_base_image.sh);
#   2. `podman build` of the Dockerfile with the machine's CA bundle and pip config mounted
#      and torch taken from the local CPU wheel folder (TORCH_INDEX_URL=/wheels);
#   3. the container started as the image says (non-root, read-only root filesystem, no
#      capabilities) on a free loopback port; /_stcore/health answers; the image's own
#      HEALTHCHECK passes;
#   4. headless Chromium loads the home page and a chart page and moves its slider
#      (deploy/browser_check.py); then the container is stopped and removed.
# Prints the build time and the image size (the image is kept: podman rmi to drop it).
# Env: IMAGE, BASE_IMAGE, PORT, SCREENSHOTS=DIR, NO_CACHE=1 (rebuild every layer),
# BUILD_ONLY=1 (stop after the build: make image).
set -euo pipefail
# shellcheck source=deploy/podman.sh
source "$(dirname "$0")/podman.sh"
cd "$ROOT_DIR"
PY="${PY:-$ROOT_DIR/.venv/bin/python}"

need_podman
"$DEPLOY_DIR/make_base_image.sh"

wheels="$(torch_wheel_dir || true)"
build_args=()
if [[ -n "$wheels" ]]; then
  echo "torch from the local wheel folder $wheels"
  build_args+=(--volume "$wheels:/wheels:ro" --build-arg TORCH_INDEX_URL=/wheels)
fi
# pip inside the build reaches PyPI through the machine's CA bundle, like pip outside it.
pipconf="$(mktemp)"
container="adlab-verify-$$"
cleanup() {
  podman rm --force --ignore "$container" >/dev/null 2>&1 || true
  rm -f "$pipconf"
}
trap cleanup EXIT
printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' >"$pipconf"

start=$(date +%s)
podman build --pull=never --format docker --network host \
  ${NO_CACHE:+--no-cache} \
  --volume "$CA_BUNDLE:/etc/ssl/certs/ca-certificates.crt:ro" \
  --volume "$pipconf:/etc/pip.conf:ro" \
  "${build_args[@]}" \
  --tag "$IMAGE" .
build_s=$(($(date +%s) - start))
size_mb=$(($(podman image inspect --format '{{.Size}}' "$IMAGE") / 1000000))
echo "built $IMAGE in ${build_s} s; image size ${size_mb} MB"
if [[ -n "${BUILD_ONLY:-}" ]]; then exit 0; fi

port="${PORT:-$("$PY" -c 'from bench.server import free_port; print(free_port())')}"
# --health-interval disable: no systemd here for Podman's healthcheck timer; the check is
# run once by hand below.
podman run --detach --name "$container" --network host --health-interval disable \
  --read-only --tmpfs /tmp --tmpfs /home/app \
  --cap-drop ALL --security-opt no-new-privileges \
  --volume "$CA_BUNDLE:/etc/ssl/certs/ca-certificates.crt:ro" \
  --env STREAMLIT_SERVER_ADDRESS=127.0.0.1 --env STREAMLIT_SERVER_PORT="$port" \
  "$IMAGE" 2> >(grep -v 'systemd connection' >&2) >/dev/null
url="http://127.0.0.1:$port"

if ! "$PY" -c "from bench.server import wait_healthy; wait_healthy('$url', timeout=120)"; then
  podman logs "$container" | tail -40
  exit 1
fi
echo "$url/_stcore/health: ok"
user="$(podman exec "$container" id -u)"
[[ "$user" != 0 ]] || { echo "the app runs as root" >&2; exit 1; }
echo "the app runs as uid $user"
podman healthcheck run "$container" && echo "image HEALTHCHECK: healthy"

"$PY" "$DEPLOY_DIR/browser_check.py" "$url" ${SCREENSHOTS:+--screenshots "$SCREENSHOTS"}
if podman logs "$container" 2>&1 | grep -E "Traceback|Error" >/dev/null; then
  podman logs "$container" | tail -40
  echo "the container logged an error" >&2
  exit 1
fi
# (Podman complains that it has no systemd timer to remove: there never was one.)
podman stop --time 10 "$container" >/dev/null 2>&1
echo "verified: $IMAGE (${size_mb} MB, built in ${build_s} s)"
