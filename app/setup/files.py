"""The disk side of setup: read a config file, write one atomically, make its folders.

A write goes to a temporary file in the same folder, then `rename`: a client reading
its config meanwhile sees the old file or the new one, never half of one. An existing
file keeps its mode; a new one is 0600, and a folder setup makes is 0700. A symlinked
config file (dotfiles) is written where the link points, and stays a link.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from .model import SetupError

NEW_FILE_MODE = 0o600
NEW_DIR_MODE = 0o700


def read(path: Path) -> str | None:
    """The file's text, or None when there is none."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise SetupError(f"{path} is a directory, not a config file; nothing written") from None
    except OSError as exc:
        raise SetupError(f"{path} cannot be read: {exc.strerror}; nothing written") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SetupError(f"{path} does not parse: not UTF-8 text; nothing written") from None


def missing_dirs(path: Path) -> list[Path]:
    """The folders above `path` that do not exist yet, outermost first."""
    missing: list[Path] = []
    parent = path.parent
    while not parent.exists():
        missing.append(parent)
        if parent.parent == parent:
            break
        parent = parent.parent
    return list(reversed(missing))


def make_dirs(dirs: list[Path]) -> None:
    for folder in dirs:
        try:
            folder.mkdir(mode=NEW_DIR_MODE)
        except FileExistsError:
            pass
        os.chmod(folder, NEW_DIR_MODE)  # the umask may have taken bits away


def write(path: Path, text: str) -> None:
    """Replace `path` with `text` atomically, keeping an existing file's mode."""
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            os.fchmod(out.fileno(), mode)
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def delete(path: Path, dirs: list[Path]) -> None:
    """Remove a file setup created, and the folders it created for it once empty."""
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    for folder in reversed(dirs):
        try:
            folder.rmdir()
        except OSError:
            break  # not empty (or gone): it holds something of someone else's now
