"""A read-only job source and a bare host app, for deterministic screen tests and snapshots."""

from __future__ import annotations

import asyncio
import html
import os
import re
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from textual.app import App
from textual.screen import Screen

from jobs_tui.engine import Config, JobEvent, JobRecord, JobStatus, Refused, UnknownJob
from jobs_tui.engine.logs.follower import LOG_END, LogFollower
from jobs_tui.engine.logs.search import search as search_log
from jobs_tui.engine.logs.segments import LogMissing, read_tail
from jobs_tui.engine.logs.window import LinePage, read_lines
from jobs_tui.engine.procs.proctable import Port
from jobs_tui.engine.procs.resources import JobUsage
from jobs_tui.engine.records.results import KillResult, LogsResult
from jobs_tui.engine.records.sanitize import sanitize_log
from jobs_tui.engine.session.reading import read_latest_line, split_lines

NOW_MS = 1_750_000_000_000  # the frozen clock's reading
ME = "jt-me0000000000000"
PEER = "jt-peer111111111111"


def frozen_clock() -> float:
    return NOW_MS


def record(
    number: int,
    label: str,
    status: JobStatus = JobStatus.RUNNING,
    *,
    seconds: float = 3.2,
    ago: float = 0.0,
    session: str = ME,
    command: str | None = None,
    exit_code: int | None = None,
    signal: str | None = None,
    last_line: str = "",
    log_dir: str = "/nonexistent",
    **extra: Any,
) -> JobRecord:
    """A job started `seconds + ago` before the frozen now, finished `ago` before it."""
    started = int(NOW_MS - (seconds + ago) * 1000)
    finished = None if status is JobStatus.RUNNING else int(NOW_MS - ago * 1000)
    if status is JobStatus.EXITED:
        exit_code = 0
    return JobRecord(
        id=f"j{number}",
        label=label,
        command=command or label,
        cwd="/home/dev/src/shop",
        pid=4000 + number,
        status=status,
        exit_code=exit_code,
        signal=signal,
        started_at=started,
        finished_at=finished,
        log_path=os.path.join(log_dir, f"j{number}.log"),
        detached=False,
        wake=False,
        session_id=session,
        last_line=last_line,
        **extra,
    )


def mixed_records(log_dir: str = "/nonexistent") -> list[JobRecord]:
    """Every status, a peer, a long label: the list the snapshots show."""
    return [
        record(
            7,
            "dev server",
            seconds=754.0,
            command="npm run dev -- --port 5173",
            last_line="GET /api/cart 200 12ms",
            log_dir=log_dir,
            stdin=True,
        ),
        record(
            9,
            "integration tests (agent)",
            seconds=48.3,
            session=PEER,
            command="pytest -q tests/integration",
            last_line="........F.....",
            log_dir=log_dir,
        ),
        record(
            8,
            "webpack --watch",
            seconds=31.6,
            command="npx webpack --watch",
            last_line="compiled successfully in 812 ms",
            log_dir=log_dir,
        ),
        record(
            6,
            "build",
            JobStatus.FAILED,
            seconds=3.1,
            ago=20,
            exit_code=2,
            command="make -j8 all",
            last_line="src/cart.c:42: error: expected ';' before '}'",
            log_dir=log_dir,
        ),
        record(
            5,
            "unit tests",
            JobStatus.EXITED,
            seconds=12.0,
            ago=95,
            command="pytest -q tests/unit",
            last_line="212 passed in 11.84s",
            log_dir=log_dir,
        ),
        record(
            4,
            "a label long enough that it has to be clipped somewhere on an 80 column screen",
            JobStatus.EXITED,
            seconds=0.4,
            ago=300,
            log_dir=log_dir,
            seen=True,
        ),
        record(
            3,
            "migrate db",
            JobStatus.KILLED,
            seconds=61.0,
            ago=600,
            signal="SIGTERM",
            end_reason="kill",
            command="./manage.py migrate",
            last_line="applying 0042_orders",
            log_dir=log_dir,
            seen=True,
        ),
        record(
            2,
            "lint",
            JobStatus.KILLED,
            seconds=600.0,
            ago=900,
            signal="SIGTERM",
            end_reason="deadline",
            timeout_ms=600_000,
            log_dir=log_dir,
            seen=True,
        ),
        record(
            1,
            "old peer job",
            JobStatus.UNKNOWN,
            seconds=5.0,
            ago=1200,
            session=PEER,
            log_dir=log_dir,
        ),
    ]


