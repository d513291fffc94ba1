"""Every string from a registry record passes the one-line sanitizer on screen (issue 9.10)."""

from __future__ import annotations

import pytest

from jobs_tui.engine import JobStatus
from jobs_tui.screens import ConfirmScreen, JobsScreen, LogScreen

from .fakes import PEER, FakeSource, Host, frozen_clock, record, screen_text, until

pytestmark = pytest.mark.timeout(60)

EVIL = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e\u2066\x07\x00"
CONTROLS = ["\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\x00", "\r"]


def hostile(number: int, status: JobStatus, **extra) -> object:
    return record(
        number,
        f"label{EVIL}end",
        status,
        command=f"cmd{EVIL}end",
        last_line=f"last{EVIL}end",
        **extra,
    )


def clean(text: str) -> bool:
    return not any(c in text for c in CONTROLS)


async def test_labels_commands_sessions_signals_and_lines_are_sanitized(log_dir: str):
    running_peer = hostile(1, JobStatus.RUNNING, session=f"{PEER}{EVIL}", log_dir=log_dir)
    killed = hostile(2, JobStatus.KILLED, signal=f"SIG{EVIL}TERM", ago=1, log_dir=log_dir)
    killed.cwd = f"/tmp/{EVIL}dir"
    running_peer.cwd = killed.cwd
    source = FakeSource([running_peer, killed])
    with open(f"{log_dir}/j2.log", "w") as f:
        f.write("output\n")
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        screens = []
        for job_id in ("j1", "j2"):
            app.screen.job_list.select(job_id)
            await pilot.pause()
            screens.append(screen_text(app))
        assert "SIG" in screens[1] and "label" in screens[0]
        await pilot.press("d")  # j2 has finished: the note quotes its outcome (signal)
        app.screen.job_list.select("j1")
        await pilot.pause()
        await pilot.press("t")  # take over: the dialog names the owner session
        assert isinstance(app.screen, ConfirmScreen)
        screens.append(screen_text(app))
        await pilot.press("n")
        app.screen.job_list.select("j2")
        await pilot.press("enter")
        assert isinstance(app.screen, LogScreen)
        assert await until(lambda: app.screen.loaded)
        await pilot.pause()
        screens.append(screen_text(app))
        assert "SIG" in screens[-1]
        for text in screens:
            assert clean(text), repr(text)
        assert app.notes and all(clean(note) for note in app.notes), app.notes
