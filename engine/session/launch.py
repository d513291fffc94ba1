"""Starting a shim: its spec, spawn it detached, read its ready line, reap the short-lived
parent."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.registry import regfiles
from jobs_tui.engine.shim import cgroup, procs
from jobs_tui.engine.shim.protocol import ENV_OWNER_POLL

if TYPE_CHECKING:
    from jobs_tui.engine.config import Config
    from jobs_tui.engine.records.model import JobRecord
    from jobs_tui.engine.registry.paths import RegistryPaths
    from jobs_tui.engine.shim.protocol import Ready, StartSpec

SHIM_MODULE = "jobs_tui.engine.shim.main"
# The engine's folder (the shim's `jobs_tui.engine`), one up from this room's.
ENGINE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Skip `site` (-I -S): the shim needs only the stdlib and its own package, whose
# modules are found through a package object made here instead of through site-packages
# (an editable install's finder is itself a `site` import). `type(sys)` is the module
# type, without importing `types`.
_BOOTSTRAP = (
    "import sys\n"
    "top = type(sys)('jobs_tui'); top.__path__ = []\n"
    "eng = type(sys)('jobs_tui.engine'); eng.__path__ = [sys.argv[1]]\n"
    "sys.modules.update({'jobs_tui': top, 'jobs_tui.engine': eng})\n"
    "from jobs_tui.engine.shim import main as shim\n"
    "shim.exit_now(shim.main(sys.argv[1:]))\n"
)


def shim_command(spec_json: str) -> list[str]:
    if sys.platform.startswith("linux"):  # elsewhere procs needs psutil from site-packages
        return [sys.executable, "-I", "-S", "-c", _BOOTSTRAP, ENGINE_DIR, spec_json]
    return [sys.executable, "-m", SHIM_MODULE, spec_json]


ENV_SHIM_STDERR = "JOBS_TUI_SHIM_STDERR"  # a file for shim tracebacks, when debugging


def start_spec(
    record: JobRecord,
    paths: RegistryPaths,
    config: Config,
    owner: int | None,
    marker: str,
    cols: int,
    rows: int,
    declared: dict[str, Any] | None = None,
    shims: dict[str, tuple[int, str | None]] | None = None,
) -> StartSpec:
    """What the shim of `record` starts with: every path from `paths`, the owner it watches
    (None: a detached job, or a persistent session's), the job's marker; a declared job's
    rules (`declared`, see protocol) with its files' and its dependencies' files' paths."""
    job_id = record.id
    spec: StartSpec = {
        "id": job_id,
        "command": record.command,
        "cwd": record.cwd,
        "log": record.log_path,
        "previous": str(paths.previous_log(job_id)),
        "status": record.status_path or str(paths.status(job_id)),
        "end": str(paths.end(job_id)),
        "socket": str(paths.socket(job_id, create=True)),
        "maxLogBytes": config.max_log_bytes,
        "killGraceMs": config.kill_grace_ms,
        "timeoutMs": record.timeout_ms,
        "stdin": record.stdin,
        "tty": record.tty,
        "cols": cols,
        "rows": rows,
        "ownerPid": owner,
        "ownerToken": procs.start_token(owner) if owner else None,
        "ownerPoll": bool(os.environ.get(ENV_OWNER_POLL)),
        "marker": marker,
        "cgroup": cgroup.enabled(),  # the shim makes the job a cgroup of its own, if it may
    }
    if declared is not None:
        spec["declared"] = declared_spec(job_id, paths, declared, shims)
        if declared.get("kill_grace_ms") is not None:
            spec["killGraceMs"] = int(declared["kill_grace_ms"])
    return spec


def declared_spec(
    job_id: str,
    paths: RegistryPaths,
    declared: dict[str, Any],
    shims: dict[str, tuple[int, str | None]] | None = None,
) -> dict[str, Any]:
    """`declared` with the paths its shim reads and writes (the shim spells no file name):
    its own `started`/`ready` files, and each dependency's `started`/`ready`/`end`; with
    `shims` (job id -> its shim's pid and start token), a dependency's shim, so a waiter
    whose dependency's supervisor died without an end does not wait forever."""

    def files(of: str) -> dict[str, str]:
        return {
            "started": str(paths.started(of)),
            "ready": str(paths.ready(of)),
            "end": str(paths.end(of)),
        }

    depends = []
    for dep in declared.get("depends") or ():
        entry = {**dep, "files": files(str(dep["id"]))}
        shim = (shims or {}).get(str(dep["id"]))
        if shim is not None:
            entry["shimPid"], entry["shimToken"] = shim
        depends.append(entry)
    return {**declared, "depends": depends, "files": files(job_id)}


class LaunchError(RuntimeError):
    """The shim could not start the job."""


def launch(spec: StartSpec, timeout: float = 15.0, env: dict[str, str] | None = None) -> Ready:
    """Blocking: returns the shim's ready message ({pid, startToken, shimPid, shimToken}).

    `env` extends the shim's environment, which the job inherits (never argv: that is
    readable by every user through /proc).
    """
    return spawn(spec, env).ready(timeout)


def spawn(spec: StartSpec, env: dict[str, str] | None = None, *, hold: bool = False) -> Launching:
    """Start the shim and return at once: its ready line is read by `Launching.ready`,
    so a caller can do other work while the shim starts (see `launch`).

    `hold`: the shim gets ready to run the job but waits for `Launching.go` before it
    spawns the command (`Launching.held` says when it is waiting); a restart stops the
    old job only then, so a shim that cannot start costs no job."""
    ready_r, ready_w = os.pipe()
    hold_r, hold_w = os.pipe() if hold else (-1, -1)
    extra = {"readyFd": ready_w, **({"holdFd": hold_r} if hold else {})}
    # The registry directory the session holds, by fd: the shim works in the directory
    # the session checked, not in whatever the path names when it starts.
    held = regfiles.held(os.path.dirname(spec["log"]))
    if held is not None:
        extra["dirFd"] = held.fd
    passed = (ready_w, hold_r) if hold else (ready_w,)
    args = shim_command(json.dumps({**spec, **extra}))
    err_path = os.environ.get(ENV_SHIM_STDERR)
    stderr = open(err_path, "ab") if err_path else subprocess.DEVNULL  # noqa: SIM115
    try:
        proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            pass_fds=(*passed, held.fd) if held is not None else passed,
            start_new_session=True,
            close_fds=True,
            env={**os.environ, **env} if env else None,
        )
    except OSError as exc:
        for fd in (ready_r, ready_w, hold_r, hold_w):
            if fd >= 0:
                os.close(fd)
        raise LaunchError(f"could not start the job supervisor: {exc}") from exc
    finally:
        if err_path:
            stderr.close()
    os.close(ready_w)
    if hold:
        os.close(hold_r)
    return Launching(proc, ready_r, hold_w)


