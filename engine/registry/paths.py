"""Every file name the engine uses, and the rule that keeps registry paths inside the registry."""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

from jobs_tui.engine.shim.protocol import base_of, previous_of, sizes_of, times_of

from . import regfiles

try:  # the builtin module: hashlib loads OpenSSL first, a few ms of every short call
    from _sha1 import sha1
except ImportError:  # a Python built without it
    from hashlib import sha1

ENV_REGISTRY_DIR = "JOBS_TUI_REGISTRY_DIR"
ENV_CONFIG = "JOBS_TUI_CONFIG"
APP_NAME = "jobs-tui"
# sun_path is 108 bytes on Linux (104 on macOS) including the NUL.
MAX_SOCKET_PATH = 100

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
# Names of the registry directory's files (RegistryPaths builds them; readers match them).
REGISTRY_PREFIX, MARKER_PREFIX, CURSORS_PREFIX = "registry-", "session-", "cursors-"
LEGACY_REGISTRY = "registry.json"
CLAIM = ".adopting-"  # `registry-<h>.json.adopting-<claimer's hash>`: a claim for adoption
CORRUPT = ".corrupt-"  # `<name>.corrupt-<ms>`: a quarantined file, kept for a person
# Every file a job may leave in the registry directory (and its socket, when it is there).
_JOB_FILE = re.compile(
    r"^j([1-9][0-9]{0,8})\.(?:log|log\.1|log\.base|log\.time|status|end|lock|sock|env|started|ready)\Z"
)


