"""Output running away (issue 27, feature 4): the same line, digits and hex masked, N times
in a row. Runs in the shim on the log's write path; imports nothing (the shim's start).

A line's *key* is its text (after the last CR; the line end, LF or CRLF, dropped) with every
number masked to one `#`: a run of digits, a `0x`-prefixed hex run, and a run of 8 or more
hex characters holding a digit (a hash, an address). `ECONNREFUSED 127.0.0.1:5432 try 9` and
`... try 10` have one key. Only a line's first `cap` bytes are kept and masked, so a huge
line costs bounded memory and time.

The cost is what matters (at most 5% of the log path's throughput, tests/bench). Python work
per line would cost far more than the write itself, so a chunk is taken in whole runs where
it can be:

- a run continued byte for byte (`yes`) is counted with one `startswith` over the chunk
  (memcmp: ~30 us/MiB), never line by line;
- lines that differ only in their digits (a counter, a timestamp) are counted the same way
  on a digits-zeroed copy of the chunk, once such a run is under way;
- other output is taken line by line for the first `LINE_BUDGET` lines of a chunk, then
  sampled one line every `stride` bytes: two equal samples in a row start an exact count of
  that run (back to its first line, on to its last). A run of at least two strides of bytes
  is always found; a shorter one inside a large chunk of otherwise varied output may be
  counted short (never long). The stride is `limit * 8` bytes (16-byte lines), clamped.

Wiring: `feed(buffer, start, end)` with each chunk read (logwriter's `read_from` does it);
`raised` counts notes, so a caller compares it after a feed to know a new one is due;
`fields()` is what goes in the shim's `state` reply, the `.end` file and its event.
"""

LINE_CAP = 1024  # bytes of a line that are kept and masked
LINE_BUDGET = 64  # lines of one chunk taken one by one before sampling starts
MIN_STRIDE, MAX_STRIDE = 512, 64 * 1024
BACK_LINES = 64  # a chunk's last run is counted back at most this many lines
JUMP_AFTER = 8  # lines of a digit-only-varying run before the zeroed copy is made

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


def _run_end(cls: bytes, i: int) -> int:
    """End of the run of hex characters (d or h) starting at `i`."""
    ends = [e for e in (cls.find(b".", i), cls.find(b"x", i)) if e >= 0]
    return min(ends) if ends else len(cls)


def _run_start(cls: bytes, lo: int, i: int) -> int:
    """Start of the run of hex characters (d or h) ending at `i`, not before `lo`."""
    return max(cls.rfind(b".", lo, i), cls.rfind(b"x", lo, i), lo - 1) + 1


def mask(text: bytes) -> bytes:
    """`text` with each number one `#` (see the module's docstring)."""
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
    import time  # loaded by the shim already

    return int(time.time() * 1000)


