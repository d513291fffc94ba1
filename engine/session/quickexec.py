"""The command line's `exec` without an event loop: start a job and wait for it on a glance.

`exec -- CMD` is a short call that starts a job and waits for its end. Opening a
`JobManager` for it costs more than the job's own supervisor start (asyncio, the
supervision machinery), so on a session with nothing to do (`Glance.load()`) this does
what `JobManager.start`, `wait` and the session's close do for one job, in one thread:
the record is written before the shim is launched, the shim's ready line fills in its
pids, the shim's socket (a blocking `_socket`, no selector) carries its state, output
and exit events, and the finish is settled by the rules of `JobManager.settle` and
`Supervisor.settle_gone`. Anything out of the ordinary (a shim that is alive but does
not answer, a broken state reply) raises `Handover` with the job recorded and running:
the caller opens a JobManager, whose reconcile and wait take it from there.
"""

from __future__ import annotations

import _socket
import json
import time

from jobs_tui.engine.records.model import JobRecord, now_ms
from jobs_tui.engine.records.results import JobError
from jobs_tui.engine.registry import regfiles, reservations
from jobs_tui.engine.registry.exitfiles import ExitInfo, from_message, read_exit
from jobs_tui.engine.registry.reconcile import finish
from jobs_tui.engine.shim import procs
from jobs_tui.engine.shim.protocol import EV_EXIT, EV_STATE, OP_WATCH, previous_of

from .glance import Glance
from .launch import LaunchError, spawn, start_spec
from .newjob import kept_for_restart, new_record, reserve_id
from .shimnews import take_output

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from collections.abc import Callable

    from jobs_tui.engine.logs.unread import Unread
    from jobs_tui.engine.records.results import ReadSince

SHIM_GONE = "shim-gone"  # supervision.SHIM_GONE (that module loads asyncio)
REPLY_TIMEOUT_S = 10.0  # the shim's answer to `watch` (ShimLink.request's timeout)
WRITE_AFTER_S = 0.2  # a job still running this long into the wait: its pids are written


class Handover(Exception):
    """The job is recorded and running; an open session must take it from here."""


