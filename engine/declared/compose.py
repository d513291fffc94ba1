"""process-compose.yaml read into a `jobs-tui.toml` table: the documented subset.

Read: `command`, `description`, `working_dir`, `environment`, `depends_on` (conditions
`process_started`, `process_healthy`, `process_log_ready`, `process_completed_successfully`),
`readiness_probe` (`http_get`, `exec`; `period_seconds`, `timeout_seconds`),
`ready_log_line`, `availability` (`restart`, `backoff_seconds`, `max_restarts`),
`shutdown` (`signal`, `timeout_seconds`), `disabled`, `is_tty`. Every other field is
named in a warning. A file with `services`, or a process with `image`, `build` or
`ports`, is docker-compose syntax (process-compose silently accepts some of it): an
error that says so.
"""

from __future__ import annotations

import re
import signal
from typing import Any

from .model import STOP_SIGNALS
from .readers import Translation, env_value, key, not_docker_compose
from .validate import shown

PROCESS_KEYS = (
    "command",
    "description",
    "working_dir",
    "environment",
    "depends_on",
    "readiness_probe",
    "ready_log_line",
    "availability",
    "shutdown",
    "disabled",
    "is_tty",
)
CONDITIONS = {
    "process_started": "started",
    "process_healthy": "ready",
    "process_log_ready": "ready",
    "process_completed_successfully": "succeeded",
}
RESTARTS = {"no": "no", "always": "always", "on_failure": "on-failure"}


def signal_name(number: object) -> str | None:
    """process-compose names a signal by its number (this system's: 2 is SIGINT)."""
    if isinstance(number, bool) or not isinstance(number, int):
        return None
    try:
        name = signal.Signals(number).name
    except ValueError:
        return None
    return name if name in STOP_SIGNALS else None


_SPECIAL = re.compile(r"([.^$*+?{}\[\]\\|()])")


def literal(text: str) -> str:
    """A regular expression matching `text` itself (only its special characters escaped,
    so `ready to accept connections` stays readable)."""
    return _SPECIAL.sub(r"\\\1", text)


def read_process_compose(data: Any, file: str = "process-compose.yaml") -> Translation:
    out = Translation(file)
    out.origins[("jobs",)] = "processes"
    if isinstance(data, dict) and "services" in data and "processes" not in data:
        out.error(
            "services",
            "this looks like a docker-compose file (services, image, build, ports), which "
            "runs containers; process-compose and jobs-tui read processes: with a command",
        )
        return out
    if not isinstance(data, dict) or not isinstance(data.get("processes"), dict):
        out.error("processes", "missing: process-compose.yaml lists its processes under processes")
        return out
    out.left_out(
        "(top level)", [str(k) for k in data if k not in ("processes", "version")], "are not read"
    )
    for raw_name, body in data["processes"].items():
        name = str(raw_name)
        where = key("processes", name)
        out.origins[("jobs", name)] = where
        if not isinstance(body, dict):
            out.error(where, f"must be a mapping (command: ...), not {shown(body)}")
            continue
        if not_docker_compose(out, where, body):
            continue
        out.jobs.setdefault(name, {})
        _process(out, name, where, body)
    return out


def _process(out: Translation, name: str, where: str, body: dict[str, Any]) -> None:
    for theirs, ours in (
        ("command", "command"),
        ("description", "description"),
        ("working_dir", "cwd"),
        ("is_tty", "tty"),
    ):
        if theirs in body:
            out.put(name, ours, body[theirs], f"{where}.{theirs}")
    if "disabled" in body:
        disabled = body["disabled"]
        value = not disabled if isinstance(disabled, bool) else disabled
        out.put(name, "autostart", value, f"{where}.disabled")
    if "environment" in body:
        _environment(out, name, f"{where}.environment", body["environment"])
    if "depends_on" in body:
        _depends(out, name, f"{where}.depends_on", body["depends_on"])
    if "readiness_probe" in body and "ready_log_line" in body:
        out.error(where, "ready_log_line and readiness_probe cannot be used together")
    elif "readiness_probe" in body:
        _probe(out, name, f"{where}.readiness_probe", body["readiness_probe"])
    elif "ready_log_line" in body:
        line = body["ready_log_line"]
        # process-compose looks for the text itself; `log` is a regular expression
        value = literal(line) if isinstance(line, str) else line
        out.put(name, "ready", {"log": value}, f"{where}.ready_log_line")
        out.origins[("jobs", name, "ready", "log")] = f"{where}.ready_log_line"
    if "availability" in body:
        _availability(out, name, f"{where}.availability", body["availability"])
    if "shutdown" in body:
        _shutdown(out, name, f"{where}.shutdown", body["shutdown"])
    out.left_out(where, [str(k) for k in body if k not in PROCESS_KEYS])


def _environment(out: Translation, name: str, where: str, value: Any) -> None:
    env: dict[str, str] = {}
    if isinstance(value, list):
        for at, item in enumerate(value):
            if not isinstance(item, str) or "=" not in item:
                out.error(f"{where}[{at}]", f"must be KEY=VALUE, not {shown(item)}")
                continue
            var, _, text = item.partition("=")
            env[var] = text
    elif isinstance(value, dict):
        for var, item in value.items():
            text = env_value(out, f"{where}.{var}", item)
            if text is not None:
                env[str(var)] = text
    else:
        out.error(where, f"must be a list of KEY=VALUE, not {shown(value)}")
        return
    out.put(name, "env", env, where)


