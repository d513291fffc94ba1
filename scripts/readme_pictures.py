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


def top_bytes() -> bytes:
    """A small `top`-like program's screen, as its bytes reach a PTY job's log."""
    esc = "\x1b["
    bar = f"{esc}1;37;44m" + " shop: top   load 0.42 0.38 0.30   tasks 5   up 3:12".ljust(80)
    rows = [
        ("4120", "node", "38.2", "4.1", "vite dev --port 5173", "32"),
        ("4188", "node", "12.5", "2.7", "vitest --watch", "33"),
        ("4203", "python3", "3.1", "1.2", "manage.py runserver", "32"),
        ("4251", "postgres", "0.7", "0.9", "postgres: checkpointer", "37"),
        ("4300", "sh", "0.0", "0.1", "sh -c ./watch-assets", "37"),
    ]
    out = [f"{esc}?1049h{esc}H{esc}2J", bar, f"{esc}0m\r\n\r\n"]
    out.append(f"  CPU [{esc}32m{'|' * 8}{esc}0m{' ' * 12}] 38%   ")
    out.append(f"MEM [{esc}33m{'|' * 7}{esc}0m{' ' * 13}] 2.1G/8G\r\n\r\n")
    out.append(f"{esc}7m" + "  PID USER       %CPU %MEM COMMAND".ljust(80) + f"{esc}0m\r\n")
    for pid, user, cpu, mem, cmd, colour in rows:
        out.append(f"{pid:>5} {user:<10} {esc}{colour}m{cpu:>4}{esc}0m {mem:>4} {cmd}\r\n")
    out.append(f"{esc}23;1H{esc}7m q {esc}0m quit  {esc}7m k {esc}0m kill  {esc}7m / {esc}0m find")
    out.append(f"{esc}9;1H")
    return "".join(out).encode()


def terminal_scene(log_dir: str) -> tuple[Any, Callable[[Any], Awaitable[None]]]:
    """The terminal pane of a job started with a terminal (`tty`): its emulated screen."""
    import os

    from jobs_tui.screens.terminal_screen import TerminalScreen
    from tests.ui.fakes import FakeSource, Host, frozen_clock, record

    job = record(4, "top", seconds=192.0, command="python3 top.py", log_dir=log_dir, tty=True)
    with open(os.path.join(log_dir, "j4.log"), "wb") as f:
        f.write(top_bytes())
    source = FakeSource([job])
    app = Host(lambda: TerminalScreen(source, "j4", clock=frozen_clock))
    app.ENABLE_COMMAND_PALETTE = False

    async def setup(pilot: Any) -> None:
        pilot.app.theme = "textual-dark"
        pilot.app.animation_level = "none"
        for _ in range(150):
            if getattr(pilot.app.screen, "loaded", False):
                break
            await pilot.pause(0.02)
        await pilot.pause(0.2)

    return app, setup


SCENES: list[Scene] = [
    Scene("jobs", "jobs-tui: the jobs screen", (120, 24), jobs_scene),
    Scene("log", "jobs-tui: a job's log", (120, 24), log_scene),
    Scene("terminal", "jobs-tui: a PTY job's terminal", (84, 30), terminal_scene),
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
