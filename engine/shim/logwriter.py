"""The shim's log writer: append, rotate at a size, never parse. Stdlib only (the shim imports it).

Beside each live segment, `<id>.log.base` says which absolute byte offset of the job's
output that segment starts at (`<inode> <offset>`), so readers can keep byte cursors
that survive rotations.
"""

import errno
import os
import time

from .protocol import base_of, times_of
from .regdir import RegDir
from .timeindex import TimeIndexWriter

MiB = 1024 * 1024
_FILE_MODE = 0o600
FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}  # the disk (or a quota) is full
FULL_RETRY_S = 1.0  # while full, output is dropped and counted; writing is retried this often
DISK_FULL = "disk full"


class LogWriter:
    """Append-only segment writer with rotation at `max_bytes` (0 = unbounded).

    Every file is opened, renamed and removed by name inside `directory` (the verified
    registry directory fd, see regdir; opened from `live`'s directory when not given),
    never by path: a swap of the directory cannot redirect a write or a tail read.
    """

    def __init__(
        self,
        live: str,
        previous: str,
        max_bytes: int,
        chunk: int = MiB,
        directory: RegDir | None = None,
    ) -> None:
        if os.path.dirname(previous) != os.path.dirname(live):
            raise ValueError(f"{previous} is not beside {live}")
        self._own_dir = directory is None
        self.dir = directory or RegDir.open(os.path.dirname(live))
        self.live = live  # paths, for readers and messages; the names below are opened
        self.previous = previous
        self.base = base_of(live)
        self.live_name = os.path.basename(live)
        self.previous_name = os.path.basename(previous)
        self.base_name = os.path.basename(self.base)
        self.max_bytes = max(0, int(max_bytes))
        self.total = 0  # bytes accepted since the writer opened
        self.rotations = 0
        self.lost_bytes = 0  # bytes lost: a deleted live segment, output a full disk refused
        self.note: str | None = None  # why bytes were lost (DISK_FULL), once it happened
        self.retry_at: float | None = None  # the disk is full: drop output until then
        self.size = 0
        self.chunk = chunk  # bytes one read_from() takes at most (the pipe's size)
        self._buffer: bytearray | None = None
        self._view: memoryview | None = None
        self._fd = -1
        self._fd = self._open()
        self.times = TimeIndexWriter(times_of(live), directory=self.dir)
        self.sizes = None  # a terminal's sizes (sizeindex), once the shim records a resize
        # Sees every byte written, as it is written: a declared job's log probe (declared.py)
        self.observer = None
        # Sees every chunk read, in the read buffer itself: the repeat detector (repeats.py),
        # which needs `find`/`startswith` over the buffer, not a memoryview
        self.detector = None

    def _open(self) -> int:
        try:
            fd = self._create()
        except OSError as exc:
            if exc.errno not in FULL:
                raise
            self._full()
            return -1
        st = os.fstat(fd)
        os.lseek(fd, 0, os.SEEK_END)
        self.size = st.st_size
        try:
            self.dir.write_atomic(
                self.base_name, f"{st.st_ino} {self.total - self.size}\n".encode()
            )
        except OSError as exc:  # a full disk: readers fall back to the segment sizes
            if exc.errno not in FULL:
                os.close(fd)
                raise
            self._full()
        return fd

    def _create(self) -> int:
        """The live segment, opened or made; O_NOFOLLOW (regdir): a planted link is never
        written through. The name is the job's: whatever else holds it (a link, a FIFO,
        another user's file) is removed and a file of ours made in its place."""
        flags = os.O_WRONLY | os.O_CREAT
        try:
            return self.dir.open_file(self.live_name, flags, _FILE_MODE)
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.EPERM, errno.ENXIO, errno.EMLINK):
                raise
        self.dir.unlink(self.live_name, quiet=True)
        return self.dir.open_file(self.live_name, flags | os.O_EXCL, _FILE_MODE)

    # -- a full disk: the job must never stall or die because its log cannot grow ----------
    def _full(self) -> None:
        self.note = DISK_FULL
        self.retry_at = time.monotonic() + FULL_RETRY_S

    def _dropping(self) -> bool:
        """Still within a full-disk pause (output is dropped); else try the disk again."""
        if self.retry_at is None:
            return False
        if time.monotonic() < self.retry_at:
            return True
        self.retry_at = None
        if self._fd < 0:
            self._fd = self._open()
            return self._fd < 0
        return False

    def _room(self) -> int:
        if self.max_bytes == 0:
            return 1 << 30
        if self.size >= self.max_bytes:
            self.rotate()
        return self.max_bytes - self.size

    def rotate(self) -> None:
        self.times.drop_before(self.total - self.size)  # where the segment kept starts
        if self.sizes is not None:
            self.sizes.drop_before(self.total - self.size)
        if self._fd >= 0:
            os.close(self._fd)
        self._fd = -1
        # Unlink, then rename: renaming over an existing file makes ext4 flush the
        # renamed file to disk at once, which costs a fifth of the shim's time.
        if self.dir.is_file(self.live_name):
            self.dir.unlink(self.previous_name)
            self.dir.rename(self.live_name, self.previous_name)
        else:  # the live segment was deleted by hand: its bytes are gone, .log.1 stays
            self.lost_bytes += self.size
        self._fd = self._open()
        self.rotations += 1

    def write(self, data: bytes | memoryview) -> None:
        view = whole = memoryview(data)
        if view and self.retry_at is None:
            self.times.note(self.total)
        try:
            while view:
                if self._dropping():
                    break
                room = self._room()
                if self._fd < 0:  # a rotation found the disk full
                    break
                written = os.write(self._fd, view[:room])
                self.size += written
                self.total += written
                view = view[written:]
        except OSError as exc:
            if exc.errno not in FULL:
                raise
            self._full()
        self.lost_bytes += len(view)
        if self.observer is not None and whole:
            # after the write: a log probe's "ready" is told once its line is in the log
            self.observer(whole)

    def read_from(self, fd: int) -> int:
        """Read what `fd` holds into one reused buffer and append it; bytes read, 0 at end.

        Raises BlockingIOError (or the read's error) when nothing was read. One buffer for
        the writer's life, no bytes object per read, and a plain write() of it, which
        measured faster than splice(2) into a regular file (README, Performance). Reads
        repeat until the source is empty or the buffer full, so a terminal's 2–4 KiB
        reads become one write. Rotation happens inside write(), at the exact byte, and
        only once more output has arrived.
        """
        if self._buffer is None:
            self._buffer = bytearray(self.chunk)
            self._view = memoryview(self._buffer)
        view = self._view
        assert view is not None
        filled = 0
        try:
            while filled < self.chunk:
                got = os.readv(fd, (view[filled:],))
                if not got:
                    break
                filled += got
        except OSError:
            if not filled:
                raise
        if filled:
            self.write(view[:filled])  # on a full disk: dropped and counted
            if self.detector is not None:
                self.detector.feed(self._buffer, 0, filled)
        return filled

    def reopen_if_unlinked(self) -> bool:
        """Start a fresh live segment if someone deleted ours; True if that happened."""
        if self._fd < 0:
            return False
        try:
            if os.fstat(self._fd).st_nlink > 0 and self.dir.is_file(self.live_name):
                return False
        except OSError:
            pass
        os.close(self._fd)
        self._fd = self._open()
        return True

    def tail(self, size: int = 4096) -> bytes:
        """The last `size` bytes written, across the rotation boundary (we alone rotate)."""
        parts: list[bytes] = []
        want = size
        for name in (self.live_name, self.previous_name):
            try:  # by name in our directory, O_NOFOLLOW, ours: never a planted link's target
                fd = self.dir.open_file(name, os.O_RDONLY)
            except OSError:
                continue
            try:
                end = os.fstat(fd).st_size
                chunk = os.pread(fd, min(want, end), max(0, end - want))
            finally:
                os.close(fd)
            parts.insert(0, chunk)
            want -= len(chunk)
            if want <= 0:
                break
        return b"".join(parts)

    def close(self) -> None:
        self.times.close()
        if self.sizes is not None:
            self.sizes.close()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._own_dir:
            self.dir.close()
