"""Measure issue 22's reproduction: a fast writer of numbered 64-byte lines, followed.

    python scripts/follow_gaps.py [MiB] [max_log_bytes]     (defaults: 256, 1048576)

Starts a job that writes MiB mebibytes of numbered 64-byte lines as fast as it can
through a log rotating at max_log_bytes, follows it with the real
`jobs-tui logs j1 --follow > out 2> err`, and prints what reached `out`: lines
delivered, torn lines, gaps (runs of missing lines), the bytes those gaps hold, and
what the follower reported on stderr (`jobs-tui: N bytes rotated away unread`).
Uses its own temporary registry; the jobs_tui on sys.path is the one measured.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time

WRITER = """
import os, sys, time
total = int(sys.argv[1])
while not os.path.exists("go"):
    time.sleep(0.01)
pad = " " + "x" * 47 + "\\n"
step = 16384
for n in range(0, total, step):
    block = "".join(f"{i:015d}{pad}" for i in range(n, min(total, n + step))).encode()
    view = memoryview(block)
    while view:
        view = view[os.write(1, view):]
"""
LINE = re.compile(rb"(\d{15}) x{47}\n")
GAP = re.compile(rb"jobs-tui: (\d+) bytes rotated away unread")


def main() -> None:
    mib = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    max_log_bytes = int(sys.argv[2]) if len(sys.argv) > 2 else 1024 * 1024
    total = mib * 1024 * 1024 // 64
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(
            os.environ,
            JOBS_TUI_REGISTRY_DIR=os.path.join(tmp, "registry"),
            JOBS_TUI_CONFIG=os.path.join(tmp, "config.toml"),
            XDG_STATE_HOME=os.path.join(tmp, "state"),
        )
        with open(env["JOBS_TUI_CONFIG"], "w") as fh:
            fh.write(f"[job]\nmax_log_bytes = {max_log_bytes}\n")
        with open(os.path.join(tmp, "writer.py"), "w") as fh:
            fh.write(WRITER)
        cli = [sys.executable, "-m", "jobs_tui.app.cli"]

        def run(*words: str) -> None:
            subprocess.run([*cli, *words], env=env, cwd=tmp, check=True, capture_output=True)

        run("start", "--", f"python3 writer.py {total}")
        with (
            open(os.path.join(tmp, "out"), "wb") as out,
            open(os.path.join(tmp, "err"), "wb") as err,
        ):
            follower = subprocess.Popen(
                [*cli, "logs", "j1", "--follow"], env=env, cwd=tmp, stdout=out, stderr=err
            )
            time.sleep(1.0)  # the follower has printed its tail ("No output yet.")
            started = time.monotonic()
            open(os.path.join(tmp, "go"), "w").close()
            follower.wait()
            took = time.monotonic() - started
        with open(os.path.join(tmp, "out"), "rb") as fh:
            data = fh.read()
        with open(os.path.join(tmp, "err"), "rb") as fh:
            said = [int(m.group(1)) for m in GAP.finditer(fh.read())]
        run("clear", "--all")
    body = data.split(b"\n", 1)[1].rstrip(b"\n").rpartition(b"\n")[0] + b"\n"
    numbers, torn, at = [], 0, 0
    while at < len(body):
        match = LINE.match(body, at)
        if match:
            numbers.append(int(match.group(1)))
            at = match.end()
        else:
            torn += 1
            at = body.find(b"\n", at) + 1 or len(body)
    gaps, missing, previous = 0, 0, -1
    for n in [*numbers, total]:
        if n - previous > 1:
            gaps += 1
            missing += (n - previous - 1) * 64
        previous = n
    print(f"wrote {total} lines ({mib} MiB) through max_log_bytes={max_log_bytes} in {took:.1f} s")
    print(f"delivered {len(numbers)} whole lines ({100 * len(numbers) / total:.1f}%), {torn} torn")
    print(
        f"gaps {gaps} holding {missing} bytes; "
        f"reported on stderr: {len(said)} lines, {sum(said)} bytes"
    )
    print(f"delivered + reported = {len(numbers) * 64 + sum(said)} of {total * 64} bytes")


if __name__ == "__main__":
    main()
