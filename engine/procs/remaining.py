"""What a finished job left running: counted where a reader needs it, swept when asked.

A job has finished when its leader exits, but its tree may live on (a daemon it started,
a background `sleep`). Its shim stays alive while any of it runs (the tree's processes
are the subreaper's, so the shim sees them all), and says how many in its exit message,
its state and a `remaining` event; the record keeps the count (`remainingProcesses`).

A reader that holds no link to the shim (a command-line `list`, another session) checks
a record that says some remain: while the shim lives, its descendants (and the job's
cgroup) are counted now; once it is gone (killed with SIGKILL: it exits by itself only
when nothing is left), the processes that carry the job's marker, and its cgroup's, are
what is left, and a `kill` sweeps them.
"""

from __future__ import annotations

from jobs_tui.engine.records.model import JobRecord
from jobs_tui.engine.shim import cgroup, procs, sweep


def count_gone_shim(marker: str, record: JobRecord) -> int:
    """Processes of a job whose shim is gone: marked ones and its cgroup's."""
    found = set(procs.marked_processes(marker))
    found.update(cgroup.members(record.cgroup))
    return len(found)


def refresh(records: list[JobRecord], marker_of) -> list[JobRecord]:
    """Count again, for finished records that say processes remain; the changed ones.

    `marker_of(job_id)` is the job's marker. One scan of the process table serves every
    record whose shim is alive; a record of no remaining processes costs nothing.
    """
    candidates = [r for r in records if not r.running and r.remaining_processes > 0]
    if not candidates:
        return []
    table = None
    changed = []
    for record in candidates:
        if procs.same_process(record.shim_pid, record.shim_token):
            if table is None:
                table = sweep.scan()
            tree = {p.pid for p in sweep.tree_of(table, record.shim_pid or 0)}
            tree.update(cgroup.members(record.cgroup))
            left = len(tree)
        else:
            left = count_gone_shim(marker_of(record.id), record)
        if left != record.remaining_processes:
            record.remaining_processes = left
            changed.append(record)
    return changed


def kill_gone_shim(marker: str, record: JobRecord) -> int:
    """SIGKILL what is left of a job whose shim is gone: its cgroup, then rounds over its
    marked processes (and every group only they hold) until none is found. Returns how
    many processes were reached."""
    reached = set(cgroup.kill(record.cgroup))
    for _ in range(50):
        marked = set(procs.marked_processes(marker))
        if not marked:
            break
        table = sweep.scan()
        members = [p for p in table if p.pid in marked]
        reached |= sweep.signal_procs(table, members, 9, sweep.ours())
    cgroup.remove(record.cgroup)
    return len(reached)
