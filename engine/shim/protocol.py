"""The shim's protocol: its start spec, its ready line, and the JSON lines on its socket.

Stdlib only and import-free at run time: the shim imports it, and starts with
`python -I -S`. The shapes below are TypedDicts for type checkers only (`typing` is not
imported when the shim runs); code that builds or reads a message uses the names here.

Start: `python -I -S -c BOOTSTRAP ENGINE_DIR SPEC` on Linux, `python -m jobs_tui.engine.shim.main
SPEC` elsewhere (see session/launch.py), SPEC a `StartSpec` as JSON.
Every path in it comes from `RegistryPaths`: the shim spells no file name itself. Once
the job runs (or could not start) the shim writes one `Ready` (or `{"error": ...}`) to
`readyFd` and closes it. A held start (a restart, with `holdFd`) first writes
`{"held": true}` and a newline, then waits for one byte `g` on `holdFd` before it spawns
the command; the pipe closed instead, it ends with an error and spawns nothing.

Socket (`spec["socket"]`, 0600), JSON lines both ways. A request has an `op`; its reply
comes in order and echoes it as `re`. A bad request gets `{"ok": false, "error": ...}`
and the shim keeps serving.

  -> {"op": "watch"}                  <- StateEvent, then every event below as it happens
  -> {"op": "state"}                  <- StateEvent (no events follow)
  -> {"op": "send", "data": B64, "eof": b}          <- {"ok": true, "sent": n, "stdinClosed": b}
  -> {"op": "kill", "signal": S, "graceMs": n, "reason": r, "stop": b,
       "by": {"door": d, "session": s}}   (`by`: who asked, the end's `killedBy`)
        (`stop`, a declared job: its declared `stop_signal` instead of S; after the grace
        TERM (if S was not TERM), KILL 1 s later. A declared job killed while it waits or
        between two runs ends at once: nothing is spawned, and no kill through the socket
        is ever followed by a restart)
        <- running: {"ok": true, "signalled": true, "signal": S, "processes": n,
                     "graceMs": g}   (g: how long until KILL, a TERM step included)
        <- finished: {"ok": true, "signalled": false, "leftovers": n, "finished": true,
                      "graceMs": g}
  -> {"op": "owner", "pid": p|null, "token": t|null}  <- {"ok": true}
  -> {"op": "resize", "cols": c, "rows": r}           <- {"ok": true}
  -> {"op": "resume", "maxOutputBytes": n?}  <- {"ok": true, "maxOutputBytes": n|null}
        (a job its output limit stopped: SIGCONT; the cap off, or n)
  -> {"op": "input"}  <- {"ok": true, "waitingForInput": {"since": ms, "pid": p, "fd": n,
                          "how": "syscall"|"wchan", "prompt": s} | null}
        (one look at the tree; a process asleep reading the job's stdin pipe or terminal
        at two looks at least 1 s apart is waiting: ask at most once a second; `since`
        is the first look that saw it; `prompt` the output's last line, raw; inputwait.py)

Events, pushed to watching clients:

  <- {"ev": "output", "bytes": n, "tail": s}    at most every 1 s; raw recent output
                                                (sessions sanitize it)
  <- {"ev": "log-lost", "lostBytes": n, "logNote": s|null}   output the log lost (a
                                                deleted live segment, a full disk)
  <- {"ev": "exit", ...ExitFields}              the job's exit status is known
  <- {"ev": "gone", "escalated": b, "processes": n}   after a kill: the whole tree is
                                                gone (SIGKILL had to follow: escalated)
  <- {"ev": "remaining", "remaining": n}        the job has exited and n processes of its
                                                tree still run (0: none is left); the
                                                exit event and state carry `remaining` too
  <- {"ev": "phase", ...PhaseFields, pid?, startToken?, shimPid?, shimToken?, cgroup?}
                                                a declared job's phase changed (waiting,
                                                starting, ready, not-ready, restarting);
                                                with the identity of the command running
                                                now, when one runs (a restart changes it)
  <- {"ev": "repeating", "repeating": Repeating}  a line repeated `repeatLimit` times in a
                                                row (once per run; `state` has the count)
  <- {"ev": "output-limit", "outputLimit": OutputLimit, "repeating"?: Repeating}
                                                the output reached `maxOutputBytes`: the
                                                tree is stopped, or killed (`output-limit`)

Output running away (`repeatLimit`, `maxOutputBytes`, `onLimit` in the start spec, see
shim/runaway.py): `state` replies and the end file carry `repeating` and `outputLimit`
once there is something to say.

Declared jobs (`declared` in the start spec, a `DeclaredSpec`, see shim/declared.py): the
shim waits for the dependencies before it spawns the command (its ready line then has
`"pid": null`, and the phase event carries the pid once it runs), probes readiness and
applies the restart policy itself. `state` replies and the end file carry the
`PhaseFields`; a restart is not an `exit` (the job's end is: it is written and announced
once). End reasons of its own: `dependency` (a dependency can no longer reach the state
asked for: it never ran, exit status 1, `phaseDetail` says which and why), `crash-loop`
(it exited again after `max_restarts` restarts), `spawn-failed`. Its files, beside the
end file, named in the spec like every other: `<id>.started` ({"at", "pid"}, written once,
when the command is first spawned) and `<id>.ready` ({"ready": true, "at", "restarts"} when
the probe passed, {"ready": false, "at", "detail"} when `limit_ms` went by first; removed
at a restart, until the probe passes again). Both are written atomically (a rename), so a
dependent's shim wakes on IN_MOVED_TO (dirwatch).

Files: `spec["end"]` holds the `ExitFields` as JSON, then `spec["status"]` the exit status
alone (code, or -N for signal N). Beside the live log `spec["log"]`, `base_of(log)` says
where it starts in the whole output (`<inode> <offset>`, see logwriter); a rotation
renames it to `spec["previous"]` (`previous_of(log)` for a session's own jobs).
`times_of(log)` says when the output was written (offset/time records, see timeindex);
`sizes_of(log)` a terminal job's screen sizes from the byte each began at (sizeindex).
"""

