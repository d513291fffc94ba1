"""Project key, file names, job ids and the inside-the-registry rule."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jobs_tui.engine.records.ids import is_job_id, job_number
from jobs_tui.engine.registry.paths import (
    MAX_SOCKET_PATH,
    RegistryPaths,
    project_key,
    session_hash,
)


def _sha12(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


# -- project key -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cwd", "base"),
    [
        ("/home/me/project", "project"),
        ("/home/me/my project", "my_project"),
        ("/home/me/a  b\tc", "a_b_c"),  # a run of unsafe characters is one "_"
        ("/srv/keep_these.chars-ok", "keep_these.chars-ok"),
        ("/srv/caf\u00e9", "caf_"),
        ("/srv/\u65e5\u672c\u8a9e", "_"),
        ("/srv/x@y#z", "x_y_z"),
        ("/srv/Weird!!!Name$$", "Weird_Name_"),
        ("/", "root"),
    ],
)
def test_project_key(cwd, base):
    assert project_key(cwd) == f"{base}-{_sha12(cwd)}"


def test_project_key_uses_the_absolute_path(tmp_path, monkeypatch):
    (tmp_path / "proj").mkdir()
    monkeypatch.chdir(tmp_path)
    expected = f"proj-{_sha12(str(tmp_path / 'proj'))}"
    assert project_key("proj") == expected
    assert project_key("./proj/") == expected
    assert project_key(tmp_path / "proj") == expected
    assert project_key(str(tmp_path / "proj") + "/") == expected


def test_project_key_differs_for_same_basename():
    assert project_key("/a/app") != project_key("/b/app")
    assert project_key("/a/app").startswith("app-")


@given(st.lists(st.text(min_size=1, max_size=12).filter(lambda s: "/" not in s), max_size=4))
def test_project_key_shape(parts):
    cwd = "/" + "/".join(p.replace("\x00", "x") for p in parts)
    key = project_key(cwd)
    assert re.fullmatch(r"[A-Za-z0-9_.-]+-[0-9a-f]{12}", key)
    basename = os.path.basename(os.path.abspath(cwd)) or "root"
    if re.fullmatch(r"[A-Za-z0-9_.-]+", basename):
        assert key.rsplit("-", 1)[0] == basename
    else:
        assert key.rsplit("-", 1)[0] != basename
    assert key.endswith(
        hashlib.sha1(os.path.abspath(cwd).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    )


# -- job ids -----------------------------------------------------------------------------


@pytest.mark.parametrize("job_id", ["j1", "j9", "j10", "j123", "j999999999"])
def test_is_job_id_accepts(job_id):
    assert is_job_id(job_id)
    assert job_number(job_id) == int(job_id[1:])


@pytest.mark.parametrize(
    "job_id",
    [
        "",
        "j",
        "j0",
        "j01",
        "J1",
        "1",
        "j-1",
        "j+1",
        " j1",
        "j1 ",
        "j1\n",
        "j1\r",
        "jj1",
        "j1.0",
        "j\u0661",
        "j\u00b2",
        "j1234567890",
        "j1/..",
        "x1",
    ],
)
def test_is_job_id_rejects(job_id):
    assert not is_job_id(job_id)
    with pytest.raises(ValueError):
        job_number(job_id)


@given(st.text(max_size=12))
def test_is_job_id_agrees_with_the_format(text):
    assert is_job_id(text) == bool(re.fullmatch(r"j[1-9][0-9]{0,8}", text, re.ASCII))


# -- file names --------------------------------------------------------------------------


def test_file_names(tmp_path):
    rp = RegistryPaths(tmp_path)
    digest = hashlib.sha1(b"session-1").hexdigest()[:16]
    assert session_hash("session-1") == digest
    assert rp.registry_file("session-1") == tmp_path / f"registry-{digest}.json"
    assert rp.marker_file("session-1") == tmp_path / f"session-{digest}.json"
    assert rp.legacy_registry() == tmp_path / "registry.json"
    assert rp.lock("j3") == tmp_path / "j3.lock"
    assert rp.log("j3") == tmp_path / "j3.log"
    assert rp.previous_log("j3") == tmp_path / "j3.log.1"
    assert rp.status("j3") == tmp_path / "j3.status"
    assert rp.socket("j3") == tmp_path / "j3.sock"
    assert set(rp.job_files("j3")) >= {
        rp.log("j3"),
        rp.previous_log("j3"),
        rp.status("j3"),
        rp.lock("j3"),
    }


def test_root_is_made_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert RegistryPaths("reg").root == tmp_path / "reg"


@pytest.fixture
def short_runtime(monkeypatch):
    # tmp_path can be long; a real XDG_RUNTIME_DIR is short (/run/user/<uid>).
    runtime = Path(tempfile.mkdtemp(prefix="jt", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    yield runtime
    shutil.rmtree(runtime, ignore_errors=True)


def test_long_socket_path_falls_back_to_runtime_dir(tmp_path, short_runtime):
    runtime = short_runtime
    deep = tmp_path / ("d" * 120)
    deep.mkdir()
    rp = RegistryPaths(deep)
    assert not rp.socket("j7").parent.exists()  # a read asks where it would be: nothing made
    sock = rp.socket("j7", create=True)
    assert len(os.fsencode(deep / "j7.sock")) > MAX_SOCKET_PATH
    assert len(os.fsencode(sock)) <= MAX_SOCKET_PATH
    assert sock.name.endswith("-j7.sock")
    assert sock.parent.parent == runtime
    mode = stat.S_IMODE(os.stat(sock.parent).st_mode)
    assert mode == 0o700
    # Stable for one directory and id; different for another directory or id.
    assert rp.socket("j7") == sock
    assert rp.socket("j8") != sock
    assert RegistryPaths(tmp_path / ("e" * 120)).socket("j7") != sock


def test_socket_path_at_the_limit_stays_direct(tmp_path):
    name_len = len(os.fsencode(tmp_path / "j1.sock"))
    pad = MAX_SOCKET_PATH - name_len - 1  # one more path component: "/" + pad chars
    if pad < 1:
        pytest.fail("tmp_path too long for this test")
    root = tmp_path / ("p" * pad)
    assert len(os.fsencode(root / "j1.sock")) == MAX_SOCKET_PATH
    assert RegistryPaths(root).socket("j1") == root / "j1.sock"


# -- inside ------------------------------------------------------------------------------


@pytest.fixture
def reg(tmp_path) -> RegistryPaths:
    root = tmp_path / "reg"
    root.mkdir()
    (root / "j1.log").write_text("log")
    return RegistryPaths(root)


def test_inside_accepts_a_file_in_the_registry(reg):
    assert reg.inside(str(reg.root / "j1.log")) == reg.root / "j1.log"


def test_inside_accepts_a_file_not_yet_created(reg):
    assert reg.inside(str(reg.root / "j2.status")) == reg.root / "j2.status"


@pytest.mark.parametrize("candidate", [None, "", "j1.log", "./j1.log", "reg/j1.log"])
def test_inside_rejects_relative_and_empty(reg, candidate, monkeypatch):
    monkeypatch.chdir(reg.root)  # even when the relative path would land inside
    assert reg.inside(candidate) is None


def test_inside_rejects_non_strings(reg):
    assert reg.inside(reg.root / "j1.log") is None  # a Path is not what a registry holds
    assert reg.inside(5) is None


def test_inside_rejects_nul(reg):
    assert reg.inside(str(reg.root / "j1.log") + "\x00") is None


def test_inside_rejects_other_directories(reg, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "j1.log").write_text("")
    assert reg.inside(str(other / "j1.log")) is None
    assert reg.inside("/etc/passwd") is None
    assert reg.inside(str(tmp_path / "reg-sibling" / "j1.log")) is None


def test_inside_rejects_subdirectories_and_the_root_itself(reg):
    (reg.root / "sub").mkdir()
    assert reg.inside(str(reg.root / "sub" / "j1.log")) is None
    assert reg.inside(str(reg.root)) is None
    assert reg.inside(str(reg.root) + "/") is None
    assert reg.inside(str(reg.root) + "/.") is None


@pytest.mark.parametrize(
    "trick",
    [
        "{root}/../j1.log",
        "{root}/../../etc/passwd",
        "{root}/../reg-evil/j1.log",
        "{root}/sub/../../j1.log",
        "{root}/./../j1.log",
    ],
)
def test_inside_rejects_dotdot_tricks(reg, trick, tmp_path):
    (tmp_path / "j1.log").write_text("outside")
    (reg.root / "sub").mkdir()
    assert reg.inside(trick.format(root=reg.root)) is None


def test_inside_normalises_harmless_dotdot(reg):
    (reg.root / "sub").mkdir()
    assert reg.inside(f"{reg.root}/sub/../j1.log") == reg.root / "j1.log"


def test_inside_rejects_symlink_pointing_outside(reg, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("do not read")
    (reg.root / "j5.log").symlink_to(secret)
    assert reg.inside(str(reg.root / "j5.log")) is None


def test_inside_rejects_symlinked_subdir_pointing_outside(reg, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "j6.log").write_text("")
    (reg.root / "link").symlink_to(outside)
    assert reg.inside(str(reg.root / "link" / "j6.log")) is None


def test_inside_follows_symlink_to_a_file_inside(reg):
    (reg.root / "alias.log").symlink_to(reg.root / "j1.log")
    assert reg.inside(str(reg.root / "alias.log")) == reg.root / "j1.log"


def test_inside_when_the_registry_itself_is_a_symlink(tmp_path, reg):
    link = tmp_path / "reg-link"
    link.symlink_to(reg.root)
    via_link = RegistryPaths(link)
    assert via_link.inside(str(link / "j1.log")) == reg.root / "j1.log"
    assert via_link.inside(str(reg.root / "j1.log")) == reg.root / "j1.log"
    assert reg.inside(str(link / "j1.log")) == reg.root / "j1.log"


@given(st.text(alphabet="ab./", max_size=20))
def test_inside_result_is_always_directly_in_the_root(tail):
    root = Path("/nonexistent-jobs-tui-root/reg")
    rp = RegistryPaths(root)
    got = rp.inside(f"{root}/{tail}")
    if got is not None:
        assert got.parent == root
        assert got.name not in ("", ".", "..")


# -- project_root -------------------------------------------------------------------------


@pytest.mark.parametrize("marker", [".git", ".hg", ".jj", ".jobs-tui"])
@pytest.mark.parametrize("as_dir", [True, False])
def test_project_root_is_the_nearest_marked_ancestor(tmp_path, marker, as_dir):
    from jobs_tui.engine.registry.paths import project_root

    root = tmp_path / "repo"
    deep = root / "src" / "pkg"
    deep.mkdir(parents=True)
    if as_dir:
        (root / marker).mkdir()
    else:
        (root / marker).write_text("gitdir: elsewhere\n")  # a worktree's .git is a file
    assert project_root(deep) == root
    assert project_root(root) == root
    assert project_root(str(deep) + "/") == root


def test_project_root_prefers_the_nearest_marker(tmp_path):
    from jobs_tui.engine.registry.paths import project_root

    (tmp_path / "outer" / ".git").mkdir(parents=True)
    inner = tmp_path / "outer" / "vendor" / "inner"
    (inner / ".hg").mkdir(parents=True)
    (inner / "sub").mkdir()
    assert project_root(inner / "sub") == inner
    assert project_root(tmp_path / "outer" / "vendor") == tmp_path / "outer"


def test_project_root_without_a_marker_is_the_directory_itself(tmp_path, monkeypatch):
    from jobs_tui.engine.registry.paths import project_root

    plain = tmp_path / "plain" / "dir"
    plain.mkdir(parents=True)
    assert project_root(plain) == plain
    monkeypatch.chdir(plain)
    assert project_root(".") == plain


def test_default_registry_dir_is_keyed_by_the_project_root(tmp_path, monkeypatch):
    from jobs_tui.engine.config import Config, resolve_registry_dir

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "a" / "b").mkdir(parents=True)
    top = resolve_registry_dir(tmp_path / "repo", None, Config())
    assert resolve_registry_dir(tmp_path / "repo" / "a" / "b", None, Config()) == top
    assert top.name == project_key(tmp_path / "repo")
    # Explicit choices stay as they are.
    assert resolve_registry_dir(tmp_path / "repo" / "a", str(tmp_path / "x"), Config()) == (
        tmp_path / "x"
    )
