"""Where the command line's text goes: stdout and stderr that never crash a call.

stdout may be a pipe whose reader left (`| head -1`, `| grep -m1 ready`): a verb then
ends quietly with 141 (128 + SIGPIPE), as other Unix tools do. A verb that would
otherwise write nothing for a while (`logs --follow`) asks `stdout_closed()` so it
ends as soon as the reader does. Text that is not valid in the output's encoding
(lone surrogates from non-UTF-8 argv, or a non-UTF-8 locale) is replaced, never
raised.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import sys

EXIT_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a writer whose reader left


def displayable(text: str) -> str:
    """Lone surrogates (non-UTF-8 bytes from argv or a path) shown as U+FFFD."""
    return text if text.isascii() else re.sub("[\ud800-\udfff]", "\ufffd", text)


def setup_streams() -> None:
    """Replace what the output encoding cannot hold instead of raising."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="replace")  # type: ignore[union-attr]


def write(text: str) -> None:
    """Text on stdout as it is (job output: already sanitized), written out at once.

    Written with os.write until every byte is out: a buffered write that is cut short
    by a reader leaving can drop the rest without an error, and a closed pipe must
    raise BrokenPipeError, not pass for success.
    """
    text = displayable(text)
    _stdout_open()
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # not a real file (an embedding host)
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    sys.stdout.flush()
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    view = memoryview(text.encode(encoding, "replace"))
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:  # a non-blocking stdout: wait until it takes more
            import select

            select.select([], [fd], [])


def write_bytes(data: bytes) -> None:
    """Bytes on stdout as they are (`logs --raw`: a job's own bytes, escapes and all)."""
    _stdout_open()
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # not a real file (an embedding host)
        sys.stdout.write(data.decode("utf-8", "replace"))
        sys.stdout.flush()
        return
    sys.stdout.flush()
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            import select

            select.select([], [fd], [])


def _stdout_open() -> None:
    """A stdout closed before we started (`1>&-`: Python's sys.stdout is None) is a
    reader that left: the verb ends as on a broken pipe, 141, never with a traceback."""
    if sys.stdout is None:
        raise BrokenPipeError(errno.EPIPE, "stdout was closed")


def line(text: str) -> None:
    write(text + "\n")


def err(text: str) -> None:
    """One message on stderr; a closed stderr is not worth a traceback."""
    with contextlib.suppress(OSError, ValueError, AttributeError):  # None: closed at start
        sys.stderr.write(displayable(text) + "\n")
        sys.stderr.flush()


def stdout_closed() -> bool:
    """Whether stdout is a pipe (or socket) nobody reads any more (POLLERR/POLLHUP)."""
    try:
        import select

        poller = select.poll()
        poller.register(sys.stdout.fileno(), 0)  # only error conditions are reported
        events = poller.poll(0)
    except (AttributeError, ValueError, OSError):
        return False
    return any(mask & (select.POLLERR | select.POLLHUP) for _fd, mask in events)


def silence_stdout() -> None:
    """Point stdout at /dev/null, so the data still buffered cannot fail again at exit."""
    if sys.stdout is None:  # closed before we started: nothing to silence
        return
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
