"""Carrying out a client's plan: every file read and merged first, then written.

Nothing is written unless every file of the plan parsed and merged: a run refused for
one file leaves all of them (and the ledger) as they were.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import files, jsonedit, ledger, tomledit
from .model import Change, FilePlan, Plan


@dataclass
class _Pending:
    plan: FilePlan
    text: str | None  # what is there now (None: no file)
    new_text: str | None  # what it becomes (None: delete it)
    records: list[dict[str, Any]]
    change: Change


def _setup_one(fp: FilePlan, book: dict[str, Any], notes: list[str], name: str) -> _Pending:
    text = files.read(fp.path)
    entry = ledger.entry(book, fp.path) or {}
    earlier = entry.get("records", []) if text is not None else []
    if fp.syntax == "json":
        doc, style = jsonedit.parse(text or "", name)
        new_doc, records, changed, same, more = jsonedit.apply(doc, fp.items, earlier, name)
        notes.extend(more)
        new_text = jsonedit.render(new_doc, style) if changed else text
    else:
        new_text, records, changed, same, more = tomledit.apply(text or "", fp.items, name)
        notes.extend(more)
        if not changed:
            new_text = text
    change = Change(fp.path, "wrote" if changed else "unchanged", changed or same)
    return _Pending(fp, text, new_text, records, change)


def _remove_one(fp: FilePlan, book: dict[str, Any], name: str) -> _Pending:
    text = files.read(fp.path)
    entry = ledger.entry(book, fp.path) or {}
    records = entry.get("records", [])
    if text is None or not records:
        return _Pending(fp, text, text, [], Change(fp.path, "nothing", []))
    if fp.syntax == "json":
        doc, style = jsonedit.parse(text, name)
        new_doc, removed, left = jsonedit.remove(doc, records)
        empty = not new_doc
        new_text = jsonedit.render(new_doc, style) if removed else text
    else:
        new_text, removed, left = tomledit.remove(text, records, name)
        empty = not new_text.strip()
    if entry.get("created") and empty and removed and not left:
        return _Pending(fp, text, None, [], Change(fp.path, "deleted", removed))
    change = Change(fp.path, "removed" if removed else "nothing", removed, left)
    return _Pending(fp, text, new_text, [], change)


def run(plan: Plan, remove: bool, show: Callable[[Path], str] = str) -> list[Change]:
    """Apply (or undo) the plan; returns what happened to each file (`show` names a file
    in a message)."""
    book = ledger.load()
    notes: list[str] = []
    if remove:
        pending = [_remove_one(fp, book, show(fp.path)) for fp in plan.files]
    else:
        pending = [_setup_one(fp, book, notes, show(fp.path)) for fp in plan.files]
    plan.notes.extend(notes)
    touched = False
    for p in pending:  # every file merged: now write
        key = str(p.plan.path)
        if remove:
            entry = book["files"].get(key)
            if p.change.change == "deleted":
                files.delete(p.plan.path, [Path(d) for d in (entry or {}).get("dirs", [])])
            elif p.new_text != p.text and p.new_text is not None:
                files.write(p.plan.path, p.new_text)
            if entry is not None and not p.change.left:
                del book["files"][key]
                touched = True
            continue
        if p.change.change != "wrote":
            continue
        if p.text is None and key in book["files"]:  # a new file: an earlier one's records
            old = book["files"].pop(key)  # (it was deleted since) are void; its folders stay
            book["files"][key] = {"created": True, "dirs": old.get("dirs", []), "records": []}
        entry = book["files"].setdefault(
            key, {"created": p.text is None, "dirs": [], "records": []}
        )
        dirs = files.missing_dirs(p.plan.path)
        files.make_dirs(dirs)
        entry["dirs"] = entry.get("dirs", []) + [str(d) for d in dirs]
        files.write(p.plan.path, p.new_text or "")
        entry["records"] = _merged(entry.get("records", []), p.records)
        touched = True
    if touched:
        ledger.save(book)
    return [p.change for p in pending]


def _merged(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The file's records after another setup: a key set again keeps its first `before`
    (what the person had), a replaced member of ours drops its stale record."""
    out = list(old)
    for record in new:
        same = [
            r for r in out if r["kind"] == record["kind"] and r.get("label") == record.get("label")
        ]
        for r in same:
            if record["kind"] == "key" and r["path"] == record["path"]:
                if "before" in r:
                    record["before"] = r["before"]
                elif "before" in record:
                    del record["before"]
                record["created"] = r.get("created", []) + record.get("created", [])
                out.remove(r)
            elif record["kind"] == "member" and r["path"] == record["path"]:
                record["created"] = r.get("created", []) + record.get("created", [])
                out.remove(r)
            elif record["kind"] in ("table", "line"):
                record.pop("before", None)
                record.pop("sep", None)
                record.update({k: r[k] for k in ("before", "sep") if k in r})
                out.remove(r)
        out.append(record)
    return out
