"""A declared job's rules, enforced by its own shim: no other long-lived process needed.

A job started with `declared` in its spec (see protocol) is supervised here through three
phases, whoever is watching (the session that started it may be long gone):

1. **waiting**: the command is not spawned until every dependency has reached the state
   it asks for, read from the dependencies' files in the registry directory the shims
   share (depends.py): `started` (the dependency's `<id>.started` exists: its command was spawned),
   `ready` (its `<id>.ready` says `"ready": true`), `succeeded` (its `<id>.end` says it
   exited 0). A dependency that can no longer get there (ended before it started or was
   ready, was not ready within its limit, ended other than with 0) ends this job with
   reason `dependency` and a `detail` naming it, instead of a wait that never ends. The
   files are watched with inotify (dirwatch), polled where there is none.
2. **starting** / **ready** / **not-ready**: once spawned, the probe (probes.py) runs every
   `period_ms` until it passes (`ready`, and `<id>.ready` written atomically), or
   `limit_ms` is over (`not-ready`: the job keeps running, and a later pass still makes
   it ready). A job without a probe is ready once spawned.
3. **restarting**: the command exited and the policy says again (`on-failure`: a non-zero
   exit or a signal the shim did not send; `always`: any exit); a kill through the
   socket (the user's, `down`'s, an owner gone, a deadline) never restarts. The rest of
   the old tree is killed, one marker line is appended to the log
   (`── restart 2 of 5 · exit 1 after 0.4s ──`), and after `backoff_ms` the command is
   spawned again under the same id, log and socket. Past `max_restarts` the job ends
   with reason `crash-loop`.

Every change of phase is a `phase` event on the socket and the same fields are in the
`state` reply and the end file (protocol). Stdlib only; loaded only by a declared job.
"""

import os
import time
from _signal import SIGKILL

from . import procs
from .depends import Dependency, describe_exit, own_name
from .probes import FAIL, PASS, ExecProbe, LogProbe, check_http, check_port, check_probe
from .protocol import EV_PHASE
from .shimjson import dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .main import Shim

WAITING, STARTING, READY, NOT_READY, RESTARTING, ENDED = (
    "waiting",
    "starting",
    "ready",
    "not-ready",
    "restarting",
    "ended",
)
DEPENDENCY, CRASH_LOOP = "dependency", "crash-loop"  # end reasons of our own
FIRST_PROBE_S = 0.05  # the first probe goes this soon after the spawn (then every period)
DEP_FAILED_STATUS = 1  # the exit status of a job that never ran: its dependency failed


def now_ms() -> int:
    return int(time.time() * 1000)


def marker_line(number: int, limit: "int | None", status: "int | None", ran_s: float) -> str:
    """`── restart 2 of 5 · exit 1 after 0.4s ──` (`of N` left out when unlimited)."""
    of = f" of {limit}" if limit is not None else ""
    return f"── restart {number}{of} · {describe_exit(status)} after {ran_s:.1f}s ──\n"


