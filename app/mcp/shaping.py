"""Output a model can use: sanitized, `\\r` bars collapsed, head and tail under a size limit.

Pure functions over the JSON-ready dicts the tool adapters return. Job output is hostile:
every line of text built here passes the engine's sanitizer (`sanitize_line` for one
line, `sanitize_log` for log text), and a long output keeps its head and its tail (where
errors usually are) around an explicit `… N lines / B bytes omitted …` marker, followed by
where the full log is.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from jobs_tui.engine.records.endedby import SELF, EndedBy
from jobs_tui.engine.records.format import memory, outcome_line, summary
from jobs_tui.engine.records.model import JobRecord, RecordError
from jobs_tui.engine.records.sanitize import sanitize_line, sanitize_log

from .wording import WAIT_AGAIN, started

DEFAULT_LIMIT = 16 * 1024
HEAD_SHARE = 4  # a quarter of the budget for the head, the rest for the tail
MIN_LIMIT = 256


@dataclass(frozen=True)
class Shaped:
    text: str
    omitted_lines: int = 0
    omitted_bytes: int = 0

    @property
    def cut(self) -> bool:
        return self.omitted_bytes > 0


def omitted_marker(lines: int, nbytes: int) -> str:
    return f"… {lines} lines / {nbytes} bytes omitted …"


def shape(text: str, limit: int = DEFAULT_LIMIT) -> Shaped:
    """Sanitized text of at most about `limit` UTF-8 bytes: head, marker, tail.

    Cuts fall on line boundaries where the kept part has one (a single huge line is cut
    inside it, never inside a character).
    """
    text = sanitize_log(text)
    data = text.encode("utf-8", "surrogateescape")
    if len(data) <= limit:
        return Shaped(text)
    budget = max(limit - 64, MIN_LIMIT // 2)  # room for the marker
    head_budget = budget // HEAD_SHARE
    head = data[:head_budget]
    newline = head.rfind(b"\n")
    if newline >= 0:
        head = head[: newline + 1]
    tail = data[len(data) - (budget - len(head)) :]
    newline = tail.find(b"\n")
    if 0 <= newline < len(tail) - 1:
        tail = tail[newline + 1 :]
    omitted = data[len(head) : len(data) - len(tail)]
    lines = omitted.count(b"\n")
    marker = omitted_marker(lines, len(omitted))
    glue = "" if head.endswith(b"\n") or not head else "\n"
    shaped = head.decode("utf-8", "ignore") + glue + marker + "\n" + tail.decode("utf-8", "ignore")
    return Shaped(shaped, lines, len(omitted))


def _record(data: Any) -> JobRecord | None:
    try:
        return JobRecord.from_json(data)
    except (RecordError, TypeError, ValueError, KeyError):
        return None


def outcome(data: Any) -> str:
    """`✓ j1 tests · exit 0 · 12.0s`, sanitized (labels may come from another session)."""
    record = _record(data)
    if record is None:
        return ""
    return sanitize_line(outcome_line(record, time.time() * 1000), 400)


def outcome_last(data: Any, peer: bool = False) -> str:
    """The outcome, then the job's last output line: what structuredContent says of a job
    (modelview), said to a client that hands the model the text (`· last line: …`)."""
    text = outcome(data)
    ended = EndedBy.from_json(data.get("endedBy")) if isinstance(data, dict) else None
    if text and ended is not None and ended.by != SELF and data.get("status") != "running":
        why = sanitize_line(ended.words().rsplit(" · ", 1)[-1], 200)
        text += "" if why in text else f" · {why}"  # who ended it: the kernel's is said
    if text and peer:
        text += " · peer"
    last = data.get("lastLine") if isinstance(data, dict) else None
    if text and isinstance(last, str) and (last := sanitize_line(last, 300)):
        text += f" · last line: {last}"
    return text


def usage_text(job: dict[str, Any]) -> str | None:
    """`cpu 12% · mem 85 MiB · 3 procs · listening :5173` from JobDetails' usage fields."""
    if "rssBytes" not in job and "cpuPercent" not in job:
        return None
    cpu = job.get("cpuPercent")
    parts = ["cpu –" if not isinstance(cpu, int | float) else f"cpu {cpu:.0f}%"]
    if isinstance(job.get("rssBytes"), int):
        parts.append(f"mem {memory(job['rssBytes'])}")
    count = job.get("processCount")
    if isinstance(count, int):
        parts.append(f"{count} proc{'' if count == 1 else 's'}")
    ports = job.get("ports")
    if isinstance(ports, list) and ports:
        shown = []
        for port in ports:
            if isinstance(port, dict):
                udp = "/udp" if port.get("proto") == "udp" else ""
                shown.append(f":{port.get('port')}{udp}")
        parts.append("listening " + " ".join(shown))
    return sanitize_line(" · ".join(parts), 400)


