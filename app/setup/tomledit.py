"""Editing one table of a TOML file as text, so the rest keeps its comments and layout.

tomllib reads the file (to refuse one that does not parse and to check the result); the
edit itself only replaces, inserts or appends the lines of setup's own table or key.
Records say exactly what text went where, so `--remove` takes out those bytes again.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from typing import Any

from .model import SetupError

_HEADER = re.compile(r"^[ \t]*\[(?!\[)(?P<name>[^\]\n]*)\][ \t]*(?:#.*)?$")
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass(frozen=True)
class TomlTable:
    """The whole table `[header]` is setup's (`[mcp_servers.jobs]`): replaced as a block."""

    header: tuple[str, ...]
    body: dict[str, Any]
    label: str


@dataclass(frozen=True)
class TomlKey:
    """One `key = value` in table `[header]`; `respect`: a value already there is the
    person's decision (a project's trust level) and stays."""

    header: tuple[str, ...]
    key: str
    value: Any
    label: str
    respect: bool = False


Item = TomlTable | TomlKey


def parse(text: str, name: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SetupError(f"{name} does not parse as TOML: {exc}; nothing written") from None


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def _key(part: str) -> str:
    return part if _BARE.match(part) else json.dumps(part, ensure_ascii=False)


def header_line(header: tuple[str, ...]) -> str:
    return "[" + ".".join(_key(p) for p in header) + "]"


def table_text(header: tuple[str, ...], body: dict[str, Any]) -> str:
    lines = [header_line(header)] + [f"{_key(k)} = {_value(v)}" for k, v in body.items()]
    return "\n".join(lines) + "\n"


def _parts(name: str) -> tuple[str, ...] | None:
    """`mcp_servers."jobs"` -> ("mcp_servers", "jobs"); None for what it cannot read."""
    try:
        parsed = tomllib.loads(f"[{name}]\n")
    except tomllib.TOMLDecodeError:
        return None
    parts: list[str] = []
    node: Any = parsed
    while isinstance(node, dict) and len(node) == 1:
        key = next(iter(node))
        parts.append(key)
        node = node[key]
    return tuple(parts)


def _headers(lines: list[str]) -> list[tuple[int, tuple[str, ...] | None]]:
    found = []
    for at, line in enumerate(lines):
        if line.lstrip().startswith("[["):
            found.append((at, None))
            continue
        match = _HEADER.match(line.rstrip("\n"))
        if match:
            found.append((at, _parts(match.group("name"))))
    return found


def _block(lines: list[str], header: tuple[str, ...]) -> tuple[int, int] | None:
    """(first, end) line indexes of table `header` with its sub-tables, trailing blank
    and comment lines left out (they belong to what follows)."""
    heads = _headers(lines)
    for index, (at, parts) in enumerate(heads):
        if parts != header:
            continue
        end = len(lines)
        for later, later_parts in heads[index + 1 :]:
            if later_parts is None or later_parts[: len(header)] != header:
                end = later
                break
        while end > at + 1 and (
            not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")
        ):
            end -= 1
        return at, end
    return None


def _defined(doc: dict[str, Any], header: tuple[str, ...]) -> tuple[bool, Any]:
    node: Any = doc
    for part in header:
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _append(text: str, block: str) -> tuple[str, str]:
    """(new text, the separator put before the block)."""
    sep = ""
    if text and not text.endswith("\n"):
        sep += "\n"
    if text.strip():
        sep += "\n"
    return text + sep + block, sep


def apply(
    text: str, items: list[Item], name: str
) -> tuple[str, list[dict[str, Any]], list[str], list[str], list[str]]:
    """(new text, records, labels changed, labels already so, notes)."""
    doc = parse(text, name)
    records: list[dict[str, Any]] = []
    changed: list[str] = []
    same: list[str] = []
    notes: list[str] = []
    for item in items:
        lines = text.splitlines(keepends=True)
        if isinstance(item, TomlTable):
            ours = table_text(item.header, item.body)
            block = _block(lines, item.header)
            if block is None:
                defined, _ = _defined(doc, item.header)
                if defined:
                    raise SetupError(
                        f"{name} defines {'.'.join(item.header)} in a form setup does not "
                        f"edit (not a [{'.'.join(item.header)}] table); nothing written"
                    )
                text, sep = _append(text, ours)
                records.append({"kind": "table", "label": item.label, "text": ours, "sep": sep})
                changed.append(item.label)
            else:
                first, end = block
                before = "".join(lines[first:end])
                if _defined(parse(before, name), item.header)[1] == item.body:
                    same.append(item.label)
                    continue
                text = "".join(lines[:first]) + ours + "".join(lines[end:])
                records.append(
                    {"kind": "table", "label": item.label, "text": ours, "before": before}
                )
                changed.append(item.label)
        else:
            defined, table = _defined(doc, item.header)
            line = f"{_key(item.key)} = {_value(item.value)}\n"
            if not defined:
                text, sep = _append(text, header_line(item.header) + "\n" + line)
                records.append(
                    {
                        "kind": "table",
                        "label": item.label,
                        "text": header_line(item.header) + "\n" + line,
                        "sep": sep,
                    }
                )
                changed.append(item.label)
                continue
            if isinstance(table, dict) and table.get(item.key) == item.value:
                same.append(item.label)
                continue
            if isinstance(table, dict) and item.key in table and item.respect:
                notes.append(f"{item.label} is {table[item.key]!r} in {name}: left as it is")
                same.append(item.label)
                continue
            block = _block(lines, item.header)
            if block is None:
                raise SetupError(
                    f"{name} defines {'.'.join(item.header)} in a form setup does not edit; "
                    "nothing written"
                )
            first, end = block
            key_at = None
            pattern = re.compile(rf"^[ \t]*{re.escape(_key(item.key))}[ \t]*=")
            for at in range(first + 1, end):
                if pattern.match(lines[at]):
                    key_at = at
            if key_at is None:
                lines.insert(first + 1, line)
                records.append(
                    {"kind": "line", "label": item.label, "text": line, "after": lines[first]}
                )
            else:
                before = lines[key_at]
                lines[key_at] = line
                records.append(
                    {
                        "kind": "line",
                        "label": item.label,
                        "text": line,
                        "before": before,
                        "after": lines[key_at - 1],
                    }
                )
            text = "".join(lines)
            changed.append(item.label)
        doc = parse(text, name)  # each edit must leave TOML that reads back
    return text, records, changed, same, notes


def remove(text: str, records: list[dict[str, Any]], name: str) -> tuple[str, list[str], list[str]]:
    """(text without what `records` added, labels removed, labels left: changed since)."""
    removed: list[str] = []
    left: list[str] = []
    for record in reversed(records):
        ours = record["text"]
        if record["kind"] == "table":
            restore = record.get("before")
            sep = record.get("sep", "")
            if restore is None and sep and (sep + ours) in text:
                at = text.rindex(sep + ours)
                text = text[:at] + text[at + len(sep) + len(ours) :]
            elif ours in text:
                at = text.rindex(ours)
                text = text[:at] + (restore or "") + text[at + len(ours) :]
            else:
                left.append(record["label"])
                continue
        else:
            anchor = record["after"] + ours
            if anchor not in text:
                left.append(record["label"])
                continue
            at = text.index(anchor) + len(record["after"])
            text = text[:at] + record.get("before", "") + text[at + len(ours) :]
        removed.append(record["label"])
    parse(text, name)
    return text, removed, left
