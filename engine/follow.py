"""Following a log as it grows: new bytes since the last read, across rotations."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .safefiles import open_regular

READ_CAP = 4 * 1024 * 1024  # bytes one poll returns at most; the rest waits for the next


@dataclass
class Chunk:
    data: bytes
    skipped: int  # bytes that rotated away unseen (the follower fell more than a segment behind)


class LogCursor:
    """Reads what was appended to `<id>.log` since the last call, following rotations.

    It keeps the live segment open; when the path names another file, the old one is
    finished (the writer rotates only after its last write), so its remainder is read
    and the cursor moves to the new live segment.
    """

    def __init__(self, live: str, start: int | None = None, inode: int | None = None) -> None:
        """Follow from `start` in the live segment (its end if None).

        With `inode` (from a tail read's `resume`), `start` is an offset in that file,
        which may have rotated to `.log.1` since: its rest is read first.
        """
        self.live = live
        self._fd = -1
        self._ino: tuple[int, int] | None = None
        self.offset = 0
        if inode is not None and self._open_rotated(inode):
            self.offset = start or 0
            return
        self._open(at_end=start is None)
        if start is not None:
            self.offset = start

    def _open_rotated(self, inode: int) -> bool:
        """Open the segment with `inode` if it is no longer the live one but `.log.1`."""
        current = self._path_ino()
        if current is not None and current[1] == inode:
            return False
        try:
            fd = open_regular(self.live + ".1")
        except OSError:  # missing, or refused (not a regular file of ours)
            return False
        st = os.fstat(fd)
        if st.st_ino != inode:
            os.close(fd)
            return False
        self._fd, self._ino = fd, (st.st_dev, st.st_ino)
        return True

    def _open(self, at_end: bool) -> bool:
        try:
            fd = open_regular(self.live)
        except OSError:  # missing, or refused (not a regular file of ours)
            return False
        st = os.fstat(fd)
        self._fd, self._ino = fd, (st.st_dev, st.st_ino)
        self.offset = st.st_size if at_end else 0
        return True

    def _path_ino(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.live)
        except FileNotFoundError:
            return None
        return (st.st_dev, st.st_ino)

    def _read_rest(self, cap: int) -> bytes:
        size = os.fstat(self._fd).st_size
        want = min(cap, max(0, size - self.offset))
        data = os.pread(self._fd, want, self.offset) if want else b""
        self.offset += len(data)
        return data

    def read(self, cap: int = READ_CAP) -> Chunk:
        if self._fd < 0 and not self._open(at_end=False):
            return Chunk(b"", 0)
        parts = [self._read_rest(cap)]
        skipped = 0
        current = self._path_ino()
        if current is not None and current != self._ino and sum(map(len, parts)) < cap:
            previous = self._previous_ino()
            os.close(self._fd)
            self._fd = -1
            if previous is not None and previous != self._ino:
                skipped = self._size_of(self.live + ".1")  # a whole segment went by unseen
            if self._open(at_end=False):
                parts.append(self._read_rest(cap - len(parts[0])))
        return Chunk(b"".join(parts), skipped)

    def skip_near_end(self, keep: int) -> int:
        """Jump to `keep` bytes before the live end (a reader that fell behind); bytes passed over.

        Sizes are taken from open files, never from a path that may rotate in between.
        """
        skipped = 0
        start = self.offset
        if self._fd < 0 or self._path_ino() != self._ino:
            if self._fd >= 0:  # rotated: the rest of our segment is passed over
                skipped += max(0, os.fstat(self._fd).st_size - self.offset)
                os.close(self._fd)
                self._fd = -1
            if not self._open(at_end=False):
                return skipped
            start = 0
        size = os.fstat(self._fd).st_size
        self.offset = max(start, size - keep)
        return skipped + self.offset - start

    def _previous_ino(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.live + ".1")
        except FileNotFoundError:
            return None
        return (st.st_dev, st.st_ino)

    @staticmethod
    def _size_of(path: str) -> int:
        try:
            return os.stat(path).st_size
        except FileNotFoundError:
            return 0

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
