"""The reference `job` tool (seeds/002): one dict in, one JSON-ready JobDetails dict out.

An adapter over `JobManager`'s public API. `validate` holds an untrusted dict to the
`job` JSON Schema (`callschema.JOB`, the one hosts register: every rule, the cross-field
ones included, lives there) once, before any side effect, builds the typed `JobCall`,
and adds the one fact no schema can know: whether a start's `cwd` is a directory.
Errors are `CallError`s whose message names the offending field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.calls.arguments import compile_regex, resolve_cwd
from jobs_tui.engine.calls.callschema import DEFAULT_WAIT_MS, JOB
from jobs_tui.engine.calls.schemacheck import ToolInputError, check, quote
from jobs_tui.engine.logs.search import SearchResult
from jobs_tui.engine.logs.search import since_ms as since_time
from jobs_tui.engine.records.results import InvalidArgument, JobError, KillResult, LogsResult

from .common import iso_utc
from .jobwait import wait
from .ttylogs import rendered_logs, screen_last_lines

if TYPE_CHECKING:
    from jobs_tui.engine.logs.rawtail import TtyRenderer
    from jobs_tui.engine.records.model import JobRecord
    from jobs_tui.engine.session.manager import JobManager
    from jobs_tui.engine.session.waiting import ScreenScanner


class CallError(ToolInputError):
    """A `job` call that cannot be run; the message names the field."""


@dataclass(frozen=True)
class JobCall:
    """A valid `job` call, typed."""

    action: str
    command: str | None = None
    cwd: str | None = None
    label: str | None = None
    wake: bool | None = None
    detached: bool | None = None
    stdin: bool = False
    id: str | None = None
    lines: int | None = None
    input: str | None = None
    newline: bool = True
    eof: bool = False
    signal: str = "SIGTERM"
    timeout_ms: int | None = None
    all: bool = False
    env: dict[str, str] | None = None
    ids: tuple[str, ...] | None = None  # wait: several jobs
    mode: str | None = None  # wait: any | all
    until: str | None = None  # wait: a regex a line must match
    from_start: bool = False
    port: int | None = None  # wait: a TCP port the job's tree is to listen on
    grep: str | None = None  # logs: a regex
    context: int = 0
    since_ms: int | None = None  # logs: `since`, resolved to epoch ms
    timestamps: bool = False
    raw: bool = False  # logs: the bytes as written (a terminal job's escapes and all)
    names: tuple[str, ...] | None = None  # up, down: declared names (None: all)
    ready: bool = False  # wait: until the declared jobs' probes pass
    pid: int | None = None  # kill: a stray's pid instead of a job id


def validate(call: Any, *, session_cwd: str | None = None) -> JobCall:
    if not isinstance(call, dict):
        raise CallError("a job call must be an object with an 'action' field", "action")
    try:
        v = check(JOB, call, "job")
    except ToolInputError as exc:
        raise CallError(str(exc), exc.field) from None
    action = v["action"]
    if action == "start":
        try:
            cwd = resolve_cwd(v.get("cwd"), session_cwd)
        except InvalidArgument as exc:
            raise CallError(str(exc), exc.field) from None
        return JobCall(
            action="start",
            command=v["command"],
            cwd=cwd,
            label=v.get("label"),
            wake=v.get("wake"),
            detached=v.get("detached"),
            stdin=v.get("stdin", False),
            timeout_ms=v.get("timeoutMs"),
            env=v.get("env"),
        )
    if action == "wait":
        _regex(v, "until")
        ids = v.get("ids")
        return JobCall(
            action="wait",
            id=v.get("id"),
            ids=tuple(ids) if ids is not None else None,
            mode=v.get("mode"),
            until=v.get("until"),
            from_start=v.get("fromStart", False),
            port=v.get("port"),
            ready=v.get("ready", False),
            timeout_ms=v.get("timeoutMs", DEFAULT_WAIT_MS),
        )
    if action in ("up", "down"):
        names = v.get("names")
        return JobCall(
            action=action,
            names=tuple(dict.fromkeys(names)) if names is not None else None,
            detached=v.get("detached"),
        )
    if action == "logs":
        _regex(v, "grep")
        if v.get("raw"):
            other = next((k for k in ("grep", "since", "timestamps") if v.get(k)), None)
            if other is not None:
                raise CallError(f"raw cannot be combined with {other}", "raw")
        since = v.get("since")
        try:
            since_ms = None if since is None else since_time(since)
        except ValueError:
            raise CallError(f"since {quote(since)} names no real time", "since") from None
        return JobCall(
            action="logs",
            id=v["id"],
            lines=v.get("lines"),
            grep=v.get("grep"),
            context=v.get("context", 0),
            since_ms=since_ms,
            timestamps=v.get("timestamps", False),
            raw=v.get("raw", False),
        )
    return JobCall(
        action=action,
        id=v.get("id"),
        lines=v.get("lines"),
        input=v.get("input"),
        newline=v.get("newline", True),
        eof=v.get("eof", False),
        signal=v.get("signal", "SIGTERM"),
        all=v.get("all", False),
        pid=v.get("pid"),
    )


def _regex(v: dict[str, Any], name: str) -> None:
    """A regex field that compiles (what no schema can know); CallError naming it."""
    if v.get(name) is not None:
        try:
            compile_regex(name, v[name])
        except InvalidArgument as exc:
            raise CallError(str(exc), name) from None


def _error(action: Any, message: str, **extra: Any) -> dict[str, Any]:
    return {"action": action if isinstance(action, str) else None, "error": message, **extra}


class JobTools:
    """The `job` tool over one JobManager, as ExecCommandTools and ProcessTools are theirs."""

    def __init__(
        self,
        manager: JobManager,
        render: TtyRenderer | None = None,
        screen_scanner: ScreenScanner | None = None,
    ) -> None:
        """`render`: how a terminal job's bytes become the rows its terminal shows, and
        `screen_scanner`: how `until` matches those rows (a host with an emulator passes
        them, the MCP server `jobs_tui.term`'s); without them a terminal job's logs and
        `until` are its sanitized bytes' lines."""
        self.manager = manager
        self.render = render
        self.screen_scanner = screen_scanner

    async def call(self, request: Any) -> dict[str, Any]:
        """A JSON-ready JobDetails dict; never raises on bad input."""
        return await run_call(self.manager, request, self.render, self.screen_scanner)


async def run_call(
    manager: JobManager,
    request: Any,
    render: TtyRenderer | None = None,
    screen_scanner: ScreenScanner | None = None,
) -> dict[str, Any]:
    """The `job` tool: never raises on bad input; errors come back as `error`."""
    action = request.get("action") if isinstance(request, dict) else None
    try:
        call = validate(request, session_cwd=manager.cwd)
    except CallError as exc:
        return _error(action, str(exc))
    try:
        details = await dispatch(manager, call, render, screen_scanner)
        await screen_last_lines(manager, details, render)
        return details
    except JobError as exc:
        details = _error(call.action, str(exc))
        if isinstance(getattr(exc, "errors", None), list):  # a declared file's (up, down)
            details["errors"] = exc.errors  # type: ignore[attr-defined]
        record = manager.find(call.id) if call.id else None
        if record is not None:
            details["job"] = record.to_json()
        return details


async def dispatch(
    manager: JobManager,
    call: JobCall,
    render: TtyRenderer | None = None,
    screen_scanner: ScreenScanner | None = None,
) -> dict[str, Any]:
    """Run a validated call; raises JobError (UnknownJob, Refused) instead of folding it in."""
    action = call.action
    job_id = call.id or ""
    if action == "start":
        record = await manager.start(
            call.command or "",
            label=call.label,
            stdin=call.stdin,
            timeout_ms=call.timeout_ms,
            wake=call.wake,
            detached=call.detached,
            cwd=call.cwd,
            env=call.env,
        )
        if not record.running:  # ended already: this result is its report (not a hook's)
            manager.mark_seen(record.id)
        return {"action": action, "job": record.to_json()}
    if action == "list":
        jobs = await manager.list(all=call.all)
        return {
            "action": action,
            "jobs": [r.to_json() for r in jobs],
            "sessionId": manager.session_id,
            "problems": manager.take_problems(),  # each problem once, to whoever lists first
            "usage": await _usage(manager, jobs),
        }
    if action == "status":
        record = await manager.status(job_id)
        details = {"action": action, "job": record.to_json(), "sessionId": manager.session_id}
        details.update((await _usage(manager, [record])).get(record.id, {}))
        return details
    if action == "logs":
        rendered = await rendered_logs(manager, call, render)
        if rendered is not None:
            return rendered
        if call.grep is not None:
            found = await manager.search(
                job_id, call.grep, context=call.context, since_ms=call.since_ms
            )
            return _search(manager.get(job_id), found, call.timestamps)
        result = await manager.logs(
            job_id, call.lines, since_ms=call.since_ms, timestamps=call.timestamps
        )
        return _logs(result, call.timestamps)
    if action == "restart":
        record = await manager.restart(job_id)
        return {"action": action, "job": record.to_json(), "restartOf": job_id}
    if action == "send":
        sent = await manager.send(job_id, call.input, newline=call.newline, eof=call.eof)
        return {
            "action": action,
            "job": sent["job"].to_json(),
            "sent": sent["sent"],
            "stdinClosed": sent["stdinClosed"],
        }
    if action == "strays":
        return {"action": action, "strays": [s.to_json() for s in await manager.strays()]}
    if action == "kill" and call.pid is not None:
        (stray,) = await manager.kill_strays([call.pid])
        return {"action": action, "stray": stray.to_json()}
    if action == "kill":
        killed = await manager.kill(job_id, call.signal)
        if not killed.job.running:  # the result shows its end: that is its report
            manager.mark_seen(killed.job.id)
        return _kill(killed)
    if action == "wait":
        return await wait(manager, call, screen_scanner)
    if action in ("up", "down"):
        from .stack import down, up  # the declared file is read only by these two

        return await (up if action == "up" else down)(manager, call)
    cleared = await manager.clear(call.id, all=call.all)
    return {"action": action, "jobs": [r.to_json() for r in cleared], "cleared": len(cleared)}


async def _usage(manager: JobManager, records: list[JobRecord]) -> dict[str, dict[str, Any]]:
    """What each running job uses (cpuPercent, rssBytes, processCount, ports), by id."""
    running = [r.id for r in records if r.running]
    if not running:
        return {}
    try:
        found = await manager.usage(running)
    except JobError:
        return {}
    return {job_id: usage.to_json() for job_id, usage in found.items()}


def _stamp(ms: int | None) -> str:
    """A line's time for a reader: UTC, to the millisecond; blanks where unknown."""
    return (iso_utc(ms) or "-" * 24) + " "


def _logs(result: LogsResult, timestamps: bool = False) -> dict[str, Any]:
    text = result.text
    if timestamps:
        text = "\n".join(
            _stamp(ms) + line for ms, line in zip(result.times, result.lines, strict=False)
        )
    return {"action": "logs", **result.details(text)}


def _search(record: JobRecord, found: SearchResult, timestamps: bool) -> dict[str, Any]:
    """grep's output: matching lines and their context, groups apart split by `--`."""
    out: list[str] = []
    for line in found.lines:
        if line.gap and out:
            out.append("--")
        out.append((_stamp(line.at_ms) if timestamps else "") + line.text)
    details: dict[str, Any] = {
        "action": "logs",
        "job": record.to_json(),
        "logs": "\n".join(out),
        "truncated": found.cut > 0,
        "matches": found.matches,
    }
    if found.cut:
        details["cut"] = found.cut
        details["note"] = f"{found.cut} more matching lines not shown (of {found.matches})"
    return details


def _kill(result: KillResult) -> dict[str, Any]:
    details = {
        "action": "kill",
        "job": result.job.to_json(),
        "signalled": result.signalled,
        "signal": result.signal,
        "escalated": result.escalated,
        "processes": result.processes,
    }
    if result.adopted:
        details["adopted"] = True
    if result.leftovers:
        details["leftoversKilled"] = result.leftovers
    if result.note and result.leftovers and not result.signalled:
        details["note"] = result.note  # it killed what the job left: news, not an error
    elif result.note:
        details["error"] = result.note
    return details
