"""README's architecture picture matches the folders (issue 25's "done when").

The picture in README's "Architecture" section (and the one on docs/architecture.md)
names the rooms of engine/, screens/ and app/, and term/ and styles/ beside them. Every room
it names is a package folder here, every package folder of engine/, screens/ and app/ is in it,
and pyproject installs each one, so the picture cannot show a room that is not there nor
leave one out.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOPS = ("engine", "screens", "app", "term", "styles")


def pictured(page: Path) -> set[str]:
    """The folders a page's first text picture of the tree names: `engine/shim`, `app`."""
    text = page.read_text(encoding="utf-8")
    block = next(
        b for b in re.findall(r"```text\n(.*?)```", text, re.S) if re.search(r"^engine/", b, re.M)
    )
    rooms: set[str] = set()
    top = None
    for line in block.splitlines():
        if match := re.match(r"(\w+)/\s", line + " "):
            top = match[1]
            rooms.add(top)
        elif (match := re.match(r"[├└]── (\w+)/\s", line + " ")) and top:
            rooms.add(f"{top}/{match[1]}")
    return rooms


def folders() -> set[str]:
    """engine/, screens/ and app/ and their package folders, term/ and styles/."""
    found = {top for top in TOPS if (ROOT / top / "__init__.py").is_file()}
    for top in ("engine", "screens", "app"):
        found |= {f"{top}/{p.parent.name}" for p in (ROOT / top).glob("*/__init__.py")}
    return found


def test_the_readme_picture_names_exactly_the_rooms_there_are() -> None:
    rooms = pictured(ROOT / "README.md")
    assert {"engine/shim", "engine/session", "screens/widgets", "app/verbs", "term"} <= rooms
    assert rooms == folders()


def test_the_architecture_page_shows_the_same_rooms() -> None:
    assert pictured(ROOT / "docs" / "architecture.md") == pictured(ROOT / "README.md")


def test_pyproject_installs_every_room() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapped = config["tool"]["setuptools"]["package-dir"]
    for room in folders():
        package = "jobs_tui." + room.replace("/", ".")
        assert mapped.get(package) == room, package
        assert package in config["tool"]["setuptools"]["packages"], package
