"""Waiting for input (issue 27, feature 1): a process of the job's tree blocked reading the
job's stdin pipe or its terminal, across two looks at least `min_wait_s` apart.

Linux only (the kernel says it in /proc); elsewhere `InputWatch.sample` returns None. Stdlib
only: the shim (the job's ancestor, so ptrace rules let it read /proc/PID/syscall) runs it.

One look at a process, from /proc/PID/...:
  stat      state S (asleep, interruptible); for a terminal job, in the terminal's
            foreground group (pgrp == tpgid): a background reader is stopped by SIGTTIN;
  syscall   a read (read, readv, pread64: the numbers of this machine, x86_64 or aarch64)
            and its first argument, the fd; `how` "syscall";
            unreadable (EACCES/EPERM without ptrace rights, or no CONFIG_HAVE_ARCH_TRACEHOOK):
  wchan     the kernel function it sleeps in, a reader's (n_tty_read, wait_woken,
            pipe_read, pipe_wait...), and fd 0 then; `how` "wchan";
  fd/N      whose link is the job's stdin ("pipe:[inode]", or the terminal's /dev/pts/N);
  schedstat the time it ran: unchanged between the two looks, so it slept throughout
            (a `cat` fed line by line is asleep at each look, but it ran between them).

Cost: a few /proc reads per process asleep in the tree (tests/bench: one look at a tree
of ten in well under a millisecond); only when someone asks (the shim's `input` op).

Wiring: the shim keeps one `InputWatch` per job, made on the first `input` request, and
calls `sample(pids)` with its tree's pids on each (the caller asks at most once a second).
"""

import os
import sys
import time

LINUX = sys.platform.startswith("linux")
MIN_WAIT_S = 1.0

# The read syscalls, by machine: read, readv, pread64.
READS = {
    "x86_64": (0, 19, 17),
    "aarch64": (63, 65, 67),
    "arm64": (63, 65, 67),
}
# Where a reader of a terminal or a pipe sleeps, in part (kernels name them differently:
# pipe_read, pipe_wait, anon_pipe_read in 6.x; n_tty_read or wait_woken for a terminal).
READER_WCHANS = ("n_tty_read", "wait_woken", "pipe_read", "pipe_wait")


def _read(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)


def machine_reads() -> tuple[int, ...]:
    """The read syscalls' numbers on this machine (empty where unknown)."""
    return READS.get(os.uname().machine, ())


class InputWait:
    """A process of the job blocked reading its input since `since_ms` (epoch ms)."""

    __slots__ = ("fd", "how", "pid", "since_ms", "target")

    def __init__(self, pid: int, since_ms: int, fd: int, how: str, target: str) -> None:
        self.pid, self.since_ms, self.fd, self.how, self.target = pid, since_ms, fd, how, target

    def fields(self) -> dict:
        return {"since": self.since_ms, "pid": self.pid, "fd": self.fd, "how": self.how}

    def __repr__(self) -> str:
        return (
            f"InputWait(pid={self.pid}, since_ms={self.since_ms}, fd={self.fd}, how={self.how!r})"
        )


def reading(pid: int, target: str, tty: bool, reads: tuple[int, ...]) -> tuple[int, str] | None:
    """(fd, how) if `pid` is asleep reading `target` now (one look), else None."""
    raw = _read(f"/proc/{pid}/stat")
    if raw is None:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    if len(fields) < 6 or fields[0] != b"S":
        return None
    if tty and fields[2] != fields[5]:  # pgrp != tpgid: not the terminal's foreground
        return None
    call = _read(f"/proc/{pid}/syscall")
    parts = call.split() if call else []
    if parts and parts[0].lstrip(b"-").isdigit():
        if int(parts[0]) not in reads or len(parts) < 2:
            return None
        fd, how = int(parts[1], 16), "syscall"
    else:  # unreadable: where it sleeps, and its fd 0
        wchan = (_read(f"/proc/{pid}/wchan") or b"").decode(errors="replace")
        if not any(name in wchan for name in READER_WCHANS):
            return None
        fd, how = 0, "wchan"
    try:
        if os.readlink(f"/proc/{pid}/fd/{fd}") != target:
            return None
    except OSError:
        return None
    return fd, how


