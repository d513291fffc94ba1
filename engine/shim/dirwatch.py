"""A wake-up when a file appears in the registry directory: inotify on Linux, a poll elsewhere.

A declared job's shim waits for its dependencies' files (`<id>.started`, `<id>.ready`,
`<id>.end`), which their shims write atomically (a rename into place: IN_MOVED_TO).
inotify costs nothing while nothing happens, which is what keeps twenty waiting jobs
idle; the directory is watched through the shim's verified directory fd
(`/proc/self/fd/N`), never by a path that could have been swapped. Where inotify is
missing (or out of watches) `fd` is -1 and the caller polls (`POLL_S`).

Stdlib only, through `_ctypes` as spawn.py's prctl (not `ctypes`, whose Python layer
costs more than the calls), and loaded only by a shim that has dependencies.
"""

import os
import sys

IN_CLOSE_WRITE = 0x008
IN_MOVED_TO = 0x080
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = 0o2000000
MASK = IN_MOVED_TO  # the files waited for are all renamed into place (regdir.write_atomic);
# a write closed in place (IN_CLOSE_WRITE) would wake every waiting shim twice per file
POLL_S = 0.2  # without inotify: the dependencies' files are looked at this often
SAFETY_S = 5.0  # with it: looked at anyway this often (a missed event costs no more)


def _libc_calls() -> "tuple[object, object] | None":
    """(inotify_init1, inotify_add_watch) from libc, or None where there are none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import _ctypes

        class Int(_ctypes._SimpleCData):
            _type_ = "i"

        class UInt(_ctypes._SimpleCData):
            _type_ = "I"

        class CharP(_ctypes._SimpleCData):
            _type_ = "z"

        class Init(_ctypes.CFuncPtr):
            _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
            _restype_ = Int
            _argtypes_ = (Int,)

        class AddWatch(_ctypes.CFuncPtr):
            _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
            _restype_ = Int
            _argtypes_ = (Int, CharP, UInt)

        libc = _ctypes.dlopen(None, os.RTLD_NOW | os.RTLD_LOCAL)
        init = Init(_ctypes.dlsym(libc, "inotify_init1"))
        add = AddWatch(_ctypes.dlsym(libc, "inotify_add_watch"))
        return init, add
    except Exception:
        return None


class DirWatch:
    """inotify on one directory (by its fd): `names()` says which files moved in or
    were closed after writing since the last call."""

    def __init__(self, dir_fd: int) -> None:
        self.fd = -1
        calls = _libc_calls()
        if calls is None:
            return
        init, add = calls
        try:
            fd = init(IN_NONBLOCK | IN_CLOEXEC)  # type: ignore[operator]
        except Exception:
            return
        if fd < 0:
            return
        where = f"/proc/self/fd/{dir_fd}".encode()
        if add(fd, where, MASK) < 0:  # type: ignore[operator]
            os.close(fd)
            return
        self.fd = fd

    @property
    def active(self) -> bool:
        return self.fd >= 0

    def names(self) -> "set[str]":
        """The names of the events read (struct inotify_event: wd, mask, cookie, len, name)."""
        found: set[str] = set()
        while self.fd >= 0:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                break
            except OSError:
                break
            if not data:
                break
            at = 0
            while at + 16 <= len(data):
                size = int.from_bytes(data[at + 12 : at + 16], sys.byteorder)
                name = data[at + 16 : at + 16 + size].split(b"\0", 1)[0]
                if name:
                    found.add(name.decode("utf-8", "replace"))
                at += 16 + size
        return found

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
