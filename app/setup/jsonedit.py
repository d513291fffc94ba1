"""Merging setup's entries into a client's JSON config, and taking exactly those out again.

Pure: text in, text out. What was added is returned as records (the ledger keeps them),
so `--remove` gives back what was there before: a key's earlier value, a list without
our member, and no container that setup itself created. The file's own indent and final
newline are kept, so a file written in its client's style comes back byte for byte.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from typing import Any

from .model import SetupError


@dataclass(frozen=True)
class JsonKey:
    """`doc[path[0]]...[path[-1]] = value`: an entry of ours under a name (a server)."""

    path: tuple[str, ...]
    value: Any
    label: str
    respect: bool = False  # a value already there is the person's decision: it stays


@dataclass(frozen=True)
class JsonMember:
    """`value` is a member of the list at `path` (a hook group, an approved name)."""

    path: tuple[str, ...]
    value: Any
    label: str


Item = JsonKey | JsonMember


@dataclass
class Style:
    indent: int | str | None = 2
    newline: bool = True


def parse(text: str, name: str) -> tuple[dict[str, Any], Style]:
    """The document (an empty file is `{}`) and its style; SetupError when it is not JSON."""
    if not text.strip():
        return {}, Style()
    try:
        doc = json.loads(text)
    except ValueError as exc:
        hint = " (comments are not plain JSON; edit it by hand)" if _has_comment(text) else ""
        raise SetupError(f"{name} does not parse as JSON: {exc}{hint}; nothing written") from None
    if not isinstance(doc, dict):
        raise SetupError(f"{name} does not parse as a JSON object; nothing written")
    return doc, _style(text)


def _has_comment(text: str) -> bool:
    return bool(re.search(r"^\s*//|/\*", text, re.M))


def _style(text: str) -> Style:
    match = re.search(r"\n([ \t]+)\S", text)
    indent: int | str | None
    if match is None:
        indent = None if "\n" not in text.strip() else 2
    elif "\t" in match.group(1):
        indent = "\t"
    else:
        indent = len(match.group(1))
    return Style(indent=indent, newline=text.endswith("\n"))


def render(doc: dict[str, Any], style: Style) -> str:
    text = json.dumps(doc, indent=style.indent, ensure_ascii=False)
    return text + ("\n" if style.newline else "")


def _container(doc: dict[str, Any], path: tuple[str, ...], created: list[list[str]]) -> Any:
    """The dict at `path`, made (and noted in `created`) where missing."""
    node: Any = doc
    for at, key in enumerate(path):
        if not isinstance(node, dict):
            raise SetupError(f"{'.'.join(path[:at])} is not an object")
        if key not in node:
            node[key] = {}
            created.append(list(path[: at + 1]))
        node = node[key]
    return node


def _lookup(doc: Any, path: list[str] | tuple[str, ...]) -> tuple[bool, Any]:
    node = doc
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return False, None
        node = node[key]
    return True, node


def apply(
    doc: dict[str, Any], items: list[Item], earlier: list[dict[str, Any]], name: str
) -> tuple[dict[str, Any], list[dict[str, Any]], list[str], list[str], list[str]]:
    """(new doc, records of what changed, labels changed, labels already so, notes).

    `earlier` are this file's records from a previous setup: a member of ours whose value
    changed since (another path to jobs-tui) is replaced, not left beside the new one."""
    doc = copy.deepcopy(doc)
    records: list[dict[str, Any]] = []
    changed: list[str] = []
    same: list[str] = []
    notes: list[str] = []
    for item in items:
        created: list[list[str]] = []
        try:
            if isinstance(item, JsonKey):
                parent = _container(doc, item.path[:-1], created)
                key = item.path[-1]
                if not isinstance(parent, dict):
                    raise SetupError(f"{'.'.join(item.path[:-1])} is not an object")
                had = key in parent
                if had and parent[key] == item.value:
                    same.append(item.label)
                    continue
                if had and item.respect:
                    notes.append(f"{name} has {key}: {parent[key]!r}; left as it is")
                    same.append(item.label)
                    continue
                record = {"kind": "key", "path": list(item.path), "value": item.value}
                if had:
                    record["before"] = parent[key]
                parent[key] = copy.deepcopy(item.value)
            else:
                parent = _container(doc, item.path[:-1], created)
                key = item.path[-1]
                if not isinstance(parent, dict):
                    raise SetupError(f"{'.'.join(item.path[:-1])} is not an object")
                if key not in parent:
                    parent[key] = []
                    created.append(list(item.path))
                members = parent[key]
                if not isinstance(members, list):
                    raise SetupError(f"{'.'.join(item.path)} is not a list")
                stale = [
                    r["value"]
                    for r in earlier
                    if r["kind"] == "member"
                    and r["path"] == list(item.path)
                    and r["value"] != item.value
                    and r.get("label") == item.label
                ]
                kept = [m for m in members if m not in stale]
                if item.value in kept and len(kept) == len(members):
                    same.append(item.label)
                    continue
                members[:] = kept
                if item.value not in members:
                    members.append(copy.deepcopy(item.value))
                record = {"kind": "member", "path": list(item.path), "value": item.value}
        except SetupError as exc:
            raise SetupError(f"{name}: {exc}; nothing written") from None
        record["label"] = item.label
        record["created"] = created
        records.append(record)
        changed.append(item.label)
    return doc, records, changed, same, notes


def remove(
    doc: dict[str, Any], records: list[dict[str, Any]]
) -> tuple[dict[str, Any], list[str], list[str]]:
    """(doc without what `records` added, labels removed, labels left: changed since)."""
    doc = copy.deepcopy(doc)
    removed: list[str] = []
    left: list[str] = []
    for record in reversed(records):
        path = record["path"]
        found, current = _lookup(doc, path)
        _, parent = _lookup(doc, path[:-1])
        if record["kind"] == "key":
            if not found or current != record["value"]:
                if found:
                    left.append(record["label"])
                continue
            if "before" in record:
                parent[path[-1]] = record["before"]
            else:
                del parent[path[-1]]
        else:
            if not found or not isinstance(current, list) or record["value"] not in current:
                continue
            current.remove(record["value"])
        removed.append(record["label"])
        for prefix in reversed(record.get("created", [])):
            found, node = _lookup(doc, prefix)
            if found and node in ({}, []):
                _, holder = _lookup(doc, prefix[:-1])
                del holder[prefix[-1]]
    return doc, removed, left