TYPE_CHECKING = False  # not `typing`: the shim imports this module and must start fast

# Requests (`op`) and events (`ev`).
OP_WATCH = "watch"
OP_STATE = "state"
OP_SEND = "send"
OP_KILL = "kill"
OP_OWNER = "owner"
OP_RESIZE = "resize"
OP_RESUME = "resume"  # a job stopped by its output limit (runaway.py)
OP_INPUT = "input"  # is the job waiting for input? (inputwait.py)
MIN_COLS, MAX_COLS, MIN_ROWS, MAX_ROWS = 20, 500, 5, 300  # a terminal's size (resize, start)
EV_STATE = "state"
EV_OUTPUT = "output"
EV_LOG_LOST = "log-lost"
EV_EXIT = "exit"
EV_GONE = "gone"
EV_REMAINING = "remaining"
EV_PHASE = "phase"  # a declared job's phase (declared.py)
EV_REPEATING = "repeating"  # the same line N times in a row (runaway.py)
EV_OUTPUT_LIMIT = "output-limit"  # the output reached maxOutputBytes (runaway.py)
ON_LIMIT = ("stop", "kill")  # what the output limit does

# The signals a kill may send, in every vocabulary (the schemas' enum, the CLI's --signal).
KILL_SIGNALS = ("SIGTERM", "SIGKILL", "SIGINT")

# Set (to anything) in a session's environment: its shims poll their owner instead of
# watching a pidfd, as they must where `os.pidfd_open` is missing (macOS). For tests.
ENV_OWNER_POLL = "JOBS_TUI_OWNER_POLL"


def previous_of(live: str) -> str:
    """The rotated segment of the live log `live`."""
    return live + ".1"


def base_of(live: str) -> str:
    """The file that says where the live log `live` starts in the job's whole output."""
    return live + ".base"


def times_of(live: str) -> str:
    """When the job's output was written: offset/time records beside the live log `live`."""
    return live + ".time"


def sizes_of(live: str) -> str:
    """A terminal job's screen sizes, from which byte on (sizeindex): beside the live log."""
    return live + ".size"


def exit_info_fields(message: dict) -> tuple:
    """(exitStatus, reason, signal, finishedAt) of an exit event or a finished state."""
    return (
        message.get("exitStatus"),
        message.get("reason"),
        message.get("signal"),
        message.get("finishedAt"),
    )