def project_key(cwd: str | os.PathLike[str]) -> str:
    """`<basename>-<sha1(abs cwd)[:12]>`, as the reference registry format defines it."""
    absolute = os.path.abspath(os.fspath(cwd))
    base = os.path.basename(absolute.rstrip(os.sep)) or "root"
    base = _UNSAFE.sub("_", base)
    digest = sha1(absolute.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{base}-{digest}"


PROJECT_MARKERS = (".git", ".hg", ".jj", ".jobs-tui")


def project_root(cwd: str | os.PathLike[str]) -> Path:
    """The nearest ancestor of `cwd` (itself included) holding a VCS or `.jobs-tui` marker.

    `.git`, `.hg`, `.jj` or `.jobs-tui`, as a file or a directory (a worktree's `.git`
    is a file); with none up to `/`, the directory itself. The default registry is
    keyed by this root, so every subdirectory of a project shares one registry.
    """
    start = Path(os.path.abspath(os.fspath(cwd)))
    for candidate in (start, *start.parents):
        for marker in PROJECT_MARKERS:
            try:
                if os.path.lexists(candidate / marker):
                    return candidate
            except (OSError, ValueError):
                continue
    return start


def session_hash(session_id: str) -> str:
    return sha1(session_id.encode("utf-8")).hexdigest()[:16]


def default_state_root() -> Path:
    import platformdirs

    return Path(platformdirs.user_state_dir(APP_NAME))


def default_config_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def job_file_number(name: str) -> int | None:
    """n, when `name` is one of the files of job j<n> (log, rotation, base, status, end, lock)."""
    match = _JOB_FILE.match(name)
    return int(match.group(1)) if match else None


def claim_base(name: str) -> str:
    """`registry-x.json.adopting-y` -> `registry-x.json`: the file a claim was made on."""
    return name.split(CLAIM, 1)[0]


def claimer(name: str) -> str | None:
    """The session hash that claimed a file for adoption, if `name` is a claim."""
    if CLAIM not in name:
        return None
    return name.split(CLAIM, 1)[1]


def quarantine_name(base: str, stamp: int, n: int = 0) -> str:
    return f"{base}{CORRUPT}{stamp}" + (f"-{n}" if n else "")


class RegistryPaths:
    """Names inside one registry directory; nothing here touches the disk."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(os.path.abspath(os.fspath(root)))

    def registry_file(self, session_id: str) -> Path:
        return self.registry_file_of(session_hash(session_id))

    def registry_file_of(self, digest: str) -> Path:
        """The registry file of the session whose `session_hash` is `digest`."""
        return self.root / f"{REGISTRY_PREFIX}{digest}.json"

    def marker_file(self, session_id: str) -> Path:
        return self.marker_file_of(session_hash(session_id))

    def marker_file_of(self, digest: str) -> Path:
        return self.root / f"{MARKER_PREFIX}{digest}.json"

    def legacy_registry(self) -> Path:
        return self.root / LEGACY_REGISTRY

    def claim(self, registry_file: Path, session_id: str) -> Path:
        """`registry_file` claimed for adoption by `session_id` (renamed to this name)."""
        base = claim_base(registry_file.name)
        return self.root / f"{base}{CLAIM}{session_hash(session_id)}"

    def persist_lock(self, session_id: str) -> Path:
        """The flock every process of a session takes before writing its file."""
        return self.root / f"persist-{session_hash(session_id)}.lock"

    def cursors(self, session_id: str) -> Path:
        """A persistent session's unread cursors (the tools' `poll`)."""
        return self.root / f"{CURSORS_PREFIX}{session_hash(session_id)}.json"

    def cursors_lock(self, session_id: str) -> Path:
        return self.root / f"{CURSORS_PREFIX}{session_hash(session_id)}.lock"

    def lock(self, job_id: str) -> Path:
        return self.root / f"{job_id}.lock"

    def log(self, job_id: str) -> Path:
        return self.root / f"{job_id}.log"

    def previous_log(self, job_id: str) -> Path:
        return Path(previous_of(str(self.log(job_id))))

    def log_base(self, job_id: str) -> Path:
        """`<inode> <offset>`: where the live segment starts in the job's whole output."""
        return Path(base_of(str(self.log(job_id))))

    def log_times(self, job_id: str) -> Path:
        """When the job's output was written (timeindex): offset/time records."""
        return Path(times_of(str(self.log(job_id))))

    def log_sizes(self, job_id: str) -> Path:
        """A terminal job's screen sizes from the byte each began at (sizeindex)."""
        return Path(sizes_of(str(self.log(job_id))))

    def status(self, job_id: str) -> Path:
        return self.root / f"{job_id}.status"

    def env(self, job_id: str) -> Path:
        """What a restart needs that the registry must not hold: the extra environment's
        values (and a terminal's size), 0600; removed with the record."""
        return self.root / f"{job_id}.env"

    def end(self, job_id: str) -> Path:
        """Why the job ended, written by its shim beside the status file."""
        return self.root / f"{job_id}.end"

    def started(self, job_id: str) -> Path:
        """A declared job's command was spawned (its shim writes it; dependents read it)."""
        return self.root / f"{job_id}.started"

    def ready(self, job_id: str) -> Path:
        """A declared job's probe passed (`"ready": true`) or gave up (false): its shim's."""
        return self.root / f"{job_id}.ready"

    def socket(self, job_id: str, create: bool = False) -> Path:
        """The control socket: derived, never read from a registry file. Too long a path
        puts it in the private runtime directory (runtimedir), made only if `create` (a
        start: a read asks where a socket would be and writes nothing)."""
        direct = self.root / f"{job_id}.sock"
        if len(os.fsencode(direct)) <= MAX_SOCKET_PATH:
            return direct
        from .runtimedir import runtime_dir  # only long registry paths need it

        digest = sha1(os.fsencode(self.root)).hexdigest()[:16]
        return runtime_dir(self.root, create) / f"{digest}-{job_id}.sock"

    def job_files(self, job_id: str) -> list[Path]:
        return [
            self.log(job_id),
            self.previous_log(job_id),
            self.log_base(job_id),
            self.log_times(job_id),
            self.log_sizes(job_id),
            self.status(job_id),
            self.end(job_id),
            self.lock(job_id),
            self.env(job_id),
            self.started(job_id),
            self.ready(job_id),
        ]

    def inside(self, candidate: str | None) -> Path | None:
        """`candidate` resolved, if it lies directly in this registry directory; else None.

        In a directory a session holds (regfiles) the name is resolved in that fd, not by
        the path (which a swap may have pointed elsewhere): the answer is a name in it."""
        if not candidate or not isinstance(candidate, str) or "\x00" in candidate:
            return None
        if not os.path.isabs(candidate):
            return None
        in_held = regfiles.resolve_held(candidate)
        if in_held is not None:
            return Path(in_held) if in_held else None
        resolved = os.path.realpath(candidate)
        if os.path.dirname(resolved) != os.path.realpath(self.root):
            return None
        return Path(resolved)


class UnsafeRegistryDir(PermissionError):
    """The registry directory is not ours alone: another user's, or not a directory."""


