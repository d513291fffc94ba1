"""Bounded replay on open: where it starts, what it sets first, and where following resumes."""

from __future__ import annotations

import os

from jobs_tui.engine.logs.follower import LogFollower
from jobs_tui.screens.terminal import replay as tr
from jobs_tui.term.model import TermModel


def write_log(log_dir: str, data: bytes) -> str:
    path = os.path.join(log_dir, "j1.log")
    with open(path, "wb") as f:
        f.write(data)
    return path


def replay_of(path: str, cols: int = 40, rows: int = 6):  # type: ignore[no-untyped-def]
    return tr.replay(lambda at: LogFollower("j1", path, path + ".1", at), cols, rows, 1000)


def live_of(data: bytes, cols: int = 40, rows: int = 6) -> TermModel:
    model = TermModel(cols, rows, 1000)
    model.feed(data)
    return model


def test_replay_starts_at_the_last_clear_and_follows_from_the_end(log_dir):
    noise = b"".join(b"old line %d\r\n" % i for i in range(50_000))  # ~700 KiB
    tail = b"\x1b[H\x1b[2Jtop\x1b[3;5Hmid"
    path = write_log(log_dir, noise + tail)
    plan = tr.plan_replay(noise + tail, 0)
    assert plan.redraw and plan.parts[-1] == (len(noise), len(noise) + len(tail))
    model, follow = replay_of(path)
    assert model.text_lines() == live_of(noise + tail).text_lines()
    assert follow.position == len(noise) + len(tail)
    with open(path, "ab") as f:
        f.write(b"!")
    assert follow.read().data == b"!"  # nothing lost, nothing repeated


def test_without_a_redraw_point_the_last_bytes_are_replayed_from_a_line_start(log_dir):
    data = b"".join(b"line %06d\r\n" % i for i in range(100_000))  # ~1.2 MiB, no clear
    path = write_log(log_dir, data)
    plan = tr.plan_replay(data, 0)
    assert not plan.redraw
    start, stop = plan.parts[-1]
    assert stop - start <= tr.FALLBACK_BYTES and data[start - 1 : start] == b"\n"
    model, _ = replay_of(path)
    assert model.text_lines() == live_of(data).text_lines()
    assert model.history_len() > 100  # part of the scrollback too


def test_a_clear_too_far_back_is_not_replayed_from(log_dir):
    data = b"\x1b[H\x1b[2J" + b"".join(b"row %06d\r\n" % i for i in range(50_000))
    plan = tr.plan_replay(data, 0)
    assert not plan.redraw and plan.replayed <= tr.FALLBACK_BYTES


def test_modes_set_before_the_replay_point_are_set_again():
    data = b"\x1b[?1h\x1b[?2004h\x1b=\x1b[?25l" + b"x" * 1000 + b"\x1b[H\x1b[2Jscreen"
    model, _ = tr.replay(_memory_follow(data), 20, 4, 100)
    m = model.modes
    assert (m.app_cursor, m.bracketed_paste, m.app_keypad, m.cursor_visible) == (
        True,
        True,
        True,
        False,
    )


def test_alternate_screen_session_keeps_the_main_screen_behind_it():
    shell = b"".join(b"$ cmd %d\r\n" % i for i in range(10)) + b"$ vim"
    vim = b"\x1b[?1049h\x1b[H\x1b[2J~ first\r\n" + b"junk" * 40_000  # 160 KiB inside vim
    last = b"\x1b[H\x1b[2J~ file\r\n~"
    data = shell + vim + last
    plan = tr.plan_replay(data, 0)
    assert plan.redraw and plan.replayed < 4096  # the main part, the switch, the last frame
    model, _ = tr.replay(_memory_follow(data), 20, 4, 100)
    live = live_of(data, 20, 4)
    assert model.modes.alt_screen and model.text_lines() == live.text_lines()
    model.feed(b"\x1b[?1049l")
    live.feed(b"\x1b[?1049l")
    assert model.text_lines() == live.text_lines() == ["$ cmd 7", "$ cmd 8", "$ cmd 9", "$ vim"]
    assert model.cursor == live.cursor


def test_a_reset_forgets_modes_set_before_it():
    data = b"\x1b[?1h\x1b[?1049h" + b"y" * 200_000 + b"\x1bcfresh"
    model, _ = tr.replay(_memory_follow(data), 20, 4, 100)
    assert not model.modes.app_cursor and not model.modes.alt_screen
    assert model.text_lines()[0] == "fresh"


class _Memory:
    """A follower over bytes in memory (the log as a JobSource would serve it)."""

    def __init__(self, data: bytes, position: int) -> None:
        self.data = data
        self.position = min(position, len(data))

    def read(self, cap: int = 1 << 22):  # type: ignore[no-untyped-def]
        from jobs_tui.engine.logs.segments import SinceRead

        chunk = self.data[self.position : self.position + cap]
        got = SinceRead(chunk, self.position, 0, len(self.data))
        self.position += len(chunk)
        return got

    def skip_to(self, position: int) -> int:
        passed = max(0, position - self.position)
        self.position += passed
        return passed


def _memory_follow(data: bytes):  # type: ignore[no-untyped-def]
    return lambda at: _Memory(data, at)


async def test_live_pump_wakes_within_milliseconds_of_a_write(log_dir):
    import asyncio
    import statistics
    import time

    path = write_log(log_dir, b"")
    follow = LogFollower("j1", path, path + ".1", 0)
    got: list[tuple[float, bytes]] = []
    pump = tr.LivePump(follow, lambda data: got.append((time.perf_counter(), data)))
    task = asyncio.create_task(pump.run())
    try:
        await asyncio.sleep(0.05)
        delays = []
        for i in range(10):
            with open(path, "ab") as f:
                t = time.perf_counter()
                f.write(b"%d" % i)
            for _ in range(200):
                if len(got) > i:
                    break
                await asyncio.sleep(0.001)
            delays.append(got[i][0] - t)
            await asyncio.sleep(0.02)
        assert b"".join(d for _, d in got) == b"0123456789"
        assert statistics.median(delays) < 0.03, delays  # not a 0.2 s poll
    finally:
        pump.stop()
        await task


async def test_live_pump_catches_up_with_a_job_that_outwrites_it(log_dir, monkeypatch):
    import asyncio

    monkeypatch.setattr(tr, "BEHIND_BYTES", 256 * 1024)
    path = write_log(log_dir, b"start\r\n")
    follow = LogFollower("j1", path, path + ".1", 0)
    fed: list[bytes] = []
    restarted: list[TermModel] = []
    pump = tr.LivePump(follow, fed.append, lambda: TermModel(40, 6, 100), restarted.append)
    task = asyncio.create_task(pump.run())
    try:
        await asyncio.sleep(0.05)
        assert b"".join(fed) == b"start\r\n"
        flood = b"".join(b"flood %07d\r\n" % i for i in range(100_000))  # 1.4 MiB at once
        with open(path, "ab") as f:
            f.write(flood + b"\x1b[H\x1b[2Jafter the flood")
        for _ in range(300):
            if restarted:
                break
            await asyncio.sleep(0.01)
        assert restarted and restarted[-1].text_lines()[0] == "after the flood"
        assert pump.skipped > len(flood) // 2
        with open(path, "ab") as f:
            f.write(b"!")
        for _ in range(300):
            if fed and fed[-1] == b"!":
                break
            await asyncio.sleep(0.01)
        assert fed[-1] == b"!"  # then followed byte for byte again
    finally:
        pump.stop()
        await task
