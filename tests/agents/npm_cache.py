"""npm packages the agent tests run, installed once into a cache directory and reused.

The agent tests (`python -m pytest -m agents`, never in the default run) drive the clients
people use, which come from npm; installing them on every run would cost a minute and the
registry's goodwill, so each package lives in its own `npm install --prefix` directory
under ~/.cache/jobs-tui-tests/npm (JOBS_TUI_TEST_CACHE moves it), installed under a lock
so parallel workers do it once.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

INSTALL_TIMEOUT_S = 300


def cache_root() -> Path:
    base = os.environ.get("JOBS_TUI_TEST_CACHE") or str(Path.home() / ".cache" / "jobs-tui-tests")
    return Path(base) / "npm"


def installed_version(prefix: Path, package: str) -> str | None:
    manifest = prefix / "node_modules" / package / "package.json"
    try:
        return str(json.loads(manifest.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


def npm_package(name: str, package: str, major: int) -> Path:
    """The prefix directory holding `package@major`, installing it there if it is not yet."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            pytest.fail(f"the agents tests need {tool} on PATH (node 20 or later)")
    prefix = cache_root() / name
    prefix.mkdir(parents=True, exist_ok=True)
    with open(prefix / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        version = installed_version(prefix, package)
        if version is None or version.split(".")[0] != str(major):
            done = subprocess.run(
                [
                    "npm",
                    "install",
                    "--prefix",
                    str(prefix),
                    "--no-audit",
                    "--no-fund",
                    f"{package}@{major}",
                ],
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT_S,
            )
            if done.returncode != 0:
                pytest.fail(f"npm install {package}@{major} failed:\n{done.stderr[-2000:]}")
    return prefix
