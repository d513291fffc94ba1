"""Clearing other sessions' finished jobs: what a person's screen does with `x` (supervise).

A record leaves its owner's file the way a take-over takes one out (`remove_from_file`,
under that session's lock, by atomic rename), and its files go with it; a live owner
finds it gone from its file and lets it go (`Registry.take_lost`), as after a take-over.
Nothing of a running job is touched here: the caller killed what still ran first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cleanup import delete_job_files
from .ownership import remove_from_file

if TYPE_CHECKING:
    from jobs_tui.engine.records.model import JobRecord

    from .paths import RegistryPaths
    from .table import Registry


def clear_peers(
    registry: Registry, paths: RegistryPaths, records: list[JobRecord]
) -> list[JobRecord]:
    """Take each finished peer record out of its owner's file; the ones cleared.

    A file that could not be edited keeps its record (and the job its files): the
    problem is reported, the record is not cleared.
    """
    cleared = []
    for record in (registry.get(r.id) for r in records):  # as it is now, after any kill
        if record is None or record.running or record.session_id == registry.session_id:
            continue  # gone, running again, or ours meanwhile: not this clear's to take
        problem = remove_from_file(paths, record.session_id, record.id, "cleared")
        if problem:
            registry.report(problem)
            continue
        registry.forget_peer(record.id)
        delete_job_files(paths, record)
        cleared.append(record)
    return cleared
