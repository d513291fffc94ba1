"""How a shim's job ends: its owner watched, kills with escalation, reaping, the exact
exit status on disk, and the moment the whole tree is gone. Stdlib only (the shim's).

Mixed into `Shim`, whose state it shares (child_pid, exit_status, reason, spec, server,
log, sel, out_fd, dir, exit_names, ...).
"""

import os
import time
from _signal import SIGKILL, SIGTERM

from . import cgroup, procs, sweep
from .protocol import EV_EXIT, EV_GONE, EV_REMAINING
from .server import EVENT_READ
from .shimjson import dumps

OWNER_GONE_GRACE_MS = 1000
TERM_STEP_MS = 1000  # a stop's TERM (after its own stop signal's grace), before KILL
SWEEP_AGAIN_S = 0.01  # a SIGKILL sweep that found the tree not yet empty goes on this soon
SWEEP_BUSY_S = 2.0  # for this long; then (processes stuck in D state) every SWEEP_SLOW_S
SWEEP_SLOW_S = 0.2
FINISH_POLL_S = (0.2, 2.0)  # a finished job's leftovers are counted this often: first, at most
# (each look that finds some left waits twice as long; a SIGCHLD looks again at once: the
# last process of a tree to die is always our child, the subreaper's)
STATUS_RETRY_S = 0.5  # a full disk: how often writing the exit code is tried again


def now_ms() -> int:
    return int(time.time() * 1000)


