"""Unread cursors: each output byte of a job is returned once per reader (a session).

In the core, not in a vocabulary: the tools (`exec_command`, `process`) and the command
line (`exec`, `poll`, `clear`) share one reader per session.

A cursor is a log position: an absolute byte offset into the job's whole output, so it
survives log rotation (`JobManager.read_since`, which reads through the one follower,
`engine/logs/follower.py`). A persistent session (the command line) keeps its
cursors in `cursors-<sha1(session)[:16]>.json` (0600) in the registry directory, so
the next call of the same session continues where the last one stopped; several
processes of one session merge their cursors under a lock (offsets only move forward).
"""

from __future__ import annotations

import contextlib
import json
import os
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from jobs_tui.engine.records.ids import is_job_id
from jobs_tui.engine.registry import regfiles
from jobs_tui.engine.registry.safefiles import REGISTRY_FILE_LIMIT, read_regular
from jobs_tui.engine.registry.store import write_json_atomic

try:
    import fcntl
except ImportError:  # Windows: one process per session there, no lock needed
    fcntl = None  # type: ignore[assignment]

if TYPE_CHECKING:
    import asyncio

    from jobs_tui.engine.records.results import ReadSince
    from jobs_tui.engine.registry.paths import RegistryPaths


class Reader(Protocol):
    """What a reader's cursors need of its session: a JobManager, or the command line's
    exec without an event loop (`engine/session/quickexec.py`), which reads with `read_now`."""

    persistent: bool
    session_id: str
    paths: RegistryPaths


MAX_ENTRIES = 500  # oldest job ids beyond this are forgotten
_SHARED: weakref.WeakKeyDictionary[Reader, UnreadCursors] = weakref.WeakKeyDictionary()


@dataclass
class Unread:
    """What one read returned, and what it left."""

    text: str  # sanitized
    offset: int  # the cursor now
    skipped: int  # bytes that rotated away before this reader saw them
    remaining: int  # bytes still unread after this read (more than the cap allowed)
    end: int  # absolute end of the output when read
    start: int = 0  # the cursor before the read (a terminal job's text is rendered from it)


class UnreadCursors:
    """One reader's cursors over every job it reads."""

    def __init__(self, manager: Reader, *, persist: bool | None = None) -> None:
        self.jm = manager
        self.persist = manager.persistent if persist is None else persist
        self.path = manager.paths.cursors(manager.session_id)
        self.lock_path = manager.paths.cursors_lock(manager.session_id)
        self._offsets: dict[str, int] = {}
        self._loaded = not self.persist
        self._reading: asyncio.Lock | None = None  # made on the first async read

    @classmethod
    def shared(cls, manager: Reader) -> UnreadCursors:
        """The one reader of `manager`'s session: every facade over it uses the same one."""
        cursors = _SHARED.get(manager)
        if cursors is None:
            cursors = _SHARED[manager] = cls(manager)
        return cursors

    def offset(self, job_id: str) -> int:
        self._load()
        return self._offsets.get(job_id, 0)

    async def read(self, job_id: str, cap: int) -> Unread:
        """Unread output of `job_id`, at most `cap` bytes; the cursor moves past it.

        Reads of one reader are serialized (in this process, and across the processes
        of a persistent session), so two concurrent reads never return the same bytes.
        """
        if self._reading is None:
            import asyncio

            self._reading = asyncio.Lock()
        async with self._reading:
            with self._locked():
                start = self._start(job_id)
                got = await self.jm.read_since(job_id, start, cap)  # type: ignore[attr-defined]
                return self._moved(job_id, start, got)

    def read_now(self, job_id: str, cap: int, since: Callable[[int, int], ReadSince]) -> Unread:
        """`read` for a caller without an event loop (one thread): `since(offset, cap)`
        reads the job's log as `JobManager.read_since` does."""
        with self._locked():
            start = self._start(job_id)
            return self._moved(job_id, start, since(start, cap))

    def _start(self, job_id: str) -> int:
        """Where this reader is in the job's output (under the lock)."""
        if self.persist:  # another process of this session may have read since
            on_disk = self._read_file().get(job_id, 0)
            self._offsets[job_id] = max(on_disk, self._offsets.get(job_id, 0))
        self._load()
        return self._offsets.get(job_id, 0)

    def _moved(self, job_id: str, start: int, got: ReadSince) -> Unread:
        """The cursor past what was read (saved under the lock), and what the read left."""
        if got.offset != start:
            self._offsets[job_id] = got.offset
            self._save({job_id: got.offset}, locked=True)
        return Unread(
            text=got.text,
            offset=got.offset,
            skipped=got.skipped,
            remaining=max(0, got.end - got.offset),
            end=got.end,
            start=start,
        )

    def forget(self, job_ids: list[str]) -> None:
        """Drop the cursors of jobs that were cleared."""
        self._load()
        for job_id in job_ids:
            self._offsets.pop(job_id, None)
        self._save({}, drop=set(job_ids))

    # -- the file ---------------------------------------------------------------
    def _read_file(self) -> dict[str, int]:
        try:
            data = json.loads(read_regular(self.path, REGISTRY_FILE_LIMIT))
        except (OSError, ValueError, RecursionError):
            return {}
        offsets = data.get("offsets") if isinstance(data, dict) else None
        if not isinstance(offsets, dict):
            return {}
        return {
            k: v
            for k, v in offsets.items()
            if isinstance(k, str) and is_job_id(k) and isinstance(v, int) and 0 <= v < 1 << 63
        }

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for job_id, value in self._read_file().items():
            self._offsets[job_id] = max(value, self._offsets.get(job_id, 0))

    def _save(
        self, changed: dict[str, int], drop: set[str] | None = None, locked: bool = False
    ) -> None:
        if not self.persist:
            return
        with contextlib.nullcontext() if locked else self._locked():
            merged = self._read_file()
            for job_id, value in changed.items():
                merged[job_id] = max(value, merged.get(job_id, 0))
            for job_id in drop or ():
                merged.pop(job_id, None)
            if len(merged) > MAX_ENTRIES:
                keep = sorted(merged, key=lambda j: int(j[1:]))[-MAX_ENTRIES:]
                merged = {k: merged[k] for k in keep}
            write_json_atomic(
                self.path,
                {"sessionId": self.jm.session_id, "offsets": merged},
                durable=False,
            )

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        if fcntl is None or not self.persist:
            yield
            return
        # By name in the held directory; a planted link is refused, not followed.
        fd = regfiles.open_file(self.lock_path, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)
