"""JobsScreen over a fake source: every key, the refusals, the footer, selection by id, layout."""

from __future__ import annotations

import pytest
from textual.widgets import Footer

from jobs_tui.engine import JobStatus
from jobs_tui.screens import ConfirmScreen, JobsScreen, LogScreen
from jobs_tui.screens.jobs.detail import DetailPane

from .fakes import ME, NOW_MS, PEER, FakeSource, Host, frozen_clock, record, screen_text, until

pytestmark = pytest.mark.timeout(60)

# mixed_records() in the order the screen shows them
ORDER = ["j8", "j9", "j7", "j6", "j5", "j4", "j3", "j2", "j1"]


def host(source: FakeSource, **options) -> Host:
    return Host(lambda: JobsScreen(source, clock=frozen_clock, **options))


def selected(app: Host) -> str | None:
    screen = app.screen
    assert isinstance(screen, JobsScreen)
    return screen.job_list.cursor_id


def footer_keys(app: Host) -> set[str]:
    """Descriptions of the bindings the footer shows."""
    return {b.binding.description for b in app.screen.active_bindings.values() if b.binding.show}


async def test_rows_are_ordered_running_first_with_the_summary(fake: FakeSource):
    app = host(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert [r.id for r in screen.job_list.records] == ORDER
        text = screen_text(app)
        assert "9 jobs · 3 running · 1 failed · 2 peer" in text
        assert selected(app) == "j8"


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (["down"], "j9"),
        (["j", "j"], "j7"),
        (["j", "j", "k"], "j9"),
        (["down", "up"], "j8"),
        (["up"], "j8"),
        (["end"], "j1"),
        (["G"], "j1"),
        (["G", "home"], "j8"),
        (["G", "g"], "j8"),
        (["pagedown"], "j1"),
        (["pagedown", "pageup"], "j8"),
    ],
)
async def test_movement_keys(fake: FakeSource, keys: list[str], expected: str):
    app = host(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*keys)
        assert selected(app) == expected


async def test_page_keys_move_by_a_screenful(log_dir: str):
    many = FakeSource([record(n, f"job {n}", log_dir=log_dir) for n in range(1, 101)])
    app = host(many)
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.press("pagedown")
        first_page = app.screen.job_list.cursor_index
        assert 10 <= first_page < 20
        await pilot.press("pagedown")
        assert app.screen.job_list.cursor_index == 2 * first_page
        await pilot.press("pageup")
        assert app.screen.job_list.cursor_index == first_page
        await pilot.press("end")
        assert selected(app) == "j1"
        assert app.screen.job_list.scroll_y > 0  # the cursor row was scrolled into view


