"""README's pictures are what `scripts/readme_pictures.py` renders from real jobs now."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "readme_pictures.py"

pytestmark = pytest.mark.timeout(120)


def load_script():
    spec = importlib.util.spec_from_file_location("readme_pictures", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pictures():
    return load_script()


@pytest.fixture(scope="module")
def shots(pictures) -> dict[str, str]:
    """One render of every scene from one set of real jobs (about 15 s)."""
    import asyncio

    return asyncio.run(pictures.render_all())


def test_the_committed_pictures_show_what_the_screens_show_now(pictures, shots) -> None:
    assert list(shots) == ["jobs", "log", "terminal", "help"]
    assert pictures.stale_of(shots) == [], "run: python scripts/readme_pictures.py"


def test_a_changed_screen_makes_a_picture_stale(pictures, shots, tmp_path, monkeypatch):
    """The check can fail: a picture of other text is stale, a missing one too; a picture
    whose numbers alone differ (another second, another pid) is not."""
    monkeypatch.setattr(pictures, "IMAGES", tmp_path)
    (tmp_path / "jobs.svg").write_text(shots["jobs"].replace("server", "sErver"))
    (tmp_path / "log.svg").write_text(shots["log"].replace("/api/cart/150", "/api/cart/151"))
    assert pictures.stale_of(shots) == ["jobs", "terminal", "help"]


def test_the_pictures_carry_real_jobs_at_160x45(pictures, shots) -> None:
    jobs = pictures.svg_text(shots["jobs"])
    assert "6 jobs · 3 running · 1 failed · 6 peer" in jobs and "q Quit" in jobs
    assert "python3 dev_server.py --port 5173" in jobs and "live" in jobs  # the live tail
    assert "GET /api/cart/150 200" in jobs.splitlines()[43]  # the last row of the tail
    log = pictures.svg_text(shots["log"])
    assert "following" in log and "ERROR GET /api/cart/148 500" in log
    terminal = pictures.svg_text(shots["terminal"])
    assert "terminal 160×42" in terminal and "tests: passed" in terminal
    assert "q quit" not in terminal  # no program's own key bar that reads like ours
    assert "pgup / pgdn  a page up / down" in pictures.svg_text(shots["help"])
    assert all(len(svg) > 10_000 for svg in shots.values())


def test_readme_and_the_docs_home_open_with_the_pictures() -> None:
    head = (ROOT / "README.md").read_text().split("\n## ", 1)[0]
    home = (ROOT / "docs" / "index.md").read_text().split("\n## ", 1)[0]
    for name in ("jobs", "log", "terminal", "help"):
        assert f"docs/images/{name}.svg" in head
        assert f"](images/{name}.svg)" in home  # docs/index.md's own relative path
        assert os.path.exists(ROOT / "docs" / "images" / f"{name}.svg")
