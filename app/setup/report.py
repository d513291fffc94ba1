"""What `setup` tells the person: file by file, what was written, already so, or removed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from .model import Change, Plan

if TYPE_CHECKING:
    import argparse

    from .where import Where


def shown(path: Path, where: Where) -> str:
    """A project file relative to the project, a file of HOME as ~/..., else absolute."""
    for base, prefix in ((where.root, ""), (where.home, "~/")):
        try:
            rel = path.relative_to(base)
        except ValueError:
            continue
        if base == where.root and where.user:
            continue
        return prefix + str(rel)
    return str(path)


def lines(plan: Plan, changes: list[Change], where: Where, removing: bool) -> list[str]:
    if plan.scope == "project":
        head = f"jobs-tui setup {plan.client}: project {where.root} ({where.root_reason})"
    else:
        head = f"jobs-tui setup {plan.client}: user config (HOME={where.home})"
    out = [head]
    for change in changes:
        name = shown(change.path, where)
        items = ", ".join(change.items)
        if change.change == "deleted":
            out.append(f"removed {items} from {name}; deleted it (setup had created it)")
        elif change.change == "removed":
            out.append(f"removed {items} from {name}")
        elif change.change == "nothing":
            out.append(f"nothing to remove in {name}")
        else:
            out.append(f"{change.change} {name} ({items})")
        if change.left:
            out.append(f"  left {', '.join(change.left)} in {name}: changed since setup")
    out += [f"note: {note}" for note in plan.notes]
    if removing:
        if not any(c.change in ("removed", "deleted") for c in changes):
            from .ledger import ledger_path

            out.append(
                f"nothing to remove: {ledger_path()} has no record of setup adding anything "
                "to these files (or it was taken out already)"
            )
    elif not any(c.change == "wrote" for c in changes):
        out.append(f"nothing changed: {plan.client} is already set up")
    return out


def emit(args: argparse.Namespace, plan: Plan, changes: list[Change], where: Where) -> int:
    from ..jsonout import emit_result

    details = {
        "client": plan.client,
        "scope": plan.scope,
        "project": str(where.root),
        "command": where.words,
        "files": [
            {
                "path": os.fspath(c.path),
                "change": c.change,
                "items": c.items,
                **({"left": c.left} if c.left else {}),
            }
            for c in changes
        ],
        "notes": plan.notes,
        "changed": any(c.change in ("wrote", "removed", "deleted") for c in changes),
    }
    return emit_result(args, details, lines(plan, changes, where, args.remove), action="setup")
