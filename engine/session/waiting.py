"""Waiting on several jobs at once, for their end or for a line of their output.

`wait_many` wakes only when something happened: the shim's output and finish events
(through the manager's subscribers), the log file growing (inotify on Linux, see
`logs.watch`), or, for a peer's job that no link reports, a slow look at the registry.
A `port` condition is the exception: the kernel tells no one when a socket starts to
listen, so that part looks every `portwatch.PORT_POLL_S`.
Each wake reads only the bytes written since the last read (a `LogFollower`, whose
absolute position survives rotation); `LineScanner` joins lines that arrive in pieces,
so a line split across reads still matches as one.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from jobs_tui.engine.calls.arguments import check, compile_regex
from jobs_tui.engine.calls.callschema import MAX_WAIT_IDS, WAIT_TIMEOUT
from jobs_tui.engine.calls.schemacheck import quote
from jobs_tui.engine.logs.follower import LOG_END, LogFollower
from jobs_tui.engine.logs.segments import LINE_CAP, LogMissing
from jobs_tui.engine.logs.watch import LogWatch
from jobs_tui.engine.records.model import JobEvent, JobRecord, now_ms
from jobs_tui.engine.records.results import InvalidArgument, JobError, Refused
from jobs_tui.engine.records.sanitize import sanitize_log

if TYPE_CHECKING:
    from .parts import WaitSession

PEER_POLL_S = 0.5  # a peer's job: no link reports it, its registry file and log are looked at
FALLBACK_POLL_S = 0.25  # without inotify: a linked job's log is looked at this often, too
SETTLE_S = 0.002  # after a wake, let a burst of writes land before reading (one read for all)
LINE_WINDOW = 64 * 1024  # how far back the start of the line in progress is looked for
READ_STEP = 1 << 20  # bytes read per step; a waiter that fell far behind reads in steps

Reason = Literal["match", "port", "ready", "not-ready", "finished", "timeout"]


@dataclass(frozen=True)
class LineMatch:
    job_id: str
    line: str  # the matching line, sanitized, without its newline
    offset: int  # absolute byte offset of the line's first byte in the log (survives rotation)


@dataclass(frozen=True)
class WaitResult:
    jobs: list[JobRecord]  # every waited job's record as it is now, in the order asked
    reason: Reason
    match: LineMatch | None = None  # set when reason == "match"
    listening: str | None = None  # reason == "port": the job whose tree listens on it

    @property
    def timed_out(self) -> bool:
        return self.reason == "timeout"


def compile_until(until: str | None) -> re.Pattern[str] | None:
    """`until` as a Python regex; InvalidArgument naming `until` when it is not one."""
    return None if until is None else compile_regex("until", until)


def check_ids(ids: Sequence[str]) -> list[str]:
    """The ids asked for, each once, in order; InvalidArgument naming `ids`."""
    if isinstance(ids, str) or not isinstance(ids, Sequence):
        raise InvalidArgument("ids must be a list of job ids such as ['j1', 'j2']", "ids")
    if not ids:
        raise InvalidArgument("ids must name at least one job", "ids")
    if len(ids) > MAX_WAIT_IDS:
        raise InvalidArgument(f"ids names {len(ids)} jobs; at most {MAX_WAIT_IDS}", "ids")
    for job_id in ids:
        try:
            check("id", job_id)
        except InvalidArgument as exc:
            raise InvalidArgument(str(exc).replace("id ", "ids: ", 1), "ids") from None
    return list(dict.fromkeys(ids))


@dataclass
class LineScanner:
    """Finds the first line matching `pattern` in output given in pieces, at any offset.

    `start` is the absolute offset of the first byte it will be fed. Only whole lines
    match while more may come (`feed`); `finish` tests the last line without a newline.
    A line longer than `LINE_CAP` is tested on its last `LINE_CAP` bytes, as a tail shows
    it (its offset stays that of its first byte). Bytes that rotated away before they
    were read end the line in progress there.
    """

    pattern: re.Pattern[str]
    start: int = 0  # absolute offset of the first byte of the line in progress
    job_id: str = ""
    _held: bytearray = field(default_factory=bytearray)  # that line's last LINE_CAP bytes
    _cut: int = 0  # bytes of that line dropped from the head of `_held`

    def feed(self, data: bytes, offset: int) -> LineMatch | None:
        if offset != self.start + self._cut + len(self._held):  # a gap: the held piece ends
            found = self.finish()
            self.start = offset
            if found:
                return found
        if b"\n" not in data and b"\n" not in self._held:
            self._hold(data)
            return None
        chunk = bytes(self._held) + data if self._held else data
        base = self.start + self._cut  # absolute offset of chunk[0]
        first_cut = self._cut
        self._held.clear()
        self._cut = 0
        pos = 0
        while True:
            nl = chunk.find(b"\n", pos)
            if nl < 0:
                break
            line_start = base + pos - (first_cut if pos == 0 else 0)
            found = self._test(chunk[max(pos, nl - LINE_CAP) : nl], line_start)
            pos = nl + 1
            if found:
                self.start = base + pos
                self._hold(chunk[pos:])  # the caller stops here; kept for a later feed
                return found
        self.start = base + pos - (first_cut if pos == 0 else 0)
        self._cut = first_cut if pos == 0 else 0
        self._hold(chunk[pos:])
        return None

    def finish(self) -> LineMatch | None:
        """The output ended (or has a gap): its last piece is a line of its own."""
        if not self._held:
            return None
        line, start = bytes(self._held), self.start
        self.start += self._cut + len(line)
        self._held.clear()
        self._cut = 0
        return self._test(line, start)

    def _hold(self, data: bytes) -> None:
        self._held += data
        if len(self._held) > LINE_CAP:
            cut = len(self._held) - LINE_CAP
            del self._held[:cut]
            self._cut += cut

    def _test(self, raw: bytes, offset: int) -> LineMatch | None:
        text = raw.decode("utf-8", "replace")
        if not text.isprintable() or "\x1b" in text:  # escapes, \r, controls: the slow way
            text = sanitize_log(text.rstrip("\r"))
        if self.pattern.search(text):
            return LineMatch(self.job_id, text, offset)
        return None


class Scanner(Protocol):
    """What `until` is tested by: a `LineScanner`, or a door's `ScreenScanner`'s."""

    def feed(self, data: bytes, offset: int) -> LineMatch | None: ...

    def finish(self) -> LineMatch | None: ...


# A terminal job's scanner, made by a door with an emulator: `(record, pattern, position)`,
# `position` being where the bytes it is fed start (the engine has no emulator: the lines
# of a full-screen program's bytes are escape soup, its screen's rows are not).
ScreenScanner = Callable[[JobRecord, re.Pattern[str], int], Scanner]


class _Watch:
    """One waited job: its record, and (with `until`) its follower and scanner."""

    def __init__(self, record: JobRecord, follower: LogFollower | None, scanner: Scanner | None):
        self.record = record
        self.follower = follower
        self.scanner = scanner
        self.done = False  # finished, and its output read to the end

    def scan(self) -> LineMatch | None:
        """Read and test what was written since the last scan (no more than exists now)."""
        if self.follower is None or self.scanner is None:
            return None
        while True:
            try:
                got = self.follower.read(READ_STEP)
            except JobError:
                return None  # a log that vanished holds no more lines
            found = self.scanner.feed(got.data, got.offset)
            if found:
                return found
            if got.offset + len(got.data) >= got.end:
                return None


async def wait_many(
    jm: WaitSession,
    ids: Sequence[str],
    *,
    mode: str = "all",
    until: str | None = None,
    from_start: bool = False,
    timeout_ms: int = 30_000,
    screen_scanner: ScreenScanner | None = None,
    port: int | None = None,
    ready: bool = False,
) -> WaitResult:
    """See `JobManager.wait_many`."""
    wanted = check_ids(ids)
    if mode not in ("any", "all"):
        raise InvalidArgument(f"mode {quote(mode)} is not one of 'any', 'all'", "mode")
    pattern = compile_until(until)
    check("fromStart", from_start)
    port = check("port", port)
    ports = None
    if port is not None:
        from jobs_tui.engine.procs.portwatch import PortWatch

        ports = PortWatch(port)
    timeout_ms = check("timeoutMs", timeout_ms, **WAIT_TIMEOUT)
    # A declared name becomes its job's id, as events say it (and a job named twice, once).
    records = {r.id: r for r in (jm.get(job_id) for job_id in wanted)}
    wanted = list(records)
    watches = [_Watch(record, None, None) for record in records.values()]
    if ready:
        _check_declared([w.record for w in watches])
    if pattern is not None:
        for watch in watches:
            follower = _follower(jm, watch.record, from_start)
            watch.follower = follower
            if screen_scanner is not None and watch.record.tty:
                watch.scanner = screen_scanner(watch.record, pattern, follower.position)
            else:
                watch.scanner = LineScanner(pattern, follower.position, watch.record.id)
    deadline = time.monotonic() + (timeout_ms or 0) / 1000
    wake = asyncio.Event()

    def heard(event: JobEvent) -> None:
        if event.id in wanted or event.kind == "registry-changed":
            wake.set()

    unsubscribe = jm.subscribe(heard)
    logwatch = LogWatch(wake.set) if pattern is not None else None
    try:
        while True:
            wake.clear()
            peers = False
            for watch in watches:
                record = jm.find(watch.record.id) or watch.record  # a cleared job: as last seen
                watch.record = record
                if record.running:
                    supervisor = jm.supervisor
                    if supervisor.link(record.id) is None:
                        await supervisor.link_for(record, jm.is_own(record))
                    peers = peers or supervisor.link(record.id) is None
                    if logwatch is not None:
                        with contextlib.suppress(Refused, LogMissing, OSError):
                            logwatch.add(jm.log_files(record)[0])
            if pattern is not None:
                found = await _scan_all(watches)
                if found is not None:
                    return _result(jm, watches, "match", found)
            if ports is not None:
                listening = await ports.listener([w.record for w in watches])
                if listening is not None:
                    return _result(jm, watches, "port", None, listening)
            if ready:
                reached = _readiness([w.record for w in watches], mode)
                if reached is not None:
                    return _result(jm, watches, reached, None)
            # With `until`, a job counts as ended once its output was read to the end
            # after its end was seen (`done`): an end that arrives during a read waits
            # for the next pass, which tests the job's last unterminated line.
            ended = [w for w in watches if (w.done if pattern else not w.record.running)]
            if (mode == "any" and ended) or len(ended) == len(watches):
                return _result(jm, watches, "finished", None)
            left = deadline - time.monotonic()
            if left <= 0:
                return _result(jm, watches, "timeout", None)
            step = left
            if ports is not None:
                from jobs_tui.engine.procs.portwatch import PORT_POLL_S

                step = min(step, PORT_POLL_S)
            if peers:
                step = min(step, PEER_POLL_S)
            elif pattern is not None and (logwatch is None or not logwatch.active):
                step = min(step, FALLBACK_POLL_S)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), step)
            if wake.is_set() and pattern is not None:
                await asyncio.sleep(SETTLE_S)
            if peers:
                jm.registry.refresh_peers(now_ms())
    finally:
        unsubscribe()
        if logwatch is not None:
            logwatch.close()


def _check_declared(records: list[JobRecord]) -> None:
    """`ready` waits only for declared jobs: any other has no probe to pass."""
    for record in records:
        if record.declared_name is None:
            raise InvalidArgument(
                f"{record.id} is not a declared job: it has no readiness to wait for", "ready"
            )


def _readiness(records: list[JobRecord], mode: str) -> Reason | None:
    """ "ready" once every job (mode any: one) is ready, "not-ready" once one gave up,
    "finished" once one ended unready (mode any: all of them), else None: wait on."""
    ready = [r for r in records if r.running and r.phase == "ready"]
    if ready and (mode == "any" or len(ready) == len(records)):
        return "ready"
    if any(r.running and r.phase == "not-ready" for r in records):
        return "not-ready"
    ended = [r for r in records if not r.running]
    if (mode == "all" and ended) or len(ended) == len(records):
        return "finished"
    return None


def _follower(jm: WaitSession, record: JobRecord, from_start: bool) -> LogFollower:
    """From the job's start, or from the start of the line in progress now: a line that
    is finished only after the call began is new, whole (no log yet: all of it is new)."""
    live, previous = jm.log_files(record)
    try:
        follower = LogFollower(record.id, live, previous, 0 if from_start else LOG_END)
    except JobError:
        return LogFollower(record.id, live, previous, 0)
    end = follower.position
    if end and not from_start:
        with contextlib.suppress(JobError):
            back = LogFollower(record.id, live, previous, max(0, end - LINE_WINDOW))
            got = back.read(LINE_WINDOW)
            if got.offset + len(got.data) == end and not got.data.endswith(b"\n"):
                cut = got.data.rfind(b"\n")
                follower.position = got.offset + cut + 1 if cut >= 0 else got.offset
    return follower


async def _scan_all(watches: list[_Watch]) -> LineMatch | None:
    """New output of every job still to be read, in the order asked; the first match.

    A job that has ended is read to its end, its last unterminated line included, once.
    """
    for watch in watches:
        if watch.done:
            continue
        ended = not watch.record.running  # read before the log: its output is complete
        found = await asyncio.to_thread(watch.scan)
        if found is None and ended and watch.scanner is not None:
            found = watch.scanner.finish()
            watch.done = True
        if found is not None:
            return found
    return None


def _result(
    jm: WaitSession,
    watches: list[_Watch],
    reason: Reason,
    match: LineMatch | None,
    listening: str | None = None,
) -> WaitResult:
    for watch in watches:
        if not watch.record.running:
            jm.mark_seen(watch.record.id)
    return WaitResult([w.record for w in watches], reason, match, listening)
