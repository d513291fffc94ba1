"""A Stack written as `jobs-tui.toml` text: what `jobs-tui config import FILE` writes.

One `[jobs.NAME]` table per job, in the stack's order, keys in the order the docs list
them, defaults left out, small tables inline (`ready = { port = 8000 }`) as a person
writes them. The text reads back as the same Stack (tests/unit/declared/test_readers.py).
"""

from __future__ import annotations

from typing import Any

from .keys import JOB_KEYS
from .model import Stack


def _value(value: Any) -> str:
    import tomli_w

    if isinstance(value, dict):
        inner = ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    return tomli_w.dumps({"x": value}).split(" = ", 1)[1].rstrip("\n")


def _key(name: str) -> str:
    import tomli_w

    return tomli_w.dumps({name: 0}).rsplit(" = ", 1)[0]


def to_toml(stack: Stack, header: list[str] | None = None) -> str:
    """The file's text; `header` lines become `# ` comments at its top."""
    lines = [f"# {line}" if line else "#" for line in header or []]
    for name, job in stack.jobs.items():
        if lines:
            lines.append("")
        lines.append(f"[jobs.{_key(name)}]")
        table = job.to_table()
        for key in JOB_KEYS:
            if key in table:
                lines.append(f"{key} = {_value(table[key])}")
    return "\n".join(lines) + "\n"
