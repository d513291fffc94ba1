"""Unread output of a terminal job (`exec_command`/`write_stdin`, `process poll`, `exec`;
the command line's `exec` and `poll`) as its terminal shows it, given a `ScreenDelta`
(the MCP server and the command line give `jobs_tui.term`'s).

The unread cursor still counts bytes (each read once, as before); only their text
changes: the bytes since the last read are fed to an emulator primed with what came
before them (PRIME_BYTES), and the rows they made final are returned, then the rows
still open up to the cursor (a prompt waiting for input), which a later read shows
again once they are final.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from jobs_tui.engine.logs.rawtail import (
    LogSource,
    ScreenDelta,
    read_sizes,
    record_follower,
    term_size,
)
from jobs_tui.engine.records.results import JobError

if TYPE_CHECKING:
    from jobs_tui.engine.logs.follower import LogFollower
    from jobs_tui.engine.logs.unread import Unread
    from jobs_tui.engine.records.model import JobRecord
    from jobs_tui.engine.registry.paths import RegistryPaths

PRIME_BYTES = 128 * 1024  # what came before the unread bytes, fed to know the screen


def read_screen_text(
    follow_at: Callable[[int], LogFollower],
    record: JobRecord,
    unread: Unread,
    delta: ScreenDelta | None,
    live: str | None = None,
) -> str:
    """Blocking: `unread.text`, or for a terminal job with a `delta` its screen's text
    (see module doc; at the sizes it had, read beside `live`); the sanitized text when
    the log cannot be read again."""
    if delta is None or not record.tty or unread.offset <= unread.start:
        return unread.text
    start = max(0, unread.start - PRIME_BYTES)
    try:
        got = follow_at(start).read(unread.offset - start)
    except (JobError, OSError):
        return unread.text
    cut = max(0, unread.start - got.offset)  # negative: what came before rotated away
    cols, rows = term_size(record)
    new = got.data[cut : unread.offset - got.offset]
    prior, whole, ended = got.data[:cut], got.offset == 0, not record.running
    sizes = read_sizes(live) if live else ()
    if not sizes:  # never resized (or a host's delta that takes no sizes)
        return delta(prior, whole, new, cols, rows, ended)
    return delta(prior, whole, new, cols, rows, ended, sizes=sizes, at=got.offset)


async def screen_text(
    manager: LogSource, record: JobRecord, unread: Unread, delta: ScreenDelta | None
) -> str:
    """`read_screen_text` off the event loop, over the manager's followers."""
    if delta is None or not record.tty:
        return unread.text

    def follow_at(position: int) -> LogFollower:
        return manager.follow(record.id, position)

    live = manager.log_files(record)[0]
    return await asyncio.to_thread(read_screen_text, follow_at, record, unread, delta, live)


def screen_text_now(
    paths: RegistryPaths, record: JobRecord, unread: Unread, delta: ScreenDelta | None
) -> str:
    """`read_screen_text` without a session (the command line's quick `exec`)."""
    if delta is None or not record.tty:
        return unread.text
    try:
        follow_at = record_follower(paths, record)
    except JobError:
        return unread.text
    live = paths.inside(record.log_path)
    return read_screen_text(follow_at, record, unread, delta, str(live) if live else None)
