"""Fixtures for the deployment tests: nginx (Debian package) and the replica cluster of
``deploy.cluster``; in CI a missing nginx is a failure, never a skip (.ci/run installs it
through ``make chromium``)."""

from __future__ import annotations

import os

import pytest

from deploy.cluster import nginx_binary


@pytest.fixture(scope="session")
def nginx() -> str:
    """The nginx binary."""
    found = nginx_binary()
    if found is None:
        message = "nginx not found: install Debian's nginx (make chromium installs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found
