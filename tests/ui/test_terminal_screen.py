"""TerminalScreen with real PTY jobs: opening, interactive mode, every key, paste, resize.

The jobs are real programs on a real pseudo-terminal (started by a real `JobManager`);
the bytes a key sends are read back from what the job itself reports: a small program
puts its terminal in raw mode and prints the hex of every read, so a key is checked
byte for byte after the whole trip (screen -> engine -> shim -> PTY -> program).
"""

from __future__ import annotations

import asyncio
import re
import shlex
import sys
import textwrap
import time

import pytest
from textual import events

from jobs_tui.engine import JobManager
from jobs_tui.screens import JobsScreen, LogScreen, TerminalScreen

from .fakes import Host, screen_text, until

pytestmark = pytest.mark.timeout(60)

PY = shlex.quote(sys.executable)

RAW = textwrap.dedent(
    """
    import os, sys, tty
    if len(sys.argv) > 1:
        sys.stdout.write(sys.argv[1])
    tty.setraw(0)
    print("ready", end="\\r\\n", flush=True)
    while True:
        data = os.read(0, 4096)
        if not data:
            break
        sys.stdout.write("got " + data.hex() + "\\r\\n")
        sys.stdout.flush()
    """
)
SIZES = textwrap.dedent(
    """
    import os, signal, time
    def show(*_):
        cols, rows = os.get_terminal_size(0)
        print(f"size {cols}x{rows}", flush=True)
    signal.signal(signal.SIGWINCH, show)
    show()
    while True:
        time.sleep(1)
    """
)


def raw_job(prelude: str = "") -> str:
    """A program that reports every byte it reads from its raw terminal as hex."""
    extra = f" {shlex.quote(prelude)}" if prelude else ""
    return f"{PY} -c {shlex.quote(RAW)}{extra}"


async def received(jm: JobManager, job_id: str) -> bytes:
    """Every byte the raw job has reported reading so far, in order."""
    tail = await jm.logs(job_id, lines=2000)
    return b"".join(bytes.fromhex(m) for m in re.findall(r"got ([0-9a-f]+)", "\n".join(tail.lines)))


async def wait_received(jm: JobManager, job_id: str, expected: bytes, timeout: float = 10.0):
    got = b""

    async def check() -> bool:
        nonlocal got
        got = await received(jm, job_id)
        return expected in got

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await check():
            return got
        await asyncio.sleep(0.05)
    raise AssertionError(f"{expected!r} never reached the job; it read {got!r}")


def shows_row(app: Host, text: str) -> bool:
    """A row of the screen reads exactly `text` (the pane's edges and border aside)."""
    return any(line.strip(" │┃") == text for line in screen_text(app).splitlines())


def sub(app: Host) -> str:
    return screen_text(app).splitlines()[1]


def host(jm: JobManager, job_id: str) -> Host:
    return Host(lambda: TerminalScreen(jm, job_id))


async def opened(pilot, text: str | None = None) -> TerminalScreen:
    screen = pilot.app.screen
    assert isinstance(screen, TerminalScreen)
    assert await until(lambda: screen.loaded or screen.problem)
    assert not screen.problem, screen.problem
    if text is not None:
        assert await until(lambda: text in "\n".join(screen.view.model.text_lines())), (
            screen.view.model.text_lines()
        )
    await pilot.pause()
    return screen


async def typing(pilot, screen: TerminalScreen) -> None:
    await pilot.press("i")
    assert await until(lambda: screen.interactive)
    await pilot.pause()


