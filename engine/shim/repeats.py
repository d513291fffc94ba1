"""Output running away (issue 27, feature 4): the same line, digits and hex masked, N times
in a row. Runs in the shim on the log's write path; imports nothing (the shim's start).

A line's *key* is its text (after the last CR; the line end, LF or CRLF, dropped) with every
number masked to one `#`: a run of digits, a `0x`-prefixed hex run, and a run of 8 or more
hex characters holding a digit (a hash, an address). `ECONNREFUSED 127.0.0.1:5432 try 9` and
`... try 10` have one key. Only a line's first `cap` bytes are kept and masked, so a huge
line costs bounded memory and time.

The cost is what matters: at most 5% of the log path (tests/bench/test_runaway_bench.py).
The shim moves a MiB in about half a millisecond of CPU, and a key costs microseconds, so
lines are not all looked at one by one when output comes fast:

- a run that goes on byte for byte (`yes`) is counted with one `startswith` over the chunk
  (a memcmp, ~20 us/MiB), never line by line, exactly;
- other lines are keyed one by one while a budget lasts (`line_rate` keys a second, a
  second's worth held): a job that prints at a human or a service's pace is counted exactly;
- past the budget, one line every `stride` bytes of the output is keyed (across chunks):
  the lines between two samples of one key are taken as that run's, counted from their
  bytes and the sampled line's length (`approx` says so), and a run's end is seen at the
  next sample. A run of two strides of bytes or more is always seen; a shorter one inside
  fast varied output may be missed (a flood is not). After a sampled line, its byte-for-
  byte repeats are still counted exactly.

Wiring: `feed(buffer, start, end)` with each chunk read (logwriter's `read_from` does it);
`raised` counts notes, so a caller compares it after a feed to know a new one is due;
`fields()` is what goes in the shim's `state` reply, the `.end` file and its event.
"""

import time

LINE_CAP = 1024  # bytes of a line that are kept and masked
LINE_RATE = 1000  # lines keyed one by one per second at most (a few ms of CPU)
STRIDE = 256 * 1024  # bytes between two sampled lines, past the budget

_DIGIT, _X = ord("d"), ord("x")
_HEX = (ord("d"), ord("h"))
# Character classes: d digit, h hex letter, x the x of 0x, . anything else.
_CLASS = bytes(
    _DIGIT
    if 48 <= c <= 57
    else ord("h")
    if (97 <= c <= 102 or 65 <= c <= 70)
    else ord("x")
    if c in (120, 88)
    else ord(".")
    for c in range(256)
)
_ZERO_DIGITS = bytes(48 if 48 <= c <= 57 else c for c in range(256))
# Hex characters to h (a hash is 8 of them in a row), anything else to a dot.
_HEXY = bytes(
    ord("h") if (48 <= c <= 57 or 97 <= c <= 102 or 65 <= c <= 70) else ord(".") for c in range(256)
)
_HASH = b"h" * 8


def _run_end(cls: bytes, i: int) -> int:
    """End of the run of hex characters (d or h) starting at `i`."""
    ends = [e for e in (cls.find(b".", i), cls.find(b"x", i)) if e >= 0]
    return min(ends) if ends else len(cls)


def _run_start(cls: bytes, lo: int, i: int) -> int:
    """Start of the run of hex characters (d or h) ending at `i`, not before `lo`."""
    return max(cls.rfind(b".", lo, i), cls.rfind(b"x", lo, i), lo - 1) + 1


def _mask_slow(text: bytes) -> bytes:
    """`mask`, token by token: a line with a 0x or a hash in it."""
    cls = text.translate(_CLASS)
    i = cls.find(b"d")
    if i < 0:
        return text
    out = bytearray()
    done = 0  # text[:done] is in `out`
    n = len(text)
    while i >= 0:
        start = _run_start(cls, done, i)
        end = _run_end(cls, i)
        hexed = end < n - 1 and cls[end] == _X and cls[end + 1] in _HEX
        if end - start == 1 and text[start] == 48 and hexed:  # 0x7ffd: the 0x goes with it
            end = _run_end(cls, end + 1)
            whole = True
        else:  # all digits, or a hash (8 or more hex characters)
            whole = end - start >= 8 or cls.find(b"h", start, end) < 0
        out += text[done:start]
        if whole:
            out += b"#"
        else:  # a short word with digits in it (a1b2): its digit runs only
            j = start
            while j < end:
                k = j
                while k < end and cls[k] == _DIGIT:
                    k += 1
                if k > j:
                    out += b"#"
                    j = k
                else:
                    out.append(text[j])
                    j += 1
        done = end
        i = cls.find(b"d", end)
    out += text[done:]
    return bytes(out)


