"""The job cgroup's rules: found from mountinfo and /proc/self/cgroup, switched off by
JOBS_TUI_NO_CGROUP, and a path read from a record acted on only if it is one of ours."""

from __future__ import annotations

import os

import pytest

from jobs_tui.engine.shim import cgroup


def test_the_environment_switch_turns_it_off(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(cgroup.DISABLE_ENV, "1")
    assert cgroup.enabled() is False
    monkeypatch.delenv(cgroup.DISABLE_ENV)
    assert cgroup.enabled() is True


def test_our_cgroup_is_found_in_the_unified_hierarchy():
    point, _root = cgroup.mount() or ("", "")
    here = cgroup.own_dir()
    assert here is not None and here.startswith(point) and os.path.isdir(here)


def test_a_record_cannot_aim_cgroup_kill_at_a_cgroup_that_is_not_a_jobs():
    point = cgroup.mount()[0]  # type: ignore[index]
    made = cgroup.create(f"{cgroup.PREFIX}test-{os.getpid()}")
    other = os.path.join(point, f"not-jobs-tui-{os.getpid()}")
    os.mkdir(other)
    try:
        assert made is not None and cgroup.trusted(made)
        for planted in (
            point,  # the root: every process of the machine
            other,  # somebody's cgroup
            made + "/../" + os.path.basename(other),
            "/tmp",
            made + "\x00",
            "relative/jobs-tui-x",
        ):
            assert not cgroup.trusted(planted), planted
            assert cgroup.members(planted) == [] and cgroup.kill(planted) == []
        assert cgroup.remove(other) is False and os.path.isdir(other)
    finally:
        os.rmdir(other)
        cgroup.remove(made)
    assert made is not None and not os.path.exists(made)
