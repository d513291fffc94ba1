"""The merged job table of one session: its own records (written only by it) and its peers'.

Adoption of a dead session is a claim by rename: `registry-<h>.json` is renamed to
`registry-<h>.json.adopting-<mine>`; exactly one racer's rename succeeds. The winner
merges the records into its own file (durably) and only then removes the claim, so
a crash in between leaves a claim file that the next session adopts in turn.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: one process per session there
    fcntl = None  # type: ignore[assignment]

from . import procs, reservations, sessions
from .config import Config
from .exitfiles import read_exit
from .model import JobRecord, JobStatus, outcome
from .paths import RegistryPaths, job_number, session_hash
from .reconcile import claim_base, claimer, launching
from .sanitize import last_line
from .store import CorruptRegistry, RegistryFile, load_all, read_registry, write_json_atomic

PEER_REFRESH_S = 0.5
STALE_TMP_S = 60.0


def prefer(a: JobRecord, b: JobRecord, session_id: str) -> JobRecord:
    """The format's merge rule: settled beats running, own beats peer, later beats earlier."""
    if a.running != b.running:
        return b if a.running else a
    if (a.session_id == session_id) != (b.session_id == session_id):
        return a if a.session_id == session_id else b
    return a if a.ended_at() >= b.ended_at() else b