class QuickExec:
    """One session's exec of one job, as `JobManager` would do it, without an event loop.

    `open()` False: the session has something to do first; nothing was written.
    """

    def __init__(self, session_id: str, registry_dir_flag: str | None = None) -> None:
        self.view = Glance(".", session_id, registry_dir_flag=registry_dir_flag)
        self.registry = self.view.registry
        self.config = self.view.config
        self.paths = self.view.paths
        self.session_id = session_id
        self.persistent = True  # the command line's session (see app/session.py)
        self.cwd = self.view.cwd
        self.dir = self.view.dir
        self._socks: dict[str, _socket.socket | None] = {}  # linked as soon as it is ready

    def open(self) -> bool:
        if not self.view.load():
            self.view.close()  # the session opened instead holds the directory itself
            return False
        self.registry.read_only = False
        return True

    # -- start (JobManager.start, Supervisor.launch) ------------------------------
    def start(
        self,
        command: str,
        *,
        timeout_ms: int | None,
        cwd: str | None,
        tty: bool,
        env: dict[str, str] | None,
        cols: int = 80,
        rows: int = 24,
        meanwhile: Callable[[], object] | None = None,
    ) -> JobRecord:
        """A running job with a stdin pipe (or a terminal), not woken on its finish.

        `meanwhile` runs while the shim starts (on another CPU, if there is one): what the
        caller will need once the job ends, such as the imports it prints with."""
        from jobs_tui.engine.calls.arguments import check_env, check_size, check_start, resolve_cwd

        timeout_ms = check_start(command, None, True, timeout_ms, False, None)
        if tty:
            check_size(cols, rows)
        cwd = resolve_cwd(cwd, self.cwd)
        env = check_env(env)
        job_id = reserve_id(self.registry)
        record = new_record(
            self.paths,
            job_id,
            self.session_id,
            command,
            label=None,
            cwd=cwd or self.cwd,
            detached=self.config.detached_by_default,
            wake=False,
            stdin=True,
            tty=tty,
            timeout_ms=timeout_ms,
            env=env,
            cols=cols,
            rows=rows,
        )
        with kept_for_restart(self.paths, record, env, cols, rows):
            return self._launch(record, cols, rows, env, meanwhile)

    def _launch(
        self,
        record: JobRecord,
        cols: int,
        rows: int,
        env: dict[str, str] | None,
        meanwhile: Callable[[], object] | None,
    ) -> JobRecord:
        job_id = record.id
        marker = procs.job_marker(self.paths.root, job_id)
        spec = start_spec(record, self.paths, self.config, None, marker, cols, rows)
        self.registry.add(record)  # the record first: a job is never one nobody knows of
        try:
            self.registry.persist()
        except OSError as exc:
            self._forget_start(job_id)
            raise JobError(f"could not record the job: {exc.strerror or exc}", "command") from exc
        try:
            starting = spawn(spec, env=env)
            try:
                _later_imports()
                if meanwhile is not None:
                    meanwhile()
            finally:
                ready = starting.ready()
        except (LaunchError, OSError) as exc:
            procs.sweep(marker)  # a shim that answered too late must not leave a job
            self._forget_start(job_id)
            raise JobError(str(exc), "command") from exc
        # Linked at once: the shim of a quick command is gone a few ms after its job, and
        # what a gone shim leaves to do (a sweep by its marker) costs more than this.
        self._socks[job_id] = _link(regfiles.reach(self.paths.socket(job_id)))
        # Its pids are written with its finish for a quick command (one registry write),
        # else a moment into the wait (`_follow`), else by `close`: until then the record
        # is one a peer sees as launching (`reconcile.launching`), as while a start runs.
        identify(record, ready)
        self.registry.mark_dirty()
        reservations.release(self.paths, job_id)
        return record

    def _forget_start(self, job_id: str) -> None:
        try:
            self.registry.remove([job_id])
        except OSError:
            pass
        reservations.release(self.paths, job_id)

    # -- wait (Controller.wait, Supervisor.attach and its events) -----------------
    def wait(self, record: JobRecord, timeout_ms: int) -> JobRecord:
        """The record once finished, or still running after `timeout_ms`; raises Handover
        when the shim is alive but does not answer as it should."""
        deadline = time.monotonic() + timeout_ms / 1000
        sock = self._socks.pop(record.id, None)
        if sock is None:
            self._gone(record)  # it ended (or is ending) already
            return record
        try:
            self._follow(sock, record, deadline)
        finally:
            sock.close()
        return record

    def _follow(self, sock: _socket.socket, record: JobRecord, deadline: float) -> None:
        """Read the shim's state reply, then its events, until the job settles or time is up.

        What changed is written `WRITE_AFTER_S` into the wait (a job still running has its
        pids on disk by then), then at most once a second, and at the end by `close`."""
        pending = b""
        answered = False
        reply_by = time.monotonic() + REPLY_TIMEOUT_S
        write_at = time.monotonic() + WRITE_AFTER_S
        while record.running:
            now = time.monotonic()
            if now >= write_at and self.registry.dirty:
                self.registry.save()
                write_at = now + 1.0  # a write a full disk refused: again in a second
            if now >= (deadline if answered else reply_by):
                if answered:
                    return
                raise Handover(f"{record.id}: its supervisor did not answer")
            wake = deadline if answered else reply_by
            if self.registry.dirty:
                wake = min(wake, max(write_at, now))
            sock.settimeout(max(wake - now, 0.001))
            try:
                chunk = sock.recv(1 << 16)
            except TimeoutError:
                continue
            except OSError:
                chunk = b""
            if not chunk:  # the shim hung up: its job is over, or it died
                self._gone(record)
                return
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                try:
                    message = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(message, dict):
                    continue
                if "ev" in message and message["ev"] != EV_STATE:
                    self._on_event(record, message)
                elif not answered:
                    answered = True
                    if identify(record, message):  # recorded before its ready line came
                        self.registry.mark_dirty()
                    self._apply_output(record, message)
                    if message.get("running") is False:
                        self.settle(record, from_message(message))
                if not record.running:
                    return

    def _on_event(self, record: JobRecord, message: dict) -> None:
        self._apply_output(record, message)
        if message.get("ev") == EV_EXIT:
            self.settle(record, from_message(message))

    def _apply_output(self, record: JobRecord, message: dict) -> None:
        """What the event says (as the Supervisor takes it); written with the finish."""
        if any(take_output(record, message)):
            self.registry.mark_dirty()

    def _gone(self, record: JobRecord) -> None:
        """The shim hung up or does not listen (`Supervisor.settle_gone`'s rules)."""
        info = read_exit(self.paths, record.id, record.status_path)
        if procs.same_process(record.shim_pid, record.shim_token):
            if info is None:
                raise Handover(f"{record.id}: its supervisor is alive but not reachable")
            self.settle(record, info)
            return
        from jobs_tui.engine.procs.remaining import (
            kill_gone_shim,  # a dead shim: rare, its cost only then
        )

        swept = kill_gone_shim(procs.job_marker(self.paths.root, record.id), record)
        if info is None and (procs.LINUX or swept):
            info = ExitInfo(-9, SHIM_GONE, "SIGKILL", now_ms())
        self.settle(record, info)

    def settle(self, record: JobRecord, info: ExitInfo | None) -> None:
        """`JobManager.settle` for a session with no waiters and no subscribers. Written by
        `close`, right after the output is read, with `seen`: one write instead of two (a
        call killed in between leaves the job to be settled again from its status file)."""
        if not record.running:
            return
        finish(record, info, now_ms(), procs.signal_name)
        if info is not None and info.note:
            self.registry.report(info.note)
        self.registry.prune()
        self.registry.mark_dirty()

    # -- after the wait -----------------------------------------------------------
    def read_unread(self, record: JobRecord, cap: int) -> Unread:
        """The session's unread output of the job (its cursor moves past it)."""
        from jobs_tui.engine.logs.follower import read_sanitized
        from jobs_tui.engine.logs.unread import UnreadCursors

        live = self.paths.inside(record.log_path)
        if live is None:
            from jobs_tui.engine.records.results import Refused

            message = f"{record.id}: its log path lies outside the registry directory; not opened"
            raise Refused(message, "id")

        def since(offset: int, cap: int) -> ReadSince:
            return read_sanitized(
                record.id, str(live), previous_of(str(live)), offset, cap, record.running
            )

        return UnreadCursors.shared(self).read_now(record.id, cap, since)

    def mark_seen(self, record: JobRecord) -> None:
        """Its finish was reported (`JobManager.status` of an own finished job)."""
        if not record.running and not record.seen:
            record.seen = True
            self.registry.mark_dirty()

    def close(self) -> None:
        """What closing a persistent session writes: its file, merged (skipped if unchanged).
        Called however the exec ends (an interrupt, a hand-over included)."""
        self.registry.save()
        for sock in self._socks.values():
            if sock is not None:
                sock.close()
        self._socks.clear()
        self.view.close()


