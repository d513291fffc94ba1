"""Replay on open equals the live-followed screen, for the same bytes in any chunking."""

from __future__ import annotations

import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobs_tui.engine.logs.follower import LogFollower
from jobs_tui.screens.terminal import replay as tr
from jobs_tui.term.model import TermModel

COLS, ROWS = 24, 6

text = st.text(alphabet="abcxyz 0123-|中é✓", min_size=1, max_size=30)
sgr = st.sampled_from(["31", "1;32", "38;5;208", "48;2;10;20;30", "4", "7", "3;94"])
token = st.one_of(
    text.map(str.encode),
    st.sampled_from(
        [
            b"\r\n",
            b"\r",
            b"\n",
            b"\t",
            b"\x1b[K",
            b"\x1b[2K",
            b"\x1b[H\x1b[2J",  # a redraw point
            b"\x1b[?1049h",
            b"\x1b[?1049l",
            b"\x1bc",
            b"\x1b[?1h",
            b"\x1b[?1l",
            b"\x1b[?2004h",
            b"\x1b[?2004l",
            b"\x1b[?25l",
            b"\x1b[?25h",
            b"\x1b=",
            b"\x1b>",
        ]
    ),
    st.tuples(st.integers(1, ROWS + 1), st.integers(1, COLS + 2)).map(
        lambda rc: b"\x1b[%d;%dH" % rc
    ),
    st.tuples(sgr, text).map(lambda p: f"\x1b[{p[0]}m{p[1]}\x1b[0m".encode()),
    st.integers(1, 12).map(lambda n: b"".join(b"line %d\r\n" % i for i in range(n))),
)


def screen(model: TermModel) -> tuple[object, ...]:
    cells = tuple(
        tuple(model.screen_line(y)[x] for x in range(model.cols)) for y in range(model.rows)
    )
    return cells, model.cursor, model.modes


@pytest.fixture(autouse=True)
def small_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Streams of a few KiB exercise every path: a redraw point within 2 KiB of the end
    is replayed from, else everything is (the fallback bound exceeds every stream)."""
    monkeypatch.setattr(tr, "REPLAY_CAP", 2048)
    monkeypatch.setattr(tr, "FALLBACK_BYTES", 1 << 20)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(tokens=st.lists(token, min_size=1, max_size=120), data=st.data())
def test_replay_on_open_equals_the_live_followed_screen(tokens, data):
    stream = b"".join(tokens)
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(stream) - 1)), max_size=20)))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "j1.log")
        open(path, "wb").close()
        live = TermModel(COLS, ROWS)
        follower = LogFollower("j1", path, path + ".1", 0)
        last = 0
        for cut in [*cuts, len(stream)]:  # the job writes a chunk; the view reads it
            with open(path, "ab") as f:
                f.write(stream[last:cut])
            last = cut
            live.feed(follower.read().data)
        model, follow = tr.replay(
            lambda at: LogFollower("j1", path, path + ".1", at), COLS, ROWS, 100
        )
        assert follow.position == len(stream)
        assert screen(model) == screen(live)
