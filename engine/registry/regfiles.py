"""A session's registry files, reached through the directory it opened once.

A path is looked up again at every call, so whoever can rename the registry directory (or
a parent of it) away and put another in its place, with links planted in it, steers every
later open, rename and unlink of that path. A session therefore opens its registry
directory once, when it opens (`hold`: a `RegDir`, verified: ours, a directory, writable
by nobody else), and every function here resolves a path whose directory is a held one
by name in that fd, with O_NOFOLLOW on the name. A swap of the directory after that
changes nothing the session writes or reads: the fd still names the directory checked.

The table is per process, not per session object, so the many helpers that are given a
`Path` (records, cursors, markers, locks, quarantine, cleanup, the log readers) need no
new argument: the path's directory is the key. Several sessions of one process on the
same directory share the fd opened first (every one of them verified it).

A path in a directory nobody holds (a one-off reader, a unit test) is used as before: by
path, or, for what must never go elsewhere (`open_checked`), through a directory fd
opened and checked for that one call. Stdlib only.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from jobs_tui.engine.shim.regdir import RegDir, open_dir

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_PROC_FD = "/proc/self/fd"

# directory path (as given and as resolved when opened) -> the RegDirs held on it
_HELD: dict[str, list[RegDir]] = {}

Where = tuple[int | None, str]  # (dir fd or None, name in it or the whole path)


# Where names cannot be resolved in a directory fd (Windows), paths are used as before.
SUPPORTED = all(f in os.supports_dir_fd for f in (os.open, os.rename, os.unlink, os.stat))


def hold(path: str | os.PathLike[str]) -> RegDir | None:
    """Open and verify the registry directory `path` for a session's life (`release`);
    None where the platform cannot open names relative to a directory fd."""
    if not SUPPORTED:
        return None
    directory = RegDir.open(os.fspath(path))
    for key in {os.path.abspath(os.fspath(path)), directory.path}:
        entries = _HELD.setdefault(key, [])
        entries[:] = [held for held in entries if not _deleted(held)]
        entries.append(directory)
    return directory


def _deleted(directory: RegDir) -> bool:
    """A held directory removed since (a session never closed holds it still): a new
    session at that path must not be steered into it."""
    try:
        return os.fstat(directory.fd).st_nlink == 0
    except OSError:
        return True


def release(directory: RegDir) -> None:
    """The session is done with `directory`: forget it and close its fd."""
    for key in list(_HELD):
        _HELD[key] = [held for held in _HELD[key] if held is not directory]
        if not _HELD[key]:
            del _HELD[key]
    directory.close()


def held(directory: str | os.PathLike[str]) -> RegDir | None:
    """The held RegDir of directory path `directory`, if a session of ours holds it."""
    entries = _HELD.get(os.path.abspath(os.fspath(directory)))
    return entries[0] if entries else None


def where(path: str | os.PathLike[str]) -> Where:
    """(fd, name) for a path in a held directory; (None, path) otherwise."""
    text = os.fspath(path)
    head, name = os.path.split(os.path.abspath(text))
    directory = held(head)
    if directory is None or not name:
        return None, text
    return directory.fd, name


@contextlib.contextmanager
def checked(path: str | os.PathLike[str]) -> Iterator[tuple[int, str]]:
    """(dir fd, name): the held directory's, or one opened and checked (regdir.open_dir)
    for this one call, so the name is resolved in a directory of ours either way."""
    fd, name = where(path)
    if fd is not None:
        yield fd, name
        return
    head, name = os.path.split(os.path.abspath(os.fspath(path)))
    fd = open_dir(head or ".")
    try:
        yield fd, name
    finally:
        os.close(fd)


def open_file(path: str | os.PathLike[str], flags: int, mode: int = 0o600) -> int:
    """os.open with O_NOFOLLOW and O_CLOEXEC, by name in its held directory if there is one."""
    fd, name = where(path)
    return os.open(name, flags | _NOFOLLOW | _CLOEXEC, mode, dir_fd=fd)


def unlink(path: str | os.PathLike[str], missing_ok: bool = True) -> bool:
    """Remove the name (a link itself, never what it points at); False if it was absent."""
    fd, name = where(path)
    try:
        os.unlink(name, dir_fd=fd)
    except FileNotFoundError:
        if not missing_ok:
            raise
        return False
    return True


def rename(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
    """Rename within a directory (both names resolved in its held fd when it is held)."""
    src_fd, src_name = where(src)
    dst_fd, dst_name = where(dst)
    if src_fd is None or dst_fd is None:  # not both held: by path, as before
        os.rename(os.fspath(src), os.fspath(dst))
        return
    os.rename(src_name, dst_name, src_dir_fd=src_fd, dst_dir_fd=dst_fd)


def link(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
    """A hard link of the name `src` itself (never what a link there points at)."""
    src_fd, src_name = where(src)
    dst_fd, dst_name = where(dst)
    if src_fd is None or dst_fd is None:
        os.link(os.fspath(src), os.fspath(dst), follow_symlinks=False)
        return
    os.link(src_name, dst_name, src_dir_fd=src_fd, dst_dir_fd=dst_fd, follow_symlinks=False)


def lstat(path: str | os.PathLike[str]) -> os.stat_result:
    fd, name = where(path)
    return os.stat(name, dir_fd=fd, follow_symlinks=False)


def stat(path: str | os.PathLike[str]) -> os.stat_result:
    """os.stat (a link followed, as before), the name resolved in its held directory."""
    fd, name = where(path)
    return os.stat(name, dir_fd=fd)


def lexists(path: str | os.PathLike[str]) -> bool:
    try:
        lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def exists(path: str | os.PathLike[str]) -> bool:
    try:
        stat(path)
    except OSError:
        return False
    return True


def stat_dir(directory: str | os.PathLike[str]) -> os.stat_result:
    """The directory's own stat: of the held fd, when it is held (not of what its path
    names now)."""
    regdir = held(directory)
    return os.stat(directory) if regdir is None else os.fstat(regdir.fd)


def statvfs_dir(directory: str | os.PathLike[str]) -> os.statvfs_result:
    """statvfs of the file system the held directory is on (of its path otherwise)."""
    regdir = held(directory)
    return os.statvfs(directory) if regdir is None else os.fstatvfs(regdir.fd)


def open_dir_fd(directory: str | os.PathLike[str]) -> int | None:
    """A fresh fd on a held directory (its own offset: a listing never races another
    one on the shared fd), opened as "." in it, not by path; None when it is not held."""
    regdir = held(directory)
    if regdir is None:
        return None
    return os.open(".", os.O_RDONLY | _DIRECTORY | _CLOEXEC, dir_fd=regdir.fd)


def listdir(directory: str | os.PathLike[str]) -> list[str]:
    fd = open_dir_fd(directory)
    if fd is None:
        return os.listdir(directory)
    try:
        return os.listdir(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def scandir(directory: str | os.PathLike[str]) -> Iterator[Iterator[os.DirEntry[str]]]:
    """os.scandir of the held directory's fd (entries' stat() resolve in it too)."""
    fd = open_dir_fd(directory)
    if fd is None:
        with os.scandir(directory) as scan:
            yield scan
        return
    try:
        with os.scandir(fd) as scan:
            yield scan  # type: ignore[misc]
    finally:
        os.close(fd)


def resolve_held(candidate: str) -> str | None:
    """`candidate` (an absolute path read from a registry file) resolved in the held
    directory it names: the held directory's path joined with the name it resolves to
    there, "" when it resolves outside that directory, None when its directory is not
    held (then the caller resolves it by path, as before)."""
    head, name = os.path.split(os.path.normpath(candidate))
    directory = held(head)
    if directory is None or name in ("", ".", "..") or not os.path.isdir(_PROC_FD):
        return None
    here = f"{_PROC_FD}/{directory.fd}"
    now = os.path.realpath(here)  # where the held directory is now (renamed, maybe)
    target = os.path.realpath(f"{here}/{name}")
    if os.path.dirname(target) != now:
        return ""
    return os.path.join(directory.path, os.path.basename(target))


def reach(path: str | os.PathLike[str]) -> str:
    """A path that reaches the socket `path` through its held directory's fd (Linux's
    /proc/self/fd/<fd>/<name>), so a connect goes to the directory we checked, not to
    one swapped in; the path itself elsewhere."""
    fd, name = where(path)
    if fd is None or not os.path.isdir(_PROC_FD):
        return os.fspath(path)
    return f"{_PROC_FD}/{fd}/{name}"


def write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view) :]
