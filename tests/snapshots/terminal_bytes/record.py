"""Re-record the terminal snapshots' bytes from real programs on a real PTY job.

    python tests/snapshots/terminal_bytes/record.py

Each `<name>.bin` is the raw log of `<name>.py` run with a terminal of the given size
(the curses one between two shell prints, to show the main screen coming back).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile

from jobs_tui.engine import JobManager

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable
RECORDINGS = {
    "curses_box": (
        f"printf 'before curses $ '; {PY} {HERE}/curses_box.py; printf 'back at the shell\\r\\n'",
        40,
        14,
    ),
    "progress": (f"{PY} {HERE}/progress.py", 50, 8),
    "colours": (f"{PY} {HERE}/colours.py", 50, 10),
}


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with JobManager(cwd=".", registry_dir=os.path.join(tmp, "reg")) as jm:
            for name, (command, cols, rows) in RECORDINGS.items():
                rec = await jm.start(command, tty=True, cols=cols, rows=rows)
                await jm.wait(rec.id, timeout_ms=20_000)
                with open(os.path.join(HERE, f"{name}.bin"), "wb") as f:
                    f.write(jm.follow(rec.id, 0).read().data)


if __name__ == "__main__":
    asyncio.run(main())
