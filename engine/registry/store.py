"""The registry on disk: atomic per-session writes, load-all, corrupt-file quarantine."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from jobs_tui.engine.records.bounds import MAX_COUNTER, out_of_range
from jobs_tui.engine.records.model import JobRecord, RecordError
from jobs_tui.engine.shim.regdir import temp_name

from . import regfiles
from .paths import (
    CORRUPT,
    CURSORS_PREFIX,
    LEGACY_REGISTRY,
    MARKER_PREFIX,
    REGISTRY_PREFIX,
    claim_base,
    job_file_number,
    quarantine_name,
)
from .safefiles import (
    REGISTRY_FILE_LIMIT,
    FileTooLarge,
    UnsafeFile,
    kind,
    open_regular,
    our_uid,
    read_fd,
)

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from typing import Any

VERSION = 1
FileKey = tuple[int, int, int]  # inode, size, mtime: a file rewritten by rename changes inode


class CorruptRegistry(ValueError):
    """A registry file that is not valid JSON (or not a registry object, or out of range)."""


@dataclass
class RegistryFile:
    session_id: str
    counter: int
    jobs: list[JobRecord]
    path: Path | None = None
    skipped: list[str] = field(default_factory=list)  # entries that failed validation
    unknown: dict[str, Any] = field(default_factory=dict)
    shape: list[str] = field(default_factory=list)  # top-level fields not as the format says
    key: FileKey | None = field(default=None, compare=False)  # of the file it was read from
    raw: bytes = field(default=b"", compare=False, repr=False)  # the bytes it was parsed from
    # id -> (entry as read, its record): the next parse of this file reuses unchanged ones
    memo: dict[str, tuple[dict[str, Any], JobRecord]] = field(
        default_factory=dict, compare=False, repr=False
    )

    @property
    def lossy(self) -> bool:
        """Rewriting what was parsed would lose something the file held."""
        return bool(self.skipped or self.shape)

    def to_json(self) -> dict[str, Any]:
        out = dict(self.unknown)
        out.update(
            version=VERSION,
            sessionId=self.session_id,
            counter=self.counter,
            jobs=[job.to_json() for job in self.jobs],
        )
        return out


def encode_json(data: Any) -> bytes:
    """The bytes every registry write uses (compact, UTF-8).

    A lone surrogate (a byte that was not UTF-8, kept by surrogateescape) becomes its JSON
    \\uXXXX escape, which every JSON reader reads back; everything else stays UTF-8.
    """
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "backslashreplace"
    )


def encode_registry(
    unknown: dict[str, Any], session_id: str, counter: int, jobs: list[bytes]
) -> bytes:
    """encode_json(RegistryFile(...).to_json()), from records already encoded one by one."""
    head = encode_json({**unknown, "version": VERSION, "sessionId": session_id, "counter": counter})
    return head[:-1] + b',"jobs":[' + b",".join(jobs) + b"]}"


def write_json_atomic(path: Path, data: Any, *, durable: bool = True) -> None:
    """Unique temp file in the same directory, fsync, rename over, fsync the directory."""
    write_bytes_atomic(path, encode_json(data), durable=durable)


def write_bytes_atomic(path: Path, payload: bytes, *, durable: bool = True) -> None:
    """See write_json_atomic. Everything happens by name in the session's registry
    directory fd (regfiles; for a directory nobody holds, one opened and checked for this
    write): the temporary file (an unguessable name, O_EXCL, O_NOFOLLOW), the rename, the
    directory's fsync."""
    with regfiles.checked(path) as (dir_fd, name):
        tmp = temp_name(name)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
        try:
            regfiles.write_all(fd, payload)
            if durable:
                os.fsync(fd)
        except BaseException:
            os.close(fd)
            try:
                os.unlink(tmp, dir_fd=dir_fd)
            except OSError:
                pass
            raise
        os.close(fd)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        if durable:
            try:
                os.fsync(dir_fd)
            except OSError:
                pass


