"""`jobs-tui --demo`: a few sample jobs, so a newcomer sees every part of the screen at once."""

from __future__ import annotations

import shlex
import sys

from jobs_tui.engine import JobManager, JobRecord

PROGRESS = (
    "i=0; while [ $i -le 40 ]; do "
    "bar=$(printf '%*s' $i '' | tr ' ' '#'); "
    "printf 'assets [\\033[32m%-40s\\033[0m] %3d%%\\n' \"$bar\" $((i * 100 / 40)); "
    "i=$((i + 1)); sleep 0.5; done"
)
BUILD = (
    "echo 'compiling 12 modules'; sleep 1; echo 'cc -c src/cart.c'; sleep 1; "
    "echo \"src/cart.c:42: error: expected ';' before '}'\" >&2; exit 2"
)
SERVER = (
    "echo 'listening on http://127.0.0.1:8080'; n=0; while :; do sleep 2; n=$((n + 1)); "
    'echo "GET /health 200 $((n % 7 + 1))ms"; done'
)
TESTS = "echo 'collected 212 items'; sleep 1.5; echo '212 passed in 1.49s'"


def demo_jobs() -> list[dict[str, object]]:
    """The sample jobs: a progress bar, a failing build, a REPL on stdin, a server, tests."""
    python = shlex.quote(sys.executable)
    return [
        {"command": SERVER, "label": "dev server"},
        {"command": f"{python} -q -u -i", "label": "python repl", "stdin": True},
        {"command": PROGRESS, "label": "progress"},
        {"command": BUILD, "label": "build"},
        {"command": TESTS, "label": "tests"},
    ]


async def start_demo(manager: JobManager) -> list[JobRecord]:
    return [await manager.start(**spec) for spec in demo_jobs()]  # type: ignore[arg-type]
