"""The merged job table of one session: its own records (written only by it) and its peers'."""

from __future__ import annotations

import time
from pathlib import Path

from . import reservations
from .config import Config
from .model import JobRecord
from .paths import RegistryPaths, job_number
from .store import RegistryFile, load_all, write_json_atomic

PEER_REFRESH_S = 0.5


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

    # -- reading -----------------------------------------------------------------
    def load(self, now_ms: int) -> list[str]:
        loaded = load_all(self.paths.root)
        own_path = self.paths.registry_file(self.session_id)
        for file in loaded.files:
            self.counter = max(self.counter, file.counter)
            if file.path == own_path:
                self._own_unknown = file.unknown
                for record in file.jobs:
                    self._own[record.id] = record
        self._merge_peers([f for f in loaded.files if f.path != own_path])
        self._peers_read_at = time.monotonic()
        return loaded.problems

    def _merge_peers(self, files: list[RegistryFile]) -> None:
        peers: dict[str, JobRecord] = {}
        for file in files:
            self.counter = max(self.counter, file.counter)
            for record in file.jobs:
                if record.id in self._own or record.id in self._deleted:
                    continue
                current = peers.get(record.id)
                peers[record.id] = record if current is None else prefer(current, record, "")
        self._peers = peers

    def refresh_peers(self, _now_ms: int, force: bool = False) -> None:
        if not force and time.monotonic() - self._peers_read_at < PEER_REFRESH_S:
            return
        own_path = self.paths.registry_file(self.session_id)
        loaded = load_all(self.paths.root)
        self._merge_peers([f for f in loaded.files if f.path != own_path])
        self._peers_read_at = time.monotonic()

    def get(self, job_id: str) -> JobRecord | None:
        return self._own.get(job_id) or self._peers.get(job_id)

    def all(self) -> list[JobRecord]:
        return [*self._own.values(), *self._peers.values()]

    def own(self) -> list[JobRecord]:
        return list(self._own.values())

    def own_running(self) -> list[JobRecord]:
        return [r for r in self._own.values() if r.running]

    # -- ids ---------------------------------------------------------------------
    def reserve_id(self) -> str:
        self.refresh_peers(0, force=True)
        taken = [job_number(r.id) for r in self.all()]
        taken += reservations.held_numbers(self.paths)
        first = max([self.counter, *(n + 1 for n in taken)])
        job_id = reservations.reserve(self.paths, first, self.session_id)
        self.counter = job_number(job_id) + 1
        return job_id

    # -- writing -----------------------------------------------------------------
    def add(self, record: JobRecord) -> None:
        self._own[record.id] = record

    def take_over(self, job_id: str) -> JobRecord:
        record = self._peers.pop(job_id)
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
        file = RegistryFile(
            session_id=self.session_id,
            counter=self.counter,
            jobs=sorted(self._own.values(), key=lambda r: r.number),
            unknown={**self._own_unknown, **({"persistent": True} if self.persistent else {})},
        )
        write_json_atomic(self.paths.registry_file(self.session_id), file.to_json())
        self._dirty = False