def mask(text: bytes) -> bytes:
    """`text` with each number one `#` (see the module's docstring). Digits alone (the
    usual case) are masked with translate and replace; a 0x or a hash token by token."""
    zeroed = text.translate(_ZERO_DIGITS)
    if zeroed.find(b"0") < 0:
        return text
    if zeroed.find(b"0x") >= 0 or zeroed.find(b"0X") >= 0 or text.translate(_HEXY).find(_HASH) >= 0:
        return _mask_slow(text)
    while zeroed.find(b"00") >= 0:
        zeroed = zeroed.replace(b"00", b"0")
    return zeroed.replace(b"0", b"#")


def key_of(line: bytes) -> bytes:
    """The masked text of one line (its end and any text before a last CR dropped)."""
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    cr = line.rfind(b"\r")
    if cr >= 0:
        line = line[cr + 1 :]
    return mask(line)


def _text(line: bytes) -> str:
    line = line.rstrip(b"\r\n")
    return line[line.rfind(b"\r") + 1 :].decode("utf-8", "replace")


def _now_ms() -> int:
    return int(time.time() * 1000)


class RepeatDetector:
    """Counts the run of equal (masked) lines under way; raises a note when one reaches
    `limit`, once per run, and goes on counting it."""

    def __init__(
        self,
        limit: int,
        cap: int = LINE_CAP,
        clock=_now_ms,
        line_rate: float = LINE_RATE,
        stride: int = STRIDE,
    ) -> None:
        if type(limit) is not int or limit < 2:
            raise ValueError(f"repeat limit {limit!r}: at least 2 lines")
        self.limit = limit
        self.cap = max(16, int(cap))
        self.clock = clock
        self.line_rate = float(line_rate)
        self.stride = max(64, int(stride))
        self.tokens = self.line_rate  # lines that may be keyed one by one now
        self.refilled = time.monotonic()
        self.key: bytes | None = None  # the run under way: its key,
        self.raw = b""  # its last line as written (with its end; b"" if longer than cap)
        self.first = b""  # its first line (capped)
        self.count = 0
        self.approx = False  # part of its count comes from sampled bytes
        self.since = 0  # when its first line came (ms since the epoch)
        self.noted = False  # this run has raised its note
        self.raised = 0  # notes raised, in all
        self.note: dict | None = None  # the last run that reached the limit
        self.partial = bytearray()  # the line not ended yet (its first cap bytes)
        self.seen = 0  # bytes fed, in all
        self.base = 0  # during a feed: the whole output's offset of data[0]
        self.next_sample = 0  # past the budget: the next line looked at holds this byte
        self.pending = 0  # bytes of lines not looked at since the last one that was

    # -- what the shim reports ---------------------------------------------------------
    def fields(self) -> dict | None:
        """`{"line", "count", "since", "ongoing", "approx"}` of the last run that reached
        the limit (its count up to date while it goes on), or None: none did."""
        if self.note is None:
            return None
        if self.noted:
            self.note["count"] = self.count
            self.note["approx"] = self.approx
        return self.note

    # -- input --------------------------------------------------------------------------
    def feed(self, data, start: int = 0, end: int | None = None) -> None:
        """Take `data[start:end]` (bytes or bytearray), the next bytes of the output."""
        end = len(data) if end is None else end
        if start >= end:
            return
        self.base = self.seen - start  # data[i] is byte base + i of the whole output
        self.seen += end - start
        nl = data.find(b"\n", start, end)
        if nl < 0:
            self._hold(data, start, end)
            return
        if self.tokens < self.line_rate:
            now = time.monotonic()
            self.tokens = min(self.line_rate, self.tokens + (now - self.refilled) * self.line_rate)
            self.refilled = now
        pos = start
        if self.partial:
            self._hold(data, start, nl + 1)
            line, self.partial = bytes(self.partial), bytearray()
            if line == self.raw:  # the run goes on, byte for byte
                self.count += 1 + self._pending_lines(len(line))
                self._check()
            elif self.tokens >= 1:
                self.tokens -= 1
                self._line(line, line.endswith(b"\n"))
            else:  # past the budget: a line not looked at, its bytes counted later
                self.pending += len(line)
            pos = nl + 1
        last = data.rfind(b"\n", pos, end)
        if last >= pos:
            self._region(data, pos, last + 1)
        if last + 1 < end:
            self._hold(data, max(pos, last + 1), end)

    def _hold(self, data, start: int, end: int) -> None:
        room = self.cap - len(self.partial)
        if room > 0:
            self.partial += data[start : min(end, start + room)]

    # -- one line -----------------------------------------------------------------------
    def _line(self, line: bytes, whole: bool, key: bytes | None = None) -> None:
        key = key_of(line) if key is None else key
        if key == self.key:
            self.count += 1 + self._pending_lines(len(line))
        else:
            self.pending = 0  # the lines not looked at since the last: of neither run
            self._begin(key, line, 1)
        self.raw = line if whole else b""
        self._check()

    def _pending_lines(self, size: int) -> int:
        """The lines not looked at since the last one (sampled output), counted from
        their bytes into the run they lie within."""
        if not self.pending:
            return 0
        lines = round(self.pending / max(1, size))
        self.pending = 0
        self.approx = True
        return lines

    def _begin(self, key: bytes, line: bytes, count: int) -> None:
        if self.noted and self.note is not None:
            self.note["count"] = self.count
            self.note["approx"] = self.approx
            self.note["ongoing"] = False
        self.key, self.first, self.count = key, line[: self.cap], count
        self.approx = False
        self.since = self.clock()
        self.noted = False

    def _check(self) -> None:
        if self.count >= self.limit and not self.noted:
            self.noted = True
            self.raised += 1
            self.note = {
                "line": _text(self.first),
                "count": self.count,
                "since": self.since,
                "ongoing": True,
                "approx": self.approx,
            }

    # -- whole runs ---------------------------------------------------------------------
    def _region(self, data, a: int, b: int) -> None:
        """Complete lines `data[a:b]` (b - 1 is a line end)."""
        pos = self._exact(data, a, b)
        while pos < b and self.tokens >= 1:
            self.tokens -= 1
            e = data.find(b"\n", pos, b) + 1
            whole = e - pos <= self.cap
            self._line(bytes(data[pos : e if whole else pos + self.cap]), whole)
            pos = self._exact(data, e, b)
        if pos < b:
            self._sample(data, pos, b)

    def _exact(self, data, pos: int, b: int) -> int:
        """Lines from `pos` that repeat the run's last line byte for byte, counted with one
        memcmp (a binary search for where they stop); where they stop."""
        raw = self.raw
        if not raw or pos >= b or not data.startswith(raw, pos):
            return pos
        size = len(raw)
        n = (b - pos) // size
        if n > 1:
            view = memoryview(data)
            try:
                if not data.startswith(view[pos + size : pos + n * size], pos):
                    lo, hi = 1, n  # lo repeats, hi does not
                    while hi - lo > 1:
                        mid = (lo + hi) // 2
                        if data.startswith(view[pos + size : pos + mid * size], pos):
                            lo = mid
                        else:
                            hi = mid
                    n = lo
            finally:
                view.release()
        self.count += n + self._pending_lines(size)
        self._check()
        return pos + n * size

    def _sample(self, data, a: int, b: int) -> None:
        """Past the budget: one line every `stride` bytes of the whole output (across
        chunks); the bytes between two samples of one key are its lines, counted from the
        sampled line's size. After a sampled line, its byte-for-byte repeats are counted
        exactly (`_exact`)."""
        base = self.base
        cursor = a  # bytes before it are counted (or pending)
        p = max(a, self.next_sample - base)
        while p < b:
            r = data.rfind(b"\n", a, p) if p > a else -1
            ls = r + 1 if r >= 0 else a
            le = data.find(b"\n", p, b) + 1
            self.pending += ls - cursor
            whole = le - ls <= self.cap
            line = bytes(data[ls : le if whole else ls + self.cap])
            self._line(line, whole)
            cursor = self._exact(data, le, b)
            p = cursor if cursor > le else le + self.stride
        self.next_sample = base + p
        self.pending += b - cursor
