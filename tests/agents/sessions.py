"""The scripted sessions the Codex, Gemini CLI and opencode tests play as the model.

A script sees each request as a neutral Turn (tests/agents/fakemodel.py) and decides
the next reply from the last tool result in it, so the same script drives every client
whatever it calls the tools (`mcp__jobs__job_start`, `mcp_jobs_job_start`,
`jobs_job_start`): `short` takes the server's own name back out.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .fakemodel import Reply, Turn

READY = "READY-7"
SERVER = f"echo starting; sleep 2; echo {READY}; exec sleep 300"
WAKER = "sleep 2; echo bye-from-wake; exit 3"
# The outcome line the hooks add (the form: `✗ j4 build · exit 2 · 41.0s · last line: …`)
FINISH = re.compile(r"✗ (j[1-9]\d*) waker · exit 3 · [0-9.]+s · last line: bye-from-wake")


def short(name: str) -> str:
    """The server's tool name inside a client's (`mcp__jobs__job_kill` -> `job_kill`)."""
    found = re.search(r"(job_[a-z]+)$", name)
    return found.group(1) if found else name


def job_id(text: str) -> str:
    """The job id in a tool result, structured (`"id":"j1"`) or text (`▸ j1 server`)."""
    found = re.search(r'"id"\s*:\s*"(j[1-9][0-9]*)"', text)
    if found:
        return found.group(1)
    found = re.search(r"\bj[1-9][0-9]*\b", text)
    assert found, text
    return found.group(0)


def server_session(steps: list[str], wake: bool) -> Callable[[Turn], Reply]:
    """Start a server-like job, wait until its ready line, read its logs, kill it; then
    (with `wake`) start a `wake` job and end the turn, and when the turn goes on (the
    stop hook's continuation, a new user message), say so and end."""
    ids: dict[str, str] = {}

    def script(turn: Turn) -> Reply:
        last = turn.messages[-1] if turn.messages else None
        result = turn.last_result()
        if last is None or not last.results or result is None:
            if "waker" in ids:
                steps.append(f"#{turn.request.index} the turn went on after the wake job")
                return Reply.say("the wake job's outcome is in my context; done")
            return Reply.call("job_start", command=SERVER, label="server")
        step = short(result.name)
        steps.append(f"#{turn.request.index} {step}: {result.text[-240:]!r}")
        if step == "job_start" and "server" not in ids:
            ids["server"] = job_id(result.text)
            # fromStart: the ready line may come before the wait does (a model round trip)
            return Reply.call(
                "job_wait", id=ids["server"], until=READY, fromStart=True, timeoutMs=60000
            )
        if step == "job_wait":
            return Reply.call("job_logs", id=ids["server"])
        if step == "job_logs":
            return Reply.call("job_kill", id=ids["server"])
        if step == "job_kill" and wake:
            return Reply.call("job_start", command=WAKER, label="waker", wake=True)
        if step == "job_start":
            ids["waker"] = job_id(result.text)
            return Reply.say("started the waker; nothing else to do now")
        return Reply.say("done: started, waited, read and killed")

    return script