def ran_ns(pid: int) -> int | None:
    """The time `pid` has run, ns (schedstat; else its context switches, in status)."""
    raw = _read(f"/proc/{pid}/schedstat")
    if raw:
        try:
            return int(raw.split()[0])
        except (ValueError, IndexError):
            pass
    raw = _read(f"/proc/{pid}/status")
    if not raw:
        return None
    total = 0
    for line in raw.splitlines():
        if b"ctxt_switches:" in line:
            total += int(line.split()[-1])
    return total


class InputWatch:
    """Looks at a job's tree when asked; says who has waited for input `min_wait_s`.

    `target`: the link text of the job's stdin as its processes see it ("pipe:[N]" for a
    stdin pipe, "/dev/pts/N" for a terminal job); `tty`: only the terminal's foreground
    group counts."""

    def __init__(
        self, target: str, tty: bool, min_wait_s: float = MIN_WAIT_S, clock=time.monotonic
    ) -> None:
        self.target, self.tty, self.min_wait_s, self.clock = target, tty, min_wait_s, clock
        self.reads = machine_reads()
        self.seen: dict[int, tuple[int, str, float, int, int | None]] = {}
        # pid -> (fd, how, first seen (monotonic), first seen (epoch ms), ran_ns then)

    def sample(self, pids: list[int]) -> InputWait | None:
        """One look at `pids`; the longest wait that has lasted `min_wait_s`, or None."""
        if not LINUX:
            return None
        now, wall = self.clock(), int(time.time() * 1000)
        seen: dict[int, tuple[int, str, float, int, int | None]] = {}
        found: InputWait | None = None
        for pid in pids:
            got = reading(pid, self.target, self.tty, self.reads)
            if got is None:
                continue
            fd, how = got
            ran = ran_ns(pid)
            before = self.seen.get(pid)
            if before is not None and before[:2] == got and before[4] == ran:
                seen[pid] = before  # asleep on it throughout
                if now - before[2] >= self.min_wait_s and (
                    found is None or before[3] < found.since_ms
                ):
                    found = InputWait(pid, before[3], fd, how, self.target)
            else:
                seen[pid] = (fd, how, now, wall, ran)
        self.seen = seen
        return found


def pipe_target(fd: int) -> str:
    """The link text of a pipe as its other end's holders see it: `pipe:[inode]`."""
    return f"pipe:[{os.fstat(fd).st_ino}]"


def prompt_of(tail: bytes) -> str:
    """The last line of the output (a prompt has no line end yet): raw, to be sanitized."""
    lines = tail.replace(b"\r\n", b"\n").split(b"\n")
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()
    line = lines[-1] if lines else b""
    return line[line.rfind(b"\r") + 1 :].decode("utf-8", "replace")


def answer(shim) -> dict:
    """The shim's `input` op: `{"ok": true, "waitingForInput": {"since", "pid", "fd", "how",
    "prompt"} | null}` (null too before a second look, for a job without stdin, off Linux).
    """
    from . import sweep

    if shim.exit_status is not None or not shim.child_pid:
        return {"ok": True, "waitingForInput": None}
    if shim.input_watch is None:
        if shim.tty:
            target = shim.tty_name
        elif shim.in_fd >= 0:
            target = pipe_target(shim.in_fd)
        else:
            target = None  # /dev/null: a read ends at once
        if not target:
            return {"ok": True, "waitingForInput": None}
        shim.input_watch = InputWatch(target, shim.tty)
    pids = [p.pid for p in sweep.tree_of(sweep.scan(), os.getpid())] if LINUX else []
    found = shim.input_watch.sample(pids)
    if found is None:
        return {"ok": True, "waitingForInput": None}
    try:
        prompt = prompt_of(shim.log.tail(2048))
    except OSError:
        prompt = ""
    return {"ok": True, "waitingForInput": {**found.fields(), "prompt": prompt}}
