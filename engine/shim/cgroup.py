"""A cgroup (v2) of its own for each job, where the kernel lets us make one.

A cgroup holds every process started in it, whatever it does: `setsid`, a double fork,
an emptied environment or the death of its shim change nothing, and only a process that
may write to another cgroup's `cgroup.procs` can leave (see README, security). Writing
`1` to `cgroup.kill` (Linux 5.14+) SIGKILLs every member at once, forks included, and
`cgroup.events` says `populated 0` once they are all gone.

Used where it is there: a cgroup2 mount (found in /proc/self/mountinfo, the unified
hierarchy of a hybrid layout too), our own cgroup in it (the `0::` line of
/proc/self/cgroup) being a directory we may write, and a child made there having a
`cgroup.kill`. The job's cgroup is a child of the cgroup its shim runs in, named
`jobs-tui-<registry hash>-<id>-<shim pid>`; the shim itself stays outside, so it outlives
the kill. Nothing is enabled in any `subtree_control`, so the "no internal processes"
rule (a cgroup with controllers for its children holds no processes) never applies.
Elsewhere (cgroup v1 only, no delegation, `JOBS_TUI_NO_CGROUP` set) every function here
answers "none" and the process-tree sweep is all there is.

Stdlib only: the shim (which runs this) starts with `python -I -S`.
"""

import os
import stat
import time

PREFIX = "jobs-tui-"
DISABLE_ENV = "JOBS_TUI_NO_CGROUP"  # set (non-empty): never make one (tests of the fallback)
EMPTY_WAIT_S = 2.0  # how long a kill waits for `populated 0`


def enabled() -> bool:
    """Whether starts should try (the session decides: its environment, not the job's)."""
    return not os.environ.get(DISABLE_ENV)


def mount() -> tuple[str, str] | None:
    """(mount point, root inside the hierarchy) of the cgroup2 mount, if there is one."""
    try:
        with open("/proc/self/mountinfo", "rb") as fh:
            lines = fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in lines:
        left, sep, right = line.partition(" - ")
        if not sep or right.split(" ", 1)[0] != "cgroup2":
            continue
        fields = left.split(" ")
        if len(fields) >= 5:
            return _unescape(fields[4]), _unescape(fields[3])
    return None


def _unescape(text: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        text = text.replace(code, char)
    return text


def own_dir() -> str | None:
    """The directory of the cgroup (v2) this process is in, if it can be seen."""
    found = mount()
    if found is None:
        return None
    point, root = found
    try:
        with open("/proc/self/cgroup", "rb") as fh:
            lines = fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("0::"):
            path = line[3:]
            if root != "/":
                if path != root and not path.startswith(root.rstrip("/") + "/"):
                    return None  # outside what this mount shows (another namespace)
                path = path[len(root.rstrip("/")) :] or "/"
            if not path.startswith("/") or "/.." in path or path.endswith(" (deleted)"):
                return None
            full = os.path.normpath(point + path)
            return full if os.path.isdir(full) else None
    return None


def create(name: str) -> str | None:
    """Make the job's cgroup under our own; its path, or None where we may not."""
    base = own_dir()
    if base is None or not os.access(base, os.W_OK):
        return None
    path = os.path.join(base, name)
    try:
        os.mkdir(path, 0o755)
    except OSError:
        return None
    if not os.path.exists(os.path.join(path, "cgroup.kill")):  # a kernel before 5.14
        remove(path)
        return None
    return path


def open_procs(path: str | None) -> int:
    """A descriptor on the cgroup's `cgroup.procs` (the job writes `0` to it to join), or -1."""
    if not path:
        return -1
    try:
        return os.open(os.path.join(path, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return -1


def holds(path: str, pid: int) -> bool:
    """Whether `pid` is in the cgroup at `path` (or one below it)."""
    try:
        with open(f"/proc/{pid}/cgroup", "rb") as fh:
            lines = fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return False
    name = os.path.basename(path)
    return any(line.startswith("0::") and f"/{name}" in line[3:] for line in lines)


def trusted(path: str | None) -> bool:
    """A path read from a record is acted on only if it is a job cgroup in the cgroup2
    mount, owned by us: a record is a file, and a file alone does not choose a target."""
    if not path or not isinstance(path, str) or "\x00" in path:
        return False
    found = mount()
    if found is None:
        return False
    point = found[0].rstrip("/") + "/"
    real = os.path.normpath(path)
    if real != path or not real.startswith(point) or "/.." in real:
        return False
    if not os.path.basename(real).startswith(PREFIX):
        return False
    try:
        st = os.lstat(real)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid()


def members(path: str | None) -> list[int]:
    """Every process in the cgroup and the cgroups below it."""
    if not trusted(path):
        return []
    found: list[int] = []
    for top, _dirs, _files in os.walk(path):  # type: ignore[type-var]
        try:
            with open(os.path.join(top, "cgroup.procs"), "rb") as fh:
                found += [int(x) for x in fh.read().split()]
        except (OSError, ValueError):
            continue
    return found


def populated(path: str | None) -> bool:
    if not trusted(path):
        return False
    try:
        with open(os.path.join(path, "cgroup.events"), "rb") as fh:  # type: ignore[arg-type]
            return b"populated 1" in fh.read()
    except OSError:
        return False


def kill(path: str | None, wait_s: float = EMPTY_WAIT_S) -> list[int]:
    """SIGKILL every member (`cgroup.kill`), then wait for `populated 0`; the members."""
    if not trusted(path):
        return []
    found = members(path)
    if not found and not populated(path):
        return []
    try:
        target = os.path.join(path, "cgroup.kill")  # type: ignore[arg-type]
        fd = os.open(target, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, b"1")
        finally:
            os.close(fd)
    except OSError:
        return []
    deadline = time.monotonic() + wait_s
    while populated(path) and time.monotonic() < deadline:
        time.sleep(0.005)
    return found


def remove(path: str | None, wait_s: float = 0.5) -> bool:
    """rmdir the cgroup (and any the job made below it) once empty; True when it is gone."""
    if not trusted(path):
        return not path or not os.path.isdir(path)
    deadline = time.monotonic() + wait_s
    while True:
        for top, _dirs, _files in os.walk(path, topdown=False):  # type: ignore[type-var]
            try:
                os.rmdir(top)
            except OSError:
                pass
        if not os.path.isdir(path) or populated(path) or time.monotonic() >= deadline:
            return not os.path.isdir(path)
        time.sleep(0.01)  # EBUSY a moment after `populated 0`: the last exit is releasing


def remove_stale(registry_hash: str = "") -> int:
    """Empty job cgroups (of this registry, or of any with "") whose shim is gone (killed
    before it could remove its own): removed. Returns how many. An empty cgroup holds
    nothing anyone needs, and only a writer of its parent could put a process back."""
    base = own_dir()
    if base is None:
        return 0
    prefix = f"{PREFIX}{registry_hash}-" if registry_hash else PREFIX
    try:
        names = [n for n in os.listdir(base) if n.startswith(prefix)]
    except OSError:
        return 0
    removed = 0
    for name in names:
        shim = name.rsplit("-", 1)[-1]
        if shim.isdigit() and os.path.exists(f"/proc/{shim}"):
            continue  # its shim removes it
        path = os.path.join(base, name)
        if not populated(path) and remove(path, wait_s=0):
            removed += 1
    return removed
