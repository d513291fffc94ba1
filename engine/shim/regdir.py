"""The registry directory held open: every name the shim touches is resolved in it.

A path is looked up again at every open, so whoever can rename the directory (or a
parent of it) away and put another in its place, with symlinks planted in it, steers
every later open of that path to a file of their choosing. A directory fd is looked up
once: `RegDir.open` opens the directory with O_DIRECTORY|O_NOFOLLOW, checks with
fstat that it is a directory of ours that nobody else can write, and from then on every
open, create, rename and unlink is relative to that fd (`dir_fd=`), with O_NOFOLLOW on
the last component. A swap of the directory after that changes nothing we write or
read: the fd still names the directory we checked.

Creations use O_EXCL, temporary files unpredictable names (so nothing can be planted
under the name we are about to create), and an atomic write is a rename inside the
directory. Stdlib only, and cheap to import: the shim imports it (`python -I -S`).
"""

import errno
import os
import stat

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
FILE_MODE = 0o600


class UnsafeDirectory(PermissionError):
    """A directory we refuse to work in: not a directory, a symlink, another user's, or
    writable by others."""

    def __str__(self) -> str:
        return f"refused: {self.strerror}"


def check_dir_stat(path: str, st: os.stat_result) -> None:
    """Raise UnsafeDirectory unless `st` is a directory of ours only we can write."""
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeDirectory(errno.ENOTDIR, f"{path} is not a directory")
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    if uid is not None and st.st_uid != uid:
        raise UnsafeDirectory(errno.EPERM, f"{path} belongs to another user (uid {st.st_uid})")
    if st.st_mode & 0o022:
        raise UnsafeDirectory(
            errno.EPERM,
            f"{path} is writable by group or others (mode {st.st_mode & 0o7777:04o})",
        )


