"""Finding and reading a project's declared jobs: the edge of `engine/declared/`.

The file sits at the project root, the directory the registry is keyed by
(`registry.paths.project_root`): `jobs-tui.toml`, else what people already have, tried
in this order: `process-compose.yaml` (or `.yml`), `mprocs.yaml` (or `.yml`),
`Procfile`. Reading parses the file (tomllib; PyYAML's `safe_load` for YAML, imported
only then) and hands it to the pure readers and the validator; the facts a file alone
cannot know (a cwd or env_file that is not there yet) become warnings, since an
earlier job (a build) may make them.
"""

from __future__ import annotations

import os
from pathlib import Path

from jobs_tui.engine.registry.paths import project_root

from .compose import read_process_compose
from .model import FILE_NAME, Stack
from .readers import Translation, read_mprocs, read_procfile
from .validate import DeclaredFileError, check_stack

# (file name, format) in the order they are tried.
CANDIDATES: tuple[tuple[str, str], ...] = (
    (FILE_NAME, FILE_NAME),
    ("process-compose.yaml", "process-compose.yaml"),
    ("process-compose.yml", "process-compose.yaml"),
    ("mprocs.yaml", "mprocs.yaml"),
    ("mprocs.yml", "mprocs.yaml"),
    ("Procfile", "Procfile"),
)
FORMATS = (FILE_NAME, "process-compose.yaml", "mprocs.yaml", "Procfile")
MAX_BYTES = 1024 * 1024


class NoDeclaredFile(FileNotFoundError):
    """No file of declared jobs at the project root."""

    def __init__(self, root: Path, below: Path | None = None) -> None:
        names = ", ".join(name for name, _ in CANDIDATES)
        message = f"no declared jobs in {root}: none of {names} is there"
        if below is not None:
            message += (
                f" ({below} is not at the project root: a .jobs-tui file beside it makes "
                "its folder a project of its own)"
            )
        super().__init__(message)
        self.root = root


def find_declared(cwd: str | os.PathLike[str] = ".") -> tuple[Path, str]:
    """(path, format) of the file `up` reads for the project `cwd` is in."""
    root = project_root(cwd)
    for name, format in CANDIDATES:
        path = root / name
        if path.is_file():
            return path, format
    here = Path(os.path.abspath(cwd))
    below = next((here / n for n, _ in CANDIDATES if (here / n).is_file()), None)
    raise NoDeclaredFile(root, below)


def format_of(path: str | os.PathLike[str]) -> str:
    """The format a file is read as, by its name (`config import FILE`, `config check FILE`)."""
    name = Path(path).name
    for candidate, format in CANDIDATES:
        if name == candidate:
            return format
    lowered = name.lower()
    if lowered.endswith(".toml"):
        return FILE_NAME
    if "procfile" in lowered:
        return "Procfile"
    if lowered.endswith((".yaml", ".yml")):
        return "mprocs.yaml" if "mprocs" in lowered else "process-compose.yaml"
    raise DeclaredFileError(
        str(path), [f"{name}: not a file jobs-tui reads ({', '.join(FORMATS)})"]
    )


def shown_name(path: Path) -> str:
    """The file as errors name it: relative to the cwd when it is inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return str(path)
    return relative if not relative.startswith("..") else str(path)


def load_stack(
    path: str | os.PathLike[str] | None = None,
    *,
    cwd: str | os.PathLike[str] = ".",
    format: str | None = None,
) -> Stack:
    """The Stack of `path` (found at the project root of `cwd` when None), validated
    whole; DeclaredFileError with every problem, NoDeclaredFile when there is none."""
    if path is None:
        found, format = find_declared(cwd)
    else:
        found = Path(os.path.abspath(path))
        format = format or format_of(found)
    name = shown_name(found)
    try:
        raw = found.read_bytes()[: MAX_BYTES + 1]
    except OSError as exc:
        message = f"{name}: cannot be read: {exc.strerror or exc}"
        raise DeclaredFileError(str(found), [message]) from None
    if len(raw) > MAX_BYTES:
        raise DeclaredFileError(str(found), [f"{name}: larger than {MAX_BYTES} bytes"])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DeclaredFileError(str(found), [f"{name}: not UTF-8 text: {exc}"]) from None
    stack = parse_stack(text, str(found), format, name)
    _facts(stack)
    return stack


def parse_stack(text: str, source: str, format: str, name: str | None = None) -> Stack:
    """The Stack a file's text declares (no IO): `format` is one of FORMATS."""
    name = name or os.path.basename(source)
    if format == FILE_NAME:
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise DeclaredFileError(source, [f"{name}: not valid TOML: {exc}"]) from None
        return check_stack(data, source, name, format=format)
    if format == "Procfile":
        return read_procfile(text, name).stack(source, format)
    data = _yaml(text, source, name)
    if format == "mprocs.yaml":
        translation: Translation = read_mprocs(data, name)
    else:
        translation = read_process_compose(data, name)
    return translation.stack(source, format)


def _yaml(text: str, source: str, name: str) -> object:
    import yaml  # PyYAML: only for the YAML formats, never in the shim

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" (line {where.line + 1}, column {where.column + 1})" if where else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise DeclaredFileError(source, [f"{name}: not valid YAML: {problem}{at}"]) from None


def _facts(stack: Stack) -> None:
    """Warnings for a cwd or env_file not there (yet): the file alone cannot know."""
    name = shown_name(Path(stack.source))
    for job in stack.jobs.values():
        spec = job.to_spec(stack.root)
        if spec["cwd"] and not os.path.isdir(spec["cwd"]):
            stack.warnings.append(f"{name}: jobs.{job.name}.cwd: {job.cwd} is not a directory yet")
        if spec["envFile"] and not os.path.isfile(spec["envFile"]):
            stack.warnings.append(
                f"{name}: jobs.{job.name}.env_file: {job.env_file} is not a file yet"
            )
