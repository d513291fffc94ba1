"""Stylesheets from `jobs_tui.styles`, read once, for `DEFAULT_CSS`.

`DEFAULT_CSS` is scoped to the class that declares it and ranks below the host's own
CSS, so a host can restyle the screens and nothing here reaches the host's widgets.
(`CSS_PATH` on a Screen would be loaded app-wide and leak.)
"""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def stylesheet(name: str) -> str:
    return resources.files("jobs_tui.styles").joinpath(name).read_text(encoding="utf-8")