# -- opening -----------------------------------------------------------------------
async def test_a_tty_job_opens_on_its_terminal_and_a_pipe_job_on_its_log(jm: JobManager):
    tty = await jm.start(raw_job(), label="terminal job", tty=True)
    pipe = await jm.start("echo plain; sleep 30", label="pipe job")
    app = Host(lambda: JobsScreen(jm))
    async with app.run_test(size=(110, 32)) as pilot:
        jobs = app.screen
        assert await until(lambda: len(jobs.job_list.records) == 2)
        jobs.job_list.select(tty.id)
        jobs.selection = tty.id
        await pilot.press("enter")
        assert await until(lambda: isinstance(app.screen, TerminalScreen))
        screen = await opened(pilot, "ready")
        assert screen.job_id == tty.id
        await pilot.press("q")
        assert await until(lambda: app.screen is jobs)
        jobs.job_list.select(pipe.id)
        jobs.selection = pipe.id
        await pilot.press("enter")
        assert await until(lambda: isinstance(app.screen, LogScreen))


async def test_the_header_names_the_job_and_the_terminal(jm: JobManager):
    rec = await jm.start(raw_job(), label="raw reader", tty=True)
    app = host(jm, rec.id)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot, "ready")
        lines = screen_text(app).splitlines()
        assert rec.id in lines[0] and "raw reader" in lines[0] and "running" in lines[0]
        assert "following" in lines[1] and "terminal 80×24" in lines[1]
        assert "ready" in screen_text(app)


# -- interactive mode --------------------------------------------------------------
async def test_i_enters_and_ctrl_bracket_leaves_typing_mode(jm: JobManager):
    rec = await jm.start(raw_job(), label="raw", tty=True)
    app = host(jm, rec.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot, "ready")
        assert not screen.view.interactive
        await typing(pilot, screen)
        assert screen.view.interactive and screen.focused is screen.view
        text = screen_text(app)
        assert f"typing into {rec.id}" in text and "ctrl+] leaves" in text
        await pilot.press("a")
        await wait_received(jm, rec.id, b"a")
        await pilot.press("x", "y", "z", "ctrl+right_square_bracket")
        assert await until(lambda: not screen.interactive)
        await pilot.pause()
        assert not screen.view.interactive and screen.focused is None
        assert f"typing into {rec.id}" not in screen_text(app)
        await wait_received(jm, rec.id, b"axyz")  # typed before leaving: all sent
        await pilot.press("b")  # the screen's again: nothing reaches the job
        await pilot.pause(0.3)
        assert b"b" not in await received(jm, rec.id)
        assert b"\x1d" not in await received(jm, rec.id)


KEYS = [
    ("a", b"a"),
    ("A", b"A"),
    ("é", "é".encode()),
    ("space", b" "),
    ("enter", b"\r"),
    ("tab", b"\t"),
    ("shift+tab", b"\x1b[Z"),
    ("backspace", b"\x7f"),
    ("escape", b"\x1b"),
    ("up", b"\x1b[A"),
    ("down", b"\x1b[B"),
    ("right", b"\x1b[C"),
    ("left", b"\x1b[D"),
    ("home", b"\x1b[H"),
    ("end", b"\x1b[F"),
    ("pageup", b"\x1b[5~"),
    ("pagedown", b"\x1b[6~"),
    ("insert", b"\x1b[2~"),
    ("delete", b"\x1b[3~"),
    ("f1", b"\x1bOP"),
    ("f5", b"\x1b[15~"),
    ("f12", b"\x1b[24~"),
    ("ctrl+up", b"\x1b[1;5A"),
    ("ctrl+a", b"\x01"),
    ("ctrl+c", b"\x03"),
    ("ctrl+d", b"\x04"),
    ("ctrl+z", b"\x1a"),
    ("ctrl+q", b"\x11"),  # the app's priority quit key: the job's while typing
    ("ctrl+space", b"\x00"),
    ("alt+x", b"\x1bx"),
    # the screen's own keys go to the job too
    ("q", b"q"),
    ("slash", b"/"),
    ("f", b"f"),
    ("i", b"i"),
    ("question_mark", b"?"),
]


