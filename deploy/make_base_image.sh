#!/usr/bin/env bash
# Make a stand-in for the Dockerfile's base image (python:3.11-slim-bookworm) where no
# container registry is reachable: a minimal Debian bookworm root made with debootstrap from
# Debian's own packages, with Debian's Python 3.11 and pip, imported into Podman and tagged
# with the base image's name. Real users never need this: their engine pulls the real image.
#
#   deploy/make_base_image.sh            # skips the work if the tag exists already
#   deploy/make_base_image.sh --force    # rebuild it
#
# Needs root (debootstrap) and Debian's debootstrap + podman (installed if missing).
set -euo pipefail
# shellcheck source=deploy/podman.sh
source "$(dirname "$0")/podman.sh"

MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
force=0
[[ "${1:-}" == "--force" ]] && force=1

need_podman
if ((!force)) && podman image exists "$BASE_IMAGE"; then
  echo "base image $BASE_IMAGE exists (use --force to rebuild)"
  exit 0
fi
command -v debootstrap >/dev/null 2>&1 || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
}

rootfs="$(mktemp -d "${TMPDIR:-/var/tmp}/adlab-base.XXXXXX")"
trap 'rm -rf "$rootfs"' EXIT
start=$(date +%s)

# minbase = Priority: required only (no apt recommends); python3-venv brings ensurepip.
debootstrap --variant=minbase \
  --include=python3,python3-pip,python3-venv,python-is-python3,ca-certificates,netbase,tzdata \
  bookworm "$rootfs" "$MIRROR"

# As in the official image: pip may install into the system Python (it is the image's only
# Python), no package lists, docs or caches left behind.
rm -f "$rootfs"/usr/lib/python3.11/EXTERNALLY-MANAGED
chroot "$rootfs" apt-get clean
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/log/* \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
  "$rootfs"/usr/share/locale/* "$rootfs"/tmp/*

version="$(chroot "$rootfs" python3 -c 'import platform; print(platform.python_version())')"
tar --numeric-owner -C "$rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change "ENV PYTHON_VERSION=$version" \
  --change 'CMD ["python3"]' \
  --message "debootstrap bookworm + Debian python3 $version (stand-in for $BASE_IMAGE)" \
  - "$BASE_IMAGE" >/dev/null
echo "made $BASE_IMAGE (Python $version) in $(($(date +%s) - start)) s:"
podman image ls "$BASE_IMAGE"
