"""Opening files of the registry directory without trusting them.

Anyone who can put a name in the directory must not be able to stall or steer us:
every file is opened with O_NOFOLLOW (a symlink is refused, never followed) and
O_NONBLOCK (a FIFO opens at once instead of waiting for a writer), then checked to
be a regular file owned by our effective uid, and never read past a cap. Stdlib
only: the shim imports it too.
"""

from __future__ import annotations

import errno
import os
import stat

from jobs_tui.engine.shim.regdir import UnsafeDirectory

from . import regfiles

MiB = 1024 * 1024
REGISTRY_FILE_LIMIT = 16 * MiB  # a registry file past this is quarantined, never loaded
SMALL_FILE_LIMIT = 64 * 1024  # markers, locks, cursors' neighbours: all far smaller

_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
_FLAGS |= getattr(os, "O_NONBLOCK", 0)


class UnsafeFile(OSError):
    """A file we refuse to read: a symlink, FIFO, device or directory, or another user's."""


class FileTooLarge(UnsafeFile):
    """A file over the cap its kind has."""


def our_uid() -> int | None:
    """The effective uid files must belong to (None where there are no uids)."""
    return os.geteuid() if hasattr(os, "geteuid") else None


def kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_stat(st: os.stat_result) -> None:
    """Raise UnsafeFile unless `st` is a regular file owned by us."""
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFile(errno.EPERM, f"refused: it is {kind(st.st_mode)}, not a regular file")
    uid = our_uid()
    if uid is not None and st.st_uid != uid:
        raise UnsafeFile(errno.EPERM, f"refused: it belongs to another user (uid {st.st_uid})")


def open_regular(path: str | os.PathLike[str]) -> int:
    """A read-only fd on `path` if it is a regular file of ours; FileNotFoundError passes.

    The name is opened relative to its directory: the registry directory the session
    holds (regfiles.hold, verified once when it opened), or, for a directory nobody
    holds, one opened and checked for this call (regdir.open_dir): a registry directory
    swapped for another one is never read from."""
    try:
        with regfiles.checked(path) as (dir_fd, name):
            fd = os.open(name, _FLAGS, dir_fd=dir_fd)
    except UnsafeDirectory as exc:
        raise UnsafeFile(errno.EPERM, f"refused: its directory {exc.strerror}") from exc
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise UnsafeFile(errno.ELOOP, "refused: it is a symbolic link") from exc
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO opened for writing
            raise UnsafeFile(errno.ENXIO, "refused: it is not a regular file") from exc
        raise
    try:
        check_stat(os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_fd(fd: int, limit: int) -> bytes:
    """At most `limit` bytes from the start of fd; FileTooLarge past it."""
    size = os.fstat(fd).st_size
    if size > limit:
        raise FileTooLarge(errno.EFBIG, f"refused: it is larger than {limit} bytes")
    parts: list[bytes] = []
    got = 0
    while got <= limit:
        chunk = os.pread(fd, min(1 << 20, limit + 1 - got), got)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    if got > limit:  # it grew after the fstat
        raise FileTooLarge(errno.EFBIG, f"refused: it is larger than {limit} bytes")
    return b"".join(parts)


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The whole file, if it is a regular file of ours of at most `limit` bytes."""
    fd = open_regular(path)
    try:
        return read_fd(fd, limit)
    finally:
        os.close(fd)
