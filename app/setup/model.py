"""The records of `setup`: what a client's plan asks of each file, and what was done."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class SetupError(Exception):
    """A file setup cannot merge into (it does not parse, or holds a non-object where ours
    goes): said with the file's name; the run writes nothing (exit 2)."""


@dataclass
class FilePlan:
    """One file of a client's config and the entries setup owns in it."""

    path: Path
    syntax: str  # "json" or "toml"
    items: list[Any]  # jsonedit.JsonKey/JsonMember or tomledit.TomlTable/TomlKey


@dataclass
class Plan:
    """Everything `setup CLIENT` does for one scope, and what it tells the person."""

    client: str
    scope: str  # "project" or "user"
    root: Path | None  # the project, for project scope
    root_reason: str
    files: list[FilePlan]
    notes: list[str] = field(default_factory=list)


@dataclass
class Change:
    """What happened to one file: `wrote`, `unchanged`, `removed`, `deleted`, `left`."""

    path: Path
    change: str
    items: list[str]
    left: list[str] = field(default_factory=list)  # ours, but changed since: not touched
