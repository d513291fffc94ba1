"""`TailPump`: the live tail's reader, which reads only what a tail can show.

A tail shows a job's last few lines. Reading every byte a `yes`-speed job writes, and
splitting and sanitizing every line of it, cost the list half a core for rows nobody
could read. So the pump reads at most TAIL_READ bytes from the end each time, skips
what lies before them (the log keeps it; the tail's title counts it), and reads at most
READS_PER_S times a second however often the log is written: while it waits its
inotify watch is off the loop, so a burst of writes is one wake, not thousands.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from jobs_tui.engine import JobError
from jobs_tui.engine.logs.watch import LogWatch

if TYPE_CHECKING:
    from jobs_tui.screens.widgets.source import LogFollow

TAIL_READ = 16 * 1024  # bytes from the end one read takes at most (200 lines of 80)
READS_PER_S = 10  # at most; a person reads a tail far slower, the list repaints at 5/s
SAFETY_S = 0.5  # a look anyway, without inotify
# With it, a look anyway this rarely: the watch wakes the pump when the live file is
# written, moved away (a rotation) or deleted; a quiet job's tail costs next to nothing.
WATCHED_SAFETY_S = 5.0


class TailPump:
    """Hands `sink` the newest bytes of `follow`, and `on_skip` the bytes passed over."""

    def __init__(
        self, follow: LogFollow, sink: Callable[[bytes], None], on_skip: Callable[[int], None]
    ) -> None:
        self.follow = follow
        self.sink = sink
        self.on_skip = on_skip
        self.reads = 0  # tests and benchmarks read it
        self._stopped = asyncio.Event()
        self._wake = asyncio.Event()

    def stop(self) -> None:
        self._stopped.set()
        self._wake.set()

    def read_once(self) -> None:
        """The newest bytes: from the end less TAIL_READ when the reader is further back."""
        try:
            got = self.follow.read(TAIL_READ)
            if got.end - self.follow.position > TAIL_READ:  # behind: only the end is shown
                passed = self.follow.skip_to(got.end - TAIL_READ)
                self._skipped(got.skipped + len(got.data) + passed)
                got = self.follow.read(TAIL_READ)
            self._skipped(got.skipped)
        except JobError:
            return
        self.reads += 1
        if got.data:
            self.sink(got.data)

    def _skipped(self, count: int) -> None:
        if count:
            self.on_skip(count)

    async def run(self) -> None:
        watch = LogWatch(self._wake.set)
        path = getattr(self.follow, "path", None)
        try:
            while not self._stopped.is_set():
                if path and watch.active:
                    with contextlib.suppress(OSError):
                        watch.add(path)  # again after a rotation: the new live file
                self._wake.clear()
                self.read_once()
                watch.pause()
                await asyncio.sleep(1 / READS_PER_S)
                watch.resume()  # written meanwhile: readable at once, so woken at once
                safety = WATCHED_SAFETY_S if (path and watch.active) else SAFETY_S
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), safety)
        finally:
            watch.close()
