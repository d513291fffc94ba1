"""Processes: start tokens against pid reuse, liveness, descendants and tree kill.

Imported by the shim, so it stays stdlib-only at import time; psutil is loaded
only off Linux, where /proc is not there to read.
"""

import _signal  # not `signal`: its enums cost the shim (which imports us) milliseconds
import os
import sys

from .protocol import KILL_SIGNALS

LINUX = sys.platform.startswith("linux")
MARKER_ENV = "JOBS_TUI_JOB"  # in every job's environment: `<sha1(registry dir)[:12]>:<id>`
SIGNALS = {name: getattr(_signal, name) for name in KILL_SIGNALS if hasattr(_signal, name)}

_boot_id: str | None = None
_signal_names: dict[int, str] = {}


def signal_name(number: int) -> str:
    """`signal.Signals(number).name`: of a number's names, the first in sorted order."""
    if not _signal_names:
        for name, value in sorted(vars(_signal).items(), reverse=True):
            if name.startswith("SIG") and not name.startswith("SIG_") and type(value) is int:
                _signal_names[value] = name
    return _signal_names.get(number, f"SIG{number}")


def signal_number(name: str) -> int:
    return int(SIGNALS[name])


def boot_id() -> str:
    global _boot_id
    if _boot_id is None:
        try:
            with open("/proc/sys/kernel/random/boot_id") as fh:
                _boot_id = fh.read().strip()
        except OSError:
            _boot_id = ""
    return _boot_id


def _proc_stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read().decode("ascii", "replace")
    except (OSError, ValueError):
        return None
    # The command name may hold spaces and parentheses: split after the last ')'.
    close = raw.rfind(")")
    return raw[close + 2 :].split()


def start_token(pid: int | None) -> str | None:
    """Process start time (plus the boot id on Linux): another token is another process."""
    if not pid or pid <= 0:
        return None
    if LINUX:
        fields = _proc_stat(pid)
        if not fields:
            return None
        return f"{boot_id()}:{fields[19]}"
    try:
        import psutil

        return f"ct:{psutil.Process(pid).create_time():.6f}"
    except Exception:
        return None


def pid_alive(pid: int | None) -> bool:
    if not pid or pid <= 0:
        return False
    if LINUX:
        fields = _proc_stat(pid)
        return bool(fields) and fields[0] not in ("Z", "X")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def same_process(pid: int | None, token: str | None) -> bool:
    """Alive and, where a token was stored, still the process that token names."""
    if not pid_alive(pid):
        return False
    if not token:
        return True
    return start_token(pid) == token


# -- the job marker: how a process proves it belongs to a job of this registry ---------------


def job_marker(registry_root: str | os.PathLike[str], job_id: str) -> str:
    try:  # the builtin module: hashlib loads OpenSSL first, milliseconds of a short call
        from _sha1 import sha1
    except ImportError:  # a Python built without it
        from hashlib import sha1

    digest = sha1(os.fsencode(os.fspath(registry_root))).hexdigest()[:12]
    return f"{digest}:{job_id}"


def _environ(pid: int) -> bytes | None:
    if LINUX:
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                return fh.read()
        except (OSError, ValueError):
            return None
    try:  # pragma: no cover - Linux is what CI tests
        import psutil

        env = psutil.Process(pid).environ()
    except Exception:
        return None
    return b"\0".join(f"{k}={v}".encode("utf-8", "surrogateescape") for k, v in env.items())


def carries_marker(pid: int | None, marker: str) -> bool:
    """The process has `JOBS_TUI_JOB=<marker>` in its environment (it is that job's)."""
    if not pid or pid <= 0:
        return False
    env = _environ(pid)
    return env is not None and f"{MARKER_ENV}={marker}".encode() in env.split(b"\0")


def marked_processes(marker: str) -> list[int]:
    """Every live process (of ours: others' environments are unreadable) of that job."""
    entry = f"{MARKER_ENV}={marker}".encode()
    if LINUX:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    else:  # pragma: no cover
        import psutil

        pids = psutil.pids()
    found = []
    for pid in pids:
        env = _environ(pid)
        if env is not None and entry in env.split(b"\0") and pid_alive(pid):
            found.append(pid)
    return found


def sweep(marker: str, signum: int = _signal.SIGKILL) -> int:
    """Signal every process of a job found by its marker (its supervisor is gone)."""
    hit = 0
    for pid in marked_processes(marker):
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, signum)
            hit += 1
        except (ProcessLookupError, PermissionError):
            pass
    return hit


def _scan() -> list[tuple[int, int, int]]:
    """(pid, ppid, pgid) of every live process, in one pass."""
    found: list[tuple[int, int, int]] = []
    if LINUX:
        for name in os.listdir("/proc"):
            if name.isdigit():
                fields = _proc_stat(int(name))
                if fields and fields[0] not in ("Z", "X"):
                    found.append((int(name), int(fields[1]), int(fields[2])))
        return found
    import psutil

    for proc in psutil.process_iter(["pid", "ppid"]):
        try:
            found.append((proc.info["pid"], proc.info["ppid"], os.getpgid(proc.info["pid"])))
        except OSError:
            continue
    return found


def _descendants(scan: list[tuple[int, int, int]], root: int) -> list[int]:
    tree: dict[int, list[int]] = {}
    for pid, ppid, _pgid in scan:
        tree.setdefault(ppid, []).append(pid)
    found: list[int] = []
    stack = list(tree.get(root, ()))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(tree.get(pid, ()))
    return found


def descendants(root: int) -> list[int]:
    return _descendants(_scan(), root)


def group_members(pgid: int) -> list[int]:
    """Live members of a process group."""
    return [pid for pid, _ppid, group in _scan() if group == pgid]


def kill_group_checked(pid: int | None, token: str | None, signum: int, marker: str) -> bool:
    """Signal a process group we do not hold, only if its leader is still the same process
    and carries the job's marker: a record alone (a file anyone may have written) is not
    enough to signal a process."""
    if not pid or not same_process(pid, token) or not carries_marker(pid, marker):
        return False
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):
        return False
    return True