class LooseParent(UnsafeRegistryDir):
    """A registry directory another user could swap: a parent of it is not ours alone.

    `strerror` says why (naming that parent); str() names the registry directory too."""

    def __init__(self, path: str | os.PathLike[str], why: str) -> None:
        why += (
            ", so another user could swap the registry for one of theirs; use a directory"
            " whose parents only you (or root) can write"
        )
        super().__init__(errno.EPERM, why)
        self.message = f"registry directory {os.fspath(path)} cannot be used: {why}"

    def __str__(self) -> str:
        return self.message


def make_private_dirs(path: str | os.PathLike[str]) -> Path:
    """`mkdir -p`, every directory it creates (parents included) 0700 whatever the umask."""
    target = Path(os.path.abspath(os.fspath(path)))
    missing: list[Path] = []
    probe = target
    while not os.path.lexists(probe) and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            continue  # a racer made it: the ownership check below judges the final one
        os.chmod(directory, 0o700)  # a umask may have taken bits from 0700 (never added)
    return target


def _chain(probe: str, target: str) -> list[str]:
    """`probe` and its ancestors, as written and as resolved, and those of where `target`
    resolves to (a registry that is a symlink), root first, no repeats."""
    seen: dict[str, None] = {}
    resolved = os.path.dirname(os.path.realpath(target))
    for base in (os.path.abspath(probe), os.path.realpath(probe), resolved):
        here = base
        while True:
            seen.setdefault(here)
            up = os.path.dirname(here)
            if up == here:
                break
            here = up
    return sorted(seen, key=lambda d: (d.count(os.sep), d))


def loose_parent(path: str | os.PathLike[str]) -> str | None:
    """Why the directories above `path` let another user swap it, or None if they do not.

    As ssh's StrictModes: every existing ancestor (of the path as written and as resolved)
    must belong to us or to root, and be writable by nobody else, unless it is sticky
    (`/tmp`: there only an entry's owner can rename or remove it). Another user who can
    write a parent can rename the registry away and put one of theirs, with planted
    links, in its place; the shim's directory fd defeats that for its own files, this
    keeps every other reader and writer out of it too.
    """
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    if uid is None:
        return None
    target = os.path.abspath(os.fspath(path))
    probe = os.path.dirname(target)
    while not os.path.lexists(probe) and os.path.dirname(probe) != probe:
        probe = os.path.dirname(probe)
    for directory in _chain(probe, target):
        try:
            st = os.stat(directory)
        except OSError:
            continue  # vanished meanwhile: what we create in its place is ours, 0700
        if not stat.S_ISDIR(st.st_mode):
            continue  # the mkdir below fails and says so
        if st.st_uid not in (uid, 0):
            return f"its parent {directory} is owned by uid {st.st_uid}, not by you or root"
        if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
            mode = f"{st.st_mode & 0o7777:04o}"
            return f"its parent {directory} is writable by other users (mode {mode}, not sticky)"
    return None


def ensure_private_dir(path: Path) -> Path:
    """Create (0700) or check the registry directory: ours, a directory, private.

    A directory of another user is refused, never chmodded or used: whoever owns it
    could plant files that steer us. The owner is compared by uid (so running as root
    does not make everything "ours"); a symlink to the directory is followed, but the
    link itself must be ours (or root's) too. A directory whose parents another user
    can write is refused before anything is created (`loose_parent`).
    """
    loose = loose_parent(path)
    if loose is not None:
        raise LooseParent(path, loose)
    try:
        target = make_private_dirs(path)
        st = os.stat(target)
        link = os.lstat(target)
    except OSError as exc:
        raise UnsafeRegistryDir(
            f"registry directory {path} cannot be used: {exc.strerror or exc}"
        ) from exc
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeRegistryDir(f"registry directory {path} is not a directory; refused")
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    if uid is not None and (
        st.st_uid != uid or (stat.S_ISLNK(link.st_mode) and link.st_uid not in (uid, 0))
    ):
        raise UnsafeRegistryDir(
            f"registry directory {path} belongs to another user (uid {st.st_uid}); refused. "
            "Use a directory of your own (--registry-dir or JOBS_TUI_REGISTRY_DIR)."
        )
    if st.st_mode & 0o077:
        os.chmod(target, 0o700)
    return target
