#!/usr/bin/env python3
"""README's pictures, rendered from real jobs in a 160x45 terminal.

    python scripts/readme_pictures.py           # write docs/images/*.svg
    python scripts/readme_pictures.py --check   # exit 1 if a committed picture's text is stale

A private project and registry under PICTURES_DIR (always the same path, so the pictures
show a stable one) get a few real jobs: an agent's session starts a dev server, tests, a
failing build, an asset watcher, a killed migration and a Python REPL on a terminal, as
`jobs-tui --demo` does; the pictures are the person's `jobs-tui` beside them. Times,
CPU, memory and pids change from run to run, so `--check` (and
tests/examples/test_readme_pictures.py) compares each picture's text with every number
masked and runs of blanks closed up: a changed screen is stale, a later second is not.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import html
import re
import shutil
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
PICTURES_DIR = Path("/tmp/jobs-tui-pictures")
SIZE = (160, 45)
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEV_SERVER = """\
import sys, time
print("\\x1b[1mvite v5.2.0\\x1b[0m  ready in 312 ms\\n")
print("  ➜  Local:   http://127.0.0.1:5173/")
for i in range(1, 151):
    if i % 9 == 4:
        print(f"\\x1b[31mERROR\\x1b[0m GET /api/cart/{i} 500 {i % 13 + 2}ms")
    else:
        print(f"\\x1b[32mINFO\\x1b[0m  GET /api/cart/{i} 200 {i % 13 + 2}ms")
sys.stdout.flush()
time.sleep(600)
"""
TESTS = "echo 'collected 212 items'; echo '212 passed in 1.49s'"
BUILD = (
    "echo 'compiling 12 modules'; echo 'cc -c src/cart.c'; "
    "echo \"src/cart.c:42: error: expected ';' before '}'\" >&2; exit 2"
)
ASSETS = (
    "for i in 1 2 3 4 5 6; do printf 'assets [\\033[32m%s\\033[0m%s] %d%%\\n' "
    "\"$(printf '%*s' $((i * 4)) '' | tr ' ' '#')\" \"$(printf '%*s' $((40 - i * 4)) '')\" "
    "$((i * 10)); done; echo 'watching src/ for changes'; sleep 600"
)
MIGRATE = "echo 'applying 0042_cart_totals'; sleep 600"
PYTHON = "python3"  # on PATH in the venv the script runs in; a short command to show
AGENT = "jt-agent0c1a2d3e4f5"  # the agent's session, named the same in every picture
REPL_INPUT = [
    "from pathlib import Path",
    "len(list(Path('.').iterdir()))",
    "sum(n * n for n in range(10))",
    "print('tests:', 'passed')",
]


@dataclass
class Studio:
    """The jobs the pictures show, and the person's session that shows them."""

    manager: Any  # the person's JobManager (the screen's source)
    ids: dict[str, str]  # label -> job id


