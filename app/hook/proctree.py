"""A process's ancestors: pid, start token and name of each, read from /proc (psutil
elsewhere). Stdlib only on Linux: the hook runs on every tool call of an agent."""

from __future__ import annotations

import os
import sys

LINUX = sys.platform.startswith("linux")
MAX_DEPTH = 64  # a loop in what /proc says (pid reuse mid-walk) ends here


class Proc:
    """One process: `token` is the engine's start token (procs.start_token), so a reused
    pid is another process. (Not a dataclass: importing dataclasses costs a hook ~10 ms.)"""

    __slots__ = ("name", "pid", "ppid", "token")

    def __init__(self, pid: int, ppid: int, token: str, name: str) -> None:
        self.pid, self.ppid, self.token, self.name = pid, ppid, token, name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Proc) and (self.pid, self.token) == (other.pid, other.token)

    def __hash__(self) -> int:
        return hash((self.pid, self.token))

    def __repr__(self) -> str:
        return f"Proc({self.pid}, {self.name!r}, ppid={self.ppid})"


_boot: str | None = None


def _boot_id() -> str:
    global _boot
    if _boot is None:
        try:
            with open("/proc/sys/kernel/random/boot_id") as fh:
                _boot = fh.read().strip()
        except OSError:
            _boot = ""
    return _boot


def read(pid: int) -> Proc | None:
    """The process `pid` now, or None when it is gone (or a zombie)."""
    if pid <= 0:
        return None
    if not LINUX:
        return _read_psutil(pid)
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read().decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    open_at, close_at = raw.find("("), raw.rfind(")")  # the name may hold ( ) and spaces
    fields = raw[close_at + 2 :].split()
    if open_at < 0 or len(fields) < 20 or fields[0] in ("Z", "X"):
        return None
    try:
        ppid = int(fields[1])
    except ValueError:
        return None
    return Proc(pid, ppid, f"{_boot_id()}:{fields[19]}", raw[open_at + 1 : close_at])


def _read_psutil(pid: int) -> Proc | None:
    from jobs_tui.engine.shim import procs

    try:
        import psutil

        process = psutil.Process(pid)
        ppid, name = process.ppid(), process.name()
    except Exception:
        return None
    token = procs.start_token(pid)
    return None if token is None else Proc(pid, ppid, token, name)


def ancestors(pid: int) -> list[Proc]:
    """`pid`'s parent, its parent, ... up to (and without) pid 0."""
    chain: list[Proc] = []
    here = read(pid)
    while here is not None and here.ppid > 0 and len(chain) < MAX_DEPTH:
        parent = read(here.ppid)
        if parent is None:
            break
        chain.append(parent)
        here = parent
    return chain


def myself() -> Proc | None:
    return read(os.getpid())