def parse_registry(
    raw: bytes, path: Path | None = None, previous: RegistryFile | None = None
) -> RegistryFile:
    """A registry file's records; CorruptRegistry if it cannot be trusted as a whole.

    Not JSON, not an object, or a counter past the last possible id: the whole file is
    corrupt. An entry of the wrong types, or with a number out of range, is skipped
    and listed in `skipped`; a top-level field of the wrong shape is listed in `shape`.
    An entry equal to one of `previous` (the same file parsed before) is not validated
    again: a file of hundreds of records usually changes by one.
    """
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError, OverflowError) as exc:
        # ValueError covers JSONDecodeError, bad UTF-8 and integers over Python's
        # 4,300-digit conversion limit.
        raise CorruptRegistry(f"not valid JSON: {_short(exc)}") from exc
    if not isinstance(data, dict):
        raise CorruptRegistry("not a registry object")
    shape: list[str] = []
    session_id = data.get("sessionId")
    if not isinstance(session_id, str):
        legacy = path is not None and claim_base(path.name) == LEGACY_REGISTRY
        session_id = "legacy" if legacy else ""
        if not legacy:
            shape.append("sessionId is missing or not a string")
    counter = data.get("counter")
    if isinstance(counter, bool) or not isinstance(counter, int):
        if "counter" in data:
            shape.append("counter is not a whole number")
        counter = 1
    elif counter > MAX_COUNTER:
        raise CorruptRegistry(f"counter {_short(counter)} is past the last possible job id")
    counter = max(1, counter)
    jobs: list[JobRecord] = []
    skipped: list[str] = []
    memo: dict[str, tuple[dict[str, Any], JobRecord]] = {}
    earlier = previous.memo if previous is not None else {}
    entries = data.get("jobs")
    if not isinstance(entries, list):
        shape.append("jobs is missing or not a list")
    for entry in entries if isinstance(entries, list) else []:
        job_id = entry.get("id") if isinstance(entry, dict) else None
        known = earlier.get(job_id) if isinstance(job_id, str) else None
        if known is not None and known[0] == entry:
            memo[job_id] = known
            jobs.append(clone_record(known[1]))
            continue
        try:
            wrong = out_of_range(entry) if isinstance(entry, dict) else None
            if wrong is not None:
                raise RecordError(f"field {wrong!r} is out of range")
            record = JobRecord.from_json(entry)
        except RecordError as exc:
            skipped.append(str(exc))
            continue
        memo[record.id] = (entry, record)
        jobs.append(clone_record(record))
    unknown = {
        k: v for k, v in data.items() if k not in ("version", "sessionId", "counter", "jobs")
    }
    return RegistryFile(
        session_id, counter, jobs, path, skipped, unknown, shape, raw=raw, memo=memo
    )


def clone_record(record: JobRecord) -> JobRecord:
    """A copy of a record (JobRecord.copy, without dataclasses.replace's cost)."""
    clone = object.__new__(JobRecord)
    clone.__dict__.update(record.__dict__)
    clone.unknown = dict(record.unknown)
    return clone


def _short(value: object, limit: int = 80) -> str:
    """A value or message for a problem line, never the whole of a huge input."""
    try:
        text = str(value)
    except ValueError:  # an int too long to convert
        return "a number too long to print"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def read_registry(path: Path) -> RegistryFile:
    """Parse one file, opened safely (see safefiles); UnsafeFile or CorruptRegistry if not."""
    fd = open_regular(path)
    try:
        st = os.fstat(fd)
        parsed = parse_registry(read_fd(fd, REGISTRY_FILE_LIMIT), path)
    finally:
        os.close(fd)
    parsed.key = (st.st_ino, st.st_size, st.st_mtime_ns)
    return parsed


def quarantine(path: Path, name: str | None = None, *, copy: bool = False) -> Path | None:
    """Keep a file as `<name>.corrupt-<timestamp>` in place: renamed, or hard-linked (`copy`).

    `name` defaults to the file's own name (an adoption claim is kept under the name
    of the file it claimed). A quarantined file is never parsed again, never deleted.
    """
    stamp = int(time.time() * 1000)
    base = name or path.name
    target = path.with_name(quarantine_name(base, stamp))
    n = 0
    while regfiles.lexists(target):  # never overwrite an earlier quarantined copy
        n += 1
        target = path.with_name(quarantine_name(base, stamp, n))
    try:
        if copy:
            regfiles.link(path, target)
        else:
            regfiles.rename(path, target)
    except FileNotFoundError:
        return None
    return target


@dataclass
class Loaded:
    files: list[RegistryFile]
    problems: list[str]


def is_registry_name(name: str) -> bool:
    """A session file, the legacy shared file, or either one claimed for adoption."""
    if not name.startswith("registry") or CORRUPT in name:
        return False  # quarantined: kept for a person to read, never parsed again
    base = claim_base(name)
    return base == LEGACY_REGISTRY or (base.startswith(REGISTRY_PREFIX) and base.endswith(".json"))


_CHECKED = ("j", MARKER_PREFIX, CURSORS_PREFIX)


def _checked(name: str, entry: os.DirEntry[str], job_files: bool) -> bool:
    """Markers and cursors are always looked at; a job's files only when they are not
    regular files (d_type says so without a stat; their readers check the owner)."""
    if name.endswith(".json"):
        return name[0] != "j" and CORRUPT not in name
    if not job_files:
        return False
    try:
        if entry.is_file(follow_symlinks=False):
            return False
    except OSError:
        return False
    return job_file_number(name) is not None and not name.endswith((".sock", ".lock"))


