"""The command line's session: one persistent session per project, shared by many processes.

Each `jobs-tui` call is a short process of the same session (`cli` by default), and
an agent may run several at once (a `wait` in one, a `start` in another); the
engine's Registry merges each write onto what the other calls wrote, under a lock.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from jobs_tui.engine import JobManager

DEFAULT_SESSION = "cli"
ENV_SESSION = "JOBS_TUI_SESSION"


def session_name(flag: str | None) -> str:
    """`--session`, else `$JOBS_TUI_SESSION`, else one command-line session per project."""
    name = flag or os.environ.get(ENV_SESSION) or DEFAULT_SESSION
    return name.strip() or DEFAULT_SESSION


def cli_manager(session: str | None, registry_dir: str | None) -> JobManager:
    """A persistent JobManager for this call: its jobs outlive it; later calls own them."""
    from jobs_tui.engine import JobManager

    manager = JobManager(
        cwd=".",
        session_id=session_name(session),
        persistent=True,
        registry_dir_flag=registry_dir,
        door="cli",
    )
    return manager


def registry_source(flag: str | None) -> str:
    """Where the registry directory came from, as the user set it."""
    if flag:
        return "--registry-dir"
    if os.environ.get("JOBS_TUI_REGISTRY_DIR"):
        return "JOBS_TUI_REGISTRY_DIR"
    return "the config's registry_dir, or the default"


async def open_manager(session: str | None, registry_dir: str | None) -> JobManager:
    """An open session, or a VerbError saying which registry directory could not be used."""
    from jobs_tui.engine import JobError

    manager = cli_manager(session, registry_dir)
    try:
        await manager.open(attach=False)  # a job is attached only when the verb needs it
    except (OSError, JobError) as exc:
        if isinstance(exc, JobError) and exc.field != "registry_dir":
            raise
        raise unusable_registry(exc, str(manager.dir), registry_dir) from exc
    return manager


def unusable_registry(exc: Exception, directory: str, flag: str | None) -> Exception:
    """The VerbError for a registry directory that cannot be one (exit 2 from the flag)."""
    import errno

    from .errors import EXIT_ERROR, EXIT_USAGE, VerbError, quote

    source = registry_source(flag)
    why = getattr(exc, "strerror", None) or str(exc)
    if " cannot be used: " in str(exc) and not isinstance(exc, OSError):
        why = str(exc).rsplit(": ", 1)[-1]
    if getattr(exc, "errno", None) == errno.EEXIST or (
        os.path.exists(directory) and not os.path.isdir(directory)
    ):
        why = "it is not a directory"
    elif "belongs to another user" in str(exc):
        why = str(exc).split("; refused", 1)[0].split(" belongs ", 1)[-1]
        why = "it belongs " + why
    message = f"the registry directory {quote(directory)} ({source}) cannot be used: {why}"
    field = "--registry-dir" if flag else None
    return VerbError(message, EXIT_USAGE if flag else EXIT_ERROR, field=field)
