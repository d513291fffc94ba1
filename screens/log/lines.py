"""`LineAssembler`: log bytes in, display lines out, the same for any split of the bytes.

A fresh open of a log (the engine's tail read, `split_lines`) and a follower fed the
same bytes in pieces must show the same lines. Sanitizing is line-local (no escape
sequence, CR rewrite or UTF-8 sequence spans a newline), so the assembler keeps the raw
bytes of the unfinished last line and sanitizes it whole each time it grows: a prompt,
a `\\r` progress bar, an escape or a character cut between two reads come out exactly
as a fresh read of the same bytes shows them.
"""

from __future__ import annotations

from jobs_tui.engine.logs.segments import LINE_CAP
from jobs_tui.engine.records.sanitize import sanitize_log


def clean(raw: bytes) -> str:
    """Log bytes as the pane shows them: sanitized, SGR colours kept."""
    return sanitize_log(raw.decode("utf-8", "replace"), keep_sgr=True)


def visible(lines: list[str], partial_bytes: int) -> list[str]:
    """The rows a fresh open shows: an unfinished last line only when it has text."""
    if partial_bytes and lines and not lines[-1]:
        return lines[:-1]
    return lines


def _capped(raw: bytes, cap: int) -> bytes:
    """Each line cut to its last `cap` bytes, as the engine's tail read cuts an endless line."""
    return b"\n".join(line[-cap:] for line in raw.split(b"\n"))


class LineAssembler:
    """Feed it the bytes of a log in any pieces; it returns each line once, when it ends.

    `partial` is the text of the line still being written ("" when there is none, or
    when it has no visible text yet, as a fresh open would show it). Fed with where its
    bytes lie in the log (`at`), it also says where each line it returns starts
    (`starts`, absolute offsets) and where the unfinished one does (`next_start`).
    """

    def __init__(self, cap: int = LINE_CAP) -> None:
        self.cap = max(1, cap)
        self._raw = b""
        self.partial = ""
        self.starts: list[int] = []  # where each line the last feed returned starts
        self.next_start: int | None = None  # where the line being written starts

    def feed(self, data: bytes, at: int | None = None) -> list[str]:
        """The lines `data` completes; `partial` follows the unfinished rest.

        `at`: the absolute offset of `data[0]` (contiguous with the last feed)."""
        self.starts = []
        if not data:
            return []
        if at is not None:
            if self.next_start is None:
                self.next_start = at
            nl = data.find(b"\n")
            while nl >= 0:
                self.starts.append(self.next_start)
                self.next_start = at + nl + 1
                nl = data.find(b"\n", nl + 1)
        buffer = self._raw + data
        cut = buffer.rfind(b"\n") + 1
        lines: list[str] = []
        if cut:
            complete = buffer[:cut]
            if len(complete) > self.cap:
                complete = _capped(complete, self.cap)
            lines = clean(complete).split("\n")[:-1]
        rest = buffer[cut:]
        self._raw = rest[-self.cap :] if len(rest) > self.cap else rest
        self.partial = clean(self._raw) if self._raw else ""
        return lines

    def reset(self) -> None:
        """Forget the unfinished line (the bytes after it were skipped)."""
        self._raw = b""
        self.partial = ""
        self.next_start = None
