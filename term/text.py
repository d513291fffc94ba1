"""A terminal job's output as a terminal shows it: the rows of its scrollback, then its
screen, as plain text (the same emulator as the terminal pane, `model.TermModel`).

The raw bytes of a full-screen program are escape soup to a reader: vim's `~` rows run
into one line, its width probes (a `▽` written and redrawn at once) stay, and the last
line is whatever came last in the byte stream. Emulated, each row is a row, what was
overwritten is gone and the last line is the last non-blank row of the screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .model import Line, TermModel
from .plan import ALT_ON, SCAN_BYTES, TEXT_BYTES, Size, pieces, plan, size_at, start_of

__all__ = ["ALT_ON", "TEXT_BYTES", "TtyScreen", "render", "start_of"]

TEXT_SCROLLBACK = 10_000  # rows kept above the screen (more than `logs --lines` gives)
DEFAULT_SIZE = (80, 24)  # a terminal job's screen when its record has no size
_BIG = 1 << 62  # pieces cut only where the size changes


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


def row_text(line: Line, cols: int) -> str:
    """A row's text (`_row_text`), for the other renderers of this package."""
    return _row_text(line, cols)


def feed_plan(
    model: TermModel,
    data: bytes,
    parts: Sequence[tuple[int, int]],
    first: int,
    sizes: Sequence[Size],
) -> None:
    """Feed `parts` of `data` (byte 0 at absolute `first`), resizing the screen where the
    job's terminal was resized (`sizes`)."""
    cuts = [at for at, _, _ in sizes]
    for lo, hi in pieces(parts, first, cuts, _BIG):
        size = size_at(sizes, first + lo, (model.cols, model.rows))
        if size != (model.cols, model.rows):
            model.resize(*size)
        model.feed(data[lo:hi])


def render(
    data: bytes,
    cols: int = DEFAULT_SIZE[0],
    rows: int = DEFAULT_SIZE[1],
    *,
    whole: bool = True,
    scrollback: int = TEXT_SCROLLBACK,
    first: int = 0,
    sizes: Sequence[Size] = (),
) -> TtyScreen:
    """`data` (a terminal job's output; `whole` False when it is the log's last bytes
    only, cut anywhere; its byte 0 at absolute offset `first`) emulated as text: its last
    TEXT_BYTES from a sane start (`plan`; a main-screen program from its last redraw
    within SCAN_BYTES), on a `cols` x `rows` screen, resized where `sizes` says the job's
    terminal was."""
    if len(data) > SCAN_BYTES:
        cut = len(data) - SCAN_BYTES
        data, whole, first = data[cut:], False, first + cut
    todo = plan(data, whole)
    size = size_at(sizes, first + todo.start, (cols, rows))
    model = TermModel(max(1, size[0]), max(1, size[1]), scrollback)
    if todo.prefix:
        model.feed(todo.prefix)
    feed_plan(model, data, todo.parts, first, sizes)
    lines = [_row_text(model.line(n), model.cols) for n in range(model.total_lines())]
    while lines and not lines[-1].strip():
        lines.pop()
    return TtyScreen(lines, model.modes.alt_screen)
