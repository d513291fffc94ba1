"""The edge of `resources`: one pass over the process table, one look at the sockets.

Linux reads `/proc` itself (one `stat` read per process; the jobs' own fds; sock_diag for
the listening sockets); elsewhere one `psutil.process_iter` pass with an attrs list and
one `psutil.net_connections` call. What the rows mean is decided in `resources`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from jobs_tui.engine.shim import procs
from jobs_tui.engine.shim.sweep import live_stats

from .sockdiag import listening_sockets


@dataclass(frozen=True, order=True)
class Port:
    """A port the job's tree listens on: a TCP socket in LISTEN, or a bound UDP socket."""

    port: int
    proto: str = "tcp"  # "tcp" or "udp"

    def to_json(self) -> dict[str, Any]:
        return {"port": self.port, "proto": self.proto}


@dataclass(slots=True)
class ProcRow:
    """One process as the pass saw it. `cpu_s` is its own user+system time, `child_cpu_s`
    that of the children it has reaped (how a short-lived compiler's CPU still counts)."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    started: float  # start time (s, on the scan's clock): with the pid, the process's identity
    cpu_s: float = 0.0
    child_cpu_s: float = 0.0
    rss: int = 0

    @property
    def key(self) -> tuple[int, float]:
        return (self.pid, self.started)


LINUX = procs.LINUX
ROW_ATTRS = ["pid", "ppid", "create_time", "cpu_times", "memory_info"]
_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass
class Scan:
    """One pass: every readable process, the clock its `started` is on, their tokens."""

    rows: list[ProcRow]
    now: float  # the pass's time on the rows' `started` clock
    tokens: dict[int, str]  # pid -> start token, in `procs.start_token`'s format


def scan_proc() -> Scan:
    """Linux: one read of `/proc/<pid>/stat` per process gives all a row needs (parent,
    group, session, start, CPU of its own and of reaped children, RSS) plus its start
    token; measured ~5x cheaper than a `psutil.process_iter` pass with those attributes."""
    rows: list[ProcRow] = []
    tokens: dict[int, str] = {}
    boot = procs.boot_id()
    now = time.clock_gettime(time.CLOCK_BOOTTIME)
    for pid, f in live_stats():  # a zombie uses nothing; its time reaches its parent
        try:
            ticks = int(f[19])
            rows.append(
                ProcRow(
                    pid=pid,
                    ppid=int(f[1]),
                    pgid=int(f[2]),
                    sid=int(f[3]),
                    started=ticks / _TCK,
                    cpu_s=(int(f[11]) + int(f[12])) / _TCK,
                    child_cpu_s=(int(f[13]) + int(f[14])) / _TCK,
                    rss=int(f[21]) * _PAGE,
                )
            )
            tokens[pid] = f"{boot}:{ticks}"
        except (ValueError, IndexError):
            continue
    return Scan(rows, now, tokens)


def scan_psutil() -> Scan:
    """Elsewhere: one `psutil.process_iter` pass with an attrs list."""
    import psutil

    rows: list[ProcRow] = []
    tokens: dict[int, str] = {}
    now = time.time()
    for proc in psutil.process_iter(ROW_ATTRS):
        info = proc.info
        times, memory = info["cpu_times"], info["memory_info"]
        if info["ppid"] is None or info["create_time"] is None:
            continue  # vanished mid-pass, or not ours to read
        pid = info["pid"]
        try:
            pgid, sid = os.getpgid(pid), os.getsid(pid)
        except OSError:
            continue  # gone since
        rows.append(
            ProcRow(
                pid=pid,
                ppid=info["ppid"],
                pgid=pgid,
                sid=sid,
                started=info["create_time"],
                cpu_s=(times.user + times.system) if times else 0.0,
                child_cpu_s=(times.children_user + times.children_system) if times else 0.0,
                rss=memory.rss if memory else 0,
            )
        )
        tokens[pid] = f"ct:{info['create_time']:.6f}"
    return Scan(rows, now, tokens)


def scan_processes() -> Scan:
    return scan_proc() if LINUX else scan_psutil()


def listening_inodes(uid: int | None = None) -> dict[int, Port]:
    """Linux: socket inode -> port of every listening TCP and bound, unconnected UDP
    socket of this network namespace (of owner `uid` if given): from sock_diag (the
    kernel walks only those), else from the `/proc/net` tables (it walks every socket)."""
    try:
        found = listening_sockets()
    except OSError:
        return listening_table(uid)
    return {
        inode: Port(port, proto)
        for inode, (proto, port, owner) in found.items()
        if uid is None or owner == uid
    }


def listening_table(uid: int | None = None) -> dict[int, Port]:
    """`listening_inodes` from `/proc/net/{tcp,udp}{,6}` (where netlink is refused)."""
    found: dict[int, Port] = {}
    for proto, name in (("tcp", "tcp"), ("tcp", "tcp6"), ("udp", "udp"), ("udp", "udp6")):
        try:
            with open(f"/proc/net/{name}", "rb") as fh:
                lines = fh.read().splitlines()[1:]
        except OSError:
            continue
        want = b"0A" if proto == "tcp" else b"07"  # TCP_LISTEN; UDP "closed" = not connected
        for line in lines:
            f = line.split()
            if len(f) < 10 or f[3] != want or (uid is not None and int(f[7]) != uid):
                continue
            port = int(f[1].rsplit(b":", 1)[1], 16)
            remote = int(f[2].rsplit(b":", 1)[1], 16)
            if port and not (proto == "udp" and remote):
                found[int(f[9])] = Port(port, proto)
    return found


def sockets_of(pid: int) -> Iterable[int]:
    """The socket inodes `pid` holds (its fds we may read; others' are unreadable)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            yield int(target[8:-1])


def listening_proc(pids: Iterable[int]) -> list[tuple[int, Port]]:
    """Linux: (pid, port) pairs. The listening sockets first (cheap with sock_diag), only
    those of our uid (the fds we may read are our own processes', unless we are root);
    then, only if there are any, the fds of the jobs' processes (not of every process, as
    `psutil.net_connections` reads): ~40 us a process, the dearest part of a pass."""
    euid = os.geteuid()
    inodes = listening_inodes(None if euid == 0 else euid)
    if not inodes:
        return []
    return [(pid, inodes[inode]) for pid in pids for inode in sockets_of(pid) if inode in inodes]


def listening_psutil(pids: Iterable[int]) -> list[tuple[int, Port]]:
    """Elsewhere: one `psutil.net_connections` call."""
    import psutil

    mine = set(pids)
    found: list[tuple[int, Port]] = []
    try:
        conns = psutil.net_connections(kind="inet")
    except (psutil.AccessDenied, OSError):
        return found
    for conn in conns:
        if conn.pid not in mine or not conn.laddr:
            continue
        if conn.type == 1 and conn.status == psutil.CONN_LISTEN:  # SOCK_STREAM
            found.append((conn.pid, Port(conn.laddr.port, "tcp")))
        elif conn.type == 2 and not conn.raddr and conn.laddr.port:  # SOCK_DGRAM, unconnected
            found.append((conn.pid, Port(conn.laddr.port, "udp")))
    return found


class SocketOwners:
    """Linux: which of the jobs' processes hold a listening socket, reading fds rarely.

    Reading a process's fds is the dearest part of a pass (~40 us a process), and which
    sockets a process holds seldom changes, so each process's socket inodes (listening
    or not yet) are kept by (pid, start): a process is read when it is new, and every
    process again only when a listening socket of ours appears that nobody was seen to
    hold (a new listener), or `FULL_EVERY_S` after the last full read (sockets passed
    between processes). A socket that starts listening after it was seen needs no read.
    """

    FULL_EVERY_S = 10.0

    def __init__(self) -> None:
        self._held: dict[tuple[int, float], frozenset[int]] = {}
        self._foreign: set[int] = set()  # listening, ours, held by no job process
        self._full_at: float | None = None

    def __call__(self, rows: Iterable[ProcRow]) -> list[tuple[int, Port]]:
        euid = os.geteuid()
        inodes = listening_inodes(None if euid == 0 else euid)
        if not inodes:
            return []
        rows = list(rows)
        known = self._foreign.union(*self._held.values())
        now = time.monotonic()
        full = (
            self._full_at is None
            or now - self._full_at >= self.FULL_EVERY_S
            or any(inode not in known for inode in inodes)
        )
        held: dict[tuple[int, float], frozenset[int]] = {}
        for row in rows:
            cached = None if full else self._held.get(row.key)
            held[row.key] = cached if cached is not None else frozenset(sockets_of(row.pid))
        self._held = held
        if full:
            self._full_at = now
            self._foreign = set(inodes).difference(*held.values())
        return [(r.pid, inodes[i]) for r in rows for i in held[r.key] if i in inodes]


def socket_lookup() -> Callable[[Iterable[ProcRow]], list[tuple[int, Port]]]:
    """What a sampler asks for the (pid, port) pairs of its jobs' processes."""
    if LINUX:
        return SocketOwners()
    return lambda rows: listening_psutil(r.pid for r in rows)
