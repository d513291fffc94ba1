"""Handing out a project-wide unique job id: reserved by O_EXCL, then checked against
every registry file, so two sessions (or two processes of one) never share a `j<n>`."""

from __future__ import annotations

from jobs_tui.engine.records.bounds import MAX_COUNTER
from jobs_tui.engine.records.ids import MAX_JOB_NUMBER, job_number

from . import reservations
from .paths import RegistryPaths
from .store import load_all


def reserve_free(
    paths: RegistryPaths, session_id: str, counter: int, used: set[int], cache: dict
) -> tuple[str, int]:
    """A reserved id no file holds, and the counter past it; `used` holds the numbers known
    taken (every file's, every reservation's).

    A racer may have committed n and released its lock between the caller's read and its
    lock; its file then shows n (or a counter past it), and we move on. Past the last
    possible id, the lowest free number is used.
    """
    while True:
        first = max([counter, *(n + 1 for n in used)])
        wrapped = first > MAX_JOB_NUMBER
        job_id = reservations.reserve(paths, 1 if wrapped else first, session_id, used)
        if job_id is None:
            raise RuntimeError("no free job id: every j<n> is taken")
        number = job_number(job_id)
        taken, counter = _committed_anywhere(paths, cache, number, wrapped, used, counter)
        if not taken:
            return job_id, max(counter, min(number + 1, MAX_COUNTER))
        reservations.release(paths, job_id)
        used.add(number)


def _committed_anywhere(
    paths: RegistryPaths, cache: dict, number: int, wrapped: bool, used: set[int], counter: int
) -> tuple[bool, int]:
    """Whether `number` is in some file, or (counting upwards) some file's counter is past
    it; and the counter raised to such a file's.

    Every number the files hold is added to `used`, so a retry skips them all.
    """
    taken = False
    for file in load_all(paths.root, cache, check_job_files=False).files:
        numbers = {job_number(r.id) for r in file.jobs}
        used |= numbers
        if number in numbers:
            taken = True
        elif not wrapped and file.counter > number:
            counter = max(counter, file.counter)
            taken = True
    return taken, counter
