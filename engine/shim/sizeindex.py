"""The sizes a terminal job's screen had, and from which byte of its output on.

A program formats its output for the terminal it writes to: a line wraps at the width
it had then, a full-screen program draws for the rows it had then. So a renderer that
replays the log (the command line's `logs`, a model's `job_logs`) must resize its screen
where the job's terminal was resized, at the same byte. The shim writes `<id>.log.size`
beside the log at each resize: fixed 16-byte records (absolute byte offset, cols, rows),
little-endian, in the offsets `<id>.log.base` uses. The first resize writes the start
size too (offset 0), so no file means "never resized": the record's size holds for all
of it. Nothing is written at start: a job that is never resized pays nothing.

Stdlib only, loaded by the shim at its first resize (not at start): `_struct`, as
timeindex. Readers take what they can: a torn record, a wrong size or offsets out of
order end the list there, never a read.
"""

import os
from _struct import Struct

from .protocol import MAX_COLS, MAX_ROWS
from .regdir import RegDir, temp_name

RECORD = Struct("<QII")
MAX_RECORDS = 4096  # 64 KiB on disk; past it, the older half goes
MAX_FILE_BYTES = MAX_RECORDS * RECORD.size
_FILE_MODE = 0o600


class SizeIndexWriter:
    """The shim's side: `note(offset, cols, rows)` at each resize; never raises."""

    def __init__(self, path: str, directory: RegDir, cols: int, rows: int) -> None:
        self.name = os.path.basename(path)
        self.dir = directory
        self.records: list[tuple[int, int, int]] = [(0, cols, rows)]
        self.fd = -1
        self._rewrite()

    def note(self, offset: int, cols: int, rows: int) -> None:
        records = self.records
        if records and records[-1][1:] == (cols, rows):
            return  # the size it has
        popped = bool(records) and records[-1][0] >= offset  # no byte came at that size
        if popped:
            records.pop()
        if not records or records[-1][1:] != (cols, rows):
            records.append((offset, cols, rows))
        if len(records) > MAX_RECORDS:
            del records[1 : len(records) // 2]
        elif not popped and self.fd >= 0 and self._append(records[-1]):
            return
        self._rewrite()

    def drop_before(self, start: int) -> None:
        """The bytes before `start` rotated away: keep the record that sizes `start`."""
        keep = 0
        for i, (offset, _, _) in enumerate(self.records):
            if offset <= start:
                keep = i
        if keep:
            del self.records[:keep]
            self._rewrite()

    def _append(self, record: tuple[int, int, int]) -> bool:
        try:
            os.write(self.fd, RECORD.pack(*record))
        except OSError:
            return False
        return True

    def _rewrite(self) -> None:
        tmp = temp_name(self.name)
        try:
            fd = self.dir.open_file(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _FILE_MODE)
            try:
                os.write(fd, b"".join(RECORD.pack(*r) for r in self.records))
            finally:
                os.close(fd)
            self.dir.rename(tmp, self.name)
        except OSError:  # a full disk, a planted link: the log matters, not this
            self.dir.unlink(tmp, quiet=True)
            return
        if self.fd >= 0:
            os.close(self.fd)
        try:
            self.fd = self.dir.open_file(self.name, os.O_WRONLY | os.O_APPEND, _FILE_MODE)
        except OSError:
            self.fd = -1

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


# -- the readers' side -------------------------------------------------------------------
def parse(data: bytes) -> list[tuple[int, int, int]]:
    """The records in `data`, up to the first one out of order, torn or of no sane size."""
    records: list[tuple[int, int, int]] = []
    usable = len(data) - len(data) % RECORD.size
    for offset, cols, rows in RECORD.iter_unpack(data[:usable]):
        if records and offset < records[-1][0]:
            break
        if not (0 < cols <= MAX_COLS and 0 < rows <= MAX_ROWS):  # as a resize allows
            break
        records.append((offset, cols, rows))
    return records


def size_at(
    records: list[tuple[int, int, int]] | tuple, offset: int, default: tuple[int, int]
) -> tuple[int, int]:
    """(cols, rows) of the screen the byte at `offset` was written to."""
    found = default
    for at, cols, rows in records:
        if at > offset:
            break
        found = (cols, rows)
    return found