class FakeSource:
    """A `JobSource` over a fixed list: reads work, writes are refused (or faked by a test)."""

    def __init__(
        self,
        records: list[JobRecord] | None = None,
        *,
        session_id: str = ME,
        config: Config | None = None,
        shown_log_dir: str | None = None,
    ) -> None:
        self.session_id = session_id
        self.config = config or Config()
        self.records = {r.id: r for r in records or []}
        self.shown_log_dir = shown_log_dir
        self.subscribers: list[Callable[[JobEvent], None]] = []
        self.calls: list[tuple[str, Any]] = []
        self.fail_with: BaseException | None = None
        self.restarts: dict[str, JobRecord] = {}  # what restart returns, when a test fakes it
        self.startable = False  # start() makes a record instead of refusing
        self.cwd = "/home/dev/src/shop"

    # -- reads -----------------------------------------------------------------------
    def jobs(self, include_peers: bool = True) -> list[JobRecord]:
        chosen = [r for r in self.records.values() if include_peers or self.is_own(r)]
        return sorted(chosen, key=lambda r: (not r.running, -r.ended_at(), -r.number))

    def is_own(self, rec: JobRecord) -> bool:
        return rec.session_id == self.session_id

    def get(self, job_id: str) -> JobRecord:
        try:
            return self.records[job_id]
        except KeyError:
            raise UnknownJob(f"id {job_id!r} is not a known job", "id") from None

    def subscribe(self, callback: Callable[[JobEvent], None]) -> Callable[[], None]:
        self.subscribers.append(callback)
        return lambda: self.subscribers.remove(callback)

    def publish(self, kind: str, rec: JobRecord) -> None:
        event = JobEvent(
            kind, rec.id, rec.label, rec.status.value, rec.exit_code, rec.signal, record=rec
        )
        for callback in list(self.subscribers):
            callback(event)

    def pending_reports(self) -> list[JobRecord]:
        return [r for r in self.jobs(False) if not r.running and not r.seen]

    def log_files(self, rec: JobRecord) -> tuple[str, str]:
        return rec.log_path, rec.log_path + ".1"

    async def logs(
        self,
        job_id: str,
        lines: int | None = None,
        *,
        keep_sgr: bool = False,
        timestamps: bool = False,
    ):
        rec = self.get(job_id)
        live, previous = self.log_files(rec)
        try:
            tail = read_tail(live, previous, lines or 100)
        except LogMissing:
            from jobs_tui.engine import JobError

            raise JobError(f"{job_id}: its log {os.path.basename(live)} no longer exists") from None
        text = sanitize_log(tail.text(), keep_sgr=keep_sgr)
        lines, partial = split_lines(tail.data, keep_sgr=keep_sgr)
        shown = live
        if self.shown_log_dir:
            shown = os.path.join(self.shown_log_dir, os.path.basename(live))
        return LogsResult(
            rec,
            text,
            lines,
            tail.truncated,
            tail.earlier_bytes,
            tail.earlier_lines,
            shown,
            position=tail.position,
            partial_bytes=partial,
            times=[self.line_time(n) for n in range(len(lines))] if timestamps else [],
        )

    async def log_lines(
        self, job_id: str, offset: int | None = None, *, before: int = 0, after: int = 0
    ) -> LinePage:
        """A page around absolute `offset`, read by the engine; dated one a second from
        the page's first line (as `logs` dates a tail), so the times column is stable."""
        rec = self.get(job_id)
        try:
            page = read_lines(*self.log_files(rec), offset, before=before, after=after)
        except LogMissing:
            from jobs_tui.engine import JobError

            raise JobError(f"{job_id}: its log no longer exists (deleted?)") from None
        page.times = [self.line_time(n) for n in range(len(page.lines))]
        return page

    async def search(self, job_id: str, pattern: str, *, limit: int = 200, **_: Any):
        """The engine's search over the job's log files (as `JobManager.search`)."""
        rec = self.get(job_id)
        try:
            return search_log(*self.log_files(rec), re.compile(pattern), limit=limit)
        except LogMissing:
            from jobs_tui.engine import JobError

            raise JobError(f"{job_id}: its log no longer exists (deleted?)") from None

    def line_time(self, index: int) -> int | None:
        """The wall-clock ms a fake says line `index` of a tail was written: one a second."""
        return int(NOW_MS - 3_600_000 + index * 1000)

    def follow(self, job_id: str, position: int = LOG_END) -> LogFollower:
        return LogFollower(job_id, *self.log_files(self.get(job_id)), position)

    def mark_seen(self, job_id: str) -> None:
        rec = self.records.get(job_id)
        if rec is not None and not rec.running and self.is_own(rec):
            self.update(job_id, seen=True)

    async def latest_line(self, job_id: str) -> str | None:
        rec = self.get(job_id)
        try:
            return read_latest_line(*self.log_files(rec))
        except LogMissing:
            return None

    async def open(self) -> None:
        """The app opens its manager; a fake has nothing to open."""

    async def close(self) -> None:
        self.closed = True

    # -- writes ----------------------------------------------------------------------
    def _write(self, verb: str, arg: Any) -> None:
        self.calls.append((verb, arg))
        if self.fail_with is not None:
            raise self.fail_with
        raise Refused("this job source is read-only")

    async def kill(self, job_id: str, signal: str = "SIGTERM") -> KillResult:
        self._write("kill", (job_id, signal))
        raise AssertionError("unreachable")

    async def restart(self, job_id: str) -> JobRecord:
        """Refused (read-only), unless the test put the new record in `restarts`."""
        if job_id in self.restarts:
            self.calls.append(("restart", job_id))
            new = self.restarts[job_id]
            self.records[new.id] = new
            old = self.records.get(job_id)
            if old is not None and old.running:
                self.update(job_id, status=JobStatus.KILLED, signal="SIGTERM", finished_at=NOW_MS)
            return new
        self._write("restart", job_id)
        raise AssertionError("unreachable")

    async def start(self, command: str, **options: Any) -> JobRecord:
        """Refused (read-only) unless the test set `startable`: then a running record."""
        if not self.startable:
            self._write("start", command)
        self.calls.append(("start", (command, options)))
        number = max((r.number for r in self.records.values()), default=0) + 1
        new = record(number, command, tty=bool(options.get("tty")), session=self.session_id)
        self.records[new.id] = new
        self.publish("job-started", new)
        return new

    async def adopt(self, job_id: str) -> JobRecord:
        self._write("adopt", job_id)
        raise AssertionError("unreachable")

    async def clear(self, job_id: str | None = None, all: bool = False) -> list[JobRecord]:
        self._write("clear", job_id)
        return []

    async def send(
        self, job_id: str, text: str | None = None, newline: bool = True, eof: bool = False
    ) -> dict[str, Any]:
        self._write("send", (job_id, text))
        return {}

    # -- test helpers ----------------------------------------------------------------
    def update(self, job_id: str, **changes: Any) -> JobRecord:
        rec = replace(self.records[job_id], **changes)
        self.records[job_id] = rec
        return rec


