"""`logs --since`: a duration back from now (`90s`, `5m`, `2h`, `1d`) or a moment (ISO-8601).

Pure, but for the clock it is given. A moment without a zone is the local time, as a
person at a shell means it; `Z` or `+02:00` say otherwise.
"""

from __future__ import annotations

import re

_DURATION = re.compile(r"(\d{1,9})(ms|s|m|h|d)\Z")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
EXAMPLES = "5m, 90s, 2h, 1d or a time such as 2030-01-01T12:00:00Z"


class BadSince(ValueError):
    """What `--since` said is neither a duration nor a time; the message says why."""


def since_ms(text: str, now_ms: int) -> int:
    """The wall-clock ms `text` names (`now_ms` minus a duration, or an ISO-8601 time)."""
    word = text.strip()
    match = _DURATION.match(word.lower())
    if match:
        return now_ms - int(match.group(1)) * _UNIT_MS[match.group(2)]
    if not re.match(r"\d{4}-\d{2}-\d{2}", word):
        raise BadSince(f"is not a duration or a time ({EXAMPLES})")
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(word.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        raise BadSince(f"is not a time such as 2030-01-01T12:00:00Z ({EXAMPLES})") from None
    if moment.tzinfo is None:
        moment = moment.astimezone()  # local time, as typed at a shell
    return int(moment.timestamp() * 1000)
