"""`logs --since`: a duration back from now (`90s`, `5m`, `2h`, `1d`) or a moment (ISO-8601).

The engine's reading (`engine.logs.search.since_ms`, the `job` tool's `since`), with one
difference for a person at a shell: a moment without a zone is the local time (the tool
wants the zone spelled).
"""

from __future__ import annotations

EXAMPLES = "5m, 90s, 2h, 1d or a time such as 2030-01-01T12:00:00 (local) or ...Z"


class BadSince(ValueError):
    """What `--since` said is neither a duration nor a time; the message says why."""


def since_ms(text: str, now_ms: int) -> int:
    """The wall-clock ms `text` names (`now_ms` minus a duration, or an ISO-8601 time)."""
    from jobs_tui.engine.logs.search import since_ms as engine_since

    word = text.strip()
    try:
        return engine_since(word, now_ms)
    except ValueError:
        pass
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(word)
    except ValueError:
        raise BadSince(f"is not a duration or a time ({EXAMPLES})") from None
    if moment.tzinfo is not None:  # the engine refused it for another reason (a bad day)
        raise BadSince(f"names no real time ({EXAMPLES})")
    return int(moment.astimezone().timestamp() * 1000)  # local time, as typed at a shell