class Declared:
    """The declared half of one shim: dependencies, probe, restart policy."""

    def __init__(self, shim: "Shim", spec: dict) -> None:
        self.shim = shim
        self.name = str(spec.get("name") or shim.spec["id"])
        self.probe_spec = spec.get("ready") or None
        if self.probe_spec is not None:
            check_probe(self.probe_spec)  # a bad one fails the start, never the shim later
        self.policy = spec.get("restart") or "no"
        if self.policy not in ("no", "on-failure", "always"):
            raise ValueError(f"declared: unknown restart policy {self.policy!r}")
        limit = spec.get("max_restarts")
        self.max_restarts = None if limit is None else int(limit)
        self.backoff_s = int(spec.get("backoff_ms") or 0) / 1000
        self.stop_signal = str(spec.get("stop_signal") or "SIGTERM")
        procs.signal_number(self.stop_signal)  # a bad name fails the start, not the stop
        files = spec.get("files") or {}
        self.started_name = own_name(shim, files.get("started"), "started")
        self.ready_name = own_name(shim, files.get("ready"), "ready")
        self.deps = [Dependency(shim, entry) for entry in spec.get("depends") or ()]
        self.waiting_for = [dep.name for dep in self.deps]
        self.phase = WAITING if self.deps else STARTING
        self.detail: str | None = None
        self.restarts = 0
        self.last_exit: int | None = None
        self.started_written = False
        self.spawned_at = 0.0
        self.restart_at: float | None = None
        self.watch = None  # dirwatch.DirWatch while waiting
        self.pidfds: list[int] = []  # the dependencies' shims, while waiting
        self.check_at = 0.0
        self.probe: object = None
        self.probe_at: float | None = None
        self.limit_at: float | None = None

    # -- what the socket and the end file say ----------------------------------------
    def fields(self) -> dict:
        return {
            "name": self.name,
            "phase": self.phase,
            "waitingFor": list(self.waiting_for),
            "restarts": self.restarts,
            "maxRestarts": self.max_restarts,
            "lastExit": self.last_exit,
            "phaseDetail": self.detail,
        }

    def announce(self) -> None:
        shim = self.shim
        identity = shim.identity if shim.child_pid else {}
        shim.server.broadcast({"ev": EV_PHASE, **self.fields(), **identity})

    def set_phase(self, phase: str, detail: "str | None" = None) -> None:
        self.phase, self.detail = phase, detail
        self.announce()

    # -- 1. waiting ------------------------------------------------------------------
    def begin(self) -> None:
        """After the ready line: wait for the dependencies, or spawn at once."""
        if not self.deps:
            return
        from .dirwatch import DirWatch  # only a job with dependencies needs it

        self.watch = DirWatch(self.shim.dir.fd)
        if self.watch.active:
            self.shim.sel.register(self.watch.fd, 1, "declared-watch")
        self.watch_dependency_shims()
        self.check_deps()

    def watch_dependency_shims(self) -> None:
        """A pidfd on each dependency's shim: its death (without an end) wakes us at once."""
        for dep in self.deps:
            if dep.shim_pid is None or not hasattr(os, "pidfd_open"):
                continue
            try:
                fd = os.pidfd_open(dep.shim_pid)
            except OSError:
                continue  # gone already: check_deps says so
            self.pidfds.append(fd)
            self.shim.sel.register(fd, 1, "declared-watch")

    def on_watch(self, fd: int) -> None:
        """A file moved into the registry directory, or a dependency's shim died."""
        if fd in self.pidfds:  # readable for good now: let it go, then look
            self.pidfds.remove(fd)
            self.shim.sel.unregister(fd)
            os.close(fd)
            self.check_deps()
            return
        names = self.watch.names() if self.watch is not None else set()
        wanted = {name for dep in self.deps for name in dep.files.values()}
        if names & wanted:
            self.check_deps()

    def check_deps(self) -> None:
        shim = self.shim
        from .dirwatch import POLL_S, SAFETY_S

        watched = self.watch is not None and self.watch.active
        self.check_at = time.monotonic() + (SAFETY_S if watched else POLL_S)
        left = []
        for dep in self.deps:
            reached, failure = dep.check(shim)
            if failure is not None:
                self.stop_watching()
                self.end_without_running(DEPENDENCY, DEP_FAILED_STATUS, None, failure)
                return
            if not reached:
                left.append(dep.name)
        if left != self.waiting_for:
            self.waiting_for = left
            if left:
                self.announce()
        if not left:
            self.stop_watching()
            self.launch()

    def stop_watching(self) -> None:
        for fd in self.pidfds:
            self.shim.sel.unregister(fd)
            os.close(fd)
        self.pidfds.clear()
        if self.watch is not None:
            if self.watch.active:
                self.shim.sel.unregister(self.watch.fd)
            self.watch.close()
            self.watch = None

    def launch(self) -> None:
        """Spawn the command (first time or again); a spawn that fails ends the job."""
        shim = self.shim
        try:
            shim.spawn()
        except Exception as exc:
            self.end_without_running("spawn-failed", 127, None, f"{type(exc).__name__}: {exc}")
            return
        shim.identify()
        self.spawned()

    def spawned(self) -> None:
        """The command runs: `<id>.started` (once), then the probe armed (or ready)."""
        shim, now = self.shim, time.monotonic()
        self.spawned_at = now
        if not self.started_written:
            self.write(self.started_name, {"at": now_ms(), "pid": shim.child_pid})
            self.started_written = True
        probe = self.probe_spec
        if not probe:
            self.mark_ready("no probe: ready once started")
            return
        kind, target = probe.get("kind"), probe.get("target")
        if kind == "log":
            self.probe = LogProbe(str(target))
            shim.log.observer = self.observe
        elif kind == "exec":
            self.probe = ExecProbe(str(target))
        elif kind not in ("port", "http"):
            raise ValueError(f"declared: unknown probe kind {kind!r}")
        else:
            self.probe = kind
        period = self.period_s()
        self.probe_at = None if kind == "log" else now + min(FIRST_PROBE_S, period)
        limit = probe.get("limit_ms")
        self.limit_at = now + int(limit) / 1000 if limit else None
        self.set_phase(STARTING)

    def period_s(self) -> float:
        return max(0.01, int((self.probe_spec or {}).get("period_ms") or 1000) / 1000)

    def timeout_s(self) -> float:
        return max(0.01, int((self.probe_spec or {}).get("timeout_ms") or 1000) / 1000)

    # -- 2. the probe ----------------------------------------------------------------
    def observe(self, data: "bytes | memoryview") -> None:
        """Every byte the shim writes to the log goes by here while a log probe waits."""
        probe = self.probe
        if isinstance(probe, LogProbe) and probe.feed(data):
            self.shim.log.observer = None
            self.mark_ready(f"log: {probe.needle.decode('utf-8', 'replace')}")

    def run_probe(self, now: float) -> None:
        probe, target = self.probe, (self.probe_spec or {}).get("target")
        self.probe_at = now + self.period_s()
        if probe == "port":
            if check_port(int(target), self.timeout_s()):
                self.mark_ready(f"port {target} open")
        elif probe == "http":
            if check_http(str(target), self.timeout_s()):
                self.mark_ready(f"http {target}")
        elif isinstance(probe, ExecProbe) and not probe.running:
            probe.start(self.probe_env(), now, self.timeout_s())

    def probe_env(self) -> dict:
        from .spawn import _env  # the job's own environment, its marker with it

        return _env(self.shim.spec, False)

    def reaped(self, pid: int, status: int) -> None:
        """The shim reaped a process other than the job: an exec probe's, maybe."""
        probe = self.probe
        if isinstance(probe, ExecProbe) and probe.reaped(pid, status):
            if probe.result == PASS:
                self.mark_ready(f"exec {probe.command}")
            elif probe.result == FAIL:
                self.probe_at = max(self.probe_at or 0.0, time.monotonic())

    def mark_ready(self, detail: str) -> None:
        self.stop_probe()
        self.write(self.ready_name, {"ready": True, "at": now_ms(), "restarts": self.restarts})
        self.set_phase(READY, detail)

    def not_ready(self) -> None:
        self.limit_at = None
        limit = (self.probe_spec or {}).get("limit_ms")
        detail = f"no pass within {int(limit) / 1000:g}s"
        self.write(self.ready_name, {"ready": False, "at": now_ms(), "detail": detail})
        self.set_phase(NOT_READY, detail)

    def stop_probe(self) -> None:
        if isinstance(self.probe, ExecProbe):
            self.probe.stop()
        self.shim.log.observer = None
        self.probe = self.probe_at = self.limit_at = None

    def write(self, name: str, value: dict) -> None:
        try:
            self.shim.dir.write_atomic(name, dumps(value).encode())
        except OSError:
            pass  # a full disk: the socket's event still says it

    def tick(self, now: float) -> float:
        """Timers: the poll of dependencies, the backoff, the probe, its limit."""
        waits = [3600.0]
        if self.phase == WAITING and self.check_at:
            if now >= self.check_at:
                self.check_deps()
            waits.append(max(0.0, self.check_at - now))
        if self.restart_at is not None:
            if now >= self.restart_at:
                self.restart_at = None
                self.launch()
            else:
                waits.append(self.restart_at - now)
        probe = self.probe
        if isinstance(probe, ExecProbe) and probe.running:
            probe.expire(now)
            waits.append(max(0.0, probe.deadline - now))
        elif self.probe_at is not None:
            if now >= self.probe_at:
                self.run_probe(now)
            if self.probe_at is not None:
                waits.append(max(0.0, self.probe_at - now))
        if self.limit_at is not None:
            if now >= self.limit_at:
                self.not_ready()
            else:
                waits.append(self.limit_at - now)
        return min(waits)

    # -- 3. the exit and the policy ---------------------------------------------------
    def on_exit(self) -> bool:
        """The command exited: True if it is restarted (then this exit is not the job's end)."""
        shim = self.shim
        self.stop_probe()
        status = shim.exit_status
        wants = self.policy == "always" or (self.policy == "on-failure" and status != 0)
        if shim.reason is not None or not wants:  # a kill through the socket: never again
            self.phase = ENDED
            return False
        if self.max_restarts is not None and self.restarts >= self.max_restarts:
            shim.reason = CRASH_LOOP
            self.phase = ENDED
            self.detail = f"restarted {self.restarts} times, then {describe_exit(status)} again"
            return False
        self.restart(status)
        return True

    def restart(self, status: "int | None") -> None:
        shim, now = self.shim, time.monotonic()
        if shim.out_fd >= 0:
            try:
                shim.drain()  # every byte the old instance wrote, before the marker
            except OSError:
                pass
        shim.signal_tree(SIGKILL)  # what the old instance left must not hold its port
        shim.signalled.clear()
        self.close_fds()
        self.restarts += 1
        self.last_exit = status
        line = marker_line(self.restarts, self.max_restarts, status, now - self.spawned_at)
        if shim.log.tail(1) not in (b"", b"\n"):
            line = "\n" + line
        # A terminal job's log is replayed by a terminal emulator: its lines end CRLF.
        shim.log.write((line.replace("\n", "\r\n") if shim.tty else line).encode())
        shim.exit_status, shim.child_pid, shim.deadline = None, 0, None
        shim.dir.unlink(self.ready_name, quiet=True)
        self.restart_at = now + self.backoff_s
        self.set_phase(RESTARTING, line.strip())
        shim.output_event(force=True)

    def close_fds(self) -> None:
        shim = self.shim
        if shim.out_fd >= 0:
            if shim.out_resume_at is None:
                shim.sel.unregister(shim.out_fd)
            shim.out_resume_at = None
            os.close(shim.out_fd)
            shim.out_fd = -1
        if shim.in_fd >= 0:
            if shim.in_fd in shim.sel.get_map():
                shim.sel.unregister(shim.in_fd)
            os.close(shim.in_fd)
            shim.in_fd = -1
        shim.pending_in.clear()
        shim.close_in_after = False
        shim.pty_fd = -1  # the master was out_fd

    def idle(self) -> bool:
        """No command runs: waiting for dependencies, or between two instances."""
        return self.shim.child_pid == 0 and self.shim.exit_status is None

    def end_idle(self, name: str, reason: str) -> dict:
        """A kill while nothing runs: the job ends now, and nothing is ever spawned."""
        self.end_without_running(reason, -procs.signal_number(name), name, None)
        return {"ok": True, "signalled": True, "signal": name, "processes": 0}

    def end_without_running(
        self, reason: str, status: int, signal_: "str | None", detail: "str | None"
    ) -> None:
        shim = self.shim
        self.stop_watching()
        self.stop_probe()
        self.restart_at = None
        shim.reason = shim.reason or reason
        shim.kill_signal = shim.kill_signal or signal_
        shim.gone_due = True
        self.phase, self.detail = ENDED, detail or self.detail
        shim.exit_status = status
        shim.on_exit()  # the reason is set: no restart; the end files and `exit` event