def where_log(job: dict[str, Any]) -> str | None:
    path = job.get("logPath")
    if not isinstance(path, str) or not path:
        return None
    job_id = job.get("id", "ID")
    return sanitize_line(
        f"full log: {path} (older output in {path}.1 after a rotation; "
        f"`jobs-tui logs {job_id} --offset 0 --limit 1000` pages it)",
        2000,
    )


def shape_details(details: dict[str, Any], limit: int = DEFAULT_LIMIT) -> dict[str, Any]:
    """The structured result with its long text fields (`logs`, `output`) bounded."""
    out = dict(details)
    for key in ("logs", "output", "text"):
        value = out.get(key)
        if isinstance(value, str):
            shaped = shape(value, limit)
            out[key] = shaped.text
            if shaped.cut:
                out["omittedLines"] = shaped.omitted_lines
                out["omittedBytes"] = shaped.omitted_bytes
    job = out.get("job")
    if "logs" in out and isinstance(job, dict) and isinstance(job.get("logPath"), str):
        out["logFile"] = job["logPath"]
    return out


def _list_text(details: dict[str, Any]) -> str:
    records = [r for r in (_record(j) for j in details.get("jobs", [])) if r is not None]
    session = str(details.get("sessionId", ""))
    lines = [summary(records, session)] if "sessionId" in details else []
    for data in details.get("jobs", []):  # the rows say what the tool's description says
        if isinstance(data, dict) and _record(data) is not None:
            peer = bool(session) and data.get("sessionId") != session
            lines.append(outcome_last(data, peer))
    lines += [f"problem: {p}" for p in details.get("problems", []) if isinstance(p, str)]
    return "\n".join(sanitize_line(line, 400) for line in lines) or "no jobs"


def job_text(action: str, details: dict[str, Any], channel: bool = False) -> str:
    """A short human text for a `job` action's (already shaped) result; `channel`: the
    server runs with --channel, so a start may say a notification will tell."""
    job = details.get("job") if isinstance(details.get("job"), dict) else {}
    head = (outcome(job) if action == "logs" else outcome_last(job)) if job else ""
    lines = [head] if head else []
    if action in ("list", "clear"):
        if action == "clear":
            ids = ", ".join(
                str(j.get("id")) for j in details.get("jobs", []) if isinstance(j, dict)
            )
            return sanitize_line(
                f"cleared {details.get('cleared', 0)}" + (f": {ids}" if ids else "")
            )
        return _list_text(details)
    if action == "start":
        lines.append(started(channel))
    if action == "restart" and (previous := details.get("restartOf") or job.get("restartOf")):
        lines.append(sanitize_line(f"restart of {previous}; the new id is {job.get('id')}"))
    if action == "status" and (usage := usage_text(details)):  # usage sits beside the job
        lines.append(usage)
    if action == "send":
        closed = "; stdin closed" if details.get("stdinClosed") else ""
        lines.append(f"sent {details.get('sent', 0)} bytes{closed}")
    if action == "strays":
        return _strays_text(details)
    if action == "kill" and isinstance(stray := details.get("stray"), dict):
        count = stray.get("processes", 0)
        line = f"killed stray {stray.get('pid')} ({count} process{'es' if count != 1 else ''})"
        lines.append(sanitize_line(f"{line}: {stray.get('command', '')}", 400))
        if stray.get("escalated"):
            lines.append("SIGKILL followed: the tree outlived the grace")
    if action == "kill":
        if details.get("escalated"):
            lines.append("SIGKILL followed: the tree outlived the grace")
        if isinstance(details.get("error"), str):
            lines.append(sanitize_line(details["error"], 400))
    if action == "wait":
        lines += _wait_lines(details)
    if action in ("up", "down"):
        lines += _stack_lines(action, details)
    if action == "logs":
        lines += _logs_lines(details, job)
    if not lines:
        lines.append(sanitize_line(json.dumps(details, ensure_ascii=False), 2000))
    return "\n".join(lines)


