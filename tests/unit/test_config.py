"""The `[job]` table of config.toml: defaults, types, clamping, loading, registry dir."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jobs_tui.engine.config import (
    Config,
    ConfigError,
    resolve_registry_dir,
    write_defaults,
)
from jobs_tui.engine.registry import paths

# The reference table (docs/configuration.md, registry-format.md "Limits and defaults").
DEFAULTS = {
    "enabled": True,
    "show_status": True,
    "wake_on_finish": False,
    "detached_by_default": False,
    "max_jobs": 20,
    "max_log_lines": 100,
    "max_log_bytes": 8_388_608,
    "kill_grace_ms": 5000,
    "repaint_ms": 1000,
    "session_ttl_ms": 60_000,
}
RANGES = {
    "max_jobs": (1, 500),
    "max_log_lines": (1, 5000),
    "max_log_bytes": (0, None),
    "kill_grace_ms": (0, 60_000),
    "repaint_ms": (100, 10_000),
    "session_ttl_ms": (5_000, 600_000),
}
BOOLS = ["enabled", "show_status", "wake_on_finish", "detached_by_default"]


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- defaults ----------------------------------------------------------------------------


def test_defaults_equal_the_reference_table():
    config = Config()
    for key, value in DEFAULTS.items():
        assert getattr(config, key) == value, key
        assert type(getattr(config, key)) is type(value), key
    assert config.registry_dir is None
    assert config.warnings == []


def test_the_docs_table_is_the_reference_table():
    """docs/configuration.md lists every key with its default and range, as Config has them."""
    page = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
    rows = {}
    for line in page.read_text(encoding="utf-8").splitlines():
        if cells := re.fullmatch(r"\| `(\w+)` \| (.*?) \|\s*(.*?)\s*\|", line):
            rows[cells[1]] = (cells[2], cells[3])
    assert set(rows) == {*DEFAULTS, "registry_dir"}
    for key, value in DEFAULTS.items():
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        assert rows[key][0] == f"`{shown}`", key
    for key, (low, high) in RANGES.items():
        expected = f"{low}–{high}" if high is not None else f"{low} = unbounded"
        assert rows[key][1].startswith(expected), key
    assert all(rows[key][1] == "" for key in BOOLS)


def test_empty_mapping_is_the_defaults():
    assert Config.from_mapping({}) == Config()
    assert Config.from_mapping({}).warnings == []


# -- types -------------------------------------------------------------------------------


@pytest.mark.parametrize("key", BOOLS)
@pytest.mark.parametrize("value", [1, 0, "true", "yes", None, [True], 1.0])
def test_bool_key_wrong_type(key, value):
    with pytest.raises(ConfigError, match=key):
        Config.from_mapping({key: value})


@pytest.mark.parametrize("key", sorted(RANGES))
@pytest.mark.parametrize("value", [True, False, "10", 10.0, 1.5, None, [10], {"a": 1}])
def test_int_key_wrong_type(key, value):
    with pytest.raises(ConfigError, match=key):
        Config.from_mapping({key: value})


@pytest.mark.parametrize("value", [5, "", True, ["/x"]])
def test_registry_dir_wrong_type(value):
    with pytest.raises(ConfigError, match="registry_dir"):
        Config.from_mapping({"registry_dir": value})


@pytest.mark.parametrize("key", BOOLS)
def test_bool_keys_are_set(key):
    flipped = not DEFAULTS[key]
    config = Config.from_mapping({key: flipped})
    assert getattr(config, key) is flipped
    assert config.warnings == []


def test_registry_dir_expands_user(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert Config.from_mapping({"registry_dir": "~/reg"}).registry_dir == str(tmp_path / "reg")


def test_unknown_key_is_a_warning_not_an_error():
    config = Config.from_mapping({"maxJobs": 3})
    assert config.max_jobs == 20
    assert any("maxJobs" in w for w in config.warnings)


# -- ranges ------------------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(RANGES))
def test_in_range_values_are_kept_without_warning(key):
    low, high = RANGES[key]
    for value in {low, high if high is not None else low + 10**9, DEFAULTS[key]}:
        config = Config.from_mapping({key: value})
        assert getattr(config, key) == value
        assert config.warnings == []


def _clamp_cases():
    for key, (low, high) in sorted(RANGES.items()):
        yield key, low - 1, low
        yield key, -(10**9), low
        if high is not None:
            yield key, high + 1, high
            yield key, 10**12, high


@pytest.mark.parametrize(("key", "value", "used"), list(_clamp_cases()))
def test_out_of_range_is_clamped_with_a_warning(key, value, used):
    config = Config.from_mapping({key: value})
    assert getattr(config, key) == used
    assert len(config.warnings) == 1
    warning = config.warnings[0]
    assert key in warning
    assert str(value) in warning
    assert str(used) in warning
    low, high = RANGES[key]
    assert str(low) in warning  # names the range
    if high is not None:
        assert str(high) in warning


@given(st.sampled_from(sorted(RANGES)), st.integers(min_value=-(10**15), max_value=10**15))
def test_clamping_property(key, value):
    low, high = RANGES[key]
    expected = max(low, value if high is None else min(high, value))
    config = Config.from_mapping({key: value})
    assert getattr(config, key) == expected
    assert bool(config.warnings) == (expected != value)


def test_several_clamps_each_warn():
    config = Config.from_mapping({"max_jobs": 0, "repaint_ms": 5, "kill_grace_ms": 100})
    assert (config.max_jobs, config.repaint_ms, config.kill_grace_ms) == (1, 100, 100)
    assert len(config.warnings) == 2
    assert any("max_jobs" in w for w in config.warnings)
    assert any("repaint_ms" in w for w in config.warnings)


def test_max_log_bytes_zero_means_unbounded_and_is_allowed():
    config = Config.from_mapping({"max_log_bytes": 0})
    assert config.max_log_bytes == 0
    assert config.warnings == []


# -- load --------------------------------------------------------------------------------


def test_load_from_path(tmp_path):
    path = _write(
        tmp_path / "c.toml",
        '[job]\nmax_jobs = 7\nenabled = false\nregistry_dir = "/srv/jobs"\n',
    )
    config = Config.load(path)
    assert config.max_jobs == 7
    assert config.enabled is False
    assert config.registry_dir == "/srv/jobs"
    assert config.source == str(path)
    assert config.kill_grace_ms == DEFAULTS["kill_grace_ms"]


def test_load_from_str_path(tmp_path):
    path = _write(tmp_path / "c.toml", "[job]\nrepaint_ms = 250\n")
    assert Config.load(str(path)).repaint_ms == 250


def test_load_from_env_var(tmp_path, monkeypatch):
    path = _write(tmp_path / "env.toml", "[job]\nmax_log_lines = 42\n")
    monkeypatch.setenv("JOBS_TUI_CONFIG", str(path))
    config = Config.load()
    assert config.max_log_lines == 42
    assert config.source == str(path)


def test_explicit_path_beats_env_var(tmp_path, monkeypatch):
    monkeypatch.setenv(
        "JOBS_TUI_CONFIG", str(_write(tmp_path / "env.toml", "[job]\nmax_jobs = 3\n"))
    )
    explicit = _write(tmp_path / "arg.toml", "[job]\nmax_jobs = 9\n")
    assert Config.load(explicit).max_jobs == 9


def test_load_env_var_default_path_used_when_unset(tmp_path, monkeypatch):
    monkeypatch.delenv("JOBS_TUI_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    target = paths.default_config_path()
    assert str(target).startswith(str(tmp_path / "xdg"))
    target.parent.mkdir(parents=True)
    _write(target, "[job]\nmax_jobs = 11\n")
    assert Config.load().max_jobs == 11


def test_missing_file_is_the_defaults(tmp_path, monkeypatch):
    monkeypatch.setenv("JOBS_TUI_CONFIG", str(tmp_path / "nope.toml"))
    config = Config.load()
    assert config == Config()
    assert config.source is None


def test_file_without_job_table_is_the_defaults(tmp_path):
    config = Config.load(_write(tmp_path / "c.toml", '[other]\nx = 1\ntitle = "t"\n'))
    assert config == Config()


@pytest.mark.parametrize(
    "text",
    ["[job\nmax_jobs = 3\n", "[job]\nmax_jobs = \n", "[job]\nmax_jobs = 3\nmax_jobs = 4\n", "= 1"],
)
def test_invalid_toml(tmp_path, text):
    path = _write(tmp_path / "bad.toml", text)
    with pytest.raises(ConfigError, match="TOML"):
        Config.load(path)


def test_not_utf8_is_a_config_error(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'[job]\nregistry_dir = "/caf\xe9"\n')
    with pytest.raises(ConfigError):
        Config.load(path)


def test_job_that_is_not_a_table(tmp_path):
    with pytest.raises(ConfigError, match="job"):
        Config.load(_write(tmp_path / "c.toml", "job = 3\n"))


def test_wrong_type_in_file_names_the_key(tmp_path):
    with pytest.raises(ConfigError, match="kill_grace_ms"):
        Config.load(_write(tmp_path / "c.toml", '[job]\nkill_grace_ms = "5s"\n'))


def test_clamp_in_file_warns(tmp_path):
    config = Config.load(_write(tmp_path / "c.toml", "[job]\nsession_ttl_ms = 1000\n"))
    assert config.session_ttl_ms == 5000
    assert any("session_ttl_ms" in w and "5000" in w for w in config.warnings)


# -- write_defaults ----------------------------------------------------------------------


def test_write_defaults_round_trip(tmp_path):
    target = write_defaults(tmp_path / "sub" / "config.toml")
    assert target == tmp_path / "sub" / "config.toml"
    data = tomllib.loads(target.read_text(encoding="utf-8"))
    assert data["job"] == DEFAULTS
    loaded = Config.load(target)
    assert loaded == Config()
    assert loaded.warnings == []


def test_write_defaults_refuses_to_overwrite(tmp_path):
    target = _write(tmp_path / "config.toml", "[job]\nmax_jobs = 3\n")
    with pytest.raises(FileExistsError):
        write_defaults(target)
    assert Config.load(target).max_jobs == 3  # untouched


def test_write_defaults_force_overwrites(tmp_path):
    target = _write(tmp_path / "config.toml", "[job]\nmax_jobs = 3\n")
    write_defaults(target, force=True)
    assert Config.load(target) == Config()


def test_write_defaults_uses_env_var(tmp_path, monkeypatch):
    target = tmp_path / "from-env.toml"
    monkeypatch.setenv("JOBS_TUI_CONFIG", str(target))
    assert write_defaults() == target
    assert Config.load() == Config()


def test_to_table_round_trips_a_custom_config():
    config = Config.from_mapping({"max_jobs": 5, "wake_on_finish": True, "registry_dir": "/r"})
    again = Config.from_mapping(config.to_table())
    assert again == config
    assert again.registry_dir == "/r"


# -- resolve_registry_dir ----------------------------------------------------------------


@pytest.fixture
def dirs(tmp_path):
    return {name: tmp_path / name for name in ("arg", "flag", "env", "conf", "cwd")}


def test_default_is_state_root_and_project_key(dirs, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    got = resolve_registry_dir(dirs["cwd"], None, Config())
    assert got == paths.default_state_root() / paths.project_key(dirs["cwd"])
    assert got.name == paths.project_key(dirs["cwd"])
    assert got.name.startswith("cwd-")
    assert str(got).startswith(str(tmp_path / "state"))


def test_config_beats_default(dirs):
    config = Config(registry_dir=str(dirs["conf"]))
    assert resolve_registry_dir(dirs["cwd"], None, config) == dirs["conf"]


def test_env_beats_config(dirs, monkeypatch):
    monkeypatch.setenv("JOBS_TUI_REGISTRY_DIR", str(dirs["env"]))
    config = Config(registry_dir=str(dirs["conf"]))
    assert resolve_registry_dir(dirs["cwd"], None, config) == dirs["env"]


def test_flag_beats_env(dirs, monkeypatch):
    monkeypatch.setenv("JOBS_TUI_REGISTRY_DIR", str(dirs["env"]))
    config = Config(registry_dir=str(dirs["conf"]))
    got = resolve_registry_dir(dirs["cwd"], None, config, flag=str(dirs["flag"]))
    assert got == dirs["flag"]


def test_argument_beats_everything(dirs, monkeypatch):
    monkeypatch.setenv("JOBS_TUI_REGISTRY_DIR", str(dirs["env"]))
    config = Config(registry_dir=str(dirs["conf"]))
    got = resolve_registry_dir(dirs["cwd"], dirs["arg"], config, flag=str(dirs["flag"]))
    assert got == dirs["arg"]


def test_empty_values_fall_through(dirs, monkeypatch):
    monkeypatch.setenv("JOBS_TUI_REGISTRY_DIR", "")
    config = Config(registry_dir=str(dirs["conf"]))
    assert resolve_registry_dir(dirs["cwd"], "", config, flag="") == dirs["conf"]


def test_configured_dir_names_the_final_directory(dirs):
    # No project key appended: pointing it at the reference's <root>/<projectKey>/ shares it.
    got = resolve_registry_dir(dirs["cwd"], str(dirs["arg"]), Config())
    assert got == dirs["arg"]
    assert paths.project_key(dirs["cwd"]) not in str(got)


def test_resolved_dir_is_absolute_and_user_expanded(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    assert resolve_registry_dir(tmp_path, "~/reg", Config()) == tmp_path / "home" / "reg"
    assert resolve_registry_dir(tmp_path, "rel/dir", Config()) == tmp_path / "rel" / "dir"
    assert os.path.isabs(resolve_registry_dir(tmp_path, None, Config(), flag="x"))
