"""Small wording rules the screens share: counts with the right noun form."""

from __future__ import annotations


def plural(count: int, word: str, words: str | None = None) -> str:
    """`1 line`, `2 lines`; `words` for an irregular plural."""
    return f"{count} {word}" if count == 1 else f"{count} {words or word + 's'}"
