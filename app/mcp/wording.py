"""What the server tells a model about finishes: true for how it runs (issue 23 D).

No client shows a model the `notifications/message` a finish sends (Claude Code, Codex,
Gemini CLI and opencode all drop it), so a server that says "you are told when it
finishes" leaves a model that believes it never learning the outcome. Only with
`--channel` does a finish reach Claude Code's model (a `<channel>` message), and then
the instructions, `job_start`'s description and its result say so; otherwise they say
to call `job_wait` (with no id for the next finish). A hook (`jobs-tui setup`) may add
finishes to the model's context too, so nothing here claims the model is never told.

Standard library only, no imports: the early handshake builds its answer from these.
"""

from __future__ import annotations

_WHAT = (
    "jobs-tui runs shell commands as durable background jobs (own process group, tree "
    "kill, rotating logs, exact exit codes)."
)
_BASE = _WHAT + " Start long commands with job_start instead of running them in the foreground. "
_WAIT = (
    "job_wait blocks for a job (with an id, several ids, or with no id for your next "
    "finish: one not yet reported, else the next to end; `until` a regex matches a line; "
    "`port` until it listens)"
)
_SHARED = (
    "All output is sanitized and bounded. The person beside you sees the same jobs live in "
    "`jobs-tui`."
)
_TAIL = (
    " Read output with job_logs (grep, since). A process left running outside any job (a "
    "dev server that escaped): job_strays lists it, job_kill with its pid ends it. " + _SHARED
)


_CHANNEL = (
    "A channel notification tells you when each of your jobs finishes (a <channel> message "
    "with its outcome line)"
)


def instructions(channel: bool, vocabulary: str = "job") -> str:
    """The server's `instructions` (naming only the tools `vocabulary` serves)."""
    if vocabulary != "job":  # exec_command / process: their own tools say how to poll
        told = f" {_CHANNEL}." if channel else ""
        return f"{_WHAT}{told} {_SHARED}"
    if channel:
        told = f"{_CHANNEL}, so do not poll: carry on. {_WAIT}."
    else:
        told = (
            "Do not count on hearing of a finish by itself: when you need a job's outcome, "
            f"call job_wait. {_WAIT}; a wait that ends with reason timeout left the job "
            "running: call job_wait again."
        )
    return _BASE + told + _TAIL


def start_description(channel: bool) -> str:
    """`job_start`'s description."""
    head = (
        "Start a shell command as a background job and return its id at once; use it for "
        "anything that takes more than a few seconds (builds, tests, dev servers). "
    )
    if channel:
        return head + "A channel notification tells you when it finishes: no need to poll."
    return head + "Carry on, then call job_wait for its outcome (no id: the next to finish)."


def started(channel: bool) -> str:
    """The line `job_start`'s result adds after the job's outcome line."""
    if channel:
        return "started; a channel notification tells you when it finishes (job_wait blocks)"
    return "started; call job_wait for its outcome (no id: the next job to finish)"


WAIT_DESCRIPTION = (
    "Block until a job ends: one (id), any or all of several (ids, mode), or with neither "
    "the next of this session's running jobs to end; or until a line of output matches a "
    "regex (until), its process tree listens on a TCP port (port), or a declared job's "
    "readiness probe passes (ready: reason ready, or not-ready when it gave up; a crash "
    "loop is a finish). At most timeoutMs "
    "(default 30 s, max 10 min; less where the client would give up sooner). Sends "
    "progress while it blocks. reason timeout or a cancelled wait leaves the job running: "
    "call job_wait again."
)
WAIT_AGAIN = "the job keeps running: call job_wait again to keep waiting"
WAKE = (
    "start: where jobs-tui's hooks are installed (`jobs-tui setup`), your turn is held open "
    "until it finishes and its outcome is reported then; elsewhere, call job_wait for it."
)
