"""The merged job table of one session: its own records (written only by it) and its peers'.

Adoption of a dead session is a claim by rename: `registry-<h>.json` is renamed to
`registry-<h>.json.adopting-<mine>`; exactly one racer's rename succeeds. The winner
merges the records into its own file (durably) and only then removes the claim (or
keeps it as `.corrupt-<ms>` when something in it could not be carried over), so a
crash in between leaves a claim file that the next session adopts in turn.

A take-over of a live session's job writes the record (with `takenFrom`) into our file,
then removes it from the old owner's file under that session's lock; the old owner's
processes see it gone from their file and let it go (`take_lost`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: one process per session there
    fcntl = None  # type: ignore[assignment]

from . import procs, reservations, sessions
from .bounds import MAX_COUNTER, in_range
from .config import Config
from .exitfiles import read_exit
from .model import JobRecord, JobStatus, outcome
from .ownership import (
    FINISHED_CEILING,
    TAKEN_FROM,
    prefer,
    prune_victims,
    remove_from_file,
    taken_from,
)
from .paths import (
    MAX_JOB_NUMBER,
    RegistryPaths,
    claim_base,
    claimer,
    job_number,
    session_hash,
)
from .reconcile import launching
from .safefiles import UnsafeFile
from .sanitize import last_line
from .store import (
    CorruptRegistry,
    Listing,
    RegistryFile,
    clone_record,
    encode_json,
    encode_registry,
    load_all,
    quarantine,
    read_cached,
    read_registry,
    write_bytes_atomic,
)

__all__ = ["Registry", "prefer"]

PEER_REFRESH_S = 0.5
JOB_FILE_SCAN_S = 5.0  # how often a refresh also looks for job files that are FIFOs or links
STALE_TMP_S = 60.0
MAX_PROBLEMS = 1000  # distinct problems remembered (each is reported once)
_OWN_FIELDS = ("persistent", "pruned")  # top-level extras of our own file, rewritten each time


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
        self._scanned_at = 0.0  # when job files were last looked at for FIFOs and links
        self._deleted: set[str] = set()
        self._on_disk: set[str] = set()  # own ids in the file as we last read or wrote it
        self._written: tuple[int, int, int] | None = None  # that file's inode, size, mtime
        self._disk_raw = b""  # and its bytes: a write that would change nothing is skipped
        self._lock_depth = 0
        self.adopted: list[JobRecord] = []  # adopted since the last take_adopted()
        self.lost: list[str] = []  # own ids another process removed (cleared, taken over)
        self.problems: list[str] = []  # every distinct problem, in order, each once
        self._unreported: list[str] = []
        self._pruned_disk = 0  # `pruned` as our file says
        self._pruned_here = 0  # pruned by this process since it last wrote
        self._cache: dict = {}  # parsed files, by name, keyed on inode/size/mtime
        self._listing = Listing()  # the directory's registry names, while it is unchanged
        self._encoded_memo: dict[str, tuple[tuple, bytes]] = {}  # id -> (fields, JSON)
        self.before_claim: Callable[[], object] | None = None  # called before a claim's rename
        # A glance (engine.glance) reads without changing anything: what a load would
        # change (an adoption, its own file kept and rewritten) is only noted in `due`.
        self.read_only = False
        self.due: list[str] = []
        self.on_change: Callable[[], None] | None = None  # the table changed from disk
        self._peer_view: tuple[tuple[object, ...], ...] = ()

    @property
    def own_path(self) -> Path:
        return self.paths.registry_file(self.session_id)

    @property
    def lock_path(self) -> Path:
        return self.paths.persist_lock(self.session_id)

    @property
    def pruned(self) -> int:
        """This session's finished records dropped by `max_jobs`, over its whole life."""
        return self._pruned_disk + self._pruned_here

    # -- problems ----------------------------------------------------------------
    def report(self, problem: str) -> bool:
        """Remember a problem once; True if it is new."""
        if problem in self.problems or len(self.problems) >= MAX_PROBLEMS:
            return False
        self.problems.append(problem)
        self._unreported.append(problem)
        return True

    def take_problems(self) -> list[str]:
        taken, self._unreported = self._unreported, []
        return taken

    # -- reading -----------------------------------------------------------------
    def load(self, now_ms: int) -> list[str]:
        """Read every file: own records, peers, and adopt dead sessions (see module doc).

        Returns the problems this load found (each is also queued for take_problems).
        """
        self._remove_stale_temp_files()
        loaded = load_all(self.paths.root, self._cache)
        self._scanned_at = time.monotonic()
        fresh = [p for p in loaded.problems if self.report(p)]
        own = next((f for f in loaded.files if f.path == self.own_path), None)
        if own is not None:
            self.counter = max(self.counter, own.counter)
            self._own_unknown = {k: v for k, v in own.unknown.items() if k not in _OWN_FIELDS}
            self._pruned_disk = _pruned_field(own)
            for record in own.jobs:
                self._own[record.id] = clone_record(record)
            self._written, self._disk_raw = own.key, own.raw
            if own.lossy and self.read_only:
                self.due.append(f"{own.path.name}: rewrite")
            elif own.lossy:  # our next write would drop what could not be read: keep it
                kept = quarantine(self.own_path, copy=True)
                if kept and self.report(f"{own.path.name}: kept as {kept.name}"):
                    fresh.append(self.problems[-1])
        self._on_disk = set(self._own)
        self._dirty = (
            # A live session's file shows it is there; a persistent one waits for a record.
            (own is None and not self.persistent)
            or (own is not None and own.lossy)  # write it clean once its original is kept
            or (own is not None and own.unknown.get("persistent", False) is not self.persistent)
        )
        self._absorb(loaded.files, now_ms)
        self._peers_read_at = time.monotonic()
        return fresh

    def refresh_peers(self, now_ms: int, force: bool = False) -> None:
        """Re-read what changed: our own file (other processes of this session), then peers."""
        self.refresh_own()
        if not force and time.monotonic() - self._peers_read_at < PEER_REFRESH_S:
            return
        scan = time.monotonic() - self._scanned_at > JOB_FILE_SCAN_S
        # our own file was merged just above; parsed again only if someone changed it
        own = self.own_path.name if _file_key(self.own_path) == self._written else None
        loaded = load_all(
            self.paths.root, self._cache, check_job_files=scan, known=own, listing=self._listing
        )
        for problem in loaded.problems:
            self.report(problem)
        self._absorb(loaded.files, now_ms)
        self._peers_read_at = time.monotonic()
        if scan:
            self._scanned_at = self._peers_read_at

    def refresh_own(self) -> None:
        """Merge our file if another process wrote it (a stat when nothing changed)."""
        if _file_key(self.own_path) != self._written:
            self._merge_from_disk()

    def _absorb(self, files: list[RegistryFile], now_ms: int) -> None:
        peers: dict[str, JobRecord] = {}
        for file in files:
            if file.path == self.own_path:
                continue
            self.counter = max(self.counter, file.counter)
            if self._adoptable(file, now_ms):
                if self.read_only:
                    self.due.append(f"{file.path.name if file.path else '?'}: adopt")
                elif self._adopt(file):
                    continue
            for record in file.jobs:
                if record.id in self._own:
                    continue
                if record.id in self._deleted and taken_from(record) != self.session_id:
                    continue  # cleared here; a copy taken over from us is another matter
                current = peers.get(record.id)
                peers[record.id] = record if current is None else prefer(current, record, "")
        for record in peers.values():
            self._view_settle(record)
        self._peers = peers
        view = tuple(
            (r.id, r.status, r.finished_at, r.stopping_at, r.session_id, r.label)
            for r in peers.values()
        )
        if view != self._peer_view:
            self._peer_view = view
            self._changed()

    def _changed(self) -> None:
        """Tell the manager what no shim event says: peers' files or our own changed on disk."""
        if self.on_change is not None:
            self.on_change()

    def _adoptable(self, file: RegistryFile, now_ms: int) -> bool:
        if file.path is None:
            return False
        claimed_by = claimer(file.path.name)
        if claimed_by is not None:  # a claim whose claimer died before finishing
            if claimed_by == session_hash(self.session_id):
                return True
            marker = sessions.read_marker(self.paths.marker_file_of(claimed_by))
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
        base = claim_base(file.path.name)
        claim = self.paths.claim(file.path, self.session_id)
        if self.before_claim is not None:
            self.before_claim()  # e.g. a persistent session's marker: a peer sees us alive
        try:
            if file.path != claim:
                os.rename(file.path, claim)
            claimed = read_registry(claim)
        except (FileNotFoundError, CorruptRegistry, UnsafeFile):
            return False  # another session won the race (or the file went away)
        except OSError:
            return False
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
        if claimed.lossy:  # something in it was not carried over: keep the original
            kept = quarantine(claim, base)
            reasons = [*claimed.shape, *(f"skipped an entry: {r}" for r in claimed.skipped)]
            if kept:
                self.report(
                    f"{base}: adopted, but not everything in it could be carried over "
                    f"({'; '.join(reasons)[:200]}); original kept as {kept.name}"
                )
        else:
            claim.unlink(missing_ok=True)
        if claimed.session_id:
            sessions.remove_marker(self.paths, claimed.session_id)
            self.paths.persist_lock(claimed.session_id).unlink(missing_ok=True)
        return True

    def _merged_by_claimer(self, name: str, mine: str) -> set[str]:
        """Ids a claim's dead claimer had already merged into its own file before dying."""
        claimed_by = claimer(name)
        if claimed_by is None or claimed_by == mine:
            return set()
        try:
            own = read_registry(self.paths.registry_file_of(claimed_by))
        except (OSError, CorruptRegistry):
            return set()
        return {record.id for record in own.jobs}

    def take_adopted(self) -> list[JobRecord]:
        adopted, self.adopted = self.adopted, []
        return adopted

    def take_lost(self) -> list[str]:
        """Own ids that other processes removed from our file since the last call."""
        lost, self.lost = self.lost, []
        return lost

    def _view_settle(self, record: JobRecord) -> None:
        """Show a peer's finished job as finished, without writing anything of theirs."""
        if not record.running:
            return
        info = read_exit(self.paths, record.id, record.status_path, problems=self.report)
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
                    if now - path.lstat().st_mtime > STALE_TMP_S:
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
        self.refresh_own()  # never act on a job another process cleared or took over
        return [r for r in self._own.values() if r.running]

    # -- ids ---------------------------------------------------------------------
    def reserve_id(self, now_ms: int) -> str:
        """A project-wide unique `j<n>`: O_EXCL lock, then a fresh look at every file.

        Every file counts, this session's own included as it is on disk (another
        process of this session may have committed an id since we read it). A racer
        may have committed n and released its lock between our read and our lock; its
        file then shows n (or a counter past it), and we move on. A number whose log,
        status or end file exists is never handed out, so a start never touches an
        earlier job's files. Past the last possible id, the lowest free number is used.
        """
        self.refresh_peers(now_ms, force=True)
        with self._locked():
            self._merge_from_disk()
        used = {job_number(r.id) for r in self.all()} | reservations.scan(self.paths, now_ms)
        while True:
            first = max([self.counter, *(n + 1 for n in used)])
            wrapped = first > MAX_JOB_NUMBER
            job_id = reservations.reserve(
                self.paths, 1 if wrapped else first, self.session_id, used
            )
            if job_id is None:
                raise RuntimeError("no free job id: every j<n> is taken")
            number = job_number(job_id)
            if not self._committed_anywhere(number, wrapped, used):
                self.counter = max(self.counter, min(number + 1, MAX_COUNTER))
                return job_id
            reservations.release(self.paths, job_id)
            used.add(number)

    def _committed_anywhere(self, number: int, wrapped: bool, used: set[int]) -> bool:
        """`number` is in some file, or (counting upwards) some file's counter is past it.

        Every number the files hold is added to `used`, so a retry skips them all.
        """
        taken = False
        for file in load_all(self.paths.root, self._cache, check_job_files=False).files:
            numbers = {job_number(r.id) for r in file.jobs}
            used |= numbers
            if number in numbers:
                taken = True
            elif not wrapped and file.counter > number:
                self.counter = max(self.counter, file.counter)
                taken = True
        return taken

    # -- writing -----------------------------------------------------------------
    def add(self, record: JobRecord) -> None:
        self._own[record.id] = record

    def take_over(self, job_id: str) -> JobRecord:
        """Make a peer's record ours: in our file first, then out of its owner's file."""
        record = self._peers.pop(job_id).copy()  # the peer's parsed file stays untouched
        previous = record.session_id
        record.session_id = self.session_id
        record.unknown[TAKEN_FROM] = previous
        self._deleted.discard(job_id)
        self._own[job_id] = record
        self.persist()
        if previous and previous != self.session_id:
            problem = remove_from_file(self.paths, previous, job_id)
            if problem:
                self.report(problem)
        return record

    def remove(self, ids: list[str]) -> list[JobRecord]:
        with self._locked():
            self._merge_from_disk()  # a record another process cleared or took is not ours
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
        """Own finished records beyond `max_jobs` whose results were reported, oldest first.

        Unreported ones stay (up to FINISHED_CEILING finished records); past the
        ceiling the oldest go too, and a problem says which.
        """
        finished = [r for r in self._own.values() if not r.running]
        victims, unreported = prune_victims(finished, self.config.max_jobs)
        if not victims:
            return []
        for record in victims:
            del self._own[record.id]
            self._deleted.add(record.id)
            self._delete_files(record)
        if unreported:
            ids = ", ".join(r.id for r in victims[-unreported:][:20])
            self.report(
                f"{unreported} finished job(s) pruned although their results were not "
                f"reported ({ids}): more than {FINISHED_CEILING} finished jobs"
            )
        self._pruned_here += len(victims)
        self._dirty = True
        return victims

    def mark_dirty(self) -> None:
        self._dirty = True

    @property
    def dirty(self) -> bool:
        """Something of ours is not written yet."""
        return self._dirty

    def persist_if_dirty(self) -> None:
        if self._dirty:
            self.persist()

    def save(self) -> None:
        """`persist`, where a failure (a full disk) is reported once and retried later."""
        try:
            self.persist()
        except OSError as exc:
            self._dirty = True
            self.unwritable(exc)

    def save_if_dirty(self) -> None:
        if self._dirty:
            self.save()

    def unwritable(self, exc: OSError) -> None:
        """A write to the registry directory failed: a problem, reported once."""
        self.report(f"the registry directory could not be written ({exc.strerror}); retrying")

    def persist(self) -> None:
        """Write this session's file, merged onto what other processes of it wrote.

        Finished records past `max_jobs` are pruned here (see prune). A write that
        would leave the file byte for byte as it is is skipped.
        """
        with self._locked():
            self._merge_from_disk()
            self.prune()
            extra: dict = {"persistent": True} if self.persistent else {}
            if self.pruned:
                extra["pruned"] = self.pruned
            jobs = sorted(self._own.values(), key=lambda r: r.number)
            payload = encode_registry(
                {**self._own_unknown, **extra}, self.session_id, self.counter, self._encoded(jobs)
            )
            if payload != self._disk_raw or _file_key(self.own_path) != self._written:
                write_bytes_atomic(self.own_path, payload)
                self._written = _file_key(self.own_path)
                self._disk_raw = payload
            self._on_disk = set(self._own)
            self._pruned_disk, self._pruned_here = self.pruned, 0
        self._dirty = False

    def _encoded(self, records: list[JobRecord]) -> list[bytes]:
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

    def _merge_from_disk(self) -> None:
        """Another process of this session (a command-line call) wrote since we did: merge.

        Records it started are kept, records it cleared (or a take-over removed) stay
        gone and are listed in `lost`, a settled record beats a running one; our record
        objects are updated in place (callers hold them).
        """
        if _file_key(self.own_path) in (None, self._written):
            return
        try:
            fresh = read_cached(self.own_path, self._cache)
        except (OSError, CorruptRegistry):
            return  # gone, refused or corrupt: the next load reports and quarantines it
        self.counter = max(self.counter, fresh.counter)
        self._pruned_disk = _pruned_field(fresh)
        disk = {record.id: record for record in fresh.jobs}
        for job_id, theirs in disk.items():
            if job_id in self._deleted:
                continue
            mine = self._own.get(job_id)
            if mine is None:
                self._own[job_id] = clone_record(theirs)
                self._peers.pop(job_id, None)
                continue
            seen = mine.seen or theirs.seen
            if prefer(mine, theirs, self.session_id) is theirs:
                for field in dataclasses.fields(mine):
                    setattr(mine, field.name, getattr(theirs, field.name))
                mine.unknown = dict(theirs.unknown)
            mine.seen = seen
        for job_id in list(self._own):
            if job_id not in disk and job_id in self._on_disk:
                # Another process of this session cleared or pruned it, or a take-over
                # moved it to another session's file (where we now see it as a peer's).
                del self._own[job_id]
                self.lost.append(job_id)
        self._on_disk = set(disk)
        self._written, self._disk_raw = fresh.key, fresh.raw
        self._changed()

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
        flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(self.lock_path, flags, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._lock_depth = 1
            yield
        finally:
            self._lock_depth = 0
            os.close(fd)


def _pruned_field(file: RegistryFile) -> int:
    value = file.unknown.get("pruned")
    return value if isinstance(value, int) and in_range(value, 0, MAX_COUNTER) else 0


def _file_key(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)
