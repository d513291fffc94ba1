"""When each part of a job's output was written: a small index beside its log.

`times_of(log)` holds fixed 16-byte records (absolute byte offset, wall-clock ms),
little-endian, in the offsets `<id>.log.base` uses, so they survive rotation. The shim
appends one when output arrives at least `INTERVAL_MS` after the last record: the time
of a byte is that of the last record at or before it, early by at most `INTERVAL_MS`.
The index stays small whatever the job does: records of bytes rotated away are dropped
at each rotation, and when a slow, long-lived job still fills `MAX_RECORDS`, every other
record goes (the resolution halves, the size stays bounded).

Stdlib only: the shim imports the writer, so this module takes `_struct` and `_bisect`
(the accelerators, not the modules around them) and keeps records in a list, not an
`array` (which imports `collections.abc`: milliseconds of every start). Readers take
what they can: a torn last record, a wrong size or offsets out of order end the index
there, never a read.
"""

import os
import time
from _bisect import bisect_right
from _struct import Struct

from .regdir import RegDir, temp_name

RECORD = Struct("<QQ")
INTERVAL_MS = 100
MAX_RECORDS = 8192  # 128 KiB on disk
MAX_FILE_BYTES = MAX_RECORDS * RECORD.size
_FILE_MODE = 0o600
# For the throughput benchmark only (index on vs off in one run): "1" keeps the shims
# started while it is set from writing an index. Not a setting: nothing else reads it.
ENV_BENCH_OFF = "JOBS_TUI_BENCH_NO_TIME_INDEX"


class TimeIndexWriter:
    """The shim's side: `note(offset)` before each write of output; never raises."""

    def __init__(self, path: str, clock=time.time, directory: RegDir | None = None) -> None:
        self.path = path
        self.name = os.path.basename(path)
        self._own_dir = directory is None  # opened here, closed here (tests; the shim gives one)
        self.dir = directory
        self.clock = clock
        self.interval_ms = INTERVAL_MS
        self.pairs: list[int] = []  # offset, ms, offset, ms, ...
        self.last_ms = -INTERVAL_MS
        self.off = os.environ.get(ENV_BENCH_OFF) == "1"
        self.fd = -1
        if not self.off:
            if self.dir is None:
                self.dir = RegDir.open(os.path.dirname(path) or ".")
            self.fd = self._open(os.O_TRUNC)

    def _open(self, extra: int = 0) -> int:
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | extra
        try:  # by name in the verified directory, O_NOFOLLOW (see regdir)
            return self.dir.open_file(self.name, flags, _FILE_MODE)
        except OSError:  # a full disk, a planted link: the log matters, not this
            return -1

    def note(self, offset: int) -> None:
        if self.off:
            return
        now = int(self.clock() * 1000)
        if now - self.last_ms < self.interval_ms:
            return
        now = max(now, self.last_ms)  # a clock stepped back: times never decrease
        self.last_ms = now
        self.pairs.extend((offset, now))
        if len(self.pairs) // 2 > MAX_RECORDS:
            self._thin()
            return
        if self.fd >= 0:
            try:
                os.write(self.fd, RECORD.pack(offset, now))
            except OSError:
                pass  # the next rewrite (rotation, thinning) catches up

    def drop_before(self, start: int) -> None:
        """The bytes before `start` were rotated away: keep the record that dates `start`."""
        if self.off:
            return
        offsets = self.pairs[0::2]
        keep = max(0, bisect_right(offsets, start) - 1)
        if keep:
            del self.pairs[: 2 * keep]
            self._rewrite()

    def _thin(self) -> None:
        pairs = self.pairs
        kept: list[int] = []
        for i in range(0, len(pairs), 4):  # every other record, the first one kept
            kept.extend(pairs[i : i + 2])
        self.pairs = kept
        self.interval_ms *= 2
        self._rewrite()

    def _rewrite(self) -> None:
        tmp = temp_name(self.name)
        try:
            fd = self.dir.open_file(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _FILE_MODE)
            try:
                os.write(fd, _pack(self.pairs))
            finally:
                os.close(fd)
            # Not over the old file: ext4 flushes a file renamed over another at once
            # (auto_da_alloc), which cost the zeros workload ~8% (the log's rotation
            # unlinks first for the same reason). A reader in between finds no index: None.
            self.dir.unlink(self.name, quiet=True)
            self.dir.rename(tmp, self.name)
        except OSError:
            self.dir.unlink(tmp, quiet=True)
            return
        if self.fd >= 0:
            os.close(self.fd)
        self.fd = self._open()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        if self._own_dir and self.dir is not None:
            self.dir.close()
            self.dir = None


def _pack(pairs: list[int]) -> bytes:
    return Struct(f"<{len(pairs)}Q").pack(*pairs)


def unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


# -- the readers' side -------------------------------------------------------------------
def parse(data: bytes) -> list[tuple[int, int]]:
    """The records in `data`, up to the first one out of order or torn."""
    records: list[tuple[int, int]] = []
    usable = len(data) - len(data) % RECORD.size
    for offset, ms in RECORD.iter_unpack(data[:usable]):
        if records and (offset < records[-1][0] or ms < records[-1][1]):
            break
        records.append((offset, ms))
    return records


def time_at(records: list[tuple[int, int]], offset: int) -> int | None:
    """Wall-clock ms at which the byte at `offset` was written (None: not indexed)."""
    i = bisect_right(records, (offset, 1 << 64)) - 1
    return records[i][1] if i >= 0 else None


def offset_since(records: list[tuple[int, int]], ms: int) -> int | None:
    """The first offset written at or after `ms` (None: nothing written since then)."""
    times = [t for _, t in records]
    i = bisect_right(times, ms - 1)
    return records[i][0] if i < len(records) else None
