"""Whether a directory has room for a write, asked before an act that cannot be undone.

A full disk (or quota) refuses a registry write only once the work before it is done:
`clear` would have killed its jobs, then fail to drop their records. Writing a probe of
the size the write needs first turns that into a refusal with nothing done. It is a
check, not a reservation (another writer may take the room meanwhile), so the write
itself still handles its own failure.
"""

from __future__ import annotations

import os
from pathlib import Path

from . import regfiles

PROBE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)


def check_room(directory: Path, nbytes: int) -> None:
    """Raise OSError (ENOSPC, EDQUOT, ...) unless `nbytes` can be written in `directory`.

    The probe's name is unpredictable and created exclusively: nothing planted is
    followed or overwritten; it is removed at once.
    """
    path = directory / f".room-{os.urandom(8).hex()}.tmp"  # not `secrets`: short calls
    fd = regfiles.open_file(path, PROBE_FLAGS)  # in the session's held directory
    try:
        block = b"\0" * min(max(nbytes, 1), 1 << 16)
        left = max(nbytes, 1)
        while left > 0:
            left -= os.write(fd, block[:left])
    finally:
        os.close(fd)
        regfiles.unlink(path)