async def test_every_key_reaches_the_job_as_a_terminal_sends_it(jm: JobManager):
    rec = await jm.start(raw_job(), label="raw", tty=True)
    app = host(jm, rec.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot, "ready")
        await typing(pilot, screen)
        for key, _sent in KEYS:  # typed as fast as the screen takes them: order is kept
            await pilot.press(key)
        expected = b"".join(sent for _key, sent in KEYS)
        got = b""
        deadline = time.monotonic() + 20
        while len(got) < len(expected) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            got = await received(jm, rec.id)
        at = 0
        for key, sent in KEYS:  # key by key, so a wrong one is named
            assert got[at : at + len(sent)] == sent, (key, got[at : at + len(sent)])
            at += len(sent)
        assert got == expected
        # nothing of the screen reacted: still typing, no find bar, no help, not closed
        assert app.screen is screen and screen.interactive
        assert not screen.find_bar.has_class("-open")
        assert app.dismissed == 0 and app.is_running


async def test_arrows_follow_the_programs_cursor_key_mode(jm: JobManager):
    rec = await jm.start(raw_job("\x1b[?1h"), label="app cursor", tty=True)  # DECCKM on
    app = host(jm, rec.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot, "ready")
        assert screen.view.model.modes.app_cursor
        await typing(pilot, screen)
        await pilot.press("up", "left", "home")
        await wait_received(jm, rec.id, b"\x1bOA\x1bOD\x1bOH")


async def test_the_footer_and_help_while_typing(jm: JobManager):
    rec = await jm.start(raw_job(), label="raw", tty=True)
    app = host(jm, rec.id)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await opened(pilot, "ready")
        footer = screen_text(app).splitlines()[-1]
        assert "Type into it" in footer and "Stop typing" not in footer
        await typing(pilot, screen)
        footer = screen_text(app).splitlines()[-1]
        assert "Stop typing" in footer and "Find" not in footer and "Type into it" not in footer
        await pilot.press("ctrl+right_square_bracket")
        await pilot.press("question_mark")
        await pilot.pause()
        text = screen_text(app)
        assert "type into the job" in text and "stop typing into the job" in text, text
        assert "^]" in text


async def test_keys_in_order_and_ctrl_c_keeps_a_repl_running(jm: JobManager):
    rec = await jm.start(f"{PY} -q", label="repl", tty=True)
    app = host(jm, rec.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot, ">>>")
        await typing(pilot, screen)
        await pilot.press("6", "asterisk", "7", "enter")
        assert await until(lambda: "42" in screen.view.model.text_lines())
        await pilot.press("ctrl+c")
        assert await until(
            lambda: any("KeyboardInterrupt" in line for line in screen.view.model.text_lines())
        )
        await pilot.pause(0.3)
        assert jm.get(rec.id).running and screen.interactive
        await pilot.press("1", "plus_sign", "1", "enter")
        assert await until(lambda: ">>> 1+1" in screen.view.model.text_lines())


async def test_the_leave_key_is_rebindable_through_the_app_keymap(jm: JobManager):
    rec = await jm.start(raw_job(), label="raw", tty=True)
    app = host(jm, rec.id)
    async with app.run_test(size=(100, 30)) as pilot:
        app.set_keymap({"term.leave": "ctrl+g"})
        screen = await opened(pilot, "ready")
        await typing(pilot, screen)
        assert f"typing into {rec.id} · ctrl+g leaves" in screen_text(app)  # the border
        assert "typing · terminal" in screen_text(app) and "· ctrl+g leaves" in sub(app)
        await pilot.press("ctrl+right_square_bracket")  # no longer the leave key: sent
        await wait_received(jm, rec.id, b"\x1d")
        assert screen.interactive
        await pilot.press("ctrl+g")
        assert await until(lambda: not screen.interactive)
        await pilot.pause(0.2)
        assert b"\x07" not in await received(jm, rec.id)


