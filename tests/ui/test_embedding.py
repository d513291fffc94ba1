"""A host embeds JobsScreen: control comes back, its CSS is untouched, worker errors stay put."""

from __future__ import annotations

from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Input, Label, Static

from jobs_tui.engine import JobManager
from jobs_tui.screens import ConfirmScreen, JobsScreen, LogScreen, StatusChips

from .fakes import FakeSource, frozen_clock, screen_text, until

pytestmark = pytest.mark.timeout(60)


class AgentShell(App[None]):
    """A host with its own CSS (reusing ids the screens use), a priority binding and chips."""

    CSS = """
    Screen { background: #101010; }
    #summary { color: #ff00ff; background: #002200; width: 30; }
    #detail { color: #00ffff; width: 20; }
    #title { text-style: italic; }
    Static { padding: 0 2; }
    Input { border: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+t", "count", "Count", priority=True, id="host.count"),
        Binding("f2", "jobs", "Jobs", id="host.jobs"),
    ]

    def __init__(self, source) -> None:
        super().__init__()
        self.source = source
        self.counted = 0
        self.results: list[object] = []
        self.notes: list[str] = []

    def compose(self) -> ComposeResult:
        yield Label("agent shell", id="title")
        yield Static("host summary", id="summary")
        yield Static("host detail", id="detail")
        yield Input(id="prompt")
        yield StatusChips(self.source, id="host-chips")
        yield Footer()

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        self.animation_level = "none"

    def action_count(self) -> None:
        self.counted += 1

    def action_jobs(self) -> None:
        self.push_screen(JobsScreen(self.source, clock=frozen_clock), self.results.append)

    def notify(self, message: str, **kwargs) -> None:  # type: ignore[override]
        self.notes.append(message)
        super().notify(message, **kwargs)


def host_styles(app: AgentShell) -> dict[str, tuple]:
    """Computed styles of every host widget that shares an id or a type with the screens."""
    out = {}
    for selector in ("#title", "#summary", "#detail", "#prompt", "#host-chips", "Footer"):
        widget = app.screen_stack[0].query_one(selector)
        s = widget.styles
        out[selector] = (
            s.color,
            s.background,
            s.width,
            s.height,
            s.padding,
            s.border,
            s.text_style,
            s.display,
            s.layout,
            s.dock,
        )
    return out


async def test_push_and_dismiss_returns_control_to_the_host(fake: FakeSource):
    app = AgentShell(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f2")
        assert isinstance(app.screen, JobsScreen)
        await pilot.press("j", "q")
        assert not isinstance(app.screen, JobsScreen)
        assert app.results == [None]
        await pilot.press("f2", "escape")
        assert app.results == [None, None]
        await pilot.click("#prompt")
        await pilot.press(*"hello")
        assert app.query_one("#prompt", Input).value == "hello"


async def test_host_priority_bindings_keep_working_on_the_screen(fake: FakeSource):
    app = AgentShell(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+t")
        await pilot.press("f2", "ctrl+t", "enter", "ctrl+t")
        assert isinstance(app.screen, LogScreen)
        assert app.counted == 3


async def test_none_of_the_screens_css_leaks_into_the_host(fake: FakeSource, log_dir: str):
    with open(f"{log_dir}/j8.log", "w") as f:
        f.write("x\n")
    app = AgentShell(fake)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        before = host_styles(app)
        assert before["#summary"][2].cells == 30  # the host's own rule applies
        await pilot.press("f2")  # the list, its detail pane, its footer
        await pilot.pause()
        during = host_styles(app)
        await pilot.press("enter", "slash")  # the log screen and its find bar
        await pilot.pause()
        in_log = host_styles(app)
        await pilot.press("escape", "escape", "d")  # a confirmation
        assert isinstance(app.screen, ConfirmScreen)
        in_confirm = host_styles(app)
        await pilot.press("n", "q")
        await pilot.pause()
        after = host_styles(app)
        assert before == during == in_log == in_confirm == after
        # the screen's ids are its own: the host's rules for common ids do not reach it
        await pilot.press("f2")
        await pilot.pause()
        assert not app.screen.query("#detail") and not app.screen.query("#summary")


async def test_a_host_can_restyle_the_screen_on_purpose(fake: FakeSource):
    class Restyled(AgentShell):
        CSS = "JobsScreen #jobs-detail { width: 20; } JobList { background: #330000; }"

    app = Restyled(fake)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        assert app.screen.query_one("#jobs-detail").region.width == 20
        assert app.screen.job_list.styles.background.hex == "#330000"


async def test_a_failing_worker_never_exits_the_host(fake: FakeSource):
    fake.fail_with = RuntimeError("the engine exploded")
    app = AgentShell(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f2", "d", "y")  # kill j8: the worker raises
        assert await until(lambda: any("exploded" in n for n in app.notes))
        await pilot.pause(0.2)
        assert app.is_running and app.return_code is None
        assert isinstance(app.screen, JobsScreen)
        await pilot.press("x", "y")  # clear: raises too
        assert await until(lambda: sum("exploded" in n for n in app.notes) == 2)
        await pilot.press("q", "ctrl+t")
        assert app.is_running and app.counted == 1


async def test_a_log_that_cannot_be_read_does_not_exit_the_host(fake: FakeSource):
    async def broken_logs(*_args, **_kwargs):
        raise OSError("disk on fire")

    fake.logs = broken_logs  # type: ignore[method-assign]
    app = AgentShell(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f2", "enter")
        screen = app.screen
        assert isinstance(screen, LogScreen)
        assert await until(lambda: "disk on fire" in screen.problem)
        assert "disk on fire" in screen_text(app)
        await pilot.press("q", "q")
        assert app.is_running and app.results == [None]


async def test_bindings_can_be_remapped_by_id(fake: FakeSource):
    app = AgentShell(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        app.set_keymap({"jobs.kill": "ctrl+k", "jobs.down": "ctrl+n"})
        await pilot.press("f2", "ctrl+n")
        assert app.screen.job_list.cursor_id == "j9"
        await pilot.press("ctrl+k")
        assert app.notes == ["j9 is another session's job; not killed."]


async def test_chips_in_the_host_count_own_jobs_and_notify_each_failure_once(
    jm: JobManager, peer: JobManager
):
    await peer.start("sleep 30", label="not ours")
    app = AgentShell(jm)
    async with app.run_test(size=(100, 30)) as pilot:
        chips = app.query_one(StatusChips)
        running = await jm.start("sleep 30", label="ours")
        assert await until(lambda: chips.counts == (1, 0))
        failing = await jm.start("exit 5", label="fails")
        assert await until(lambda: chips.counts == (1, 1))
        assert await until(lambda: "▸ 1  ✗ 1" in screen_text(app))
        await pilot.pause(0.3)
        assert app.notes == [f"{failing.id} fails failed: exit 5"]
        await jm.logs(failing.id)  # reading its result reports it
        chips.recount()
        assert chips.counts == (1, 0)
        await jm.kill(running.id, "SIGKILL")
