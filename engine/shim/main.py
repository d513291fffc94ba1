"""The per-job supervisor: owns the job's pipes, log, signals, deadline and exact exit status.

Started as `python -I -S` with SPEC_JSON (see session/launch.py), detached from its caller
(it forks once, the parent exits, the child calls setsid), it spawns `sh -c COMMAND`
in a new session, reaps every child itself, and speaks JSON lines on a Unix socket:
its start spec, requests, replies and events are in `protocol`.

No asyncio, no UI: it must start fast and stay small. It is a second interpreter on the
critical path of every start, so it imports only what the first byte needs: `_signal`,
`_socket`, `select.poll` and `_json` instead of the modules around them (which import
`enum`, `re` and `collections`); tests/unit/test_shim_startup.py holds it to that.
"""

import _signal
import errno
import os
import sys
import time

from . import cgroup, procs
from .ending import FINISH_POLL_S, EndingMixin, OomCount
from .logwriter import LogWriter
from .protocol import (
    EV_LOG_LOST,
    EV_OUTPUT,
    EV_STATE,
    OP_INPUT,
    OP_KILL,
    OP_OWNER,
    OP_RESIZE,
    OP_RESUME,
    OP_SEND,
    OP_STATE,
    OP_WATCH,
)
from .regdir import open_registry
from .server import EVENT_READ, EVENT_WRITE, Client, ControlServer, make_selector
from .shimjson import dumps, loads
from .spawn import PIPE_SIZE, set_child_subreaper, set_winsize, spawn_pipes, spawn_pty

OUTPUT_EVENT_S = 1.0  # the output tail and byte counts reach sessions at most this often
# (a quiet job's first new output goes at once; what needs lines sooner, the log pane and
# `wait_many(until=...)`, watches the log itself: inotify, or a poll)
CHECK_S = 0.25  # a deleted live log and a polled owner are looked at this often
CHECK_QUIET_S = 2.0  # a job that writes nothing: its log looked at less often, up to this
# (each look that finds no new output waits twice as long; new output brings it back to
# CHECK_S: an idle shim wakes every 2 s, not 4 times a second, issue 26's idle figure)
TAIL_BYTES = 2048
COALESCE_BYTES = 16 * 1024  # drains smaller than this on average pause reading
COALESCE_S = 0.002
TTY_CAPACITY = 4096  # what a terminal holds before its writer blocks (N_TTY's read buffer)
PENDING_STDIN_MAX = 1 << 20