# -- paste ---------------------------------------------------------------------------
async def test_paste_is_bracketed_only_when_the_program_asked(jm: JobManager):
    plain = await jm.start(raw_job(), label="plain", tty=True)
    bracketed = await jm.start(raw_job("\x1b[?2004h"), label="bracketed", tty=True)
    for rec, expected in (
        (plain, b"one\rtwo"),
        (bracketed, b"\x1b[200~one\rtwo\x1b[201~"),
    ):
        app = host(jm, rec.id)
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await opened(pilot, "ready")
            assert screen.view.model.modes.bracketed_paste == (rec is bracketed)
            await typing(pilot, screen)
            app.post_message(events.Paste("one\ntwo"))
            got = await wait_received(jm, rec.id, expected)
            assert got == expected


async def test_a_long_paste_arrives_whole_and_a_huge_one_is_refused(jm: JobManager):
    rec = await jm.start(raw_job(), label="raw", tty=True)
    app = host(jm, rec.id)
    text = "".join(f"{n:07d}" for n in range(40_000))  # 280 KB: several engine calls
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot, "ready")
        await typing(pilot, screen)
        app.post_message(events.Paste(text))
        got = await wait_received(jm, rec.id, text[-70:].encode(), timeout=30)
        assert got == text.encode()
        app.post_message(events.Paste("x" * (600 * 1024)))
        assert await until(lambda: any("Not pasted" in note for note in app.notes))
        await pilot.pause(0.3)
        assert await received(jm, rec.id) == text.encode()
        assert screen.interactive


async def test_a_paste_outside_typing_mode_goes_nowhere(jm: JobManager):
    rec = await jm.start(raw_job(), label="raw", tty=True)
    app = host(jm, rec.id)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot, "ready")
        app.post_message(events.Paste("rm -rf /\n"))
        await pilot.pause(0.3)
        assert await received(jm, rec.id) == b""


# -- the job's terminal size -------------------------------------------------------
async def test_typing_sizes_the_job_terminal_to_the_pane_and_leaving_keeps_it(jm: JobManager):
    rec = await jm.start(f"{PY} -c {shlex.quote(SIZES)}", label="sizes", tty=True)
    app = host(jm, rec.id)

    def sizes() -> list[str]:
        return [line for line in screen.view.model.text_lines() if line.startswith("size ")]

    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot, "size 80x24")
        await typing(pilot, screen)
        cols, rows = screen.view.pane_size()
        assert (cols, rows) != (80, 24)
        assert await until(lambda: f"size {cols}x{rows}" in sizes()), sizes()
        assert f"terminal {cols}×{rows}" in screen_text(app)
        await pilot.resize_terminal(90, 26)
        assert await until(lambda: screen.view.pane_size() != (cols, rows))
        cols2, rows2 = screen.view.pane_size()
        assert await until(lambda: f"size {cols2}x{rows2}" in sizes()), sizes()
        await pilot.press("ctrl+right_square_bracket")
        assert await until(lambda: not screen.interactive)
        count = len(sizes())
        await pilot.resize_terminal(100, 30)
        await pilot.pause(0.5)
        assert len(sizes()) == count  # not typing: the job's terminal keeps its size
        assert f"terminal {cols2}×{rows2}" in screen_text(app)


async def test_opened_again_the_terminal_has_the_size_typing_gave_it(jm: JobManager):
    rec = await jm.start(f"{PY} -c {shlex.quote(SIZES)}", label="sizes", tty=True)
    app = host(jm, rec.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot, "size 80x24")
        await typing(pilot, screen)
        cols, rows = screen.view.pane_size()
        assert await until(lambda: f"size {cols}x{rows}" in screen.view.lines_text())
    app = host(jm, rec.id)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await opened(pilot, f"size {cols}x{rows}")
        assert (screen.view.model.cols, screen.view.model.rows) == (cols, rows)
        assert f"terminal {cols}×{rows}" in screen_text(app)