class EndingMixin:
    """The ending half of `Shim`."""

    def init_tree_state(self) -> None:
        """What the kill sweep and the count of a finished job's leftovers keep."""
        self.sweeping = False  # SIGKILL rounds go on until no process of the tree is left
        self.sweep_at = 0.0  # the next SIGKILL sweep is due (monotonic)
        self.sweep_since: float | None = None  # the first sweep that left some alive
        self.remaining = 0  # processes of the tree alive after the job's exit
        self.cgroup: str | None = None  # the job's own cgroup, where one could be made
        self.finish_poll_s = FINISH_POLL_S[0]

    def watch_owner(self, pid: int | None, token: str | None, poll: bool = False) -> bool:
        """Watch the owner session (a pidfd, or a poll where there is none, or when `poll`);
        False if it is already gone."""
        if self.owner_fd >= 0:
            self.sel.unregister(self.owner_fd)
            os.close(self.owner_fd)
            self.owner_fd = -1
        self.owner_poll = None
        if not pid:
            return True
        if not procs.same_process(pid, token):
            return False
        if hasattr(os, "pidfd_open") and not poll:
            try:
                self.owner_fd = os.pidfd_open(pid)
            except OSError:
                return False
            self.sel.register(self.owner_fd, EVENT_READ, "owner")
            # The pid may have been reused between the check and the pidfd: check again.
            return procs.same_process(pid, token)
        self.owner_poll = (pid, token)  # checked by poll_owner(), from tick()
        return True

    def poll_owner(self) -> None:
        """The owner, where no pidfd watches it: gone, the job goes too."""
        if self.owner_poll is not None and not procs.same_process(*self.owner_poll):
            self.owner_poll = None
            self.owner_gone()

    def kill(
        self,
        name: str,
        grace_ms: int | None,
        reason: str,
        stop: bool = False,
        by: "dict | None" = None,
    ) -> dict:
        """Signal the tree, SIGKILL after the grace. `stop` (a declared job's, with its
        stop_signal): a signal other than TERM is followed by TERM after the grace, then
        KILL after TERM_STEP_MS more, as process-compose stops a job. The reply's `graceMs`
        says how long the whole kill may take, for a caller waiting for its `gone`."""
        signum = procs.signal_number(name)
        if self.decl is not None and self.decl.idle():  # waiting, or between two runs
            return self.decl.end_idle(name, reason)
        grace = self.spec["killGraceMs"] if grace_ms is None else int(grace_ms)
        self.gone_due = True
        if self.exit_status is not None:
            hit = self.signal_tree(signum)
            if hit and signum != SIGKILL:
                self.escalate_at = time.monotonic() + grace / 1000
            elif hit:
                self.sweeping = True
            return {
                "ok": True,
                "signalled": False,
                "leftovers": len(hit),
                "finished": True,
                "graceMs": grace,
            }
        if self.reason is None:
            self.reason = reason
            self.kill_signal = name
            self.killed_by = killed_by(by, name)
        self.signal_tree(signum)
        if self.runaway is not None:
            self.runaway.cont()  # a tree its output limit stopped takes the signal now
        if signum == SIGKILL:
            self.sweeping = True
        else:
            self.term_step = stop and name != "SIGTERM"
            when = time.monotonic() + grace / 1000
            self.escalate_at = min(self.escalate_at or when, when)
        total = grace + (TERM_STEP_MS if self.term_step else 0)
        return {
            "ok": True,
            "signalled": True,
            "signal": name,
            "processes": len(self.signalled),
            "graceMs": total,
        }

    def signal_tree(self, signum: int) -> set[int]:
        """Every process group the tree holds, then each of its other processes, once;
        with SIGKILL, the job's cgroup first (all of it at once, forks included)."""
        hit: set[int] = set()
        if signum == SIGKILL and self.cgroup:
            hit.update(cgroup.kill(self.cgroup, wait_s=0))
        hit |= sweep.signal_tree(os.getpid(), signum)
        self.signalled |= hit
        return hit

    def make_cgroup(self) -> int:
        """The job's own cgroup, if the session asked and the kernel lets us: the
        descriptor the job joins it by (-1: none, the process-tree sweep is all)."""
        if not self.spec.get("cgroup"):
            return -1
        if self.cgroup:  # a declared job's restart: the same cgroup again
            return cgroup.open_procs(self.cgroup)
        name = f"{cgroup.PREFIX}{self.spec['marker'].replace(':', '-')}-{os.getpid()}"
        self.cgroup = cgroup.create(name)
        fd = cgroup.open_procs(self.cgroup)
        if fd < 0 and self.cgroup:
            cgroup.remove(self.cgroup)
            self.cgroup = None
        return fd

    def check_cgroup(self) -> None:
        """The job did not get into its cgroup (refused by the kernel): go without one."""
        gone = self.cgroup and not cgroup.holds(self.cgroup, self.child_pid)
        if gone and cgroup.remove(self.cgroup):
            self.cgroup = None

    def escalate(self) -> None:
        """The grace is over: SIGKILL the tree, and go on sweeping until none of it is left
        (a stop's TERM step first, if its stop signal was another)."""
        self.escalate_at = None
        if self.term_step:
            self.term_step = False
            if self.signal_tree(SIGTERM):
                self.escalate_at = time.monotonic() + TERM_STEP_MS / 1000
                return
        if self.signal_tree(SIGKILL):
            self.escalated = True
        self.sweeping = True

    def sweep_tick(self, now: float) -> float:
        """A SIGKILL sweep when one is due; how long until the next."""
        if now >= self.sweep_at:
            if self.sweep_some():
                self.check_finished_at = 0.0  # the kill's `gone` goes out at once
                return 0.0
            # What outlives SIGKILL for long is in D state: looked at less often then.
            busy = now - (self.sweep_since or now) < SWEEP_BUSY_S
            self.sweep_at = now + (SWEEP_AGAIN_S if busy else SWEEP_SLOW_S)
            self.sweep_since = self.sweep_since or now
        return max(0.0, self.sweep_at - now)

    def sweep_some(self) -> bool:
        """One bounded SIGKILL sweep; True once no process of the tree is alive."""
        killed = cgroup.kill(self.cgroup, wait_s=0) if self.cgroup else []
        hit, empty = sweep.sweep_until_empty(os.getpid(), self.reap)
        hit.update(killed)
        self.signalled |= hit
        if empty:
            self.sweeping = False
            self.sweep_since = None
        return empty

    def owner_gone(self) -> None:
        if self.exit_status is None and self.reason is None:
            grace = min(self.spec["killGraceMs"], OWNER_GONE_GRACE_MS)
            self.kill("SIGTERM", grace, "owner-gone")
        elif self.exit_status is not None:
            self.kill("SIGKILL", 0, "owner-gone")

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.child_pid and self.exit_status is None:
                if os.WIFSIGNALED(status):
                    self.exit_status = -os.WTERMSIG(status)
                else:
                    self.exit_status = os.WEXITSTATUS(status)
                self.on_exit()
            elif self.decl is not None:
                self.decl.reaped(pid, status)  # an exec probe's, maybe

    def on_exit(self) -> None:
        if self.decl is not None and self.decl.on_exit():
            return  # restarted by its policy: not the job's end (declared.py)
        self.finished_at = now_ms()
        if self.exit_status == -SIGKILL and self.oom is not None:
            self.oom_kill = self.oom.moved()  # the kernel's OOM killer, maybe
        if self.out_fd >= 0:
            self.drain()  # every byte written before the exit is in the log first
        self.remaining = self.tree_left()  # in the exit message: what it left running
        self.output_event(force=True)
        self.write_exit_files()
        self.server.broadcast({"ev": EV_EXIT, **self.exit_message()})

    def write_exit_files(self) -> None:
        """`<id>.end` then `<id>.status`. On a full disk, kept here (and in our `state`
        replies) and retried: the shim does not exit before the exit code is on disk."""
        try:
            # By name in the verified registry directory fd (regdir): O_EXCL temporary
            # files of unguessable names, renamed in place; a swapped directory or a
            # planted `.tmp` symlink is never written through.
            end, status = self.exit_names
            self.dir.write_atomic(end, dumps(self.exit_message()).encode())
            self.dir.write_atomic(status, str(self.exit_status).encode())
        except OSError:
            self.status_retry_at = time.monotonic() + STATUS_RETRY_S
            return
        self.status_retry_at = None
        self.status_written = True

    def tree_left(self) -> int:
        """How many processes of the job's tree are alive (the leader's exit aside).

        No child at all means no descendant (an orphan would have become our child): then
        no scan of every process on the machine delays the end of the job."""
        try:
            os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return 0
        except (AttributeError, OSError):  # no waitid here: the scan says
            pass
        return len(sweep.tree_of(sweep.scan(), os.getpid()))

    def tree_gone(self) -> bool:
        """The job exited, its output is closed and no process of its tree is left."""
        if self.exit_status is None or self.out_fd >= 0:
            return False
        return self.count_remaining() == 0

    def count_remaining(self) -> int:
        """Count what the finished job left running; tell watchers when the count changed."""
        left = self.tree_left()
        if left != self.remaining:
            self.remaining = left
            self.server.broadcast({"ev": EV_REMAINING, "remaining": left})
        return left

    def finished(self) -> bool:
        """Nothing left to supervise: the tree is gone (and said so, if a kill asked), and
        the exit code is on disk."""
        if not self.tree_gone():
            return False
        if self.gone_due:
            self.gone_due = False
            self.server.broadcast(
                {"ev": EV_GONE, "escalated": self.escalated, "processes": len(self.signalled)}
            )
        return self.status_written


