"""Bringing a project's declared jobs up and down (`JobManager.up`, `down`), and a declared
name resolved to its current job (`jobs-tui logs api`, the tools' `id: "api"`).

`up` only starts shims: each declared job's own shim waits for its dependencies, probes
its readiness and applies its restart policy (shim/declared.py), so the rules hold once
this session is gone. A level is started at once (its jobs depend only on earlier levels,
whose ids and shims they are handed); a job whose name already runs is left as it is and
its dependents wait for that job.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jobs_tui.engine.declared.keys import ENV_NAME_RE, JOB_ID_RE, NAME_RE
from jobs_tui.engine.declared.model import DeclaredJob, Stack
from jobs_tui.engine.records.results import JobError, KillResult

if TYPE_CHECKING:
    from jobs_tui.engine.records.model import JobRecord

    from .parts import DeclaredSession

ENV_FILE_LIMIT = 1024 * 1024


@dataclass
class UpResult:
    """What `up` did, by name: started now, already running, or not started (and why)."""

    started: list[JobRecord] = field(default_factory=list)
    running: list[JobRecord] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class DownResult:
    """What `down` stopped, dependents first; the names that had no running job."""

    stopped: list[KillResult] = field(default_factory=list)
    not_running: list[str] = field(default_factory=list)


def current(records: list[JobRecord], name: str) -> JobRecord | None:
    """The name's current job: a running one (the newest), else the newest that ran."""
    named = [r for r in records if r.declared_name == name]
    if not named:
        return None
    return max(named, key=lambda r: (r.running, r.number))


async def up(
    jm: DeclaredSession, stack: Stack, names: list[str] | None, detached: bool | None
) -> UpResult:
    """See `JobManager.up`. UnknownDeclared (nothing started) for a name not declared."""
    wanted = set(stack.closure(names))
    result = UpResult()
    ids: dict[str, str] = {}
    for level in stack.levels():
        todo: list[DeclaredJob] = []
        for name in level:
            if name not in wanted:
                continue
            running = jm.declared_job(name)
            if running is not None and running.running:
                result.running.append(running)
                ids[name] = running.id
                continue
            missing = [dep for dep in stack.jobs[name].depends_on if dep not in ids]
            if missing:
                result.failed.append((name, f"not started: {', '.join(missing)} did not start"))
                continue
            todo.append(stack.jobs[name])
        outcomes = await asyncio.gather(
            *(_start(jm, stack, job, ids, detached) for job in todo), return_exceptions=True
        )
        for job, outcome in zip(todo, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                if not isinstance(outcome, JobError | OSError):
                    raise outcome
                result.failed.append((job.name, str(outcome)))
            else:
                result.started.append(outcome)
                ids[job.name] = outcome.id
    return result


async def _start(
    jm: DeclaredSession,
    stack: Stack,
    job: DeclaredJob,
    ids: dict[str, str],
    detached: bool | None,
) -> JobRecord:
    spec = job.to_spec(stack.root)
    env = dict(read_env_file(spec["envFile"])) if spec["envFile"] else {}
    env.update(job.env)
    return await jm.start(
        job.command,
        label=job.name,
        cwd=spec["cwd"] or stack.root,
        tty=job.tty,
        env=env or None,
        detached=detached,
        declared=job.shim_rules(ids),
    )


def read_env_file(path: str) -> list[tuple[str, str]]:
    """`KEY=VALUE` lines (blank lines, `#` comments and a leading `export ` allowed; one
    pair of matching quotes around a value taken off). JobError naming `env_file`."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(ENV_FILE_LIMIT + 1)
    except OSError as exc:
        raise JobError(f"env_file {path}: {exc.strerror or exc}", "env_file") from None
    if len(data) > ENV_FILE_LIMIT:
        raise JobError(f"env_file {path}: larger than {ENV_FILE_LIMIT} bytes", "env_file")
    pairs = []
    for number, raw in enumerate(data.decode("utf-8", "surrogateescape").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").lstrip()
        key, equals, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not equals or not ENV_NAME_RE.match(key):
            raise JobError(f"env_file {path}:{number}: not a KEY=VALUE line", "env_file")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        pairs.append((key, value))
    return pairs


async def down(jm: DeclaredSession, stack: Stack | None, names: list[str] | None) -> DownResult:
    """See `JobManager.down`: dependents first, a level at a time, each level all at once."""
    order = _down_order(jm, stack, names)
    result = DownResult()
    for level in order:
        running = []
        for name in level:
            record = jm.declared_job(name)
            if record is None or not record.running:
                result.not_running.append(name)
            else:
                running.append(record)
        kills = await asyncio.gather(*(jm.kill(r.id, stop=True) for r in running))
        result.stopped.extend(kills)
    return result


def _down_order(
    jm: DeclaredSession, stack: Stack | None, names: list[str] | None
) -> list[list[str]]:
    """The names to stop as levels, last level first. Without a stack (the file is gone):
    every declared job that runs, newest first, one at a time."""
    if stack is None:
        live = [r for r in jm.jobs() if r.declared_name and r.running]
        if names is not None:
            live = [r for r in live if r.declared_name in names]
        return [[str(r.declared_name)] for r in sorted(live, key=lambda r: -r.number)]
    if names is None:
        wanted = set(stack.jobs)
    else:
        stack.closure(names)  # an unknown name: UnknownDeclared, nothing stopped
        wanted = {n for name in names for n in (name, *stack.dependents(name))}
    extra = _undeclared_running(jm, stack, names)
    levels = [[n for n in level if n in wanted] for level in reversed(stack.levels())]
    return [[n] for n in extra] + [level for level in levels if level]


def _undeclared_running(jm: DeclaredSession, stack: Stack, names: list[str] | None) -> list[str]:
    """A bare `down` also stops a declared job whose name the file no longer has."""
    if names is not None:
        return []
    found = {r.declared_name for r in jm.jobs() if r.declared_name and r.running}
    return sorted(str(n) for n in found if n not in stack.jobs)


def restart_rules(jm: DeclaredSession, rules: dict[str, Any]) -> dict[str, Any]:
    """A declared job's saved rules for its restart: each dependency's id is its name's
    current job now (the one it had may have been restarted itself since)."""
    depends = []
    for dep in rules.get("depends") or ():
        found = jm.declared_job(str(dep.get("name")))
        depends.append({**dep, "id": found.id if found is not None else dep.get("id")})
    return {**rules, "depends": depends}


def name_of(value: str) -> str | None:
    """`value` if it is a declared name rather than a job id."""
    if JOB_ID_RE.match(value) or not NAME_RE.match(value):
        return None
    return value