class Launching:
    """A shim on its way: its ready line comes through a pipe (after a `held` line, when
    it was started to wait for `go`)."""

    def __init__(self, proc: subprocess.Popen[bytes], ready_r: int, hold_w: int = -1) -> None:
        self.proc = proc
        self._ready_r = ready_r
        self._hold_w = hold_w
        self._early = b""  # what came after the held line, read with it

    def held(self, timeout: float = 15.0) -> None:
        """Blocking: until the shim waits for `go`; LaunchError if it failed before."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._early:
            left = deadline - time.monotonic()
            if left <= 0:
                self.cancel()
                raise LaunchError("the job supervisor did not get ready in time")
            readable, _, _ = select.select([self._ready_r], [], [], left)
            if not readable:
                continue
            chunk = os.read(self._ready_r, 65536)
            if not chunk:  # it ended before it held: its error is what it wrote
                self.cancel()
                self.ready(timeout)  # raises it (or says it failed to start)
                raise LaunchError("the job supervisor ended before it was ready")
            self._early += chunk
        self._early = self._early.partition(b"\n")[2]

    def go(self) -> None:
        """The held shim spawns the job now."""
        self._release(b"g")

    def cancel(self) -> None:
        """The held shim ends without spawning anything (`ready` then raises)."""
        self._release(b"")

    def _release(self, word: bytes) -> None:
        if self._hold_w < 0:
            return
        try:
            if word:
                os.write(self._hold_w, word)
        except OSError:
            pass  # it is gone: `ready` says so
        finally:
            os.close(self._hold_w)
            self._hold_w = -1

    def ready(self, timeout: float = 15.0) -> Ready:
        """Blocking: the shim's ready message; LaunchError if it failed or took too long
        (or was read already: its pipe is closed once)."""
        ready_r, proc = self._ready_r, self.proc
        if ready_r < 0:
            raise LaunchError("the job supervisor's ready line was read already")
        self._ready_r = -1
        chunks: list[bytes] = [self._early]
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
            message = f"the job supervisor failed to start (exit {proc.returncode})"
            raise LaunchError(message) from exc
        if "error" in ready:
            raise LaunchError(f"the job supervisor could not start the command: {ready['error']}")
        return ready
