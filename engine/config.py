"""The `[job]` table of config.toml: the reference's keys in snake_case, typed and clamped."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path

from jobs_tui.engine.registry.paths import (
    ENV_CONFIG,
    ENV_REGISTRY_DIR,
    default_config_path,
    default_state_root,
    make_private_dirs,
    project_key,
    project_root,
)

TYPE_CHECKING = False  # not `typing`: a short command-line call does not need it
if TYPE_CHECKING:
    from typing import Any

MiB = 1024 * 1024

# key -> (default, (low, high) or None)
_INT_RANGES: dict[str, tuple[int, int | None, int | None]] = {
    "max_jobs": (20, 1, 500),
    "max_log_lines": (100, 1, 5000),
    "max_log_bytes": (8 * MiB, 0, None),
    "kill_grace_ms": (5000, 0, 60_000),
    "repaint_ms": (1000, 100, 10_000),
    "session_ttl_ms": (60_000, 5_000, 600_000),
}
_BOOLS = ("enabled", "show_status", "wake_on_finish", "detached_by_default")


class ConfigError(ValueError):
    """A config value of the wrong type, or a file that is not TOML."""


@dataclass
class Config:
    enabled: bool = True
    show_status: bool = True
    wake_on_finish: bool = False
    detached_by_default: bool = False
    max_jobs: int = 20
    max_log_lines: int = 100
    max_log_bytes: int = 8 * MiB
    kill_grace_ms: int = 5000
    repaint_ms: int = 1000
    session_ttl_ms: int = 60_000
    registry_dir: str | None = None
    warnings: list[str] = field(default_factory=list, compare=False, repr=False)
    source: str | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_mapping(cls, table: dict[str, Any], source: str | None = None) -> Config:
        config = cls(source=source)
        for key, value in table.items():
            if key in _BOOLS:
                if not isinstance(value, bool):
                    raise ConfigError(f"[job].{key} must be true or false, not {value!r}")
                setattr(config, key, value)
            elif key in _INT_RANGES:
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ConfigError(f"[job].{key} must be a whole number, not {value!r}")
                _default, low, high = _INT_RANGES[key]
                used = value
                if low is not None and used < low:
                    used = low
                if high is not None and used > high:
                    used = high
                if used != value:
                    span = f"{low}-{high}" if high is not None else f">= {low}"
                    config.warnings.append(f"[job].{key} = {value} is outside {span}; using {used}")
                setattr(config, key, used)
            elif key == "registry_dir":
                if not isinstance(value, str) or not value:
                    raise ConfigError(f"[job].registry_dir must be a path string, not {value!r}")
                config.registry_dir = os.path.expanduser(value)
            else:
                config.warnings.append(f"[job].{key} is not a known key; ignored")
        return config

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> Config:
        """The file named by `path`, else `$JOBS_TUI_CONFIG`, else the platform default."""
        if path is None:
            path = os.environ.get(ENV_CONFIG) or default_config_path()
        path = Path(path)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return cls(source=None)
        except OSError as exc:
            raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
        import tomllib  # here: most calls have no config file, and it costs a short call

        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
        table = data.get("job", {})
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: [job] must be a table")
        config = cls.from_mapping(table, source=str(path))
        if config.registry_dir and not os.path.isabs(config.registry_dir):
            # A relative path in a config file means relative to that file.
            config.registry_dir = os.path.join(
                os.path.dirname(os.path.abspath(path)), config.registry_dir
            )
        return config

    def to_table(self) -> dict[str, Any]:
        skip = {"warnings", "source", "registry_dir"}
        table = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}
        if self.registry_dir:
            table["registry_dir"] = self.registry_dir
        return table


def write_defaults(path: str | os.PathLike[str] | None = None, *, force: bool = False) -> Path:
    """Write a config file holding every default; refuses to overwrite unless `force`."""
    import tomli_w

    target = Path(path or os.environ.get(ENV_CONFIG) or default_config_path())
    if target.exists() and not force:
        raise FileExistsError(f"{target} exists; not overwritten")
    make_private_dirs(target.parent)
    target.write_text(tomli_w.dumps({"job": Config().to_table()}), encoding="utf-8")
    return target


def resolve_registry_dir(
    cwd: str | os.PathLike[str],
    argument: str | os.PathLike[str] | None,
    config: Config,
    flag: str | None = None,
) -> Path:
    """The argument, then a `--registry-dir` flag, then the env var, the config, the default.

    The default is keyed by the project root of `cwd` (see paths.project_root).
    """
    for candidate in (argument, flag, os.environ.get(ENV_REGISTRY_DIR), config.registry_dir):
        if candidate:
            return Path(os.path.abspath(os.path.expanduser(os.fspath(candidate))))
    return default_state_root() / project_key(project_root(cwd))
