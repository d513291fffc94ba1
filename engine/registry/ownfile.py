"""This session's own registry file as this process last read or wrote it: the lock the
session's processes share, whether another of them wrote it since, writes that change
something, and the rule that merges what they wrote into our records."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: one process per session there
    fcntl = None  # type: ignore[assignment]

from jobs_tui.engine.records.bounds import MAX_COUNTER, in_range
from jobs_tui.engine.records.model import JobRecord

from . import regfiles
from .ownership import fill_from, prefer
from .store import FileKey, RegistryFile, clone_record, encode_json, write_bytes_atomic


class OwnFile:
    """Our file's identity on disk and its bytes, its flock, and each record's JSON."""

    def __init__(self, path: Path, lock_path: Path, root: Path) -> None:
        self.path = path
        self.lock_path = lock_path
        self.root = root
        self.written: FileKey | None = None  # that file's inode, size, mtime
        self.raw = b""  # and its bytes: a write that would change nothing is skipped
        self._lock_depth = 0
        self._encoded_memo: dict[str, tuple[tuple, bytes]] = {}  # id -> (fields, JSON)

    def changed(self) -> bool:
        """The file is not as we last read or wrote it (rewritten, or gone)."""
        return file_key(self.path) != self.written

    def rewritten(self) -> bool:
        """Another process wrote the file since we last read or wrote it."""
        return file_key(self.path) not in (None, self.written)

    def read_as(self, file: RegistryFile) -> None:
        """The file as just read: what the next write is compared with."""
        self.written, self.raw = file.key, file.raw

    def write(self, payload: bytes) -> None:
        """Write `payload`, skipped when it would leave the file byte for byte as it is."""
        if payload != self.raw or self.changed():
            write_bytes_atomic(self.path, payload)
            self.written = file_key(self.path)
            self.raw = payload

    def encoded(self, records: list[JobRecord]) -> list[bytes]:
        """Each record's JSON, encoded again only when one of its fields changed."""
        memo = self._encoded_memo
        fresh: dict[str, tuple[tuple, bytes]] = {}
        out: list[bytes] = []
        for record in records:
            snapshot = (tuple(record.__dict__.values()), dict(record.unknown))
            known = memo.get(record.id)
            if known is not None and known[0] == snapshot:
                encoded = known[1]
            else:
                encoded = encode_json(record.to_json())
            fresh[record.id] = (snapshot, encoded)
            out.append(encoded)
        self._encoded_memo = fresh
        return out

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """An exclusive flock shared by the processes of this session; re-entrant."""
        here = regfiles.held(self.root) is not None or self.root.is_dir()
        if self._lock_depth or fcntl is None or not here:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        fd = regfiles.open_file(self.lock_path, os.O_RDWR | os.O_CREAT)  # by name, no link
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._lock_depth = 1
            yield
        finally:
            self._lock_depth = 0
            os.close(fd)


def merge_own(
    own: dict[str, JobRecord],
    peers: dict[str, JobRecord],
    disk: dict[str, JobRecord],
    *,
    deleted: set[str],
    on_disk: set[str],
    session_id: str,
) -> list[str]:
    """Merge what our file holds (`disk`) into `own`; returns the ids it lost.

    Records another process started are kept, records it cleared (or a take-over
    removed) stay gone and are returned, a settled record beats a running one; our
    record objects are updated in place (callers hold them).
    """
    for job_id, theirs in disk.items():
        if job_id in deleted:
            continue
        mine = own.get(job_id)
        if mine is None:
            own[job_id] = clone_record(theirs)
            peers.pop(job_id, None)
            continue
        seen = mine.seen or theirs.seen
        if prefer(mine, theirs, session_id) is theirs:
            before = mine.copy()
            for field in dataclasses.fields(mine):
                setattr(mine, field.name, getattr(theirs, field.name))
            mine.unknown = dict(theirs.unknown)
            fill_from(mine, before)
        else:
            fill_from(mine, theirs)
        mine.seen = seen
    lost = []
    for job_id in list(own):
        if job_id not in disk and job_id in on_disk:
            # Another process of this session cleared or pruned it, or a take-over
            # moved it to another session's file (where we now see it as a peer's).
            del own[job_id]
            lost.append(job_id)
    return lost


def pruned_field(file: RegistryFile) -> int:
    """The file's `pruned` count, 0 when it is missing or out of range."""
    value = file.unknown.get("pruned")
    return value if isinstance(value, int) and in_range(value, 0, MAX_COUNTER) else 0


def file_key(path: Path) -> FileKey | None:
    try:
        st = regfiles.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)