def _link(path: str) -> _socket.socket | None:
    """A blocking connection to a shim, `watch` sent; None if it does not listen (any more)."""
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(REPLY_TIMEOUT_S)
    try:
        sock.connect(path)
        sock.sendall(json.dumps({"op": OP_WATCH}).encode() + b"\n")
    except OSError:
        sock.close()
        return None
    return sock


def _later_imports() -> None:
    """What an exec needs once its job ended, loaded while the shim starts."""
    from jobs_tui.engine.logs import follower, unread  # noqa: F401
    from jobs_tui.engine.registry import outcomes  # noqa: F401


def identify(record: JobRecord, ready: dict) -> bool:
    """Fill a record's pids and start tokens from the shim's ready line or state
    (`Supervisor._identify`); False if it had them already."""
    if record.pid is not None or not isinstance(ready.get("pid"), int):
        return False
    record.pid = ready["pid"]
    for attr, key in (("start_token", "startToken"), ("shim_token", "shimToken")):
        value = ready.get(key)
        setattr(record, attr, value if isinstance(value, str) else None)
    shim_pid = ready.get("shimPid")
    record.shim_pid = shim_pid if isinstance(shim_pid, int) else None
    group = ready.get("cgroup")
    record.cgroup = group if isinstance(group, str) else None
    return True


__all__ = ["SHIM_GONE", "Handover", "QuickExec", "identify"]
