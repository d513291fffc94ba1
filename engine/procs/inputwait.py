"""Waiting for input (issue 27, feature 1), for the session side: the shim's core, by the
name the rooms above use. The shim runs it (the job's ancestor: ptrace rules let it read
/proc/PID/syscall) and answers `{"op": "input"}`; a reader without a shim (a stray, an
adopted process) can sample a tree itself with `InputWatch` (syscall may then be
unreadable: the wchan fallback says so in `how`).

API: `InputWatch(target, tty, min_wait_s=1.0).sample(pids) -> InputWait | None`;
`InputWait(pid, since_ms, fd, how, target)`, `.fields()`; `pipe_target(fd)`;
`prompt_of(tail_bytes)`; `reading(pid, target, tty, reads)` for one look at one process.
"""

from __future__ import annotations

from jobs_tui.engine.shim.inputwait import (
    MIN_WAIT_S,
    InputWait,
    InputWatch,
    machine_reads,
    pipe_target,
    prompt_of,
    reading,
)

__all__ = [
    "MIN_WAIT_S",
    "InputWait",
    "InputWatch",
    "machine_reads",
    "pipe_target",
    "prompt_of",
    "reading",
]
