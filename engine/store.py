"""The registry on disk: atomic per-session writes, load-all, corrupt-file quarantine."""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .model import JobRecord, RecordError

VERSION = 1


class CorruptRegistry(ValueError):
    """A registry file that is not valid JSON (or not a registry object)."""


@dataclass
class RegistryFile:
    session_id: str
    counter: int
    jobs: list[JobRecord]
    path: Path | None = None
    skipped: list[str] = field(default_factory=list)  # entries that failed validation
    unknown: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = dict(self.unknown)
        out.update(
            version=VERSION,
            sessionId=self.session_id,
            counter=self.counter,
            jobs=[job.to_json() for job in self.jobs],
        )
        return out


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_json_atomic(path: Path, data: Any, *, durable: bool = True) -> None:
    """Unique temp file in the same directory, fsync, rename over, fsync the directory."""
    # A lone surrogate (a byte that was not UTF-8, kept by surrogateescape) becomes its JSON
    # \uXXXX escape, which every JSON reader reads back; everything else stays UTF-8.
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "backslashreplace"
    )
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view) :]
        if durable:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(tmp, path)
    if durable:
        fsync_dir(path.parent)


def parse_registry(raw: bytes, path: Path | None = None) -> RegistryFile:
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise CorruptRegistry(f"not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise CorruptRegistry("not a registry object")
    session_id = data.get("sessionId")
    if not isinstance(session_id, str):
        legacy = path is not None and path.name.split(".adopting-", 1)[0] == "registry.json"
        session_id = "legacy" if legacy else ""
    counter = data.get("counter")
    if isinstance(counter, bool) or not isinstance(counter, int):
        counter = 1
    jobs: list[JobRecord] = []
    skipped: list[str] = []
    entries = data.get("jobs")
    for entry in entries if isinstance(entries, list) else []:
        try:
            jobs.append(JobRecord.from_json(entry))
        except RecordError as exc:
            skipped.append(str(exc))
    unknown = {
        k: v for k, v in data.items() if k not in ("version", "sessionId", "counter", "jobs")
    }
    return RegistryFile(session_id, counter, jobs, path, skipped, unknown)


def read_registry(path: Path) -> RegistryFile:
    return parse_registry(path.read_bytes(), path)


def quarantine(path: Path) -> Path | None:
    """Rename a corrupt file in place to `<name>.corrupt-<timestamp>`; never delete it."""
    stamp = int(time.time() * 1000)
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 0
    while target.exists():  # never overwrite an earlier quarantined copy
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    try:
        os.replace(path, target)
    except FileNotFoundError:
        return None
    return target


@dataclass
class Loaded:
    files: list[RegistryFile]
    problems: list[str]


def is_registry_name(name: str) -> bool:
    """A session file, the legacy shared file, or either one claimed for adoption."""
    if ".corrupt-" in name:
        return False  # quarantined: kept for a person to read, never parsed again
    base = name.split(".adopting-", 1)[0]
    return base == "registry.json" or (base.startswith("registry-") and base.endswith(".json"))


FileKey = tuple[int, int, int]  # inode, size, mtime: a file rewritten by rename changes inode


def load_all(root: Path, cache: dict[str, tuple[FileKey, RegistryFile]] | None = None) -> Loaded:
    """Every session file (and a legacy registry.json) in the directory.

    With `cache`, a file whose inode, size and mtime are unchanged is not parsed again
    (every write is a rename, so an unchanged key means unchanged content).
    """
    files: list[RegistryFile] = []
    problems: list[str] = []
    try:
        names = sorted(os.listdir(root))
    except FileNotFoundError:
        return Loaded(files, problems)
    for name in names:
        if not is_registry_name(name):
            continue
        path = root / name
        try:
            parsed = _read_cached(path, cache)
        except FileNotFoundError:
            continue  # removed by its owner (or an adopter) between listing and reading
        except OSError as exc:  # a directory, or a file we may not read: report, skip
            problems.append(f"{name}: cannot be read: {exc.strerror or exc}")
            continue
        except CorruptRegistry as exc:
            moved = quarantine(path)
            if moved:
                problems.append(f"{name}: {exc}; kept as {moved.name}")
            continue
        for reason in parsed.skipped:
            problems.append(f"{name}: skipped an entry: {reason}")
        files.append(parsed)
    if cache is not None:
        for gone in set(cache) - set(names):
            del cache[gone]
    return Loaded(files, problems)


def _read_cached(path: Path, cache: dict[str, tuple[FileKey, RegistryFile]] | None) -> RegistryFile:
    if cache is None:
        return read_registry(path)
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        hit = cache.get(path.name)
        if hit is not None and hit[0] == key:
            return hit[1]
        parsed = parse_registry(fh.read(), path)
    cache[path.name] = (key, parsed)
    return parsed
