"""At every size from 60x15 up, the selection's outcome and last line stay visible (8.12, 8.17)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from jobs_tui.engine.records.format import outcome
from jobs_tui.engine.records.model import JobStatus
from jobs_tui.screens import JobsScreen
from jobs_tui.screens.jobs.detail import FIELD_WIDTH, DetailPane

from .fakes import NOW_MS, FakeSource, Host, frozen_clock, mixed_records, record, screen_text

pytestmark = pytest.mark.timeout(120)

LONG_COMMAND = "pytest -q " + " ".join(f"tests/unit/test_module_{i}.py" for i in range(12))


def records(log_dir: str):
    return [
        *mixed_records(log_dir),
        record(
            10,
            "suite with a long command",
            JobStatus.FAILED,
            seconds=9.0,
            ago=2,
            exit_code=1,
            command=LONG_COMMAND,
            last_line="FAILED tests/unit/test_module_3.py::test_everything - assert 1 == 2",
            log_dir=log_dir,
        ),
    ]


def detail_lines(app: Host) -> list[str]:
    """The detail pane's rows as the terminal shows them."""
    area = app.screen.query_one(DetailPane).content_region
    lines = screen_text(app).splitlines()[area.y : area.bottom]
    return [line[area.x : area.right] for line in lines]


def squeezed(text: str | list[str]) -> str:
    """Text without its whitespace, so a value wrapped over rows can be found whole."""
    if isinstance(text, list):
        text = "".join(line[FIELD_WIDTH:] if line[:1] == " " else line for line in text)
    return "".join(text.split())


SIZES = [(60, 15), (64, 16), (72, 18), (80, 24), (99, 15), (100, 15), (120, 20), (200, 60)]


@pytest.mark.parametrize("size", SIZES)
async def test_outcome_and_last_line_of_every_selection_are_on_screen(log_dir: str, size):
    source = FakeSource(records(log_dir))
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        for job in list(screen.job_list.records):
            screen.job_list.select(job.id)
            await pilot.pause()
            text = squeezed(detail_lines(app))
            assert squeezed(outcome(job, NOW_MS)) in text, (size, job.id, detail_lines(app))
            last = job.last_line or "no output yet"
            assert squeezed(last) in text, (size, job.id, detail_lines(app))
            rows = screen.job_list
            assert rows.region.height >= min(3, len(rows.records)), (size, rows.region)
            visible = rows.scroll_y <= rows.cursor_index < rows.scroll_y + rows.region.height
            assert visible, (size, job.id)


async def test_the_detail_grows_into_rows_the_list_does_not_need(log_dir: str):
    command = " ".join(LONG_COMMAND.split()[:6])  # three rows at 60 columns
    source = FakeSource([replace(records(log_dir)[-1], command=command), *records(log_dir)[:1]])
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(60, 15)) as pilot:
        await pilot.pause()
        app.screen.job_list.select("j10")
        await pilot.pause()
        lines = detail_lines(app)
        # two jobs: the list needs two rows; the detail shows every field, command whole
        assert [line.split()[0] for line in lines if line[:1] != " "][1:] == [
            "command",
            "cwd",
            "outcome",
            "last",
        ], lines
        assert squeezed(command) in squeezed(lines)


async def test_wrapped_values_align_under_the_value(log_dir: str):
    source = FakeSource(records(log_dir))
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.screen.job_list.select("j10")
        await pilot.pause()
        detail = app.screen.query_one(DetailPane)
        area = detail.content_region
        lines = [
            line[area.x : area.right]
            for line in screen_text(app).splitlines()[area.y : area.bottom]
        ]
        start = next(i for i, line in enumerate(lines) if line.startswith("command "))
        assert lines[start + 1].startswith(" " * FIELD_WIDTH + "tests/unit/"), lines
        assert lines[start + 1][FIELD_WIDTH] != " "
