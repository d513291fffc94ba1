"""Processes that escaped (issue 27, feature 2): this user's processes working inside the
project that belong to no job, have no controlling terminal and whose parent is init or a
subreaper: daemonized or orphaned, never the user's shell, editor or a job's.

A pure rule over plain facts (`is_stray`, `strays_of`) and a gatherer at the edge
(`gather`: /proc on Linux, psutil elsewhere), as resources/proctable are split. The
gatherer reads what is cheap for every process first (its stat, its owner) and the dear
parts (cwd, environment, command line, sockets) only for those still in the running.

"A job's": a process that carries a job marker (`JOBS_TUI_JOB`, which every job's
processes inherit: procs.job_marker), or whose pid the caller names (`job_pids`: the
trees of the running jobs, for a process that emptied its environment). A subreaper is
not visible in /proc: the parent counts as one when it is pid 1, a known init or service
manager (`SUBREAPERS`, by command name), or a pid the caller names.

Wiring: `jobs-tui strays [--json]`, the screen's `S` section and MCP `job_strays` call
`gather(project_root, job_pids=...)` off the event loop; `--kill PID...` kills a stray's
tree (shim/sweep.signal_tree) after checking it is still one (`still_stray`).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from jobs_tui.engine.shim import procs

from .proctable import Port, listening_inodes, sockets_of

LINUX = sys.platform.startswith("linux")
SUBREAPERS = frozenset(
    {"systemd", "init", "tini", "dumb-init", "docker-init", "catatonit", "s6-svscan", "runsvdir"}
)
SHIM_SIGN = b"jobs_tui.engine.shim"  # in a shim's command line (session/launch.py)
_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass(frozen=True)
class ProcFacts:
    """What the rule needs of one process."""

    pid: int
    ppid: int
    uid: int
    tty: bool  # has a controlling terminal
    cwd: str | None = None  # None: unreadable (then never a stray: nothing says where)
    marker: str | None = None  # its JOBS_TUI_JOB, if any
    parent_name: str = ""  # the parent's command name (comm)
    supervisor: bool = False  # a job's shim (of any session: it works in its job's cwd)


@dataclass(frozen=True)
class Stray:
    pid: int
    ppid: int
    command: str  # its command line (raw: sanitize it before showing it)
    cwd: str
    age_s: float
    cpu_s: float  # user + system over its life
    cpu_percent: float  # cpu_s over its age
    rss: int  # bytes
    ports: tuple[Port, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {
            "pid": self.pid,
            "ppid": self.ppid,
            "command": self.command,
            "cwd": self.cwd,
            "ageS": round(self.age_s, 1),
            "cpuS": round(self.cpu_s, 2),
            "cpuPercent": round(self.cpu_percent, 1),
            "rss": self.rss,
            "ports": [p.to_json() for p in self.ports],
        }


def inside(path: str, root: str) -> bool:
    """`path` is `root` or below it (both absolute, normalised)."""
    root = root.rstrip("/") or "/"
    return path == root or path.startswith(root + "/") or root == "/"


def is_stray(
    facts: ProcFacts,
    project: str,
    uid: int,
    job_pids: frozenset[int] | set[int] = frozenset(),
    subreapers: frozenset[int] | set[int] = frozenset(),
    me: int | None = None,
) -> bool:
    """The rule (see the module's docstring)."""
    if facts.uid != uid or facts.pid in (me, 1) or facts.pid in job_pids:
        return False
    if facts.tty or facts.marker or facts.supervisor:
        return False
    if facts.cwd is None or not inside(facts.cwd, project):
        return False
    return facts.ppid == 1 or facts.ppid in subreapers or facts.parent_name in SUBREAPERS


def strays_of(
    facts: Iterable[ProcFacts],
    project: str,
    uid: int,
    job_pids: frozenset[int] | set[int] = frozenset(),
    subreapers: frozenset[int] | set[int] = frozenset(),
    me: int | None = None,
) -> list[ProcFacts]:
    return [f for f in facts if is_stray(f, project, uid, job_pids, subreapers, me)]


# -- the edge: /proc ------------------------------------------------------------------
def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _stat(pid: int) -> tuple[bytes, list[bytes]] | None:
    raw = _read(f"/proc/{pid}/stat")
    if raw is None:
        return None
    close = raw.rfind(b")")
    return raw[raw.find(b"(") + 1 : close], raw[close + 2 :].split()


def _marker(pid: int) -> str | None:
    env = _read(f"/proc/{pid}/environ") or b""
    prefix = f"{procs.MARKER_ENV}=".encode()
    for entry in env.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix) :].decode(errors="replace")
    return None


