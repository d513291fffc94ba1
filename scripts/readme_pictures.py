#!/usr/bin/env python3
"""README's pictures, rendered from the snapshot tests' scenes (fake jobs, frozen clock).

    python scripts/readme_pictures.py           # write docs/images/*.svg
    python scripts/readme_pictures.py --check   # exit 1 if a committed picture's text is stale

The scenes reuse `tests/ui/fakes.py` and `tests/snapshots/test_snapshots.py`, so the
pictures show what the screens show now. `--check` (and tests/examples/test_readme_pictures.py)
compares the text on each picture, cell by cell, not the SVG bytes: a Textual upgrade
that only restyles its SVG export keeps them true; a changed screen does not.
"""

from __future__ import annotations

import asyncio
import html
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
if str(ROOT) not in sys.path:  # the scenes live in the test suite
    sys.path.insert(0, str(ROOT))


@dataclass(frozen=True)
class Scene:
    """One picture: a file name, a title, a size, the app and what to do before the shot."""

    name: str
    title: str
    size: tuple[int, int]
    make: Callable[[str], tuple[Any, Callable[[Any], Awaitable[None]]]]  # log_dir -> app, setup


def jobs_scene(log_dir: str) -> tuple[Any, Callable[[Any], Awaitable[None]]]:
    """The `jobs-tui` app: every status, a peer, the dev server's detail and its usage line."""
    from jobs_tui.app.tui import JobsApp
    from tests.snapshots.test_snapshots import SHOWN_DIR
    from tests.ui.fakes import UsageSource, frozen_clock, mixed_records

    records = mixed_records(log_dir)
    records[0] = replace(records[0], env_names=("NODE_ENV", "API_TOKEN"), restart_of="j2")
    source = UsageSource(records, shown_log_dir=SHOWN_DIR)

    async def setup(pilot: Any) -> None:
        pilot.app.theme = "textual-dark"
        pilot.app.animation_level = "none"
        await pilot.pause()
        await pilot.press("j", "j")  # j7, the dev server
        for _ in range(150):
            detail = str(pilot.app.screen.query_one("#jobs-detail").render())
            if source.samples and "usage" in detail:
                break
            await pilot.pause(0.02)
        await pilot.pause(0.1)

    return JobsApp(source, clock=frozen_clock), setup  # type: ignore[arg-type]


def log_scene(log_dir: str) -> tuple[Any, Callable[[Any], Awaitable[None]]]:
    """The log pane following the dev server's output."""
    from tests.snapshots.test_snapshots import SHOWN_DIR, loaded, log, write_server_log
    from tests.ui.fakes import FakeSource, mixed_records

    write_server_log(log_dir)
    app = log(FakeSource(mixed_records(log_dir), shown_log_dir=SHOWN_DIR))
    app.ENABLE_COMMAND_PALETTE = False  # as in the `jobs-tui` app
    return app, loaded


# The third picture: the terminal view of a PTY job (being built in another branch).
# Hook: define `terminal_scene(log_dir) -> (app, setup)` like the two above and set
# TERMINAL_SCENE = Scene("terminal", "jobs-tui: a PTY job's terminal", (120, 24), terminal_scene)
TERMINAL_SCENE: Scene | None = None

SCENES: list[Scene] = [
    Scene("jobs", "jobs-tui: the jobs screen", (120, 24), jobs_scene),
    Scene("log", "jobs-tui: a job's log", (120, 24), log_scene),
    *([TERMINAL_SCENE] if TERMINAL_SCENE else []),
]


async def render(scene: Scene) -> str:
    """The scene's SVG, as Textual exports a screenshot."""
    with tempfile.TemporaryDirectory() as log_dir:
        app, setup = scene.make(log_dir)
        async with app.run_test(size=scene.size) as pilot:
            await pilot.pause()
            await setup(pilot)
            return app.export_screenshot(title=scene.title)


_TEXT = re.compile(
    r'<text [^>]*?x="([0-9.]+)"[^>]*?clip-path="url\(#[^)]*-line-([0-9]+)\)">(.*?)</text>'
)
_CELL = 20 * 0.61  # rich's export_svg: a 20 px font, cells 0.61 of it wide


def svg_text(svg: str, size: tuple[int, int]) -> str:
    """The characters an SVG screenshot shows, row by row (what `--check` compares)."""
    from rich.cells import cell_len

    width, height = size
    cells = [[" "] * width for _ in range(height)]
    for x, y, escaped in _TEXT.findall(svg):
        if int(y) >= height:
            continue
        row, col = cells[int(y)], round(float(x) / _CELL)
        for char in html.unescape(escaped.replace("&#160;", " ")):
            if col < width:
                row[col] = char
            col += max(1, cell_len(char))
    return "\n".join("".join(row).rstrip() for row in cells)


def path_of(scene: Scene) -> Path:
    return IMAGES / f"{scene.name}.svg"


async def stale() -> list[str]:
    """The scenes whose committed picture shows other text than the screen does now."""
    found = []
    for scene in SCENES:
        path = path_of(scene)
        fresh = svg_text(await render(scene), scene.size)
        if not path.exists() or svg_text(path.read_text("utf-8"), scene.size) != fresh:
            found.append(scene.name)
    return found


async def write_all() -> list[Path]:
    IMAGES.mkdir(parents=True, exist_ok=True)
    written = []
    for scene in SCENES:
        path = path_of(scene)
        path.write_text(await render(scene), "utf-8")
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        names = asyncio.run(stale())
        for name in names:
            print(f"docs/images/{name}.svg is stale: run python scripts/readme_pictures.py")
        return 1 if names else 0
    if argv:
        print(__doc__.strip().splitlines()[2:4], file=sys.stderr)
        return 2
    for path in asyncio.run(write_all()):
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
