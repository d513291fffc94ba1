"""Adopting a dead session's registry file: whether it may be, the claim by rename, and
what is left of the claim once its records are ours.

Adoption is a claim by rename: `registry-<h>.json` is renamed to
`registry-<h>.json.adopting-<mine>`; exactly one racer's rename succeeds. The winner
merges the records into its own file (durably) and only then removes the claim (or
keeps it as `.corrupt-<ms>` when something in it could not be carried over), so a
crash in between leaves a claim file that the next session adopts in turn.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import regfiles, sessions
from .paths import RegistryPaths, claimer, session_hash
from .safefiles import UnsafeFile
from .store import CorruptRegistry, RegistryFile, quarantine, read_registry


def adoptable(
    paths: RegistryPaths, session_ttl_ms: int, session_id: str, file: RegistryFile, now_ms: int
) -> bool:
    """A dead session's file, or a claim whose claimer died (or was us) before finishing;
    a session is dead once its marker is older than `session_ttl_ms` (the config's)."""
    if file.path is None:
        return False
    claimed_by = claimer(file.path.name)
    if claimed_by is not None:  # a claim whose claimer died before finishing
        if claimed_by == session_hash(session_id):
            return True
        marker = sessions.read_marker(paths.marker_file_of(claimed_by))
        return not sessions.marker_alive(marker, now_ms, session_ttl_ms)
    if file.unknown.get("persistent") is True:
        return False  # a command-line session: no process stays alive, by design
    return not sessions.session_alive(paths, file.session_id, now_ms, session_ttl_ms)


def claim(paths: RegistryPaths, path: Path, session_id: str) -> tuple[Path, RegistryFile] | None:
    """Rename the file to our claim and read it back; None if another session won the race
    (or the file went away)."""
    claimed = paths.claim(path, session_id)
    try:
        if path != claimed:
            regfiles.rename(path, claimed)
        return claimed, read_registry(claimed)
    except (FileNotFoundError, CorruptRegistry, UnsafeFile):
        return None  # another session won the race (or the file went away)
    except OSError:
        return None


def merged_by_claimer(paths: RegistryPaths, name: str, session_id: str) -> set[str]:
    """Ids a claim's dead claimer had already merged into its own file before dying."""
    claimed_by = claimer(name)
    if claimed_by is None or claimed_by == session_hash(session_id):
        return set()
    try:
        own = read_registry(paths.registry_file_of(claimed_by))
    except (OSError, CorruptRegistry):
        return set()
    return {record.id for record in own.jobs}


def release(
    paths: RegistryPaths,
    claimed: Path,
    base: str,
    file: RegistryFile,
    report: Callable[[str], object],
) -> None:
    """Once its records are in our file: the claim goes (or is kept, and reported, when
    something in it was not carried over), and so do the dead session's marker and lock."""
    if file.lossy:  # something in it was not carried over: keep the original
        kept = quarantine(claimed, base)
        reasons = [*file.shape, *(f"skipped an entry: {r}" for r in file.skipped)]
        if kept:
            report(
                f"{base}: adopted, but not everything in it could be carried over "
                f"({'; '.join(reasons)[:200]}); original kept as {kept.name}"
            )
    else:
        regfiles.unlink(claimed)
    if file.session_id:
        sessions.remove_marker(paths, file.session_id)
        regfiles.unlink(paths.persist_lock(file.session_id))
