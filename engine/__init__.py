"""jobs-tui's engine: jobs under per-job supervisors, a shared registry, the tool vocabularies.

Importing this package is cheap (the shim imports it): names load on first use.
It never imports Textual or Rich.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`: the shim imports this package and must start fast
if TYPE_CHECKING:
    from .config import Config, ConfigError
    from .logsearch import SearchLine, SearchResult
    from .manager import JobManager
    from .model import JobEvent, JobRecord, JobStatus
    from .results import InvalidArgument, JobError, Refused, UnknownJob
    from .waiting import LineMatch, WaitResult

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
    "JobManager": "manager",
    "InvalidArgument": "results",
    "JobError": "results",
    "Refused": "results",
    "UnknownJob": "results",
    "JobEvent": "model",
    "JobRecord": "model",
    "JobStatus": "model",
    "LineMatch": "waiting",
    "WaitResult": "waiting",
    "SearchLine": "logsearch",
    "SearchResult": "logsearch",
}


def __getattr__(name: str) -> object:
    if name == "job_tool_schema":
        from .callschema import job_schema

        return job_schema
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jobs_tui.engine' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