def _strays_text(details: dict[str, Any]) -> str:
    """One line a stray: pid, age, CPU, memory, ports, command (sanitized)."""
    lines = []
    for s in details.get("strays", []):
        if not isinstance(s, dict):
            continue
        ports = ",".join(
            f"{p.get('port')}/{p.get('proto', 'tcp')}"
            for p in s.get("ports", [])
            if isinstance(p, dict)
        )
        mem = f"{int(s.get('rss', 0)) // (1 << 20)} MiB"
        head = f"pid {s.get('pid')} · {s.get('ageS')}s old · {s.get('cpuPercent')}% CPU · {mem}"
        line = f"{head}{' · ' + ports if ports else ''} · {s.get('command', '')}"
        lines.append(sanitize_line(line, 400))
    return "\n".join(lines) or "No strays: no process escaped the jobs into the project."


def _wait_lines(details: dict[str, Any]) -> list[str]:
    lines = []
    match = details.get("match")
    if isinstance(match, dict) and isinstance(match.get("line"), str):
        which = match.get("id") or match.get("jobId") or "?"
        lines.append(sanitize_line(f"matched in {which}: {match['line']}", 1000))
    for other in details.get("jobs", []) or []:
        if isinstance(other, dict) and (text := outcome_last(other)):
            lines.append(text)
    listening = details.get("listening")
    if isinstance(listening, dict) and isinstance(listening.get("port"), int):
        which = listening.get("id") or listening.get("jobId") or "?"
        lines.append(sanitize_line(f"{which} listens on :{listening['port']}", 200))
    if details.get("reason") == "none-running":
        lines.append("no job of this session is running: nothing to wait for")
    if details.get("cancelled"):
        lines.append("wait cancelled; the job keeps running")
    elif details.get("timedOut"):
        lines.append(f"timed out; {WAIT_AGAIN}")
    return lines


def _stack_lines(action: str, details: dict[str, Any]) -> list[str]:
    """up: each job started, already running or not started (why); down: each stop's
    outcome, then the names that were not running."""
    lines = []
    if action == "up":
        for key, word in (("started", "started"), ("running", "already running")):
            for job in details.get(key) or []:
                if isinstance(job, dict) and (text := outcome(job)):
                    lines.append(f"{word}: {text}")
        for failed in details.get("failed") or []:
            if isinstance(failed, dict):
                why = sanitize_line(f"{failed.get('name')}: {failed.get('error')}", 400)
                lines.append(f"not started: {why}")
        if details.get("started"):
            lines.append("job_wait with ready: true returns once they are ready")
        return lines or ["nothing to start"]
    for stopped in details.get("stopped") or []:
        if isinstance(stopped, dict) and (text := outcome(stopped.get("job"))):
            lines.append(f"stopped: {text}")
    names = [str(n) for n in details.get("notRunning") or []]
    if names:
        lines.append(sanitize_line("not running: " + ", ".join(names), 400))
    if details.get("stopped"):
        count = len(details.get("stopped") or [])
        jobs = f"{count} declared job{'' if count == 1 else 's'}"
        lines.append(f"stopped {jobs}, dependents first; a stopped job is not restarted")
    return lines or ["no declared job is running"]


def _logs_lines(details: dict[str, Any], job: dict[str, Any]) -> list[str]:
    lines = []
    if details.get("truncated"):
        earlier = details.get("earlierLines") or 0
        what = f"{earlier} earlier lines" if earlier else f"{details.get('earlierBytes', 0)} bytes"
        lines.append(f"… {what} not shown (ask for more lines, or page the full log)")
    if isinstance(details.get("note"), str):
        lines.append(sanitize_line(details["note"], 400))
    logs = details.get("logs")
    lines.append(logs.rstrip("\n") if isinstance(logs, str) else "")
    if (where := where_log(job)) is not None:
        lines.append(where)
    return lines


def vocabulary_text(details: dict[str, Any]) -> str:
    """exec_command / process results: their fields in one line, then the output, if any."""
    body = None
    fields = {}
    for key, value in details.items():
        if key in ("output", "text", "logs") and isinstance(value, str):
            body = value if body is None else body
        else:
            fields[key] = value
    head = sanitize_line(json.dumps(fields, ensure_ascii=False, default=str), 4000)
    if body is None:
        return head
    return head + "\n" + sanitize_log(body)