def open_dir(path: str) -> int:
    """An fd on directory `path` (links on the way followed: what counts is where it
    leads), if it is ours and nobody else can write it; UnsafeDirectory otherwise.

    For a session's one-off opens: the name is then opened relative to this fd, so the
    directory checked is the one used even if the path is swapped in between."""
    fd = os.open(path, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        check_dir_stat(path, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def temp_name(name: str) -> str:
    """`.<name>.<pid>.<random>.tmp`: nobody can guess it to plant something there first,
    and the registry's sweep of stale `.*.tmp` files knows the shape."""
    return f".{name}.{os.getpid()}.{os.urandom(8).hex()}.tmp"


class RegDir:
    """An open, verified directory; names passed to its methods are single components."""

    __slots__ = ("fd", "path")

    def __init__(self, fd: int, path: str) -> None:
        self.fd = fd
        self.path = path

    @classmethod
    def open(cls, path: str) -> "RegDir":
        """Open `path` (its real path: a symlink to the directory is resolved once, here)
        and verify it; UnsafeDirectory if it must not be used."""
        real = os.path.realpath(path)
        try:
            fd = os.open(real, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise UnsafeDirectory(exc.errno, f"{path} is not a directory") from exc
            raise
        try:
            check_dir_stat(path, os.fstat(fd))
        except BaseException:
            os.close(fd)
            raise
        return cls(fd, real)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def join(self, name: str) -> str:
        """For messages and for peers that still use paths: the name's path as opened."""
        return os.path.join(self.path, name)

    # -- files -------------------------------------------------------------------------
    def open_file(self, name: str, flags: int, mode: int = FILE_MODE) -> int:
        """os.open of `name` in this directory, never following a symlink.

        An existing file opened (no O_EXCL) must be a regular file of ours: a FIFO,
        device or another user's file is refused (UnsafeFile's errno EPERM)."""
        # O_NONBLOCK: a planted FIFO opens at once (or fails, ENXIO) instead of stalling
        # us; on a regular file it changes nothing.
        fd = os.open(name, flags | _NOFOLLOW | _CLOEXEC | _NONBLOCK, mode, dir_fd=self.fd)
        if flags & os.O_EXCL:
            return fd  # we made it just now
        try:
            st = os.fstat(fd)
            uid = os.geteuid() if hasattr(os, "geteuid") else st.st_uid
            if not stat.S_ISREG(st.st_mode) or st.st_uid != uid:
                raise PermissionError(errno.EPERM, f"{self.join(name)}: not a file of ours")
        except BaseException:
            os.close(fd)
            raise
        return fd

    def read_file(self, name: str, limit: int) -> bytes:
        """Up to `limit` bytes of a regular file of ours (O_NONBLOCK: a FIFO never stalls)."""
        fd = self.open_file(name, os.O_RDONLY)
        try:
            return os.pread(fd, limit, 0)
        finally:
            os.close(fd)

    def write_atomic(self, name: str, data: bytes) -> None:
        """`name` holds `data`, whole or not at all: an O_EXCL temporary file of an
        unguessable name, renamed over it inside this directory. No fsync: the shim's
        exit event must not wait for the disk."""
        tmp = temp_name(name)
        fd = self.open_file(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.close(fd)
            fd = -1
            self.rename(tmp, name)
        except BaseException:
            if fd >= 0:
                os.close(fd)
            self.unlink(tmp, quiet=True)
            raise

    def rename(self, src: str, dst: str) -> None:
        os.rename(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def unlink(self, name: str, quiet: bool = False) -> bool:
        """Remove `name` (a symlink itself, never what it points at); False if absent."""
        try:
            os.unlink(name, dir_fd=self.fd)
        except FileNotFoundError:
            return False
        except OSError:
            if not quiet:
                raise
            return False
        return True

    def lstat(self, name: str) -> os.stat_result | None:
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def is_file(self, name: str) -> bool:
        """`name` is a regular file here (a symlink is not, whatever it points at)."""
        st = self.lstat(name)
        return st is not None and stat.S_ISREG(st.st_mode)

    def bind(self, sock: object, name: str) -> None:
        """Bind a Unix socket to `name` in this directory, whatever the directory's path
        now resolves to: through our cwd set to the fd for the bind (the shim is one
        thread), then back to where we were."""
        try:
            here = os.open(".", os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        except OSError:  # a cwd deleted or unreadable: the shim chdirs to the job's later
            here = -1
        try:
            os.fchdir(self.fd)
            try:
                sock.bind(name)  # type: ignore[attr-defined]
            finally:
                if here >= 0:
                    os.fchdir(here)
                else:
                    os.chdir("/")
        finally:
            if here >= 0:
                os.close(here)


def open_registry(spec: dict) -> "tuple[RegDir, tuple[str, str], RegDir | None]":
    """The shim's registry directory (that of its log), verified, with the names of its
    end and status files in it, and the socket's directory when it is the same one (None:
    the socket lives in the runtime directory, which the server opens itself).

    Every file a shim writes must lie in that one directory: a path elsewhere is refused
    rather than opened by path. `dirFd` in the spec is the directory its session holds
    (inherited, checked again here): a directory swapped since the session opened it is
    then not the one the shim works in either; without it the path is opened now."""
    where = os.path.dirname(spec["log"])
    stem = os.path.basename(spec["log"]).rsplit(".log", 1)[0]
    paths = {
        key: spec.get(key) or os.path.join(where, f"{stem}.{key}") for key in ("end", "status")
    }
    for path in (spec.get("previous") or where + "/", *paths.values()):
        if os.path.dirname(path) != where:
            raise UnsafeDirectory(errno.EPERM, f"{path} is not in the registry directory")
    inherited = spec.get("dirFd")
    if inherited is None:
        directory = RegDir.open(where)
    else:
        directory = RegDir(int(inherited), where)
        try:
            check_dir_stat(where, os.fstat(directory.fd))
        except BaseException:
            directory.close()
            raise
    names = (os.path.basename(paths["end"]), os.path.basename(paths["status"]))
    same = os.path.dirname(spec["socket"]) == where
    return directory, names, directory if same else None