# -- the kernel's out-of-memory kills (issue 27, feature 3: who ended a job) ---------------
# Two counters: the job's cgroup's (v2 `memory.events` `oom_kill`: processes of that cgroup
# killed by any OOM killer; a v1 memory cgroup's `memory.oom_control` has the same line),
# and the machine's (`/proc/vmstat` `oom_kill`, every OOM kill since boot). The shim reads
# both once the job runs (after the ready line: a start must stay fast, so a job the OOM
# killer ends within its first milliseconds is not seen) and again when it dies of
# SIGKILL: the cgroup's moving is certain, the machine's moving at the job's SIGKILL likely
# (another process may have been the one). procs/oom.py is the session side.


def _counter(path: str, name: bytes) -> int | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        raw = os.read(fd, 65536)
    except OSError:
        return None
    finally:
        os.close(fd)
    for line in raw.splitlines():
        key, _, value = line.partition(b" ")
        if key == name:
            try:
                return int(value)
            except ValueError:
                return None
    return None


def cgroup_kills(directory: str | None) -> int | None:
    """`oom_kill` of a cgroup directory (v2 memory.events, v1 memory.oom_control)."""
    if not directory:
        return None
    for name in ("memory.events", "memory.oom_control"):
        found = _counter(os.path.join(directory, name), b"oom_kill")
        if found is not None:
            return found
    return None


def machine_kills() -> int | None:
    """`oom_kill` of /proc/vmstat (Linux 4.13+), or None."""
    return _counter("/proc/vmstat", b"oom_kill")


class OomCount:
    """Both counters when the job started; `moved()` after its SIGKILL says which moved."""

    __slots__ = ("cgroup", "cgroup_before", "machine_before")

    def __init__(self, cgroup: str | None) -> None:
        self.cgroup = cgroup
        self.cgroup_before = cgroup_kills(cgroup)
        self.machine_before = machine_kills()

    def moved(self) -> dict | None:
        """`{"source": "cgroup"|"machine", "kills": n}` if a counter moved, else None."""
        now = cgroup_kills(self.cgroup)
        if self.cgroup_before is not None and now is not None and now > self.cgroup_before:
            return {"source": "cgroup", "kills": now - self.cgroup_before}
        now = machine_kills()
        if self.machine_before is not None and now is not None and now > self.machine_before:
            return {"source": "machine", "kills": now - self.machine_before}
        return None


def killed_by(by: object, signal_: str) -> "dict | None":
    """Who asked for a kill (the kill op's `by`: its door and session), as the end's
    `killedBy`, with the signal sent first; the session's words, bounded, nothing else."""
    if not isinstance(by, dict):
        return None
    out = {k: v for k, v in by.items() if k in ("door", "session") and isinstance(v, str)}
    out = {k: v[:200] for k, v in out.items()}
    return {**out, "signal": signal_} if out else None
