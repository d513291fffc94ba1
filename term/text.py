"""A terminal job's output as a terminal shows it: the rows of its scrollback, then its
screen, as plain text (the same emulator as the terminal pane, `model.TermModel`).

The raw bytes of a full-screen program are escape soup to a reader: vim's `~` rows run
into one line, its width probes (a `▽` written and redrawn at once) stay, and the last
line is whatever came last in the byte stream. Emulated, each row is a row, what was
overwritten is gone and the last line is the last non-blank row of the screen.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Line, TermModel

TEXT_BYTES = 256 * 1024  # the log's last bytes a text rendering reads at most (~120 ms of lines)
TEXT_SCROLLBACK = 10_000  # rows kept above the screen (more than `logs --lines` gives)
DEFAULT_SIZE = (80, 24)  # a terminal job's screen when its record has no size
ALT_ON = _ALT_ON = (b"\x1b[?1049h", b"\x1b[?1047h", b"\x1b[?47h")
_ALT_OFF = (b"\x1b[?1049l", b"\x1b[?1047l", b"\x1b[?47l")
_LINE_SEEK = 4096  # how far past a cut a line start is looked for


@dataclass(frozen=True)
class TtyScreen:
    """What a terminal shows: `lines` (scrollback, then the screen; trailing blank rows
    dropped, each row's trailing blanks dropped) and whether the program is on its
    alternate screen."""

    lines: list[str]
    alt_screen: bool

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def last_line(self) -> str:
        """The last non-blank row: a real screen line (vim's status line, a prompt), its
        runs of blanks made one (as the engine's `last_line` makes them)."""
        for line in reversed(self.lines):
            if line.strip():
                return " ".join(line.split())
        return ""


def _first(data: bytes, needles: tuple[bytes, ...]) -> int:
    found = [at for at in (data.find(n) for n in needles) if at >= 0]
    return min(found) if found else -1


def start_of(data: bytes, whole: bool) -> tuple[bytes, int]:
    """Where to feed `data` from, and the bytes that set up what the skipped part had
    set: a cut (`whole` False) starts after a line end; a cut inside an alternate-screen
    session (its first switch in `data` leaves it) enters the alternate screen first."""
    if whole:
        return b"", 0
    nl = data.find(b"\n", 0, _LINE_SEEK)
    start = nl + 1 if nl >= 0 else 0
    off, on = _first(data[start:], _ALT_OFF), _first(data[start:], _ALT_ON)
    inside = off >= 0 and (on < 0 or off < on)
    return (_ALT_ON[0] if inside else b""), start


def _last(data: bytes, needles: tuple[bytes, ...], lo: int) -> tuple[int, bytes]:
    return max(((data.rfind(n, lo), n) for n in needles), key=lambda found: found[0])


def _parts(data: bytes, start: int) -> list[tuple[int, int]]:
    """The ranges of `data[start:]` to feed: all of it, but for an alternate screen that
    is showing at the end, only from its last full clear on (what it drew before that is
    gone, and it never scrolls into the scrollback): a vim session's redraws are not
    emulated one by one."""
    on, needle = _last(data, _ALT_ON, start)
    off, _ = _last(data, _ALT_OFF, start)
    if on < 0 or on < off:
        return [(start, len(data))]
    entry = on + len(needle)
    clear = data.rfind(b"\x1b[2J", entry)
    if clear < 0:
        return [(start, len(data))]
    for home in (b"\x1b[H", b"\x1b[1;1H"):
        if data.endswith(home, entry, clear):
            clear -= len(home)
            break
    return [(start, entry), (clear, len(data))]


def _row_text(line: Line, cols: int) -> str:
    """`TermModel.line_text`, from the cells a row holds (a row is sparse: most cells of
    a text row are blank, and asking each of 80 columns costs as much as the emulation)."""
    if not line:
        return ""
    text = [" "] * cols
    for x, cell in line.items():
        if x < cols:
            text[x] = cell.data
    return "".join(text).rstrip()


def render(
    data: bytes,
    cols: int = DEFAULT_SIZE[0],
    rows: int = DEFAULT_SIZE[1],
    *,
    whole: bool = True,
    scrollback: int = TEXT_SCROLLBACK,
) -> TtyScreen:
    """`data` (a terminal job's output; `whole` False when it is the log's last bytes
    only, cut anywhere) emulated on a `cols` x `rows` screen, as text."""
    if len(data) > TEXT_BYTES:
        data, whole = data[-TEXT_BYTES:], False
    prefix, start = start_of(data, whole)
    model = TermModel(max(1, cols), max(1, rows), scrollback)
    if prefix:
        model.feed(prefix)
    for lo, hi in _parts(data, start):
        model.feed(data[lo:hi])
    lines = [_row_text(model.line(n), model.cols) for n in range(model.total_lines())]
    while lines and not lines[-1].strip():
        lines.pop()
    return TtyScreen(lines, model.modes.alt_screen)
