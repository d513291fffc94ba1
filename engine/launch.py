"""Starting a shim: spawn it detached, read its ready line, reap the short-lived parent."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from typing import Any

SHIM_MODULE = "jobs_tui.engine.shim"
ENGINE_DIR = os.path.dirname(os.path.abspath(__file__))
# Skip `site` (-I -S): the shim needs only the stdlib and its own package, whose
# modules are found through a package object made here instead of through site-packages.
_BOOTSTRAP = (
    "import sys, types\n"
    "top = types.ModuleType('jobs_tui'); top.__path__ = []\n"
    "eng = types.ModuleType('jobs_tui.engine'); eng.__path__ = [sys.argv[1]]\n"
    "sys.modules.update({'jobs_tui': top, 'jobs_tui.engine': eng})\n"
    "from jobs_tui.engine import shim\n"
    "sys.exit(shim.main(sys.argv[1:]))\n"
)


def shim_command(spec_json: str) -> list[str]:
    if sys.platform.startswith("linux"):  # elsewhere procs needs psutil from site-packages
        return [sys.executable, "-I", "-S", "-c", _BOOTSTRAP, ENGINE_DIR, spec_json]
    return [sys.executable, "-m", SHIM_MODULE, spec_json]


ENV_SHIM_STDERR = "JOBS_TUI_SHIM_STDERR"  # a file for shim tracebacks, when debugging


class LaunchError(RuntimeError):
    """The shim could not start the job."""


def launch(
    spec: dict[str, Any], timeout: float = 15.0, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Blocking: returns the shim's ready message ({pid, startToken, shimPid, shimToken}).

    `env` extends the shim's environment, which the job inherits (never argv: that is
    readable by every user through /proc).
    """
    ready_r, ready_w = os.pipe()
    args = shim_command(json.dumps({**spec, "readyFd": ready_w}))
    err_path = os.environ.get(ENV_SHIM_STDERR)
    stderr = open(err_path, "ab") if err_path else subprocess.DEVNULL  # noqa: SIM115
    try:
        proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            pass_fds=(ready_w,),
            start_new_session=True,
            close_fds=True,
            env={**os.environ, **env} if env else None,
        )
    except OSError as exc:
        os.close(ready_r)
        os.close(ready_w)
        raise LaunchError(f"could not start the job supervisor: {exc}") from exc
    finally:
        if err_path:
            stderr.close()
    os.close(ready_w)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise LaunchError("the job supervisor did not report ready in time")
            readable, _, _ = select.select([ready_r], [], [], left)
            if not readable:
                continue
            chunk = os.read(ready_r, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(ready_r)
        proc.wait()
    raw = b"".join(chunks)
    try:
        ready = json.loads(raw)
    except ValueError as exc:
        raise LaunchError(f"the job supervisor failed to start (exit {proc.returncode})") from exc
    if "error" in ready:
        raise LaunchError(f"the job supervisor could not start the command: {ready['error']}")
    return ready