class Registry:
    def __init__(
        self, paths: RegistryPaths, session_id: str, config: Config, *, persistent: bool = False
    ) -> None:
        self.paths = paths
        self.session_id = session_id
        self.config = config
        self.persistent = persistent
        self.counter = 1
        self._own: dict[str, JobRecord] = {}
        self._peers: dict[str, JobRecord] = {}
        self._own_unknown: dict = {}
        self._dirty = False
        self._peers_read_at = 0.0
        self._deleted: set[str] = set()
        self._on_disk: set[str] = set()  # own ids in the file as we last read or wrote it
        self._written: tuple[int, int, int] | None = None  # that file's inode, size, mtime
        self._lock_depth = 0
        self.adopted: list[JobRecord] = []  # adopted since the last take_adopted()
        self.problems: list[str] = []
        self._cache: dict = {}  # parsed peer files, by name, keyed on inode/size/mtime

    @property
    def own_path(self) -> Path:
        return self.paths.registry_file(self.session_id)

    @property
    def lock_path(self) -> Path:
        return self.paths.root / f"persist-{session_hash(self.session_id)}.lock"

    # -- reading -----------------------------------------------------------------
    def load(self, now_ms: int) -> list[str]:
        """Read every file: own records, peers, and adopt dead sessions (see module doc)."""
        self._remove_stale_temp_files()
        with self._locked():
            return self._load(now_ms)

    def _load(self, now_ms: int) -> list[str]:
        loaded = load_all(self.paths.root)
        for file in loaded.files:
            if file.path == self.own_path:
                self.counter = max(self.counter, file.counter)
                self._own_unknown = {k: v for k, v in file.unknown.items() if k != "persistent"}
                for record in file.jobs:
                    self._own[record.id] = record
        self._on_disk = set(self._own)
        self._written = _file_key(self.own_path)
        self._absorb(loaded.files, now_ms)
        self._peers_read_at = time.monotonic()
        return loaded.problems

    def refresh_peers(self, now_ms: int, force: bool = False) -> None:
        if not force and time.monotonic() - self._peers_read_at < PEER_REFRESH_S:
            return
        loaded = load_all(self.paths.root, self._cache)
        self.problems += loaded.problems
        self._absorb(loaded.files, now_ms)
        self._peers_read_at = time.monotonic()

    def _absorb(self, files: list[RegistryFile], now_ms: int) -> None:
        peers: dict[str, JobRecord] = {}
        for file in files:
            if file.path == self.own_path:
                continue
            self.counter = max(self.counter, file.counter)
            if self._adoptable(file, now_ms) and self._adopt(file):
                continue
            for record in file.jobs:
                if record.id in self._own or record.id in self._deleted:
                    continue
                current = peers.get(record.id)
                peers[record.id] = record if current is None else prefer(current, record, "")
        for record in peers.values():
            self._view_settle(record)
        self._peers = peers

    def _adoptable(self, file: RegistryFile, now_ms: int) -> bool:
        if file.path is None:
            return False
        claimed_by = claimer(file.path.name)
        if claimed_by is not None:  # a claim whose claimer died before finishing
            if claimed_by == session_hash(self.session_id):
                return True
            marker = sessions.read_marker(self.paths.root / f"session-{claimed_by}.json")
            return not sessions.marker_alive(marker, now_ms, self.config.session_ttl_ms)
        if file.unknown.get("persistent") is True:
            return False  # a command-line session: no process stays alive, by design
        return not sessions.session_alive(
            self.paths, file.session_id, now_ms, self.config.session_ttl_ms
        )

    def _adopt(self, file: RegistryFile) -> bool:
        """Claim a dead session's file by rename and take its records; False if we lost."""
        assert file.path is not None
        mine = session_hash(self.session_id)
        claim = file.path.with_name(f"{claim_base(file.path.name)}.adopting-{mine}")
        try:
            if file.path != claim:
                os.rename(file.path, claim)
            claimed = read_registry(claim)
        except (FileNotFoundError, CorruptRegistry):
            return False  # another session won the race (or the file went away)
        self.counter = max(self.counter, claimed.counter)
        merged = self._merged_by_claimer(file.path.name, mine)
        for record in claimed.jobs:
            if record.id in merged:
                continue  # its dead claimer wrote it into its own file: one owner only
            current = self._own.get(record.id)
            if current is not None and prefer(current, record, self.session_id) is current:
                continue
            record.session_id = self.session_id
            self._own[record.id] = record
            self._peers.pop(record.id, None)
            self.adopted.append(record)
        self.persist()
        claim.unlink(missing_ok=True)
        if claimed.session_id:
            sessions.remove_marker(self.paths, claimed.session_id)
            lock = self.paths.root / f"persist-{session_hash(claimed.session_id)}.lock"
            lock.unlink(missing_ok=True)
        return True

    def _merged_by_claimer(self, name: str, mine: str) -> set[str]:
        """Ids a claim's dead claimer had already merged into its own file before dying."""
        claimed_by = claimer(name)
        if claimed_by is None or claimed_by == mine:
            return set()
        try:
            own = read_registry(self.paths.root / f"registry-{claimed_by}.json")
        except (OSError, CorruptRegistry):
            return set()
        return {record.id for record in own.jobs}

    def take_adopted(self) -> list[JobRecord]:
        adopted, self.adopted = self.adopted, []
        return adopted

    def _view_settle(self, record: JobRecord) -> None:
        """Show a peer's finished job as finished, without writing anything of theirs."""
        if not record.running:
            return
        info = read_exit(self.paths, record.id, record.status_path)
        if info is not None:
            status, code, sig = outcome(
                info.exit_status, info.reason, info.signal, procs.signal_name
            )
            record.status, record.exit_code, record.signal = status, code, sig
            record.exit_status, record.end_reason = info.exit_status, info.reason
            record.finished_at = info.finished_at or record.started_at
            line = last_line(info.tail) if info.tail else ""
            if line:
                record.last_line = line
        elif record.pid is None and record.shim_pid is None:
            # Recorded before its shim reported ready: running while it may still come up
            # or its shim listens (its owner fills the pids in); unknown after that.
            if not launching(record, int(time.time() * 1000)) and not (
                self.paths.socket(record.id).exists()
            ):
                record.status = JobStatus.UNKNOWN
                record.finished_at = record.finished_at or record.started_at
        elif not procs.same_process(record.pid, record.start_token) and not procs.same_process(
            record.shim_pid, record.shim_token
        ):
            record.status = JobStatus.UNKNOWN
            record.finished_at = record.finished_at or record.started_at

    def _remove_stale_temp_files(self) -> None:
        now = time.time()
        try:
            names = os.listdir(self.paths.root)
        except FileNotFoundError:
            return
        for name in names:
            if name.startswith(".") and name.endswith(".tmp"):
                path = self.paths.root / name
                try:
                    if now - path.stat().st_mtime > STALE_TMP_S:
                        path.unlink()
                except OSError:
                    continue

    def get(self, job_id: str) -> JobRecord | None:
        return self._own.get(job_id) or self._peers.get(job_id)

    def all(self) -> list[JobRecord]:
        return [*self._own.values(), *self._peers.values()]

    def own(self) -> list[JobRecord]:
        return list(self._own.values())

    def own_running(self) -> list[JobRecord]:
        return [r for r in self._own.values() if r.running]

    # -- ids ---------------------------------------------------------------------
    def reserve_id(self, now_ms: int) -> str:
        """A project-wide unique `j<n>`: O_EXCL lock, then a fresh look at every file.

        A racer may have committed n and released its lock between our read and our
        lock; its file then shows n (or a counter past it), and we move on.
        """
        self.refresh_peers(now_ms, force=True)
        while True:
            taken = [job_number(r.id) for r in self.all()]
            taken += reservations.held_numbers(self.paths)
            first = max([self.counter, *(n + 1 for n in taken)])
            job_id = reservations.reserve(self.paths, first, self.session_id)
            number = job_number(job_id)
            self.counter = number + 1
            if not self._committed_elsewhere(number):
                return job_id
            reservations.release(self.paths, job_id)

    def _committed_elsewhere(self, number: int) -> bool:
        for file in load_all(self.paths.root, self._cache).files:
            if file.path == self.own_path:
                continue
            if file.counter > number or any(job_number(r.id) == number for r in file.jobs):
                self.counter = max(self.counter, file.counter)
                return True
        return False

    # -- writing -----------------------------------------------------------------
    def add(self, record: JobRecord) -> None:
        self._own[record.id] = record

    def take_over(self, job_id: str) -> JobRecord:
        record = self._peers.pop(job_id).copy()  # the peer's parsed file stays untouched
        record.session_id = self.session_id
        self._own[job_id] = record
        self.persist()
        return record

    def remove(self, ids: list[str]) -> list[JobRecord]:
        removed = [self._own.pop(i) for i in ids if i in self._own]
        self._deleted.update(r.id for r in removed)
        if removed:
            self.persist()
        for record in removed:
            self._delete_files(record)
        return removed

    def _delete_files(self, record: JobRecord) -> None:
        for path in self.paths.job_files(record.id):
            path.unlink(missing_ok=True)
        log = self.paths.inside(record.log_path)
        if log is not None:
            log.unlink(missing_ok=True)
            Path(str(log) + ".1").unlink(missing_ok=True)

    def prune(self) -> list[JobRecord]:
        """Own finished records beyond `max_jobs`, oldest first."""
        finished = sorted(
            (r for r in self._own.values() if not r.running), key=lambda r: (r.ended_at(), r.number)
        )
        excess = len(finished) - self.config.max_jobs
        if excess <= 0:
            return []
        victims = finished[:excess]
        for record in victims:
            del self._own[record.id]
            self._deleted.add(record.id)
            self._delete_files(record)
        self._dirty = True
        return victims

    def mark_dirty(self) -> None:
        self._dirty = True

    def persist_if_dirty(self) -> None:
        if self._dirty:
            self.persist()

    def persist(self) -> None:
        """Write this session's file, merged onto what other processes of it wrote."""
        with self._locked():
            self._merge_from_disk()
            extra = {"persistent": True} if self.persistent else {}
            file = RegistryFile(
                session_id=self.session_id,
                counter=self.counter,
                jobs=sorted(self._own.values(), key=lambda r: r.number),
                unknown={**self._own_unknown, **extra},
            )
            write_json_atomic(self.own_path, file.to_json())
            self._written = _file_key(self.own_path)
            self._on_disk = set(self._own)
        self._dirty = False

    def _merge_from_disk(self) -> None:
        """Another process of this session (a command-line call) wrote since we did: merge.

        Records it started are kept, records it cleared stay cleared, a settled record
        beats a running one; our record objects are updated in place (callers hold them).
        """
        if _file_key(self.own_path) in (None, self._written):
            return
        try:
            fresh = read_registry(self.own_path)
        except (FileNotFoundError, CorruptRegistry):
            return
        self.counter = max(self.counter, fresh.counter)
        disk = {record.id: record for record in fresh.jobs}
        for job_id, theirs in disk.items():
            if job_id in self._deleted:
                continue
            mine = self._own.get(job_id)
            if mine is None:
                self._own[job_id] = theirs
                self._peers.pop(job_id, None)
                continue
            seen = mine.seen or theirs.seen
            if prefer(mine, theirs, self.session_id) is theirs:
                for field in dataclasses.fields(mine):
                    setattr(mine, field.name, getattr(theirs, field.name))
            mine.seen = seen
        for job_id in list(self._own):
            if job_id not in disk and job_id in self._on_disk:
                self._deleted.add(job_id)
                del self._own[job_id]  # another process of this session cleared or pruned it

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """An exclusive flock shared by the processes of this session; re-entrant."""
        if self._lock_depth or fcntl is None or not self.paths.root.is_dir():
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._lock_depth = 1
            yield
        finally:
            self._lock_depth = 0
            os.close(fd)


def _file_key(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)