class RepeatDetector:
    """Counts the run of equal (masked) lines under way; raises a note when one reaches
    `limit`, once per run, and goes on counting it."""

    def __init__(self, limit: int, cap: int = LINE_CAP, clock=_now_ms) -> None:
        if int(limit) < 2:
            raise ValueError(f"repeat limit {limit!r}: at least 2 lines")
        self.limit = int(limit)
        self.cap = max(16, int(cap))
        self.clock = clock
        self.stride = min(MAX_STRIDE, max(MIN_STRIDE, self.limit * 8))
        self.key: bytes | None = None  # the run under way: its key,
        self.raw = b""  # its last line as written (with its end; b"" if longer than cap)
        self.first = b""  # its first line (capped)
        self.count = 0
        self.since = 0  # when its first line came (ms since the epoch)
        self.noted = False  # this run has raised its note
        self.raised = 0  # notes raised, in all
        self.note: dict | None = None  # the last run that reached the limit
        self.partial = bytearray()  # the line not ended yet (its first cap bytes)
        self._zeroed: tuple[int, bytes] | None = None  # (offset, digits-zeroed copy)
        self._peek: tuple[int, bytes] | None = None  # (offset, key) where _extend stopped

    # -- what the shim reports ---------------------------------------------------------
    def fields(self) -> dict | None:
        """`{"line", "count", "since", "ongoing"}` of the last run that reached the limit
        (its count up to date while it goes on), or None: none did."""
        if self.note is None:
            return None
        if self.noted:
            self.note["count"] = self.count
        return self.note

    # -- input --------------------------------------------------------------------------
    def feed(self, data, start: int = 0, end: int | None = None) -> None:
        """Take `data[start:end]` (bytes or bytearray), the next bytes of the output."""
        end = len(data) if end is None else end
        if start >= end:
            return
        nl = data.find(b"\n", start, end)
        if nl < 0:
            self._hold(data, start, end)
            return
        pos = start
        if self.partial:
            self._hold(data, start, nl + 1)
            line, self.partial = bytes(self.partial), bytearray()
            self._line(line, line.endswith(b"\n"))
            pos = nl + 1
        last = data.rfind(b"\n", pos, end)
        if last >= pos:
            self._zeroed = None
            self._region(data, pos, last + 1)
            self._zeroed = None
        if last + 1 < end:
            self._hold(data, max(pos, last + 1), end)

    def _hold(self, data, start: int, end: int) -> None:
        room = self.cap - len(self.partial)
        if room > 0:
            self.partial += data[start : min(end, start + room)]

    # -- one line -----------------------------------------------------------------------
    def _line(self, line: bytes, whole: bool) -> None:
        key = key_of(line)
        if key == self.key:
            self.count += 1
        else:
            self._begin(key, line, 1)
        self.raw = line if whole else b""
        self._check()

    def _begin(self, key: bytes, line: bytes, count: int, since: int | None = None) -> None:
        if self.noted and self.note is not None:
            self.note["count"] = self.count
            self.note["ongoing"] = False
        self.key, self.first, self.count = key, line[: self.cap], count
        self.since = self.clock() if since is None else since
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
            }

    # -- whole runs ---------------------------------------------------------------------
    def _region(self, data, a: int, b: int) -> None:
        """Complete lines `data[a:b]` (b - 1 is a line end)."""
        pos = self._extend(data, a, b)
        budget = LINE_BUDGET
        while pos < b and budget:
            e = data.find(b"\n", pos, b) + 1
            whole = e - pos <= self.cap
            line = bytes(data[pos : e if whole else pos + self.cap])
            peeked = self._peek
            key = peeked[1] if peeked is not None and peeked[0] == pos else key_of(line)
            self._begin(key, line, 1)  # _extend stopped here: another line than the run's
            self.raw = line if whole else b""
            self._check()
            pos = self._extend(data, e, b)
            budget -= 1
        self._peek = None
        if pos < b:
            self._sample(data, pos, b)

    def _periodic(self, buf, pos: int, end: int, size: int) -> int:
        """How many times `buf[pos:pos+size]` repeats from `pos` on, byte for byte (one
        memcmp for the whole stretch; a binary search for where it breaks)."""
        n = (end - pos) // size
        if n <= 1:
            return n
        view = memoryview(buf)
        try:
            if buf.startswith(view[pos + size : pos + n * size], pos):
                return n
            lo, hi = 1, n  # lo repeats, hi does not
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if buf.startswith(view[pos + size : pos + mid * size], pos):
                    lo = mid
                else:
                    hi = mid
            return lo
        finally:
            view.release()

    def _extend(self, data, pos: int, b: int) -> int:
        """Count the lines from `pos` that go on the run under way; where it broke (the key
        of the line there is left in `_peek`)."""
        varied = 0  # lines in a row equal to the run's key but not to its last line
        while pos < b and self.key is not None:
            raw = self.raw
            if raw and data.startswith(raw, pos):
                n = self._periodic(data, pos, b, len(raw))
                self.count += n
                pos += n * len(raw)
                self._check()
                varied = 0
                continue
            if varied >= JUMP_AFTER and raw:
                n = self._zero_jump(data, pos, b, len(raw))
                if n:
                    self.count += n
                    pos += n * len(raw)
                    self.raw = bytes(data[pos - len(raw) : pos])
                    self._check()
                    varied = 0
                    if pos >= b:
                        break
            e = data.find(b"\n", pos, b) + 1
            whole = e - pos <= self.cap
            line = bytes(data[pos : e if whole else pos + self.cap])
            key = key_of(line)
            if key != self.key:
                self._peek = (pos, key)
                break
            self.count += 1
            self.raw = line if whole else b""
            self._check()
            varied += 1
            pos = e
        return pos

    def _zero_jump(self, data, pos: int, b: int, size: int) -> int:
        """Lines from `pos` that equal the one before it but for their digits (all of
        `size` bytes): counted on a digits-zeroed copy of the rest of the chunk, made once."""
        if self._zeroed is None or self._zeroed[0] > pos - size:
            start = pos - size
            self._zeroed = (start, bytes(data[start:b]).translate(_ZERO_DIGITS))
        offset, zeroed = self._zeroed
        if offset + len(zeroed) < b:
            return 0
        n = self._periodic(zeroed, pos - size - offset, b - offset, size)
        return n - 1 if n > 1 else 0

    def _sample(self, data, a: int, b: int) -> None:
        """Varied output: one line every `stride` bytes; two equal ones in a row are
        counted exactly as a run. The chunk's last run becomes the run under way."""
        prev: bytes | None = None
        prev_start = a
        p = a
        counted_to = -1  # where the last run counted here ended
        while p < b:
            r = data.rfind(b"\n", a, p)
            ls = r + 1 if r >= 0 else a
            le = data.find(b"\n", p, b) + 1
            key = key_of(bytes(data[ls : min(le, ls + self.cap)]))
            if key == prev and ls > prev_start:
                p = counted_to = self._counted(data, a, b, prev_start, key)
                prev = None
                continue
            prev, prev_start = key, ls
            p = max(le, p + self.stride)
        if counted_to != b:
            self._last_run(data, a, b)

    def _counted(self, data, a: int, b: int, start: int, key: bytes) -> int:
        """A run of `key` holds the line at `start`: count it from its first line (back
        at most to `a`) through its last; where it ends."""
        first = start
        while first > a:
            r = data.rfind(b"\n", a, first - 1)
            ls = r + 1 if r >= 0 else a
            if key_of(bytes(data[ls : min(first, ls + self.cap)])) != key:
                break
            first = ls
        e = data.find(b"\n", first, b) + 1
        line = bytes(data[first : min(e, first + self.cap)])
        self._begin(key, line, 1)
        self.raw = line if e - first <= self.cap else b""
        self._check()
        end = self._extend(data, e, b)
        self._peek = None
        return end

    def _last_run(self, data, a: int, b: int) -> None:
        """The run the chunk ends with, counted back (at most BACK_LINES lines): the run
        under way for the next chunk."""
        r = data.rfind(b"\n", a, b - 1)
        ls = r + 1 if r >= 0 else a
        line = bytes(data[ls : min(b, ls + self.cap)])
        key = key_of(line)
        count, first = 1, ls
        while first > a and count < BACK_LINES:
            r = data.rfind(b"\n", a, first - 1)
            s = r + 1 if r >= 0 else a
            if key_of(bytes(data[s : min(first, s + self.cap)])) != key:
                break
            first, count = s, count + 1
        e = data.find(b"\n", first, b) + 1
        self._begin(key, bytes(data[first : min(e, first + self.cap)]), count)
        self.raw = line if b - ls <= self.cap else b""
        self._check()