async def _until(check: Callable[[], Any], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("the pictures' jobs did not reach their state")
        await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def studio() -> AsyncIterator[Studio]:
    """Real jobs in a private registry; one studio at a time on this machine (the path is
    fixed, so the pictures show it the same)."""
    from jobs_tui.engine import Config, JobManager

    PICTURES_DIR.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{PICTURES_DIR}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(PICTURES_DIR, ignore_errors=True)
        project = PICTURES_DIR / "shop"
        project.mkdir(parents=True, mode=0o700)
        (project / "src").mkdir()
        (project / "dev_server.py").write_text(DEV_SERVER)
        registry = PICTURES_DIR / "state"
        config = Config()
        agent = JobManager(cwd=project, registry_dir=registry, config=config, session_id=AGENT)
        person = JobManager(cwd=project, registry_dir=registry, config=config)
        async with agent, person:
            ids = await _start(agent)
            await _settle(agent, ids)
            yield Studio(person, ids)
            for record in agent.jobs(include_peers=False):
                if record.running:
                    await agent.kill(record.id, "SIGKILL")
        shutil.rmtree(PICTURES_DIR, ignore_errors=True)


async def _start(agent: Any) -> dict[str, str]:
    specs: list[tuple[str, dict[str, Any]]] = [
        ("migrate", {"command": MIGRATE}),
        ("tests", {"command": TESTS}),
        ("build", {"command": BUILD}),
        ("python repl", {"command": f"{PYTHON} -q", "tty": True, "cols": 160, "rows": 42}),
        ("assets", {"command": ASSETS}),
        ("dev server", {"command": f"{PYTHON} dev_server.py --port 5173"}),
    ]
    ids = {}
    for label, spec in specs:
        ids[label] = (await agent.start(label=label, **spec)).id
    return ids


async def _settle(agent: Any, ids: dict[str, str]) -> None:
    """Every job in the state its picture shows: finished ones finished, the REPL answered,
    the server with a screenful of lines."""
    await _until(lambda: not agent.get(ids["tests"]).running)
    await _until(lambda: not agent.get(ids["build"]).running)
    await agent.kill(ids["migrate"])
    await _until(lambda: not agent.get(ids["migrate"]).running)
    repl = ids["python repl"]
    for line in REPL_INPUT:
        await agent.send_bytes(repl, line.encode() + b"\r")
        await asyncio.sleep(0.3)
    await _until(lambda: "tests: passed" in Path(agent.get(repl).log_path).read_text("latin-1"))
    server = Path(agent.get(ids["dev server"]).log_path)
    await _until(lambda: "/api/cart/150 " in server.read_text())
    assets = Path(agent.get(ids["assets"]).log_path)
    await _until(lambda: "watching" in assets.read_text())
    await asyncio.sleep(1.2)  # a usage sample of each running job


Setup = Callable[[Any], Awaitable[None]]


async def _shown(pilot: Any) -> None:
    pilot.app.theme = "textual-dark"
    pilot.app.animation_level = "none"
    await pilot.pause()


async def _sampled(pilot: Any) -> None:
    """The selected job's CPU is measured (two samples), and its live tail read."""
    detail = pilot.app.screen.query_one("#jobs-detail")
    for _ in range(100):
        if re.search(r"cpu [0-9]", str(detail.render())):
            break
        await pilot.pause(0.05)
    await pilot.pause(0.3)


async def _select(pilot: Any, job_id: str) -> None:
    screen = pilot.app.screen
    for _ in range(20):
        if screen.selected is not None and screen.selected.id == job_id:
            return
        await pilot.press("j")
    raise AssertionError(f"{job_id} could not be selected")


def jobs_scene(s: Studio) -> tuple[Any, Setup]:
    """The `jobs-tui` app: the agent's jobs, the dev server selected, its live tail."""
    from jobs_tui.app.tui import JobsApp

    async def setup(pilot: Any) -> None:
        await _shown(pilot)
        await _select(pilot, s.ids["dev server"])
        await _sampled(pilot)

    return JobsApp(s.manager), setup


def _pane_scene(s: Studio, label: str) -> tuple[Any, Setup]:
    """The pane Enter opens on the job labelled `label`, once it has read its output."""
    from jobs_tui.app.tui import JobsApp

    async def setup(pilot: Any) -> None:
        await _shown(pilot)
        await _select(pilot, s.ids[label])
        await pilot.press("enter")
        await _until(lambda: getattr(pilot.app.screen, "loaded", False))
        await pilot.pause(0.5)

    return JobsApp(s.manager), setup


def log_scene(s: Studio) -> tuple[Any, Setup]:
    """The log pane following the dev server's output."""
    return _pane_scene(s, "dev server")


def terminal_scene(s: Studio) -> tuple[Any, Setup]:
    """The terminal pane of the REPL, a job started with a terminal (`tty`)."""
    return _pane_scene(s, "python repl")


def help_scene(s: Studio) -> tuple[Any, Setup]:
    """`?` over the list: every key."""
    from jobs_tui.app.tui import JobsApp

    async def setup(pilot: Any) -> None:
        await _shown(pilot)
        await _sampled(pilot)
        await pilot.press("question_mark")
        await pilot.pause(0.3)

    return JobsApp(s.manager), setup


@dataclass(frozen=True)
class Scene:
    name: str
    title: str
    make: Callable[[Studio], tuple[Any, Setup]]


SCENES: list[Scene] = [
    Scene("jobs", "jobs-tui: the jobs screen", jobs_scene),
    Scene("log", "jobs-tui: a job's log", log_scene),
    Scene("terminal", "jobs-tui: a job with a terminal", terminal_scene),
    Scene("help", "jobs-tui: the keys (?)", help_scene),
]


async def render_all() -> dict[str, str]:
    """Each scene's SVG, as Textual exports a screenshot, all from one studio."""
    shots = {}
    async with studio() as s:
        for scene in SCENES:
            app, setup = scene.make(s)
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause()
                await setup(pilot)
                shots[scene.name] = app.export_screenshot(title=scene.title)
    return shots


_TEXT = re.compile(
    r'<text [^>]*?x="([0-9.]+)"[^>]*?clip-path="url\(#[^)]*-line-([0-9]+)\)">(.*?)</text>'
)
_CELL = 20 * 0.61  # rich's export_svg: a 20 px font, cells 0.61 of it wide
_NUMBER = re.compile(r"[0-9][0-9.:,]*")
_BLANKS = re.compile(r" {2,}")


def svg_text(svg: str, size: tuple[int, int] = SIZE) -> str:
    """The characters an SVG screenshot shows, row by row."""
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


def shape(text: str) -> str:
    """What `--check` compares: the text, numbers masked, blanks closed up."""
    return "\n".join(_BLANKS.sub(" ", _NUMBER.sub("#", line)) for line in text.splitlines())


def path_of(name: str) -> Path:
    return IMAGES / f"{name}.svg"


def stale_of(shots: dict[str, str]) -> list[str]:
    """The scenes whose committed picture shows another screen than `shots`."""
    found = []
    for name, svg in shots.items():
        path = path_of(name)
        fresh = shape(svg_text(svg))
        if not path.exists() or shape(svg_text(path.read_text("utf-8"))) != fresh:
            found.append(name)
    return found


def write(shots: dict[str, str]) -> list[Path]:
    IMAGES.mkdir(parents=True, exist_ok=True)
    written = []
    for name, svg in shots.items():
        path_of(name).write_text(svg, "utf-8")
        written.append(path_of(name))
    return written


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        names = stale_of(asyncio.run(render_all()))
        for name in names:
            print(f"docs/images/{name}.svg is stale: run python scripts/readme_pictures.py")
        return 1 if names else 0
    if argv:
        print(__doc__.strip().splitlines()[2:4], file=sys.stderr)
        return 2
    for path in write(asyncio.run(render_all())):
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
