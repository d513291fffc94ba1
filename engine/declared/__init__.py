"""Declared jobs (issue 26): the project's `jobs-tui.toml`, or what people already have
(process-compose.yaml, mprocs.yaml, a Procfile), read and validated whole into a Stack.

Pure at its core (`model`, `keys`, `validate`, `schema`, the readers); `files` is the
edge that finds the file at the project root and reads it.
"""

from .files import NoDeclaredFile, find_declared, format_of, load_stack, parse_stack
from .model import (
    DEFAULTS,
    FILE_NAME,
    PROBE_DEFAULTS,
    DeclaredJob,
    Probe,
    Stack,
    UnknownDeclared,
)
from .schema import config_schema
from .validate import DeclaredFileError, check_stack

__all__ = [
    "DEFAULTS",
    "FILE_NAME",
    "PROBE_DEFAULTS",
    "DeclaredFileError",
    "DeclaredJob",
    "NoDeclaredFile",
    "Probe",
    "Stack",
    "UnknownDeclared",
    "check_stack",
    "config_schema",
    "find_declared",
    "format_of",
    "load_stack",
    "parse_stack",
]
