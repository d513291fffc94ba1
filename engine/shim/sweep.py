"""Killing a whole process tree, however it forks: every group it holds, round after round.

A process that forks in a loop outruns "one scan, then one kill per process": between the
scan and the kills it has made children nobody saw. So a kill signals each process group
the tree holds with `killpg` (the kernel delivers a group signal to every member at once,
and a fork racing with it is restarted, so no child of a signalled group is missed), then
each remaining process one by one, and a SIGKILL sweep is repeated until a scan finds no
live process of the tree. A group is signalled as a group only when every member of it is
one of the tree's (a group is never wider than its session, and every session the tree
made holds only the tree's processes), so nothing outside the tree is touched.

Stdlib only: the shim (which runs this) starts with `python -I -S`.
"""

import _signal
import os
import sys
import time

LINUX = sys.platform.startswith("linux")
ROUND_LIMIT_S = 0.25  # one call of `sweep_until_empty` sweeps at most this long


class Proc:
    """One live process of a scan."""

    __slots__ = ("pgid", "pid", "ppid", "sid")

    def __init__(self, pid: int, ppid: int, pgid: int, sid: int) -> None:
        self.pid, self.ppid, self.pgid, self.sid = pid, ppid, pgid, sid


def live_stats() -> list[tuple[int, list[bytes]]]:
    """Linux: each live (not zombie) process's pid and the fields of its `/proc/<pid>/stat`
    after its name (`[state, ppid, pgrp, session, ...]`); one that is gone mid-pass is
    passed over. The one walk of `/proc` for the kill sweep and the usage table (a list:
    `collections.abc` is too heavy for the shim's start)."""
    found: list[tuple[int, list[bytes]]] = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fd = os.open(f"/proc/{name}/stat", os.O_RDONLY)  # half the cost of open()
            try:
                raw = os.read(fd, 4096)
            finally:
                os.close(fd)
        except OSError:
            continue  # gone mid-pass
        # The command name may hold spaces and parentheses: split after the last ')'.
        fields = raw[raw.rfind(b")") + 2 :].split()
        if fields and fields[0] not in (b"Z", b"X"):  # a zombie is no longer running
            found.append((int(name), fields))
    return found


def scan() -> list[Proc]:
    """Every live (not zombie) process: pid, parent, group, session."""
    found: list[Proc] = []
    if LINUX:
        for pid, f in live_stats():
            try:
                found.append(Proc(pid, int(f[1]), int(f[2]), int(f[3])))
            except (ValueError, IndexError):
                continue
        return found
    import psutil  # pragma: no cover - Linux is what CI tests

    for proc in psutil.process_iter(["pid", "ppid"]):
        try:
            pid = proc.info["pid"]
            found.append(Proc(pid, proc.info["ppid"], os.getpgid(pid), os.getsid(pid)))
        except (OSError, TypeError):
            continue
    return found


def tree_of(procs: list[Proc], root: int) -> list[Proc]:
    """The descendants of `root` in a scan (not `root` itself)."""
    children: dict[int, list[Proc]] = {}
    for proc in procs:
        children.setdefault(proc.ppid, []).append(proc)
    found: list[Proc] = []
    stack = list(children.get(root, ()))
    while stack:
        proc = stack.pop()
        found.append(proc)
        stack.extend(children.get(proc.pid, ()))
    return found


def signal_procs(procs: list[Proc], members: list[Proc], signum: int, spare: set[int]) -> set[int]:
    """Signal `members` (processes of one job): whole groups where a group holds only them,
    each other member once. `procs` is the whole scan; `spare` are pids never signalled
    (ours), and groups or sessions they lead. Returns the pids reached."""
    mine = {p.pid for p in members} - spare
    by_group: dict[int, list[int]] = {}
    for proc in procs:
        by_group.setdefault(proc.pgid, []).append(proc.pid)
    reached: set[int] = set()
    for pgid in {p.pgid for p in members if p.pid in mine}:
        group = by_group.get(pgid, [])
        if pgid <= 1 or pgid in spare or not group or not mine.issuperset(group):
            continue
        try:
            os.killpg(pgid, signum)
        except (ProcessLookupError, PermissionError):
            continue
        reached.update(group)
    for pid in mine - reached:
        try:
            os.kill(pid, signum)
        except (ProcessLookupError, PermissionError):
            continue
        reached.add(pid)
    return reached


def ours() -> set[int]:
    """This process, its group and its session: never a kill's target."""
    me = os.getpid()
    spare = {me}
    try:
        spare |= {os.getpgid(me), os.getsid(me)}
    except OSError:
        pass
    return spare


def signal_tree(root: int, signum: int) -> set[int]:
    """One round: every group the tree of `root` holds, then each other process of it."""
    procs = scan()
    return signal_procs(procs, tree_of(procs, root), signum, ours())


def sweep_until_empty(
    root: int, reap=None, limit_s: float = ROUND_LIMIT_S
) -> tuple[set[int], bool]:
    """SIGKILL rounds over the tree of `root` until a scan finds none of it alive, or
    `limit_s` passed (then the caller comes back: a process in D state dies when its
    I/O ends). `reap` is called between rounds (the subreaper's children become zombies
    only it can clear). Returns (every pid reached, whether the tree is empty)."""
    reached: set[int] = set()
    deadline = time.monotonic() + limit_s
    spare = ours()
    while True:
        procs = scan()
        members = tree_of(procs, root)
        if not members:
            return reached, True
        reached |= signal_procs(procs, members, _signal.SIGKILL, spare)
        if reap is not None:
            reap()
        if time.monotonic() >= deadline:
            return reached, False
