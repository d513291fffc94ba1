"""README's pictures are what `scripts/readme_pictures.py` renders from the screens now."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "readme_pictures.py"

pytestmark = pytest.mark.timeout(90)


def load_script():
    spec = importlib.util.spec_from_file_location("readme_pictures", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


async def test_the_committed_pictures_show_what_the_screens_show_now() -> None:
    pictures = load_script()
    assert [scene.name for scene in pictures.SCENES] == ["jobs", "log", "terminal"]
    assert await pictures.stale() == [], "run: python scripts/readme_pictures.py"


async def test_a_changed_screen_makes_a_picture_stale(tmp_path, monkeypatch) -> None:
    """The check can fail: a picture of other text is found stale, a missing one too."""
    pictures = load_script()
    monkeypatch.setattr(pictures, "IMAGES", tmp_path)
    (tmp_path / "jobs.svg").write_text(
        (ROOT / "docs" / "images" / "jobs.svg").read_text().replace("webpack", "webpacK")
    )
    assert await pictures.stale() == ["jobs", "log", "terminal"]


async def test_the_pictures_carry_the_screens_text(tmp_path, monkeypatch) -> None:
    pictures = load_script()
    monkeypatch.setattr(pictures, "IMAGES", tmp_path)
    written = await pictures.write_all()
    assert sorted(p.name for p in written) == ["jobs.svg", "log.svg", "terminal.svg"]
    jobs = pictures.svg_text((tmp_path / "jobs.svg").read_text(), (120, 24))
    assert "9 jobs · 3 running · 1 failed · 2 peer" in jobs and "q Quit" in jobs
    log = pictures.svg_text((tmp_path / "log.svg").read_text(), (120, 24))
    assert "following" in log and "ERROR GET /api/cart/58 500" in log
    terminal = pictures.svg_text((tmp_path / "terminal.svg").read_text(), (84, 30))
    assert "terminal 80×24" in terminal and "4120 node       38.2" in terminal
    assert all(os.path.getsize(p) > 10_000 for p in written)


def test_readme_opens_with_both_pictures() -> None:
    head = (ROOT / "README.md").read_text().split("\n## ", 1)[0]
    for name in ("jobs", "log", "terminal"):
        assert f"docs/images/{name}.svg" in head
