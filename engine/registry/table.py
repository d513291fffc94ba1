"""The merged job table of one session: its own records (written only by it) and its peers'.

A dead session's file is adopted by a claim by rename (`adoption`); our own file is
merged with what other processes of this session wrote, under their shared lock
(`ownfile`); a peer's record is shown settled without writing it (`peerview`).

A take-over of a live session's job writes the record (with `takenFrom`) into our file,
then removes it from the old owner's file under that session's lock; the old owner's
processes see it gone from their file and let it go (`take_lost`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from jobs_tui.engine.records.ids import job_number
from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.shim import cgroup

from . import adoption, jobids, reservations
from .cleanup import delete_job_files, remove_orphan_files, remove_stale_temp_files
from .ownership import (
    FINISHED_CEILING,
    TAKEN_FROM,
    fill_from,
    merge_copies,
    prefer,
    prune_victims,
    remove_from_file,
    taken_from,
)
from .ownfile import OwnFile, merge_own, pruned_field
from .paths import RegistryPaths, claim_base
from .peerview import settle_view
from .store import (
    CorruptRegistry,
    Listing,
    RegistryFile,
    clone_record,
    encode_registry,
    load_all,
    quarantine,
    read_cached,
)

__all__ = ["Registry", "prefer"]

PEER_REFRESH_S = 0.5
JOB_FILE_SCAN_S = 5.0  # how often a refresh also looks for job files that are FIFOs or links
MAX_PROBLEMS = 1000  # distinct problems remembered (each is reported once)
_OWN_FIELDS = ("persistent", "pruned")  # top-level extras of our own file, rewritten each time


class Limits(Protocol):
    """What the registry reads of the session's `Config`: the config names where the registry
    is (it sits above this room), so the registry names only the two limits it keeps."""

    @property
    def max_jobs(self) -> int: ...
    @property
    def session_ttl_ms(self) -> int: ...


class Registry:
    def __init__(
        self, paths: RegistryPaths, session_id: str, config: Limits, *, persistent: bool = False
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
        self._file = OwnFile(self.own_path, self.lock_path, paths.root)
        self.adopted: list[JobRecord] = []  # adopted since the last take_adopted()
        self.lost: list[str] = []  # own ids another process removed (cleared, taken over)
        self.problems: list[str] = []  # every distinct problem, in order, each once
        self._unreported: list[str] = []
        self._pruned_disk = 0  # `pruned` as our file says
        self._pruned_here = 0  # pruned by this process since it last wrote
        self._cache: dict = {}  # parsed files, by name, keyed on inode/size/mtime
        self._listing = Listing()  # the directory's registry names, while it is unchanged
        self.before_claim: Callable[[], object] | None = None  # called before a claim's rename
        # A glance (engine.session.glance) reads without changing anything: what a load would
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
        remove_stale_temp_files(self.paths.root)
        loaded = load_all(self.paths.root, self._cache)
        self._scanned_at = time.monotonic()
        fresh = [p for p in loaded.problems if self.report(p)]
        own = next((f for f in loaded.files if f.path == self.own_path), None)
        if own is not None:
            self.counter = max(self.counter, own.counter)
            self._own_unknown = {k: v for k, v in own.unknown.items() if k not in _OWN_FIELDS}
            self._pruned_disk = pruned_field(own)
            for record in own.jobs:
                self._own[record.id] = clone_record(record)
            self._file.read_as(own)
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
        if not self.read_only and not loaded.problems and not any(f.lossy for f in loaded.files):
            # Every record was read: a file of an id none of them names is a gone job's.
            known = {r.id for f in loaded.files for r in f.jobs} | set(self._own)
            remove_orphan_files(self.paths.root, known)
            cgroup.remove_stale()  # every empty one of a dead shim, whichever registry
        return fresh

    def refresh_peers(self, now_ms: int, force: bool = False) -> None:
        """Re-read what changed: our own file (other processes of this session), then peers."""
        self.refresh_own()
        if not force and time.monotonic() - self._peers_read_at < PEER_REFRESH_S:
            return
        scan = time.monotonic() - self._scanned_at > JOB_FILE_SCAN_S
        # our own file was merged just above; parsed again only if someone changed it
        own = None if self._file.changed() else self.own_path.name
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
        if self._file.changed():
            self._merge_from_disk()

    def _absorb(self, files: list[RegistryFile], now_ms: int) -> None:
        peers: dict[str, JobRecord] = {}
        for file in files:
            if file.path == self.own_path:
                continue
            self.counter = max(self.counter, file.counter)
            if adoption.adoptable(
                self.paths, self.config.session_ttl_ms, self.session_id, file, now_ms
            ):
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
                peers[record.id] = record if current is None else merge_copies(current, record, "")
        for record in peers.values():
            settle_view(self.paths, record, self.report)
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

    def _adopt(self, file: RegistryFile) -> bool:
        """Claim a dead session's file by rename and take its records; False if we lost."""
        assert file.path is not None
        if self.before_claim is not None:
            self.before_claim()  # e.g. a persistent session's marker: a peer sees us alive
        won = adoption.claim(self.paths, file.path, self.session_id)
        if won is None:
            return False
        claim, claimed = won
        self.counter = max(self.counter, claimed.counter)
        merged = adoption.merged_by_claimer(self.paths, file.path.name, self.session_id)
        for record in claimed.jobs:
            if record.id in merged:
                continue  # its dead claimer wrote it into its own file: one owner only
            current = self._own.get(record.id)
            if current is not None and prefer(current, record, self.session_id) is current:
                fill_from(current, record)
                continue
            record.session_id = self.session_id
            self._own[record.id] = record
            self._peers.pop(record.id, None)
            self.adopted.append(record)
        self.persist()
        adoption.release(self.paths, claim, claim_base(file.path.name), claimed, self.report)
        return True

    def take_adopted(self) -> list[JobRecord]:
        adopted, self.adopted = self.adopted, []
        return adopted

    def take_lost(self) -> list[str]:
        """Own ids that other processes removed from our file since the last call."""
        lost, self.lost = self.lost, []
        return lost

    def get(self, job_id: str) -> JobRecord | None:
        return self._own.get(job_id) or self._peers.get(job_id)

    def all(self) -> list[JobRecord]:
        return [*self._own.values(), *self._peers.values()]

    def own(self) -> list[JobRecord]:
        return list(self._own.values())

    def forget_peer(self, job_id: str) -> None:
        """A peer's record that was taken out of its file here (`peerclear`): not shown again."""
        self._peers.pop(job_id, None)
        self._deleted.add(job_id)

    def own_running(self) -> list[JobRecord]:
        self.refresh_own()  # never act on a job another process cleared or took over
        return [r for r in self._own.values() if r.running]

    # -- ids ---------------------------------------------------------------------
    def reserve_id(self, now_ms: int) -> str:
        """A project-wide unique `j<n>`: O_EXCL lock, then a fresh look at every file.

        Every file counts, this session's own included as it is on disk (another
        process of this session may have committed an id since we read it). A racer
        may have committed n and released its lock between our read and our lock; its
        file then shows n (or a counter past it), and we move on (`jobids`). A number
        whose log, status or end file exists is never handed out, so a start never
        touches an earlier job's files.
        """
        self.refresh_peers(now_ms, force=True)
        with self._file.locked():
            self._merge_from_disk()
        used = {job_number(r.id) for r in self.all()} | reservations.scan(self.paths, now_ms)
        job_id, self.counter = jobids.reserve_free(
            self.paths, self.session_id, self.counter, used, self._cache
        )
        return job_id

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
        with self._file.locked():
            self._merge_from_disk()  # a record another process cleared or took is not ours
            removed = [self._own.pop(i) for i in ids if i in self._own]
            self._deleted.update(r.id for r in removed)
            try:
                if removed:
                    self.persist()
            except OSError:  # not written (a full disk): every record stays, files and all
                self._own.update((r.id, r) for r in removed)
                self._deleted.difference_update(r.id for r in removed)
                raise
        for record in removed:
            delete_job_files(self.paths, record)
        return removed

    def prune(self) -> list[JobRecord]:
        """Own finished records beyond `max_jobs` whose results were reported, oldest first.

        Unreported ones stay (up to FINISHED_CEILING finished records); past the
        ceiling the oldest go too, and a problem says which.
        """
        # A finished job whose processes still run is not pruned: it would be tracked nowhere.
        finished = [r for r in self._own.values() if not r.running and not r.remaining_processes]
        victims, unreported = prune_victims(finished, self.config.max_jobs)
        if not victims:
            return []
        for record in victims:
            del self._own[record.id]
            self._deleted.add(record.id)
            delete_job_files(self.paths, record)
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
        with self._file.locked():
            self._merge_from_disk()
            self.prune()
            extra: dict = {"persistent": True} if self.persistent else {}
            if self.pruned:
                extra["pruned"] = self.pruned
            jobs = sorted(self._own.values(), key=lambda r: r.number)
            payload = encode_registry(
                {**self._own_unknown, **extra},
                self.session_id,
                self.counter,
                self._file.encoded(jobs),
            )
            self._file.write(payload)
            self._on_disk = set(self._own)
            self._pruned_disk, self._pruned_here = self.pruned, 0
        self._dirty = False

    def _merge_from_disk(self) -> None:
        """Another process of this session (a command-line call) wrote since we did: merge
        (`merge_own`); what it removed is listed in `lost`."""
        if not self._file.rewritten():
            return
        try:
            fresh = read_cached(self.own_path, self._cache)
        except (OSError, CorruptRegistry):
            return  # gone, refused or corrupt: the next load reports and quarantines it
        self.counter = max(self.counter, fresh.counter)
        self._pruned_disk = pruned_field(fresh)
        disk = {record.id: record for record in fresh.jobs}
        self.lost += merge_own(
            self._own,
            self._peers,
            disk,
            deleted=self._deleted,
            on_disk=self._on_disk,
            session_id=self.session_id,
        )
        self._on_disk = set(disk)
        self._file.read_as(fresh)
        self._changed()
