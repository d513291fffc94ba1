"""jobs-tui's engine: jobs under per-job supervisors, a shared registry, the tool vocabularies.

Importing this package is cheap (the shim imports it): names load on first use.
It never imports Textual or Rich.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`: the shim imports this package and must start fast
if TYPE_CHECKING:
    from jobs_tui.engine.logs.search import SearchLine, SearchResult
    from jobs_tui.engine.records.model import JobEvent, JobRecord, JobStatus
    from jobs_tui.engine.records.results import InvalidArgument, JobError, Refused, UnknownJob
    from jobs_tui.engine.session.manager import JobManager
    from jobs_tui.engine.session.waiting import LineMatch, WaitResult

    from .config import Config, ConfigError

__all__ = [
    "Config",
    "ConfigError",
    "InvalidArgument",
    "JobError",
    "JobEvent",
    "JobManager",
    "JobRecord",
    "JobStatus",
    "LineMatch",
    "Refused",
    "SearchLine",
    "SearchResult",
    "UnknownJob",
    "WaitResult",
    "job_tool_schema",
]

_LAZY = {
    "Config": "config",
    "ConfigError": "config",
    "JobManager": "session.manager",
    "InvalidArgument": "records.results",
    "JobError": "records.results",
    "Refused": "records.results",
    "UnknownJob": "records.results",
    "JobEvent": "records.model",
    "JobRecord": "records.model",
    "JobStatus": "records.model",
    "LineMatch": "session.waiting",
    "WaitResult": "session.waiting",
    "SearchLine": "logs.search",
    "SearchResult": "logs.search",
}


def __getattr__(name: str) -> object:
    if name == "job_tool_schema":
        from jobs_tui.engine.calls.callschema import job_schema

        return job_schema
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jobs_tui.engine' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