def gather(
    project: str,
    job_pids: Iterable[int] = (),
    subreapers: Iterable[int] = (),
    uid: int | None = None,
) -> list[Stray]:
    """This user's strays working inside `project`, oldest first (blocking: call it off
    the event loop; about a millisecond per hundred processes, plus the strays' sockets)."""
    project = os.path.realpath(project)
    uid = os.geteuid() if uid is None else uid
    jobs, reapers = frozenset(job_pids), frozenset(subreapers)
    if not LINUX:  # pragma: no cover - Linux is what CI tests
        return _gather_psutil(project, jobs, reapers, uid)
    me = os.getpid()
    stats: dict[int, tuple[bytes, list[bytes]]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            got = _stat(int(name))
            if got is not None and got[1] and got[1][0] not in (b"Z", b"X"):
                stats[int(name)] = got
    found: list[tuple[ProcFacts, list[bytes], bytes]] = []
    for pid, (_comm, f) in stats.items():
        try:
            owner = os.stat(f"/proc/{pid}").st_uid
        except OSError:
            continue
        ppid, tty = int(f[1]), int(f[4]) != 0
        cheap = ProcFacts(pid, ppid, owner, tty, cwd=project, parent_name=_comm_of(stats, ppid))
        if not is_stray(cheap, project, uid, jobs, reapers, me):
            continue  # decided without the dear reads
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        raw = _read(f"/proc/{pid}/cmdline") or b""
        facts = ProcFacts(
            pid, ppid, owner, tty, cwd, _marker(pid), cheap.parent_name, SHIM_SIGN in raw
        )
        if is_stray(facts, project, uid, jobs, reapers, me):
            found.append((facts, f, raw))
    if not found:
        return []
    try:
        listening = listening_inodes(None if os.geteuid() == 0 else uid)
    except OSError:
        listening = {}
    boot_s = _boot_time()
    now = time.time()
    strays = []
    for facts, f, raw in found:
        started = boot_s + int(f[19]) / _TCK
        cpu = (int(f[11]) + int(f[12])) / _TCK
        age = max(0.0, now - started)
        ports = sorted({listening[i] for i in sockets_of(facts.pid) if i in listening})
        command = raw.rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")
        strays.append(
            Stray(
                pid=facts.pid,
                ppid=facts.ppid,
                command=command or stats[facts.pid][0].decode(errors="replace"),
                cwd=facts.cwd or "",
                age_s=age,
                cpu_s=cpu,
                cpu_percent=100.0 * cpu / age if age > 0 else 0.0,
                rss=int(f[21]) * _PAGE,
                ports=tuple(ports),
            )
        )
    return sorted(strays, key=lambda s: -s.age_s)


def _comm_of(stats: dict[int, tuple[bytes, list[bytes]]], pid: int) -> str:
    got = stats.get(pid)
    return got[0].decode(errors="replace") if got else ""


def _boot_time() -> float:
    for line in (_read("/proc/stat") or b"").splitlines():
        if line.startswith(b"btime "):
            return float(line.split()[1])
    return time.time() - time.clock_gettime(time.CLOCK_BOOTTIME)


def still_stray(pid: int, project: str, job_pids: Iterable[int] = ()) -> bool:
    """Before a kill: `pid` is a stray of `project` now (not reused by something else)."""
    return any(s.pid == pid for s in gather(project, job_pids))


def kill_stray(pid: int, project: str, job_pids: Iterable[int] = (), signum: int = 15) -> bool:
    """Signal a stray and its tree (`signum`, SIGTERM by default), if it is one still;
    False (nothing sent) if it is not."""
    from jobs_tui.engine.shim import sweep

    if not still_stray(pid, project, job_pids):
        return False
    sweep.signal_tree(pid, signum)
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass
    return True


def _gather_psutil(  # pragma: no cover - Linux is what CI tests
    project: str, jobs: frozenset[int], reapers: frozenset[int], uid: int
) -> list[Stray]:
    import psutil

    now = time.time()
    strays = []
    names = {}
    rows = []
    for proc in psutil.process_iter(["pid", "ppid", "uids", "terminal", "name"]):
        names[proc.info["pid"]] = proc.info["name"] or ""
        rows.append(proc)
    for proc in rows:
        info = proc.info
        try:
            facts = ProcFacts(
                info["pid"],
                info["ppid"] or 0,
                info["uids"].effective if info["uids"] else -1,
                bool(info["terminal"]),
                proc.cwd(),
                proc.environ().get(procs.MARKER_ENV),
                names.get(info["ppid"], ""),
                "jobs_tui.engine.shim" in " ".join(proc.cmdline()),
            )
            if not is_stray(facts, project, uid, jobs, reapers, os.getpid()):
                continue
            times = proc.cpu_times()
            age = max(0.0, now - proc.create_time())
            cpu = times.user + times.system
            strays.append(
                Stray(
                    facts.pid,
                    facts.ppid,
                    " ".join(proc.cmdline()) or names.get(facts.pid, ""),
                    facts.cwd or "",
                    age,
                    cpu,
                    100.0 * cpu / age if age > 0 else 0.0,
                    proc.memory_info().rss,
                )
            )
        except (psutil.Error, OSError):
            continue
    return sorted(strays, key=lambda s: -s.age_s)
