"""A glance at a session's jobs without an event loop: the command line's `list` and `status`.

Opening a `JobManager` imports asyncio and the supervision machinery, most of what a
short read costs. A glance reads the registry as a session's load does (peers' jobs
view-settled from their files, nothing of theirs written) but changes nothing and
connects to nothing: it checks its own running jobs by pid and start token, as a
session opened with `attach=False` does. When the session has something to do (an own
job that ended or whose shim died, a launch that never reported, a dead session's file
to adopt, its own file to rewrite) `load()` returns False, having changed nothing, and
the caller opens a JobManager instead, which does it through the one settle path. The
next call finds nothing to do and glances again.
"""

from __future__ import annotations

import os
from pathlib import Path

from jobs_tui.engine.config import Config, resolve_registry_dir
from jobs_tui.engine.records.ids import is_job_id
from jobs_tui.engine.records.model import JobRecord, now_ms
from jobs_tui.engine.registry import regfiles
from jobs_tui.engine.registry.exitfiles import read_exit
from jobs_tui.engine.registry.paths import RegistryPaths, UnsafeRegistryDir, ensure_private_dir
from jobs_tui.engine.registry.reconcile import Facts, Plan, launching, plan
from jobs_tui.engine.registry.table import Registry
from jobs_tui.engine.shim import procs
from jobs_tui.engine.shim.regdir import RegDir


class Glance:
    """The jobs of one session as its registry files say, or a request to open a session."""

    def __init__(
        self,
        cwd: str | os.PathLike[str] = ".",
        session_id: str = "cli",
        *,
        persistent: bool = True,
        config: Config | None = None,
        registry_dir: str | os.PathLike[str] | None = None,
        registry_dir_flag: str | None = None,
    ) -> None:
        self.cwd = os.path.abspath(os.fspath(cwd))
        self.config = config if config is not None else Config.load()
        self.dir = resolve_registry_dir(self.cwd, registry_dir, self.config, registry_dir_flag)
        self.paths = RegistryPaths(self.dir)
        self.session_id = session_id
        self.registry = Registry(self.paths, session_id, self.config, persistent=persistent)
        self.registry.read_only = True
        self.due: list[str] = []  # why a session must be opened instead, if it must
        self._held: RegDir | None = None  # the registry directory, from `load` to `close`

    def load(self) -> bool:
        """Read every file; False when the session has something to do (nothing was changed).

        Raises JobError (field `registry_dir`) for a directory that cannot be one, as
        `JobManager.open` does.
        """
        try:
            ensure_private_dir(Path(self.dir))
        except UnsafeRegistryDir as exc:
            from jobs_tui.engine.records.results import (
                JobError,  # here: results costs a short call to import
            )

            raise JobError(str(exc), "registry_dir") from exc
        if self._held is None and regfiles.held(self.dir) is None:
            # As a session does: every file from here on by name in the directory checked.
            self._held = regfiles.hold(self.dir)
        now = now_ms()
        self.registry.load(now)
        self.due = list(self.registry.due)
        if self.registry.dirty:
            self.due.append("own file: write")
        for record in self.registry.own():
            if record.running and self._due(record, now):
                self.due.append(f"{record.id}: reconcile")
            elif record.remaining_processes and not procs.same_process(
                record.shim_pid, record.shim_token
            ):
                # Its leftovers' count is stale (or they outlived a killed shim): a session
                # counts them again and writes it, so the next glance needs no environ scan.
                self.due.append(f"{record.id}: leftovers")
        return not self.due

    def close(self) -> None:
        """Let the registry directory go (a session opened after this holds its own)."""
        if self._held is not None:
            regfiles.release(self._held)
            self._held = None

    def _due(self, record: JobRecord, now: int) -> bool:
        """Whether an own running record needs the session (the rules of `_reconcile_own`)."""
        info = read_exit(self.paths, record.id, record.status_path)
        if record.pid is None and record.shim_pid is None and info is None:
            return not launching(record, now)  # its starter fills its pids in meanwhile
        alive = procs.same_process(record.pid, record.start_token) or procs.same_process(
            record.shim_pid, record.shim_token
        )
        facts = Facts(alive, info is not None, own=True, adopted=False)
        return plan(record, facts) is not Plan.REATTACH

    def is_own(self, record: JobRecord) -> bool:
        return record.session_id == self.session_id

    def get(self, job_id: str) -> JobRecord | None:
        """The record of an id, or of a declared name (its current job, as `JobManager.get`)."""
        if is_job_id(job_id):
            record = self.registry.get(job_id)
        else:
            from .declaring import current  # here: only a name needs it

            record = current(self.registry.all(), job_id)
        if record is not None:
            self._count_remaining([record])
        return record

    def jobs(self, all: bool = False) -> list[JobRecord]:
        """What `JobManager.list(all)` returns: running first (newest first), then finished."""
        records = [r for r in self.registry.all() if all or self.is_own(r) or r.running]
        self._count_remaining(records)
        return sorted(records, key=lambda r: (not r.running, -r.ended_at(), -r.number))

    def _count_remaining(self, records: list[JobRecord]) -> None:
        """A finished job's leftovers as they are now (the view only: nothing is written)."""
        from jobs_tui.engine.procs.remaining import (
            refresh,  # here: only a record that says some remain needs it
        )

        if any(r.remaining_processes for r in records):
            refresh(records, lambda job_id: procs.job_marker(self.paths.root, job_id))

    def take_problems(self) -> list[str]:
        """The config's warnings and what the load found (a quarantined file, a refused one)."""
        return [*self.config.warnings, *self.registry.take_problems()]

    @property
    def pruned(self) -> int:
        return self.registry.pruned