@dataclass
class Listing:
    """The registry files a directory held when it was last listed, by the directory's
    inode and mtime: every registry write is a rename into it (so is a new file, a
    claim, a quarantine), which moves the mtime, so an unchanged key means the same names.
    A key is kept only once the mtime is STABLE_NS old: timestamps are coarse, and two
    renames in one tick would leave the same mtime."""

    key: tuple[int, int] | None = None
    names: list[str] = field(default_factory=list)


STABLE_NS = 1_000_000_000


def _dir_key(root: Path) -> tuple[int, int] | None:
    try:
        st = regfiles.stat_dir(root)
    except OSError:
        return None
    if time.time_ns() - st.st_mtime_ns < STABLE_NS:
        return None
    return st.st_ino, st.st_mtime_ns


def load_all(
    root: Path,
    cache: dict[str, tuple[FileKey, RegistryFile]] | None = None,
    *,
    check_job_files: bool = True,
    known: str | None = None,
    listing: Listing | None = None,
) -> Loaded:
    """Every session file (and a legacy registry.json) in the directory.

    `known` names a file the caller holds as it is on disk (it wrote it, and its key
    has not changed since): it is left out, not read again.

    With `cache`, a file whose inode, size and mtime are unchanged is not parsed again
    (every write is a rename, so an unchanged key means unchanged content). A name we
    read that is not a regular file of ours is reported, never opened for reading
    (job files only with `check_job_files`: their readers refuse them anyway).
    """
    files: list[RegistryFile] = []
    problems: list[str] = []
    registry_names: list[str] = []
    key = _dir_key(root) if listing is not None else None
    if listing is not None and not check_job_files and key is not None and key == listing.key:
        registry_names = list(listing.names)  # nothing was added, renamed or removed
    else:
        if not _list(root, registry_names, problems, check_job_files):
            return Loaded(files, problems)
        if listing is not None:
            listing.key, listing.names = key, list(registry_names)
    for name in sorted(registry_names):
        if name == known:
            continue
        path = root / name
        try:
            parsed = read_cached(path, cache)
        except FileNotFoundError:
            continue  # removed by its owner (or an adopter) between listing and reading
        except FileTooLarge as exc:
            moved = quarantine(path)
            if moved:
                problems.append(f"{name}: {exc.strerror}; kept as {moved.name}")
            continue
        except UnsafeFile as exc:
            problems.append(f"{name}: {exc.strerror}")
            continue
        except OSError as exc:  # a file we may not read: report, skip
            problems.append(f"{name}: cannot be read: {exc.strerror or exc}")
            continue
        except CorruptRegistry as exc:
            moved = quarantine(path)
            if moved:
                problems.append(f"{name}: {exc}; kept as {moved.name}")
            continue
        for reason in parsed.shape:
            problems.append(f"{name}: not in the registry format: {reason}")
        for reason in parsed.skipped:
            problems.append(f"{name}: skipped an entry: {reason}")
        files.append(parsed)
    if cache is not None:
        for gone in set(cache) - set(registry_names):
            del cache[gone]
    return Loaded(files, problems)


def _list(root: Path, names: list[str], problems: list[str], check_job_files: bool) -> bool:
    """The directory's registry files into `names`, refused entries into `problems`;
    False when there is no directory."""
    try:
        with regfiles.scandir(root) as scan:
            for entry in scan:
                name = entry.name
                if name.startswith("registry"):
                    if is_registry_name(name):
                        names.append(name)
                elif name.startswith(_CHECKED) and _checked(name, entry, check_job_files):
                    problem = _odd_entry(entry)
                    if problem:
                        problems.append(f"{name}: {problem}")
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def _odd_entry(entry: os.DirEntry[str]) -> str | None:
    """Why a marker, cursor or job file is refused (cheap: d_type first), or None."""
    try:
        if entry.is_file(follow_symlinks=False):
            uid = our_uid()
            if uid is None or not entry.name.endswith(".json"):
                return None  # job files: their readers check the owner when they open them
            st = entry.stat(follow_symlinks=False)
            if st.st_uid == uid:
                return None
            return f"refused: it belongs to another user (uid {st.st_uid})"
        return (
            f"refused: it is {kind(entry.stat(follow_symlinks=False).st_mode)}, not a regular file"
        )
    except OSError:
        return None


def read_cached(path: Path, cache: dict[str, tuple[FileKey, RegistryFile]] | None) -> RegistryFile:
    """read_registry, unless `cache` holds the file parsed at the same inode, size and mtime."""
    if cache is None:
        return read_registry(path)
    fd = open_regular(path)
    try:
        st = os.fstat(fd)
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        hit = cache.get(path.name)
        if hit is not None and hit[0] == key:
            return hit[1]
        previous = hit[1] if hit is not None else None
        parsed = parse_registry(read_fd(fd, REGISTRY_FILE_LIMIT), path, previous)
    finally:
        os.close(fd)
    parsed.key = key
    cache[path.name] = (key, parsed)
    return parsed
