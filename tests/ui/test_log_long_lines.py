"""Long lines in the log pane: shown whole, scrolled sideways, found, wrapped (issue 8.11)."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from jobs_tui.screens import LogScreen

from .fakes import FakeSource, Host, frozen_clock, record, screen_text, until

pytestmark = pytest.mark.timeout(60)

LONG = "BEGIN" + "".join(f"{i:06d}," for i in range(2860)) + "THE-END"  # 20,032 characters
WIDE = "".join(chr(0x4E00 + i % 500) for i in range(3000)) + "尾"  # 6,002 cells


@pytest.fixture
def source(log_dir: str) -> FakeSource:
    return FakeSource([record(1, "long", log_dir=log_dir)])


def write(path: str, lines: list[str]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(line + "\n" for line in lines)


async def opened(pilot) -> LogScreen:
    screen = pilot.app.screen
    assert isinstance(screen, LogScreen)
    assert await until(lambda: screen.loaded or screen.problem)
    await pilot.pause()
    return screen


def rows(app: Host) -> list[str]:
    """The log rows on the terminal, without the headers, footer and scrollbar column."""
    lines = screen_text(app).splitlines()
    view = app.screen.view
    top = view.region.y
    width = view.scrollable_content_region.width
    x = view.scrollable_content_region.x
    return [
        line[x : x + width] for line in lines[top : top + view.scrollable_content_region.height]
    ]


async def test_a_long_line_is_held_whole_and_scrolls_sideways(source, log_dir):
    assert len(LONG) > 20_000
    write(f"{log_dir}/j1.log", ["short", LONG, "after"])
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(80, 20)) as pilot:
        screen = await opened(pilot)
        assert screen.view.lines[1] == LONG
        assert screen.view.virtual_size.width > len(LONG)
        assert rows(app)[1].startswith("BEGIN000000,")
        for key in ("right", "l"):
            before = screen.view.scroll_x
            await pilot.press(key)
            await pilot.pause()
            assert screen.view.scroll_x > before
        x = int(screen.view.scroll_x)
        assert rows(app)[1].rstrip() == LONG[x : x + len(rows(app)[1])].rstrip()
        await pilot.press("left", "h", "left", "left")
        await pilot.pause()
        assert screen.view.scroll_x == 0 and rows(app)[1].startswith("BEGIN")


async def test_a_match_beyond_the_width_is_scrolled_into_view(source, log_dir):
    write(f"{log_dir}/j1.log", [LONG, "x"])
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(80, 20)) as pilot:
        await opened(pilot)
        await pilot.press("slash", *"THE-END", "enter")
        for field in app.screen.query(Input):
            field.cursor_blink = False
        await pilot.pause()
        assert any("THE-END" in row for row in rows(app)), rows(app)
        await pilot.press("escape")  # find bar closed: back to the start of the line
        await pilot.press("slash", *"002000,", "enter")
        await pilot.pause()
        assert any("002000," in row for row in rows(app)), rows(app)


async def test_w_wraps_long_lines_and_back(source, log_dir):
    write(f"{log_dir}/j1.log", ["top", LONG, "bottom"])
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(80, 20)) as pilot:
        screen = await opened(pilot)
        assert any(b.binding.id == "log.wrap" for b in screen.active_bindings.values())
        await pilot.press("w")
        await pilot.pause()
        assert screen.wrap and screen.view.wrap
        assert "wrap" in screen_text(app).splitlines()[1]
        shown = rows(app)
        # following: the end of the wrapped line and the next line are at the bottom
        assert shown[-1].rstrip() == "bottom"
        assert shown[-2].rstrip().endswith("THE-END")
        width = screen.view.scrollable_content_region.width
        assert screen.view.virtual_size.height == 2 + -(-len(LONG) // width)
        await pilot.press("g")
        await pilot.pause()
        joined = "".join(row for row in rows(app)[1:])
        assert joined.startswith(LONG[: len(joined)])
        await pilot.press("w")
        await pilot.pause()
        assert not screen.wrap and screen.view.virtual_size.height == 3


async def test_wrapped_wide_characters_are_never_split(source, log_dir):
    write(f"{log_dir}/j1.log", [WIDE])
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(81, 90)) as pilot:  # an odd width: wide characters misfit
        screen = await opened(pilot)
        await pilot.press("w")
        await pilot.pause()
        assert screen.view.max_scroll_y == 0  # every row on screen at once
        shown = [row.rstrip() for row in rows(app)]
        assert "".join(shown) == WIDE
        assert all(row for row in shown[: screen.view.virtual_size.height])


async def test_wide_characters_scroll_sideways(source, log_dir):
    write(f"{log_dir}/j1.log", [WIDE])
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(80, 20)) as pilot:
        screen = await opened(pilot)
        await pilot.press("slash", *"尾", "enter")
        await pilot.pause()
        assert screen.view.scroll_x > 5000
        assert any("尾" in row for row in rows(app))


async def test_wrapped_rows_follow_as_lines_arrive_and_fall_off_the_window(source, log_dir):
    path = f"{log_dir}/j1.log"
    write(path, ["first"])
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock, tail_lines=5, max_lines=5))
    async with app.run_test(size=(40, 40)) as pilot:
        screen = await opened(pilot)
        await pilot.press("w")
        with open(path, "a") as f:
            f.writelines(f"{n:03d}" + "y" * (30 * (n % 4)) + "|\n" for n in range(20))
            f.write("tail " + "z" * 50)
        assert await until(lambda: screen.view.partial.startswith("tail"))
        await pilot.pause()
        view = screen.view
        width = view.scrollable_content_region.width
        held = view.shown
        assert held[0].startswith("015") and len(held) == 6
        assert view.virtual_size.height == sum(-(-len(line) // width) for line in held)
        assert view.max_scroll_y == 0  # all of it on screen: the rows are the lines
        shown = [row.rstrip() for row in rows(app)][: view.virtual_size.height]
        assert "".join(shown) == "".join(held)