class UsageSource(FakeSource):
    """A fake that also says what its running jobs use (a plain FakeSource cannot, so the
    other snapshots show no usage line whatever the timing)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.usages: dict[str, JobUsage] = {}
        self.samples = 0

    async def usage(self, ids: list[str] | None = None) -> dict[str, JobUsage]:
        """Deterministic figures for every running job asked about (`usages` overrides)."""
        self.samples += 1
        chosen = [r for r in self.records.values() if r.running and (ids is None or r.id in ids)]
        return {
            r.id: self.usages.get(r.id, JobUsage(12.0, 85 << 20, 3, [Port(5173, "tcp")]))
            for r in chosen
        }


class Host(App[None]):
    """A bare app that pushes one screen; it records notifications for assertions."""

    def __init__(self, make_screen: Callable[[], Screen[Any]]) -> None:
        super().__init__()
        self.make_screen = make_screen
        self.notes: list[str] = []
        self.dismissed = 0

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        self.animation_level = "none"
        self.push_screen(self.make_screen(), self.on_screen_closed)

    def on_screen_closed(self, _result: object) -> None:
        self.dismissed += 1

    def notify(self, message: str, **kwargs: Any) -> None:  # type: ignore[override]
        self.notes.append(message)
        super().notify(message, **kwargs)


_SVG_TEXT = re.compile(
    r'<text [^>]*?x="([0-9.]+)"[^>]*?clip-path="url\(#[^)]*-line-([0-9]+)\)">(.*?)</text>'
)
_CHAR_WIDTH = 20 * 0.61  # rich's export_svg: a 20 px font, cells 0.61 of it wide


def screen_text(app: App[Any]) -> str:
    """What the terminal shows, as plain text: for assertions on the rendered screen.

    Read back from Textual's public screenshot (an SVG of the screen, one <text> per run
    of characters, placed by cell), so no test depends on Textual's private attributes.
    """
    from rich.cells import cell_len

    width, height = app.size
    cells = [[" "] * width for _ in range(height)]
    for x, y, escaped in _SVG_TEXT.findall(app.export_screenshot(simplify=True)):
        row, col = cells[int(y)], round(float(x) / _CHAR_WIDTH)
        text = html.unescape(escaped.replace("&#160;", " "))
        if text.isascii():
            row[col : col + len(text)] = text[: max(0, width - col)]
            continue
        for char in text:
            if col < width:
                row[col] = char
                if cell_len(char) == 2 and col + 1 < width:
                    row[col + 1] = ""  # the right half of a wide character
            col += cell_len(char)
    return "\n".join("".join(row) for row in cells)


async def until(predicate: Callable[[], object], timeout: float = 10.0, step: float = 0.02) -> bool:
    """Poll `predicate` on the running loop (the app keeps working meanwhile)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(step)
    return bool(predicate())
