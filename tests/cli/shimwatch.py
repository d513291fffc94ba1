"""Watching what a command-line call does to a registry: connections to shims, file writes.

`ShimWatch` stands between a job's shim and its clients: the shim's socket is moved
aside and a relay listens in its place, counting every connection and passing the
bytes both ways, so a client sees the real shim. `snapshot` records every entry of
the registry directory (inode, size, mtime) and the directory's own mtime, so a
write, a rename, a new file or a removed one all show as a difference.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from pathlib import Path

Snapshot = dict[str, tuple[int, int, int]]


def snapshot(directory: str | os.PathLike[str], *, skip: tuple[str, ...] = ()) -> Snapshot:
    """name -> (inode, size, mtime_ns) of every entry, and "." for the directory itself."""
    root = Path(directory)
    st = root.stat()
    out: Snapshot = {".": (st.st_ino, st.st_size, st.st_mtime_ns)}
    for entry in os.scandir(root):
        if entry.name.startswith(skip):
            continue
        st = entry.stat(follow_symlinks=False)
        out[entry.name] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return out


def changes(before: Snapshot, after: Snapshot) -> list[str]:
    """What differs, in words a failing assertion can show."""
    out = [f"new {n}" for n in sorted(set(after) - set(before))]
    out += [f"removed {n}" for n in sorted(set(before) - set(after))]
    out += [f"changed {n}" for n in sorted(set(before) & set(after)) if before[n] != after[n]]
    return out


class ShimWatch:
    """A counting relay in front of one job's shim socket."""

    def __init__(self, socket_path: str | os.PathLike[str]) -> None:
        self.path = str(socket_path)
        self.real = self.path + ".real"
        os.rename(self.path, self.real)
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(self.path)
        self.server.listen(16)
        self.server.settimeout(0.05)
        self.accepted = 0
        self._stop = threading.Event()
        self._open: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self.server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            client.settimeout(None)
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                upstream.connect(self.real)
            except OSError:
                client.close()
                continue
            self._open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(a, b), daemon=True).start()

    def close(self) -> None:
        """Stop relaying and put the shim's own socket back where it was."""
        self._stop.set()
        self._thread.join(5)
        self.server.close()
        for sock in self._open:
            with contextlib.suppress(OSError):
                sock.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        with contextlib.suppress(FileNotFoundError):
            os.rename(self.real, self.path)


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)
