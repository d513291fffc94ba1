"""A UI on a pseudo-terminal for the benchmarks: what it draws, frame by frame, and its CPU.

The pty answers Textual's synchronized-output query, so every frame is bracketed and can
be counted; CPU is the UI process's own (its jobs' supervisors are other processes).
"""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import termios
import threading
import time

import psutil

SYNC_QUERY = b"\x1b[?2026$p"
SYNC_REPLY = b"\x1b[?2026;2$y"
FRAME_END = b"\x1b[?2026l"
COLS, ROWS = 120, 40


class Pty:
    """A process on a pseudo-terminal; a thread records what it draws, with timestamps."""

    def __init__(
        self, argv: list[str], cols: int = COLS, rows: int = ROWS, pythonpath: str = ""
    ) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        env.update(TERM="xterm-256color", COLORTERM="truecolor")
        if pythonpath:  # another revision's code: it comes before the editable install
            env["PYTHONPATH"] = pythonpath
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
        )
        os.close(slave)
        self.master = master
        self.lock = threading.Lock()
        self.chunks: list[tuple[float, bytes]] = []
        self.frames: list[float] = []
        self._tail = b""
        self.closed = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                break
            if not data:
                break
            now = time.perf_counter()
            window = self._tail + data
            if SYNC_QUERY in window:
                os.write(self.master, SYNC_REPLY)
            with self.lock:
                self.chunks.append((now, data))
                ends = window.count(FRAME_END) - self._tail.count(FRAME_END)
                self.frames.extend([now] * ends)
            self._tail = data[-16:]
        self.closed = True

    def text_since(self, t: float) -> bytes:
        with self.lock:
            return b"".join(d for ts, d in self.chunks if ts >= t)

    def first(self, pattern: re.Pattern[bytes], after: float, timeout: float = 30.0):
        """(time, match) of the first chunk after `after` whose text matches."""
        deadline = time.perf_counter() + timeout
        seen, carry = 0, b""  # the end of the previous chunk: a match may span two reads
        while time.perf_counter() < deadline:
            with self.lock:
                chunks = self.chunks[seen:]
                seen = len(self.chunks)
            for ts, data in chunks:
                if ts < after:
                    continue
                window = carry + data
                found = pattern.search(window)
                if found and found.end() > len(carry):
                    return ts, found
                carry = window[-4096:]
            time.sleep(0.001)
        shown = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b" ", self.text_since(after))
        shown = b"\n".join(re.findall(rb"Jobs[^\r\n]*", shown)[-3:]) + shown[-1500:]
        raise AssertionError(f"{pattern.pattern!r} did not appear; last output: {shown!r}")

    def send(self, keys: bytes) -> float:
        t = time.perf_counter()
        os.write(self.master, keys)
        return t

    def cpu_s(self) -> float:
        """CPU seconds of the UI's threads: the scheduler's nanoseconds where Linux has them
        (utime and stime count 10 ms ticks: a tick is an eighth of a point over 8 s, too
        coarse for an idle screen), else psutil's."""
        try:
            task_dir = f"/proc/{self.proc.pid}/task"
            total = 0
            for task in os.listdir(task_dir):
                with open(f"{task_dir}/{task}/schedstat") as f:
                    total += int(f.read().split()[0])
            return total / 1e9
        except (OSError, ValueError, IndexError):
            times = psutil.Process(self.proc.pid).cpu_times()
            return times.user + times.system

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        os.close(self.master)


def measure_window(ui: Pty, seconds: float) -> tuple[float, float]:
    """(UI CPU as % of one core, frames drawn per second) over a quiet window."""
    cpu0, t0 = ui.cpu_s(), time.perf_counter()
    with ui.lock:
        frames0 = len(ui.frames)
    time.sleep(seconds)
    cpu1, t1 = ui.cpu_s(), time.perf_counter()
    with ui.lock:
        frames1 = len(ui.frames)
    return 100 * (cpu1 - cpu0) / (t1 - t0), (frames1 - frames0) / (t1 - t0)
