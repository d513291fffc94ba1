"""Where a control socket goes when `<registry>/j<n>.sock` is too long for a socket path.

`$XDG_RUNTIME_DIR/jobs-tui-<uid>` when the variable is set (that directory is the user's
own by the spec): used if it is a 0700 directory of ours, or can be made one.

Without it, a fixed name in `/tmp` (`/tmp/jobs-tui-<uid>`, as before) is a denial of
service waiting to happen: any local user can create it first, and every start with a
long registry path would fail. So the name carries a secret: `/tmp/jobs-tui-<uid>-<salt>`,
the salt 16 random bytes kept in the registry directory itself (`.socket-salt`, 0600, in
a 0700 directory of ours), which nobody else can read and so nobody can plant in
advance. Every session and shim of a registry derives the same directory from it (the
socket path stays derived: DESIGN, "The control socket's path is derived"). Should the
directory exist and not be ours anyway, the salt is renewed and a fresh name made:
starting never fails because someone else got there first.

`JOBS_TUI_RUNTIME_FALLBACK` replaces `/tmp` as the base of those names: for tests only,
so they never touch the real `/tmp/jobs-tui-*`.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

from . import regfiles
from .safefiles import open_regular, read_fd

ENV_RUNTIME_FALLBACK = "JOBS_TUI_RUNTIME_FALLBACK"
SOCKET_SALT = ".socket-salt"
_SALT = re.compile(rb"^[0-9a-f]{32}\Z")
LONGEST_BASE = 52  # room left in sun_path for `/jobs-tui-<uid>-<salt>/<hash>-<id>.sock`
ATTEMPTS = 3


class UnsafeRuntimeDir(PermissionError):
    """No private socket directory could be had (after renewing the salt)."""


def _uid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else 0


def private_dir(path: Path, create: bool) -> bool:
    """`path` is (made, if `create`) a directory of ours, not a link, mode 0700."""
    if create:
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError:
            return False
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != _uid():
        return False
    if st.st_mode & 0o077:
        try:
            os.chmod(path, 0o700, follow_symlinks=False)
        except (OSError, NotImplementedError):
            return False
    return True


def read_salt(registry: Path) -> str | None:
    """The registry's salt, if it holds a well-formed one of ours."""
    try:
        fd = open_regular(registry / SOCKET_SALT)
    except OSError:
        return None
    try:
        raw = read_fd(fd, 64).strip()
    except OSError:
        return None
    finally:
        os.close(fd)
    return raw.decode() if _SALT.match(raw) else None


def new_salt(registry: Path, replace: bool) -> str:
    """A fresh salt in the registry: linked in if none is there (a racer's wins and is
    returned), or renamed over the old one when `replace`."""
    salt = os.urandom(16).hex()
    tmp = registry / f"{SOCKET_SALT}.{os.getpid()}.{os.urandom(8).hex()}.tmp"  # swept if left
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    fd = regfiles.open_file(tmp, flags)
    try:
        os.write(fd, salt.encode() + b"\n")
    finally:
        os.close(fd)
    try:
        if replace:
            regfiles.rename(tmp, registry / SOCKET_SALT)
            return salt
        try:
            regfiles.link(tmp, registry / SOCKET_SALT)
        except FileExistsError:
            return read_salt(registry) or new_salt(registry, replace=True)
        return salt
    finally:
        regfiles.unlink(tmp)


def runtime_dir(registry: Path, create: bool = True) -> Path:
    """The private directory for the long-pathed sockets of `registry`'s jobs.

    Without `create` nothing is written (a read asks where a socket would be): a registry
    without a salt yet has no socket outside it, and the path returned does not exist.
    """
    uid = _uid()
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isabs(xdg) and len(os.fsencode(xdg)) <= LONGEST_BASE:
        path = Path(xdg) / f"jobs-tui-{uid}"
        if private_dir(path, create):
            return path
    base = Path(os.environ.get(ENV_RUNTIME_FALLBACK) or "/tmp")
    salt = read_salt(registry)
    if not create:
        return base / f"jobs-tui-{uid}-{salt or 'unsalted'}"
    for attempt in range(ATTEMPTS):
        try:
            if salt is None or attempt:
                salt = new_salt(registry, replace=salt is not None)
        except OSError as exc:
            raise UnsafeRuntimeDir(
                errno.EPERM, f"no socket directory: {registry} cannot hold its salt: {exc}"
            ) from exc
        path = base / f"jobs-tui-{uid}-{salt}"
        if private_dir(path, create=True):
            return path
    raise UnsafeRuntimeDir(errno.EPERM, f"no private socket directory could be made in {base}")