if TYPE_CHECKING:
    from typing import Literal, NotRequired, TypedDict

    class StartSpec(TypedDict):
        id: str
        command: str
        cwd: str
        log: str  # the live segment
        previous: str  # the rotated segment
        status: str
        end: str
        socket: str
        maxLogBytes: int  # rotate at this size (0: never)
        killGraceMs: int  # TERM, then KILL after this long
        timeoutMs: int | None  # the deadline, from the start
        stdin: bool  # a stdin pipe (a terminal always has one)
        tty: bool
        cols: int
        rows: int
        ownerPid: int | None  # None: detached (or a persistent session's): no owner
        ownerToken: str | None  # the owner's start token (against pid reuse)
        ownerPoll: bool  # poll the owner even where a pidfd could watch it
        marker: str  # JOBS_TUI_JOB, in the job's environment
        cgroup: bool  # make the job a cgroup of its own where the kernel lets us
        readyFd: NotRequired[int]  # added by `launch`: where the Ready line goes
        holdFd: NotRequired[int]  # a held start: spawn only after a `g` read from it
        declared: NotRequired["DeclaredSpec"]  # a declared job's rules, run by its shim
        repeatLimit: NotRequired[int | None]  # >= 2: the note on N equal lines in a row
        maxOutputBytes: NotRequired[int | None]  # the cap on the total output
        onLimit: NotRequired[Literal["stop", "kill"]]  # at the cap (default stop)

    class Repeating(TypedDict):
        line: str  # the run's first line, raw (sanitize before showing it)
        count: int  # lines in the run so far
        since: int  # ms since the epoch: its first line came
        ongoing: bool  # False once another line broke it
        approx: bool  # part of the count is from sampled bytes (fast varied output)

    class OutputLimit(TypedDict):
        maxBytes: int | None  # None: lifted by a resume
        onLimit: Literal["stop", "kill"]
        reachedAt: int | None  # ms since the epoch
        atBytes: int | None  # the output's total when it acted
        stopped: bool  # the tree is SIGSTOPped now

    class ProbeSpec(TypedDict):
        kind: Literal["log", "port", "http", "exec"]
        target: str | int  # the line's text, the port, the URL, the command
        period_ms: int  # between two probes (log: matched as the output goes by)
        timeout_ms: int  # one probe's (http, port, exec)
        limit_ms: int | None  # then `not-ready` (the job keeps running); None: never

    class DeclaredFiles(TypedDict):
        started: str  # paths in the registry directory (RegistryPaths.started/ready/end)
        ready: str
        end: NotRequired[str]  # a dependency's

    class Dependency(TypedDict):
        id: str  # the job id the session resolved the name to
        name: str
        until: Literal["started", "ready", "succeeded"]
        files: DeclaredFiles  # added by `launch.start_spec`

    class DeclaredSpec(TypedDict):
        name: str
        ready: ProbeSpec | None
        restart: Literal["no", "on-failure", "always"]
        max_restarts: int | None  # None: unlimited
        backoff_ms: int  # from an exit to the next spawn
        depends: list[Dependency]
        stop_signal: str  # a stop (`kill` with `stop`) sends it, then KILL after the grace
        kill_grace_ms: int  # becomes the spec's killGraceMs
        files: DeclaredFiles  # its own, added by `launch.start_spec`

    class PhaseFields(TypedDict):
        name: str
        phase: Literal["waiting", "starting", "ready", "not-ready", "restarting", "ended"]
        waitingFor: list[str]  # the dependencies not reached yet (names)
        restarts: int  # restarts so far
        maxRestarts: int | None
        lastExit: int | None  # the exit status the last restart followed
        phaseDetail: str | None  # the probe that passed, the marker line, why it ended

    class Ready(TypedDict):
        pid: int  # the job's group leader (`sh -c COMMAND`)
        startToken: str | None
        shimPid: int
        shimToken: str | None
        cgroup: str | None  # the job's own cgroup (v2) directory, or None where none was made

    class ExitFields(TypedDict):
        exitStatus: int  # code, or -N for signal N
        reason: str  # exit, kill, deadline, owner-gone, output-limit
        signal: str | None  # the signal it died of, or the one a kill sent
        finishedAt: int | None  # ms since the epoch
        bytes: int  # output written, in all
        tail: str  # raw recent output
        lostBytes: int
        logNote: str | None
        repeating: NotRequired[Repeating]
        outputLimit: NotRequired[OutputLimit]
        oomKill: NotRequired["OomKill"]  # died of SIGKILL as an OOM kill counter moved

    class OomKill(TypedDict):
        source: Literal["cgroup", "machine"]  # the job's cgroup (certain), or /proc/vmstat
        kills: int  # how far it moved over the job's life

    class WatchRequest(TypedDict):
        op: Literal["watch", "state"]

    class SendRequest(TypedDict):
        op: Literal["send"]
        data: str  # base64
        eof: NotRequired[bool]  # close stdin after (on a terminal: type ^D)

    class KillRequest(TypedDict):
        op: Literal["kill"]
        signal: str  # one of KILL_SIGNALS
        graceMs: NotRequired[int | None]  # default: the spec's killGraceMs
        reason: NotRequired[str]  # kill (default), owner-gone
        stop: NotRequired[bool]  # a declared job: its declared stop_signal instead

    class OwnerRequest(TypedDict):
        op: Literal["owner"]
        pid: int | None  # None: no owner any more (detached)
        token: str | None

    class ResizeRequest(TypedDict):
        op: Literal["resize"]
        cols: int
        rows: int

    class ResumeRequest(TypedDict):
        op: Literal["resume"]
        maxOutputBytes: NotRequired[int | None]  # the new cap (more than the output so far)

    class Reply(TypedDict, total=False):
        re: str  # the op answered
        ok: bool
        error: str  # ok false: why
        sent: int  # send: bytes taken
        stdinClosed: bool  # send
        signalled: bool  # kill: the job was running
        signal: str  # kill
        processes: int  # kill: processes of the tree signalled so far
        leftovers: int  # kill of a finished job: processes it left, signalled
        finished: bool  # kill: the job had finished

    class StateEvent(TypedDict, total=False):
        ev: Literal["state"]
        re: str
        pid: int  # 0 before the job is spawned
        startToken: str | None
        shimPid: int
        shimToken: str | None
        bytes: int
        tail: str
        running: bool
        lostBytes: int
        logNote: str | None
        # and, once it finished, the ExitFields
        exitStatus: int
        reason: str
        signal: str | None
        finishedAt: int | None
        repeating: Repeating  # with repeatLimit, once a run reached it
        outputLimit: OutputLimit  # with maxOutputBytes
        oomKill: OomKill  # finished: died of SIGKILL as an OOM kill counter moved

    class OutputEvent(TypedDict):
        ev: Literal["output"]
        bytes: int
        tail: str

    class LogLostEvent(TypedDict):
        ev: Literal["log-lost"]
        lostBytes: int
        logNote: str | None

    class ExitEvent(ExitFields):
        ev: Literal["exit"]

    class GoneEvent(TypedDict, total=False):  # {} when the link closed instead
        ev: Literal["gone"]
        escalated: bool
        processes: int

    class RemainingEvent(TypedDict):
        ev: Literal["remaining"]
        remaining: int  # processes of the finished job's tree still running

    class PhaseEvent(PhaseFields, total=False):
        ev: Literal["phase"]
        pid: int  # the command running now, when one runs
        startToken: str | None
        shimPid: int
        shimToken: str | None
        cgroup: str | None

    class InputRequest(TypedDict):
        op: Literal["input"]

    class WaitingForInput(TypedDict):
        since: int  # ms since the epoch: the first look that saw it waiting
        pid: int
        fd: int
        how: Literal["syscall", "wchan"]  # /proc/PID/syscall, or (unreadable) its wchan
        prompt: str  # the output's last line, raw (sanitize it)

    class RepeatingEvent(TypedDict):
        ev: Literal["repeating"]
        repeating: Repeating

    class OutputLimitEvent(TypedDict):
        ev: Literal["output-limit"]
        outputLimit: OutputLimit
        repeating: NotRequired[Repeating]

    Request = (
        WatchRequest
        | SendRequest
        | KillRequest
        | OwnerRequest
        | ResizeRequest
        | ResumeRequest
        | InputRequest
    )
    Event = (
        StateEvent
        | OutputEvent
        | LogLostEvent
        | ExitEvent
        | GoneEvent
        | RemainingEvent
        | PhaseEvent
        | RepeatingEvent
        | OutputLimitEvent
    )