@pytest.mark.parametrize("key", ["enter", "l"])
async def test_enter_and_l_open_the_selected_jobs_log(fake: FakeSource, log_dir: str, key: str):
    with open(f"{log_dir}/j9.log", "w") as f:
        f.write("peer output\n")
    app = host(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("down", key)
        assert isinstance(app.screen, LogScreen) and app.screen.job_id == "j9"
        await pilot.press("q")
        assert isinstance(app.screen, JobsScreen) and selected(app) == "j9"


@pytest.mark.parametrize("key", ["q", "escape"])
async def test_q_and_escape_dismiss_the_screen(fake: FakeSource, key: str):
    app = host(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(key)
        assert app.dismissed == 1
        assert not isinstance(app.screen, JobsScreen)


@pytest.mark.parametrize("key", ["d", "K"])
async def test_d_on_a_peer_row_refuses_with_the_exact_words(fake: FakeSource, key: str):
    app = host(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("down", key)
        assert selected(app) == "j9"
        assert app.notes == ["j9 is another session's job; not killed."]
        assert not isinstance(app.screen, ConfirmScreen)
        assert fake.calls == []


async def test_d_on_a_finished_job_says_so(fake: FakeSource):
    app = host(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("j", "j", "j", "d")  # j6, failed
        assert selected(app) == "j6"
        assert app.notes == ["j6 has already finished (✗ exit 2 · 3.1s); nothing to kill."]
        assert fake.calls == []


async def test_d_on_an_own_running_job_asks_first(fake: FakeSource):
    app = host(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == "Kill j8 (webpack --watch)?"
        await pilot.press("n")
        assert isinstance(app.screen, JobsScreen)
        assert fake.calls == []


async def test_x_with_nothing_finished_says_so(log_dir: str):
    source = FakeSource(
        [
            record(1, "running", log_dir=log_dir),
            record(2, "a peer's finished job", JobStatus.EXITED, session=PEER, log_dir=log_dir),
        ]
    )
    app = host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("x")
        assert app.notes == ["No finished jobs of this session to clear."]
        assert not isinstance(app.screen, ConfirmScreen)


async def test_x_counts_own_finished_jobs_and_unreported_results(fake: FakeSource):
    app = host(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("x")
        screen = app.screen
        assert isinstance(screen, ConfirmScreen)
        # own finished: j6 j5 j4 j3 j2 (j1 is a peer's); unseen: j6 j5
        assert screen.question == "Clear 5 finished jobs?"
        assert screen.detail.startswith("2 unreported results would be dropped")
        await pilot.press("escape")
        assert isinstance(app.screen, JobsScreen) and fake.calls == []


@pytest.mark.parametrize(
    ("keys", "note"),
    [
        (["t"], "j8 is already this session's job."),
        (["G", "t"], "j1 has finished; only a running job can be taken over."),
    ],
)
async def test_take_over_refusals(fake: FakeSource, keys: list[str], note: str):
    app = host(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*keys)
        assert app.notes == [note]


async def test_take_over_of_a_peer_asks_first(fake: FakeSource):
    app = host(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("down", "t")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == "Take over j9 (integration tests (agent))?"
        assert PEER in app.screen.detail
        await pilot.press("enter")  # Enter is the default: no
        assert fake.calls == []


async def test_footer_shows_only_the_keys_that_apply(fake: FakeSource):
    app = host(fake)
    async with app.run_test(size=(120, 30)) as pilot:
        assert app.screen.query_one(Footer)
        own_running = footer_keys(app)
        assert {"Log", "Kill", "Clear finished", "Close"} <= own_running
        assert "Take over" not in own_running
        await pilot.press("down")  # a peer's running job
        peer_running = footer_keys(app)
        assert "Take over" in peer_running and "Kill" not in peer_running
        await pilot.press("j", "j")  # own failed job
        finished = footer_keys(app)
        assert "Kill" not in finished and "Take over" not in finished
        assert "Clear finished" in finished
        await pilot.pause()
        assert "d Kill" not in screen_text(app)
        await pilot.press("g")
        await pilot.pause()
        assert "d Kill" in screen_text(app)


async def test_every_binding_has_an_id():
    from jobs_tui.screens.widgets.confirm import ConfirmScreen as Confirm

    for screen in (JobsScreen, LogScreen, Confirm):
        assert all(b.id for b in screen.BINDINGS), screen


async def test_selection_follows_the_job_across_re_sorting(fake: FakeSource):
    app = host(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("j", "j")
        assert selected(app) == "j7" and app.screen.job_list.cursor_index == 2
        # j8 finishes: it drops below the running ones, so j7 moves up a row
        fake.update("j8", status=JobStatus.EXITED, exit_code=0, finished_at=NOW_MS)
        fake.publish("job-finished", fake.records["j8"])
        app.screen.refresh_jobs()
        await pilot.pause()
        assert [r.id for r in app.screen.job_list.records][:3] == ["j9", "j7", "j8"]
        assert selected(app) == "j7" and app.screen.job_list.cursor_index == 1
        # a new job starts on top: still j7
        fake.records["j10"] = record(10, "new", seconds=0.1)
        app.screen.refresh_jobs()
        await pilot.pause()
        assert selected(app) == "j7" and app.screen.job_list.cursor_index == 2
        detail = app.screen.query_one(DetailPane)
        assert "npm run dev" in str(detail.render())


async def test_a_cleared_selection_moves_to_the_row_that_took_its_place(fake: FakeSource):
    app = host(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("j", "j", "j")
        assert selected(app) == "j6"
        del fake.records["j6"]
        app.screen.refresh_jobs()
        await pilot.pause()
        assert selected(app) == "j5"


async def test_elapsed_time_ticks_while_running(fake: FakeSource):
    now = [float(NOW_MS)]
    app = Host(lambda: JobsScreen(fake, clock=lambda: now[0]))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "31.6s" in screen_text(app)
        now[0] += 5000
        # the next tick (once a second) shows it
        assert await until(lambda: "36.6s" in screen_text(app), timeout=3)  # j8, running
        text = screen_text(app)
        assert "3.1s" in text  # j6, finished: frozen


async def test_detail_pane_of_a_peer_names_its_owner(fake: FakeSource):
    app = host(fake)
    async with app.run_test(size=(160, 30)) as pilot:
        await pilot.press("down")
        await pilot.pause()
        text = screen_text(app)
        assert f"owner    another session ({PEER}) · pid 4009" in text
        assert "pytest -q tests/integration" in text and "........F....." in text


async def test_job_text_is_never_markup(log_dir: str):
    source = FakeSource(
        [
            record(
                1,
                "[bold red]boom[/] \x1b[31mred\x1b[0m",
                JobStatus.EXITED,
                log_dir=log_dir,
                last_line="[link=x]y[/link]",
            )
        ]
    )
    app = host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        await pilot.pause()
        text = screen_text(app)
        assert "[bold red]boom[/] red" in text
        assert "[link=x]y[/link]" in text
        assert "\x1b" not in text


async def test_empty_state(log_dir: str):
    app = host(FakeSource([]))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "0 jobs · 0 running · 0 failed · 0 peer" in text
        assert "No jobs yet" in text
        assert app.screen.has_class("-empty")
        await pilot.press("enter", "d", "t")
        assert app.notes == ["No job selected."] * 3


@pytest.mark.parametrize(
    ("size", "stacked"),
    [((60, 15), True), ((80, 24), True), ((120, 40), False), ((200, 60), False)],
)
async def test_layout_holds_from_60x15_to_200x60(fake: FakeSource, size, stacked: bool):
    app = host(fake)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        rows = screen.job_list.region
        detail = screen.query_one(DetailPane).region
        assert rows.width > 0 and rows.height >= 5
        assert detail.height > 0
        if stacked:
            assert detail.y > rows.y
        else:
            assert detail.x > rows.x and detail.y == rows.y
        text = screen_text(app)
        assert "j8" in text and "webpack --watch" in text
        assert all(len(line) <= size[0] for line in text.splitlines())


async def test_own_session_id_is_what_peers_are_measured_against(log_dir: str):
    source = FakeSource([record(1, "mine", log_dir=log_dir)], session_id=ME)
    app = host(source)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert " peer" not in screen_text(app).splitlines()[1]


async def test_x_asks_about_finished_jobs_whose_processes_still_run(fake: FakeSource):
    """Issue 22: a finished job that left a daemon is cleared only once asked, killed first."""
    fake.update("j3", remaining_processes=1)
    app = host(fake)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("x")
        screen = app.screen
        assert isinstance(screen, ConfirmScreen)
        assert "1 of them still has processes running (j3): they are killed first." in (
            screen.detail
        )
        await pilot.press("y")
        await pilot.pause()
        assert await until(lambda: fake.calls[:1] == [("clear", "j3")])  # j3 with all