async def test_a_peers_terminal_opens_at_the_size_its_job_has(jm: JobManager, peer: JobManager):
    """The size is the job's (its record), not only what this app's own typing gave it."""
    rec = await peer.start(f"{PY} -c {shlex.quote(SIZES)}", label="sizes", tty=True)
    await peer.resize(rec.id, 90, 26)
    assert await until(lambda: any(r.id == rec.id and r.term_cols == 90 for r in jm.jobs()))
    app = host(jm, rec.id)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await opened(pilot, "size 90x26")
        assert (screen.view.model.cols, screen.view.model.rows) == (90, 26)
        assert "terminal 90×26" in screen_text(app)


# -- refusals ------------------------------------------------------------------------
async def test_a_peers_job_is_viewed_but_not_typed_into(jm: JobManager, peer: JobManager):
    rec = await peer.start(raw_job(), label="theirs", tty=True)
    assert await until(lambda: any(r.id == rec.id for r in jm.jobs()))
    app = host(jm, rec.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot, "ready")
        assert "peer" in screen_text(app).splitlines()[0]
        await pilot.press("i")
        await pilot.pause()
        assert not screen.interactive and not screen.view.interactive
        note = app.notes[-1]
        assert f"{rec.id} is another session's job" in note and "t on the list" in note
        await pilot.press("a")
        await pilot.pause(0.3)
        assert await received(peer, rec.id) == b""


async def test_a_finished_job_is_view_only(jm: JobManager):
    rec = await jm.start("echo all done", label="short", tty=True)
    await jm.wait(rec.id, 10_000)
    app = host(jm, rec.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot, "all done")
        await pilot.press("i")
        await pilot.pause()
        assert not screen.interactive
        assert f"{rec.id} has finished" in app.notes[-1]


async def test_typing_mode_ends_when_the_job_does(jm: JobManager):
    rec = await jm.start(f"{PY} -q", label="repl", tty=True)
    app = host(jm, rec.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot, ">>>")
        await typing(pilot, screen)
        await pilot.press("ctrl+d")
        assert await until(lambda: not screen.interactive)
        assert await until(lambda: "exit 0" in screen_text(app).splitlines()[0])
        assert not jm.get(rec.id).running
        await pilot.press("q")  # the screen's keys again
        assert await until(lambda: app.dismissed == 1)


# -- scrolling and finding -----------------------------------------------------------
async def test_scrollback_scrolls_pauses_and_follows_again(jm: JobManager):
    rec = await jm.start("for i in $(seq 1 200); do echo row $i; done; sleep 30", tty=True)
    app = host(jm, rec.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot, "row 200")
        assert screen.following
        await pilot.press("pageup")
        assert not screen.following and "paused" in screen_text(app).splitlines()[1]
        await pilot.press("home")
        assert await until(lambda: shows_row(app, "row 1"))
        assert "row 200" not in screen_text(app)
        await pilot.press("f")
        assert screen.following
        assert await until(lambda: "row 200" in screen_text(app))


async def test_find_over_scrollback_and_screen_with_n_and_N(jm: JobManager):
    rec = await jm.start(
        "for i in $(seq 1 200); do echo row $i; done; echo Needle; sleep 30", tty=True
    )
    app = host(jm, rec.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot, "Needle")
        await pilot.press("slash")
        await pilot.press(*"row 1")  # smart case: lower case finds any case
        await pilot.pause()
        # row 1, row 10-19, row 100-199: 111 matches, the last one current
        assert "111 of 111" in screen_text(app)
        await pilot.press("enter")
        await pilot.press("n")
        assert "1 of 111" in screen_text(app)
        assert not screen.following
        assert shows_row(app, "row 1")
        await pilot.press("N")
        assert "111 of 111" in screen_text(app)
        assert "row 199" in screen_text(app)
        await pilot.press("escape")  # closes find
        assert not screen.find_bar.has_class("-open")
        await pilot.press("slash", *"NEEDLE")  # a capital: exact case
        await pilot.pause()
        assert "no matches" in screen_text(app)