class Shim(EndingMixin):
    def __init__(self, spec: dict) -> None:
        self.spec = spec
        self.sel = make_selector()
        # The registry directory, opened once and verified; every file is opened in it.
        self.dir, self.exit_names, socket_dir = open_registry(spec)
        self.server = ControlServer(self.sel, spec["socket"], self.handle, socket_dir)
        self.child_pid = 0
        self.exit_status: int | None = None
        self.reason: str | None = None
        self.kill_signal: str | None = None
        self.killed_by: dict | None = None  # a kill request's door and session (ending.py)
        self.escalate_at: float | None = None
        self.signalled: set[int] = set()  # every process a kill reached
        self.escalated = False  # SIGKILL followed because the tree outlived the grace
        self.term_step = False  # a stop's TERM is still to come before KILL (ending.kill)
        self.init_tree_state()
        self.gone_due = False  # a kill was asked for: say when the tree is gone
        self.deadline: float | None = None
        self.out_fd = -1
        self.in_fd = -1
        self.pending_in = bytearray()
        self.close_in_after = False
        self.owner_fd = -1
        self.owner_poll: tuple[int, str | None] | None = None
        self.identity: dict = {}  # pid, startToken, shimPid, shimToken once the job runs
        self.last_event = 0.0
        self.sent_bytes = -1
        self.tail = ""
        self.out_resume_at: float | None = None
        self.last_drain = time.monotonic()
        self.drain_avg = 0.0
        self.finished_at: int | None = None
        self.tty = False
        self.pty_fd = -1
        self.check_finished_at = 0.0
        self.status_written = False
        self.status_retry_at: float | None = None
        self.lost_bytes = 0
        self.reported_lost = 0
        self.log_checked = 0.0
        self.check_s = CHECK_S
        self.checked_total = -1  # log.total at the last look
        self.log = LogWriter(spec["log"], spec["previous"], spec["maxLogBytes"], directory=self.dir)
        self.capacity = PIPE_SIZE  # bytes the job can write before it blocks on us
        self.decl = None  # a declared job's dependencies, probe and restart policy
        if spec.get("declared"):
            from .declared import Declared  # only a declared job loads it

            self.decl = Declared(self, spec["declared"])
        self.runaway = None  # the repeat note and the output cap (runaway.py), if asked for
        self.input_watch = None  # inputwait.InputWatch, made by the first `input` request
        self.oom = None  # ending.OomCount: the OOM kill counters once the job runs
        self.oom_kill: dict | None = None  # which moved when the job died of SIGKILL
        self.tty_name = ""
        if spec.get("repeatLimit") or spec.get("maxOutputBytes"):
            from .runaway import Runaway  # only a job with either option loads it

            self.runaway = Runaway(self, spec)

    # -- setup -----------------------------------------------------------------
    def spawn(self) -> None:
        spec = self.spec
        os.chdir(spec["cwd"])
        self.tty = bool(spec.get("tty"))
        procs_fd = self.make_cgroup()
        try:
            job = spawn_pty(spec, procs_fd) if self.tty else spawn_pipes(spec, procs_fd)
        finally:
            if procs_fd >= 0:
                os.close(procs_fd)
        self.child_pid, self.out_fd, self.pty_fd = job.pid, job.out_fd, job.pty_fd
        self.tty_name = job.tty_name
        self.check_cgroup()
        if self.tty:
            self.capacity = TTY_CAPACITY
        os.set_blocking(self.out_fd, False)
        self.sel.register(self.out_fd, EVENT_READ, "out")
        if job.in_fd >= 0:
            os.set_blocking(job.in_fd, False)
            self.in_fd = job.in_fd
        if spec.get("timeoutMs"):
            self.deadline = time.monotonic() + spec["timeoutMs"] / 1000

    def identify(self) -> None:
        """Who runs the job now (again after a declared job's restart)."""
        self.identity = {
            "pid": self.child_pid,
            "startToken": procs.start_token(self.child_pid) if self.child_pid else None,
            "shimPid": os.getpid(),
            "shimToken": procs.start_token(os.getpid()),
            "cgroup": self.cgroup,
        }

    # -- events ----------------------------------------------------------------
    def state(self) -> dict:
        return {
            "ev": EV_STATE,
            **self.identity,
            "pid": self.child_pid or None,  # None: a declared job not spawned (yet, again)
            "bytes": self.log.total,
            "tail": self.tail,
            "running": self.exit_status is None,
            "lostBytes": self.lost_bytes + self.log.lost_bytes,
            "logNote": self.log.note,
            **(self.decl.fields() if self.decl is not None else {}),
            **(self.runaway.fields() if self.runaway is not None else {}),
            **(self.exit_message() if self.exit_status is not None else {}),
        }

    def exit_message(self) -> dict:
        status = self.exit_status
        signal_ = procs.signal_name(-status) if status is not None and status < 0 else None
        return {
            "exitStatus": status,
            "reason": self.reason or "exit",
            "signal": signal_ or self.kill_signal,
            "finishedAt": self.finished_at,
            "bytes": self.log.total,
            "tail": self.tail,
            "lostBytes": self.lost_bytes + self.log.lost_bytes,
            "logNote": self.log.note,
            "remaining": self.remaining,
            **(self.decl.fields() if self.decl is not None else {}),
            **(self.runaway.fields() if self.runaway is not None else {}),
            **({"oomKill": self.oom_kill} if self.oom_kill is not None else {}),
            **({"killedBy": self.killed_by} if self.killed_by is not None else {}),
        }

    def output_event(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.log.total == self.sent_bytes or (
            not force and now - self.last_event < OUTPUT_EVENT_S
        ):
            return
        self.last_event = now
        self.sent_bytes = self.log.total
        try:
            self.tail = self.log.tail(TAIL_BYTES).decode("utf-8", "replace")
        except OSError:
            pass
        self.server.broadcast({"ev": EV_OUTPUT, "bytes": self.log.total, "tail": self.tail})

    # -- io --------------------------------------------------------------------
    def drain(self) -> int:
        """Move what the job wrote into the log; bytes moved, or -1 at end of input."""
        if self.out_fd < 0:
            return -1
        total = 0
        while True:
            try:
                moved = self.log.read_from(self.out_fd)
            except BlockingIOError:
                return total
            except OSError as exc:
                if exc.errno != errno.EIO:  # EIO: every holder of the PTY slave has closed it
                    raise
                moved = 0
            if self.runaway is not None:
                self.runaway.after_read()
            if moved == 0:
                if self.out_resume_at is None:
                    self.sel.unregister(self.out_fd)
                self.out_resume_at = None
                os.close(self.out_fd)
                self.out_fd = -1
                return -1
            total += moved

    def on_output(self) -> None:
        """Drain; while the job only trickles, let output gather before the next wake-up.

        Small drains on average mean many wake-ups for little data: then reading pauses,
        never longer than the pipe (or terminal) takes to fill a quarter at the job's
        rate, since a full one would stall the job. A fast writer's drains are large: no pause.
        """
        if self.out_fd < 0:  # closed by the exit path earlier in this same select batch
            return
        moved = self.drain()
        now = time.monotonic()
        since, self.last_drain = now - self.last_drain, now
        if moved < 0 or self.exit_status is not None:
            return
        self.drain_avg = 0.75 * self.drain_avg + 0.25 * moved
        if self.drain_avg < COALESCE_BYTES:
            rate = moved / max(since, 1e-6)
            pause = min(COALESCE_S, self.capacity / 4 / rate) if rate else COALESCE_S
            if pause > 0.0002:
                self.sel.unregister(self.out_fd)
                self.out_resume_at = now + pause

    def note_size(self, cols: int, rows: int) -> None:
        """Record the new size at the byte it starts at (`<id>.log.size`), for renderers
        that replay the log: what the job wrote before is moved into the log first."""
        if self.log.sizes is None:
            from .protocol import sizes_of
            from .sizeindex import SizeIndexWriter  # only a resized job needs it

            start = (int(self.spec.get("cols") or 80), int(self.spec.get("rows") or 24))
            self.log.sizes = SizeIndexWriter(sizes_of(self.log.live), self.dir, *start)
        if self.out_fd >= 0:
            try:
                self.drain()
            except OSError:
                pass
        self.log.sizes.note(self.log.total, cols, rows)

    def write_stdin(self) -> None:
        if self.in_fd < 0:
            return
        try:
            while self.pending_in:
                written = os.write(self.in_fd, self.pending_in)
                del self.pending_in[:written]
        except BlockingIOError:
            pass
        except OSError:
            self.pending_in.clear()
            self.close_in_after = True
        registered = self.in_fd in self.sel.get_map()
        if self.pending_in and not registered:
            self.sel.register(self.in_fd, EVENT_WRITE, "stdin")
        elif not self.pending_in and registered:
            self.sel.unregister(self.in_fd)
        if not self.pending_in and self.close_in_after:
            os.close(self.in_fd)
            self.in_fd = -1

    def handle(self, client: Client, message: dict) -> dict | None:
        op = message.get("op")
        if op == OP_WATCH:
            client.watching = True
            return self.state()
        if op == OP_SEND:
            if self.in_fd < 0 or self.exit_status is not None:
                return {
                    "ok": False,
                    "error": "stdin is closed" if self.in_fd < 0 else "job finished",
                }
            from binascii import a2b_base64  # only jobs that take input need it

            data = a2b_base64(message.get("data") or "")
            if len(self.pending_in) + len(data) > PENDING_STDIN_MAX:
                return {"ok": False, "error": "stdin is full: the job is not reading its input"}
            self.pending_in += data
            if message.get("eof") and self.tty:
                self.pending_in += b"\x04"  # a terminal has no EOF to close: type ^D
            elif message.get("eof"):
                self.close_in_after = True
            self.write_stdin()
            closed = bool(message.get("eof")) and not self.tty
            return {"ok": True, "sent": len(data), "stdinClosed": closed}
        if op == OP_KILL:
            stop = self.decl is not None and message.get("stop")  # as declared: stop_signal
            return self.kill(
                self.decl.stop_signal if stop else message.get("signal", "SIGTERM"),
                message.get("graceMs"),
                message.get("reason", "kill"),
                bool(stop),
                message.get("by"),
            )
        if op == OP_OWNER:
            owner = message.get("pid"), message.get("token"), self.spec.get("ownerPoll")
            if not self.watch_owner(*owner):
                self.owner_gone()
            return {"ok": True}
        if op == OP_RESIZE:
            if self.pty_fd < 0 or self.exit_status is not None:
                return {"ok": False, "error": "not a running terminal job"}
            cols, rows = int(message["cols"]), int(message["rows"])
            self.note_size(cols, rows)
            set_winsize(self.pty_fd, cols, rows)
            return {"ok": True}
        if op == OP_STATE:
            return self.state()
        if op == OP_INPUT:
            from .inputwait import answer  # only a job someone asks about loads it

            return answer(self)
        if op == OP_RESUME:
            if self.runaway is None or self.exit_status is not None:
                return {"ok": False, "error": "not stopped by its output limit"}
            return self.runaway.resume(message)
        return {"ok": False, "error": f"unknown op {op!r}"}

    def tick(self) -> float:
        """Timers; returns how long the loop may sleep."""
        now = time.monotonic()
        if self.log.total != self.checked_total and self.check_s > CHECK_S:
            self.check_s = CHECK_S  # output again: looked at often again
        waits = [max(0.0, self.log_checked + self.check_s - now)]
        if self.deadline is not None and self.exit_status is None:
            if now >= self.deadline:
                self.deadline = None
                self.kill("SIGTERM", None, "deadline")
            else:
                waits.append(self.deadline - now)
        if self.escalate_at is not None:
            if now >= self.escalate_at:
                self.escalate()
            else:
                waits.append(self.escalate_at - now)
        if self.sweeping:
            waits.append(self.sweep_tick(now))
        if self.status_retry_at is not None:
            if now >= self.status_retry_at:
                self.write_exit_files()
            else:
                waits.append(self.status_retry_at - now)
        if self.out_resume_at is not None:
            if now >= self.out_resume_at:
                self.out_resume_at = None
                self.sel.register(self.out_fd, EVENT_READ, "out")
            else:
                waits.append(self.out_resume_at - now)
        if now - self.log_checked >= self.check_s:
            self.log_checked = now
            quiet = self.log.total == self.checked_total and self.owner_poll is None
            self.check_s = min(self.check_s * 2, CHECK_QUIET_S) if quiet else CHECK_S
            self.checked_total = self.log.total
            self.check_log()
            self.poll_owner()
        if self.decl is not None:
            waits.append(self.decl.tick(now))
        self.output_event()
        return max(0.0, min(waits))

    def check_log(self) -> None:
        """Someone deleted the live log: start a new one so later output is kept, and say so."""
        before = self.log.size
        if self.log.reopen_if_unlinked():
            self.lost_bytes += before
        lost = self.lost_bytes + self.log.lost_bytes  # the writer counts deletions it met
        if lost != self.reported_lost:
            self.reported_lost = lost
            self.server.broadcast({"ev": EV_LOG_LOST, "lostBytes": lost, "logNote": self.log.note})

    def run(self) -> int:
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        _signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        for signum in (_signal.SIGCHLD, _signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP):
            _signal.signal(signum, lambda *_: None)
        self.sel.register(wake_r, EVENT_READ, "signal")
        self.oom = OomCount(self.cgroup)  # after the ready line: not on the start's path
        self.reap()
        self.check_finished_at = 0.0
        while True:
            timeout = self.tick()
            if self.exit_status is not None and self.out_fd < 0:
                now = time.monotonic()
                if now >= self.check_finished_at:
                    if self.finished():
                        break
                    self.check_finished_at = now + self.finish_poll_s
                    self.finish_poll_s = min(self.finish_poll_s * 2, FINISH_POLL_S[1])
                timeout = min(timeout, max(0.0, self.check_finished_at - now))
            for key, mask in self.sel.select(timeout):
                kind = key.data
                if kind == "out":
                    self.on_output()
                elif kind == "signal":
                    self.on_signals(wake_r)
                elif kind == "accept":
                    self.server.accept()
                elif kind == "client":
                    self.server.on_client(key.fd, mask)
                elif kind == "stdin":
                    self.write_stdin()
                elif kind == "declared-watch":
                    self.decl.on_watch(key.fd)
                elif kind == "owner":
                    self.watch_owner(None, None)
                    self.owner_gone()
        self.shutdown()
        return 0

    def on_signals(self, wake_r: int) -> None:
        try:
            data = os.read(wake_r, 4096)
        except BlockingIOError:
            return
        for signum in data:
            if signum == _signal.SIGCHLD:
                self.reap()
                self.check_finished_at = 0.0  # the last of a tree to die is our child
                self.finish_poll_s = FINISH_POLL_S[0]
            elif signum in (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP):
                self.kill("SIGTERM", None, "kill")

    def shutdown(self) -> None:
        self.server.close()
        self.log.close()
        cgroup.remove(self.cgroup)  # empty by now: the tree is gone


def report(ready_fd: int, message: dict) -> None:
    """The ready line for our caller. A caller that died meanwhile is no reason to stop:
    the job is recorded already, and its owner (watched before the spawn) decides."""
    try:
        os.write(ready_fd, dumps(message).encode())
    except OSError:
        pass
    finally:
        os.close(ready_fd)


def main(argv: list[str]) -> int:
    spec = loads(argv[1])
    ready_fd = int(spec["readyFd"])
    os.set_inheritable(ready_fd, False)  # the job must not hold our caller's ready pipe
    if spec.get("dirFd") is not None:  # the session's registry directory: never the job's
        os.set_inheritable(int(spec["dirFd"]), False)
    hold_fd = spec.get("holdFd")  # a held start (a restart): spawn only on its go
    if hold_fd is not None:
        os.set_inheritable(int(hold_fd), False)
    if os.fork():  # the caller reaps this parent at once; the shim is nobody's child
        os._exit(0)
    os.setsid()
    set_child_subreaper()
    try:
        shim = Shim(spec)
    except Exception as exc:  # an unsafe registry directory, a log that cannot be opened
        report(ready_fd, {"error": f"{type(exc).__name__}: {exc}"})
        return 1
    try:
        # The owner first: from here on its death is noticed, before the job exists.
        owner = spec.get("ownerPid"), spec.get("ownerToken"), spec.get("ownerPoll")
        if not shim.watch_owner(*owner):
            raise OwnerGone("its session ended before the job started")
        if hold_fd is not None:
            from .spawn import wait_for_go  # loaded already; named here, where it is used

            wait_for_go(ready_fd, int(hold_fd))
        shim.server.listen()
        waits = shim.decl is not None and bool(shim.decl.deps)
        if not waits:
            shim.spawn()
        shim.identify()  # a job that waits for its dependencies: pid None, for now
        if waits:
            shim.identity["pid"] = None
    except Exception as exc:
        report(ready_fd, {"error": f"{type(exc).__name__}: {exc}"})
        shim.server.close()
        return 1
    report(ready_fd, shim.identity)
    if shim.decl is not None:
        if waits:
            shim.decl.begin()
        else:
            shim.decl.spawned()
    return shim.run()


def exit_now(code: int) -> None:
    """Skip the interpreter's teardown: everything is closed by now (the job, the socket,
    the log, the exit files), and a finished shim has nothing more to do on the CPU its
    caller is waiting for."""
    try:
        sys.stderr.flush()  # a debugging JOBS_TUI_SHIM_STDERR file keeps what was said
    except (AttributeError, OSError, ValueError):
        pass
    os._exit(code)


class OwnerGone(RuntimeError):
    """The session that asked for the job is gone: the job is not started."""


if __name__ == "__main__":
    exit_now(main(sys.argv))
