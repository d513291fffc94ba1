"""Small wording rules the screens share: counts with the right noun form, sizes, paths."""

from __future__ import annotations

import os


def plural(count: int, word: str, words: str | None = None) -> str:
    """`1 line`, `2 lines`; `words` for an irregular plural."""
    return f"{count} {word}" if count == 1 else f"{count} {words or word + 's'}"


def human_bytes(count: int) -> str:
    size = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def home_short(path: str) -> str:
    """`~/src/app` for a path under the home directory: shorter, and the same for every user."""
    home = os.path.expanduser("~")
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path
