"""A wake-up when a log file is written to: inotify (Linux), through ctypes, on the loop.

The shim tells its watchers about output at most once a second; a caller waiting for one
line (`wait --until`) wants to know within milliseconds, and must cost nothing while the
job is quiet. inotify gives both: the kernel wakes us on each write, nobody polls. A
rotation renames the watched file away; `add` is called again on each wake and watches
whatever file has the live name now (the old watch goes with the old file).

Where inotify is missing (macOS, a kernel out of watches), `active` is False and the
caller falls back to a slow poll; nothing else changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Callable
from typing import Any

from jobs_tui.engine.registry import regfiles

IN_MODIFY = 0x002
IN_MOVE_SELF = 0x800
IN_DELETE_SELF = 0x400
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = 0o2000000
IN_DONT_FOLLOW = 0x02000000  # a link at the name is not followed to what it names
_MASK = IN_MODIFY | IN_MOVE_SELF | IN_DELETE_SELF | IN_DONT_FOLLOW

_libc: Any = None  # ctypes.CDLL once loaded


def _inotify() -> Any:
    """libc with inotify, on Linux; None elsewhere. ctypes loads only when first needed."""
    global _libc
    if _libc is None and sys.platform.startswith("linux"):
        import ctypes
        import ctypes.util

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.inotify_init1.argtypes = [ctypes.c_int]
            libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            _libc = libc
    return _libc


class LogWatch:
    """Calls `wake` (on the running loop) whenever a watched file is written, moved or deleted."""

    def __init__(self, wake: Callable[[], None]) -> None:
        self._wake = wake
        self._fd = -1
        self._loop: asyncio.AbstractEventLoop | None = None
        libc = _inotify()
        if libc is None:
            return
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            return
        self._fd = fd
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(fd, self._readable)

    @property
    def active(self) -> bool:
        return self._fd >= 0

    def add(self, path: str) -> bool:
        """Watch the file that has this name now (again after a rotation: cheap)."""
        libc = _libc
        if self._fd < 0 or libc is None:
            return False
        # Through the session's held directory (regfiles.reach): the file watched is the
        # one the reads open, whatever the directory's path names now.
        where = os.fsencode(regfiles.reach(path))
        return libc.inotify_add_watch(self._fd, where, _MASK) >= 0

    def pause(self) -> None:
        """Stop waking (a reader that reads at its own pace): the kernel keeps the events."""
        if self._fd >= 0 and self._loop is not None:
            self._loop.remove_reader(self._fd)

    def resume(self) -> None:
        """Wake again; writes made while paused wake at once."""
        if self._fd >= 0 and self._loop is not None:
            self._loop.add_reader(self._fd, self._readable)

    def _readable(self) -> None:
        with contextlib.suppress(OSError):
            while os.read(self._fd, 65536):  # drain: one wake for however many writes
                pass
        self._wake()

    def close(self) -> None:
        if self._fd >= 0:
            if self._loop is not None:
                self._loop.remove_reader(self._fd)
            os.close(self._fd)
            self._fd = -1
