"""The verb: read the client's input, find this agent's sessions, answer (see __init__)."""

from __future__ import annotations

import os
import sys
import time

from . import proctree, registration, reports
from .identity import agent_of, same_process
from .registration import Registration
from .shapes import BadInput, block_answer, context_answer, notice_answer, parse_input

POLL_S = 0.1  # the stop hook's look at the registry file while it holds
CONTEXT_HEAD = "jobs-tui: background jobs finished since last reported:"
WAKE_HEAD = "jobs-tui: a job you started with wake finished; carry on with its result:"


def say(message: str) -> None:
    """A line on stderr (the client logs it; it never reaches the model)."""
    try:
        sys.stderr.write(f"jobs-tui hook: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def answer(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def my_sessions() -> list[Registration]:
    """The live registrations of this hook's agent (see `identity`); dead ones removed."""
    entries = registration.read_all()
    if not entries:
        return []
    me = agent_of(proctree.ancestors(os.getpid()))
    mine: tuple[int, str] | None = (me.pid, me.token) if me else None
    found = []
    for entry in entries:
        if not registration.alive(entry):
            registration.unregister(entry.path)  # its server is gone (or its pid reused)
            continue
        if same_process(entry.agent, mine) and reports.usable_dir(entry):
            found.append(entry)
    return found


def run(event: str, client: str, limit: float) -> int:
    try:
        raw = sys.stdin.buffer.read(8 * 1024 * 1024) if sys.stdin is not None else b""
    except (OSError, ValueError):
        raw = b""
    try:
        hook = parse_input(client, event, raw)
    except BadInput as exc:
        say(f"{exc}; nothing done (this hook reads the {client} hook input)")
        return 0
    try:
        sessions = my_sessions()
        if not sessions:
            return 0
        if event == "stop":
            return stop(client, sessions, limit, hook.stop_hook_active)
        return context(client, event, sessions)
    except KeyboardInterrupt:
        return 0
    except OSError as exc:
        say(f"the registry could not be read or written ({exc.strerror or exc}); nothing done")
        return 0


def context(client: str, event: str, sessions: list[Registration]) -> int:
    lines: list[str] = []
    for entry in sessions:
        taken = reports.take(entry, wake_only=False)
        if taken:
            lines += reports.finish_lines(entry, taken)
    if lines:
        answer(context_answer(client, event, "\n".join([CONTEXT_HEAD, *lines])))
    return 0


def stop(client: str, sessions: list[Registration], limit: float, active: bool) -> int:
    """Hold while a wake job runs; block with the finishes of wake jobs once there are
    some. Never blocks without a finish not reported before (whatever `active` says: a
    client's stop_hook_active only tells that a stop hook made the agent go on already),
    so each block is a new finish and the agent always gets to stop."""
    del active
    deadline = time.monotonic() + limit
    while True:
        woke: list[str] = []
        for entry in sessions:
            taken = reports.take(entry, wake_only=True)
            if taken:
                others = reports.take(entry, wake_only=False)  # said along, once
                woke += reports.finish_lines(entry, taken + others)
        if woke:
            answer(block_answer(client, "\n".join([WAKE_HEAD, *woke])))
            return 0
        running = [(e, j) for e in sessions for j in reports.running_wake(e)]
        if not running:
            return 0
        if time.monotonic() >= deadline:
            shown = ", ".join(reports.running_line(j) for _, j in running[:10])
            message = (
                f"jobs-tui: stopped waiting after {limit:g} s; wake jobs still running: {shown}"
            )
            say(message)
            answer(notice_answer(client, message))
            return 0
        sessions = [e for e in sessions if registration.alive(e)]  # its server ended: done
        if not sessions:
            return 0
        wait_for_a_write(sessions, deadline)


def wait_for_a_write(sessions: list[Registration], deadline: float) -> None:
    """Until one of the sessions' registry files is written (a settle is a write), the
    deadline passes, or a server is gone (about once a second)."""
    keys = [reports.file_key(e) for e in sessions]
    polls = 0
    while time.monotonic() < deadline and keys == [reports.file_key(e) for e in sessions]:
        time.sleep(min(POLL_S, max(0.0, deadline - time.monotonic())))
        polls += 1
        if polls % 10 == 0 and not all(registration.alive(e) for e in sessions):
            return
