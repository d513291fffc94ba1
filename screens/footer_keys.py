"""A footer that shows only the keys that apply now, while every key keeps answering."""

from __future__ import annotations

from textual.binding import ActiveBinding


class ApplicableKeys:
    """Mixed into a Screen: `_applicable(action)` decides what the footer shows.

    A key that does not apply still runs (and says why it did nothing); only the footer
    hides it. `TRACKED` names the actions whose applicability changes with state.
    """

    TRACKED: tuple[str, ...] = ()
    _bindings_key: tuple[bool, ...] | None = None

    def _applicable(self, action: str) -> bool:
        return True

    def _update_bindings(self) -> None:
        key = tuple(self._applicable(a) for a in self.TRACKED)
        if key != self._bindings_key:
            self._bindings_key = key
            self.refresh_bindings()  # type: ignore[attr-defined]

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        bindings = super().active_bindings  # type: ignore[misc]
        return {
            key: active
            for key, active in bindings.items()
            if active.node is not self or self._applicable(active.binding.action.split("(")[0])
        }
