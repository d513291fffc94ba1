"""What the facade's parts use of the session: the narrow views of `JobManager` they act
through, so no part imports the facade back (issue 25).

`JobManager` composes the parts (`Controller`, the start, the restart, the wait); each part
takes the session as the view below that names what it uses, and `JobManager` is every
one of them. A part that needs more of the session says so here first. `Subscribers`,
the one part every other publishes through, lives here too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from jobs_tui.engine.records.model import JobEvent, JobRecord

if TYPE_CHECKING:
    from jobs_tui.engine.config import Config
    from jobs_tui.engine.records.results import KillResult
    from jobs_tui.engine.registry.exitfiles import ExitInfo
    from jobs_tui.engine.registry.paths import RegistryPaths
    from jobs_tui.engine.registry.table import Registry

    from .supervision import Supervisor


class Jobs(Protocol):
    """A session's records: its registry and its paths, a record looked up (`get` raises
    `UnknownJob`), and whether a record is this session's own."""

    paths: RegistryPaths
    registry: Registry

    def get(self, job_id: str) -> JobRecord: ...

    def is_own(self, record: JobRecord) -> bool: ...


class ControlSession(Jobs, Protocol):
    """What `control.Controller` acts through: the links to the shims, the one settle path,
    the session's records (own and peers') and whether the session is a persistent one."""

    supervisor: Supervisor
    persistent: bool

    def settle(self, record: JobRecord, info: ExitInfo | None) -> None: ...

    def jobs(self, include_peers: bool = True) -> list[JobRecord]: ...

    def mark_seen(self, job_id: str) -> None: ...


class RestartSession(Jobs, Protocol):
    """What `restarts` uses: the session's directory (a restart's cwd) and its kill."""

    cwd: str

    async def kill(
        self, job_id: str, signal: str = "SIGTERM", *, supervise: bool = False, stop: bool = False
    ) -> KillResult: ...

    def declared_job(self, name: str) -> JobRecord | None: ...


class StartSession(Protocol):
    """What `starting.start` uses: where and as whom the session starts a job, its config,
    the supervisor that launches the shim, and `open` (a start opens the session)."""

    paths: RegistryPaths
    registry: Registry
    supervisor: Supervisor
    config: Config
    cwd: str
    session_id: str

    async def open(self, *, attach: bool = True) -> None: ...


class WaitSession(Jobs, Protocol):
    """What `waiting.wait_many` uses: records (a finished one may be gone: `find`), their
    log files, the session's events, and the supervisor's links."""

    supervisor: Supervisor

    def find(self, job_id: str) -> JobRecord | None: ...

    def log_files(self, record: JobRecord) -> tuple[str, str]: ...

    def mark_seen(self, job_id: str) -> None: ...

    def subscribe(self, callback: Subscriber) -> Callable[[], None]: ...


class DeclaredSession(Protocol):
    """What `declaring` uses: starts and kills, and a declared name's current job."""

    def jobs(self, include_peers: bool = True) -> list[JobRecord]: ...

    def declared_job(self, name: str) -> JobRecord | None: ...

    async def start(self, command: str, label: str | None = None, **options: Any) -> JobRecord: ...

    async def kill(
        self, job_id: str, signal: str = "SIGTERM", *, supervise: bool = False, stop: bool = False
    ) -> KillResult: ...


Subscriber = Callable[[JobEvent], None]


class Subscribers:
    """The callbacks `JobManager.subscribe` registered, and the events they are given."""

    def __init__(self) -> None:
        self._callbacks: list[Subscriber] = []

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback` with each JobEvent; returns the unsubscribe function."""
        self._callbacks.append(callback)
        return lambda: self._callbacks.remove(callback) if callback in self._callbacks else None

    def publish(self, kind: str, record: JobRecord) -> None:
        self.announce(JobEvent.of(kind, record))

    def announce(self, event: JobEvent) -> None:
        for callback in list(self._callbacks):
            with contextlib.suppress(Exception):
                callback(event)