def _depends(out: Translation, name: str, where: str, value: Any) -> None:
    if not isinstance(value, dict):
        out.error(where, f"must be a mapping of process: {{condition: ...}}, not {shown(value)}")
        return
    table: dict[str, str] = {}
    for raw_dep, spec in value.items():
        dep = str(raw_dep)
        here = f"{where}.{dep}"
        condition = spec.get("condition", "process_started") if isinstance(spec, dict) else spec
        out.origins[("jobs", name, "depends_on", dep)] = f"{here}.condition"
        if condition in CONDITIONS:
            table[dep] = CONDITIONS[condition]
        elif condition == "process_completed":
            out.warn(
                f"{here}.condition", "process_completed (any exit) is read as succeeded (exit 0)"
            )
            table[dep] = "succeeded"
        else:
            known = ", ".join(CONDITIONS)
            out.error(f"{here}.condition", f"must be one of {known}, not {shown(condition)}")
        if isinstance(spec, dict):
            out.left_out(here, [str(k) for k in spec if k != "condition"])
    out.put(name, "depends_on", table, where)


def _seconds(out: Translation, where: str, value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        out.error(where, f"must be a number of seconds, not {shown(value)}")
        return None
    return round(value * 1000)


def _probe(out: Translation, name: str, where: str, value: Any) -> None:
    if not isinstance(value, dict):
        out.error(where, f"must be a mapping (http_get or exec), not {shown(value)}")
        return
    ready: dict[str, Any] = {}
    probe_key = ("jobs", name, "ready")
    out.origins[probe_key] = where
    http, run = value.get("http_get"), value.get("exec")
    if http is not None and run is not None:
        out.error(where, "takes http_get or exec, not both")
    elif isinstance(http, dict):
        port = http.get("port")
        if port is None:
            out.error(f"{where}.http_get.port", "missing: an http_get probe needs a port")
            return
        if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
            out.error(f"{where}.http_get.port", f"must be a port (1-65535), not {shown(port)}")
            return
        scheme = str(http.get("scheme", "http")).lower()
        host = http.get("host", "127.0.0.1")
        path = str(http.get("path", "/"))
        path = path if path.startswith("/") else "/" + path
        ready["http"] = f"{scheme}://{host}:{port}{path}"
        out.origins[(*probe_key, "http")] = f"{where}.http_get"
        out.left_out(
            f"{where}.http_get",
            [str(k) for k in http if k not in ("host", "port", "path", "scheme")],
        )
    elif isinstance(run, dict):
        ready["exec"] = run.get("command")
        out.origins[(*probe_key, "exec")] = f"{where}.exec.command"
        out.left_out(f"{where}.exec", [str(k) for k in run if k != "command"])
    else:
        out.error(where, "needs http_get or exec (a mapping)")
    for theirs, ours in (("period_seconds", "period_ms"), ("timeout_seconds", "timeout_ms")):
        if theirs in value:
            ms = _seconds(out, f"{where}.{theirs}", value[theirs])
            if ms is not None:
                ready[ours] = ms
            out.origins[(*probe_key, ours)] = f"{where}.{theirs}"
    out.left_out(
        where,
        [
            str(k)
            for k in value
            if k not in ("http_get", "exec", "period_seconds", "timeout_seconds")
        ],
    )
    out.jobs[name]["ready"] = ready


def _availability(out: Translation, name: str, where: str, value: Any) -> None:
    if not isinstance(value, dict):
        out.error(where, f"must be a mapping (restart: ...), not {shown(value)}")
        return
    restart = value.get("restart")
    if restart in RESTARTS:
        out.put(name, "restart", RESTARTS[restart], f"{where}.restart")
    elif restart == "exit_on_failure":
        out.warn(f"{where}.restart", 'exit_on_failure (stop everything) is read as "no"')
        out.put(name, "restart", "no", f"{where}.restart")
    elif restart is not None:
        out.error(f"{where}.restart", f"must be no, always or on_failure, not {shown(restart)}")
    if "backoff_seconds" in value:
        backoff = _seconds(out, f"{where}.backoff_seconds", value["backoff_seconds"])
        out.put(name, "backoff_ms", backoff, f"{where}.backoff_seconds")
    if "max_restarts" in value:
        most = value["max_restarts"]
        if most != 0:  # process-compose's 0: no limit, jobs-tui's: the key left out
            out.put(name, "max_restarts", most, f"{where}.max_restarts")
    out.left_out(
        where, [str(k) for k in value if k not in ("restart", "backoff_seconds", "max_restarts")]
    )


def _shutdown(out: Translation, name: str, where: str, value: Any) -> None:
    if not isinstance(value, dict):
        out.error(where, f"must be a mapping (signal: ...), not {shown(value)}")
        return
    if "signal" in value:
        number = value["signal"]
        if (found := signal_name(number)) is not None:
            out.put(name, "stop_signal", found, f"{where}.signal")
        else:
            numbers = sorted(int(getattr(signal, s)) for s in STOP_SIGNALS)
            known = ", ".join(f"{n} ({signal.Signals(n).name})" for n in numbers)
            out.error(f"{where}.signal", f"must be one of {known}, not {shown(number)}")
    if "timeout_seconds" in value:
        grace = _seconds(out, f"{where}.timeout_seconds", value["timeout_seconds"])
        out.put(name, "kill_grace_ms", grace, f"{where}.timeout_seconds")
    out.left_out(where, [str(k) for k in value if k not in ("signal", "timeout_seconds")])
