"""Unread output (`exec_command`/`write_stdin`, `process poll`, `exec`) of a terminal job
as its terminal shows it, when the host gives a `ScreenDelta` (the MCP server does).

The unread cursor still counts bytes (each read once, as before); only their text
changes: the bytes since the last read are fed to an emulator primed with what came
before them (PRIME_BYTES), and the rows they made final are returned, then the rows
still open up to the cursor (a prompt waiting for input), which a later read shows
again once they are final.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..rawtail import ScreenDelta, term_size
from ..results import JobError

if TYPE_CHECKING:
    from ..manager import JobManager
    from ..model import JobRecord
    from ..unread import Unread

PRIME_BYTES = 128 * 1024  # what came before the unread bytes, fed to know the screen


async def screen_text(
    manager: JobManager, record: JobRecord, unread: Unread, delta: ScreenDelta | None
) -> str:
    """`unread.text`, or for a terminal job with a `delta` its screen's text (see module
    doc); the sanitized text when the log cannot be read again."""
    if delta is None or not record.tty or unread.offset <= unread.start:
        return unread.text
    start = max(0, unread.start - PRIME_BYTES)

    def read() -> str:
        follower = manager.follow(record.id, start)
        got = follower.read(unread.offset - start)
        cut = unread.start - got.offset
        if cut < 0:  # what came before rotated away: no prior bytes
            cut = 0
        cols, rows = term_size(record)
        new = got.data[cut : unread.offset - got.offset]
        return delta(got.data[:cut], got.offset == 0, new, cols, rows, not record.running)

    try:
        return await asyncio.to_thread(read)
    except (JobError, OSError):
        return unread.text
