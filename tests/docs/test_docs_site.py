"""README is the front door and docs/ the site: what each must hold, checked without mkdocs.

`.ci/run` builds the site with `mkdocs build --strict` (broken links and anchors, pages
left out of the nav); these cheap checks run in the default suite: README's size and
its two commands, its links into docs/, the nav, and that every file, module and name
the pages cite still exists in the code, so a move or a rename cannot leave them behind.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
INSTALL = "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && jobs-tui --demo"
TESTS = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' "
    "&& python -m pytest -n 2"
)
CODE_DIRS = ("engine", "screens", "app", "term", "styles", "tests", "scripts", "examples")


def pages() -> dict[str, str]:
    """Every Markdown page of the site and README, by name."""
    found = {p.name: p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md"))}
    return {"README.md": README.read_text(encoding="utf-8"), **found}


def code_spans(text: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", text)


def test_readme_is_a_front_door_of_at_most_250_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    assert lines[0] == "# jobs-tui"


def test_readme_keeps_the_two_commands_and_ci_runs_the_same_tests() -> None:
    text = README.read_text(encoding="utf-8")
    assert f"```bash\n{INSTALL}\n```" in text
    assert f"```bash\n{TESTS}\n```" in text
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert [line for line in ci if "pytest" in line and not line.startswith("#")] == [
        "python -m pytest -n 2"
    ]
    assert TESTS.endswith(ci[-1])
    assert "mkdocs build --strict" in "\n".join(ci)


def test_readme_tells_how_to_serve_the_docs_and_links_into_them() -> None:
    text = README.read_text(encoding="utf-8")
    assert "pip install -e '.[docs]' && mkdocs serve" in text
    links = re.findall(r"\]\((docs/[^)#]+)", text)
    assert len(set(links)) >= 15
    assert [link for link in links if not (ROOT / link).is_file()] == []
    linked = {Path(link).name for link in links if link.endswith(".md")}
    assert linked >= set(nav_pages()) - {"index.md"}  # the site's home page is README's twin


def nav_pages() -> list[str]:
    """The pages mkdocs.yml's nav lists, in order."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = config.split("\nnav:\n", 1)[1]
    return re.findall(r":\s+(\S+\.md)\s*$", nav, re.M)


def test_the_nav_lists_every_page_once() -> None:
    listed = nav_pages()
    assert len(listed) == len(set(listed))
    assert sorted(listed) == sorted(p.name for p in DOCS.glob("*.md"))
    assert "theme:\n  name: material" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def cited_files(text: str) -> list[str]:
    """Repository files a page names in code: `engine/session/glance.py`, `tests/mcp/x.py`."""
    dirs = "|".join(CODE_DIRS)
    return [
        span
        for span in code_spans(text)
        if re.fullmatch(rf"(?:{dirs})/[\w./-]+\.\w+", span) and "*" not in span
    ]


def cited_module_files(text: str) -> list[str]:
    """Bare module file names a page names (`supervision.py`): some file of the code."""
    return [span for span in code_spans(text) if re.fullmatch(r"\w+\.py", span)]


def cited_names(text: str) -> list[str]:
    """Dotted names under jobs_tui a page names: `jobs_tui.engine.registry.paths.project_root`."""
    return sorted(set(re.findall(r"\bjobs_tui(?:\.\w+)+", text)))


def resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


def test_every_file_module_and_name_the_pages_cite_exists() -> None:
    names = {p.name for d in CODE_DIRS for p in (ROOT / d).rglob("*.py")}
    missing = []
    for page, text in pages().items():
        missing += [(page, f) for f in cited_files(text) if not (ROOT / f).exists()]
        missing += [(page, f) for f in cited_module_files(text) if f not in names]
        missing += [(page, n) for n in cited_names(text) if not resolves(n)]
    assert missing == []


def test_the_check_of_cited_names_can_fail() -> None:
    text = (
        "`engine/nowhere.py`, `nowhere.py`, jobs_tui.engine.nowhere and `engine/session/glance.py`"
    )
    assert cited_files(text) == ["engine/nowhere.py", "engine/session/glance.py"]
    assert cited_module_files(text) == ["nowhere.py"]
    assert not resolves("jobs_tui.engine.nowhere")
    assert resolves("jobs_tui.engine.JobManager")
