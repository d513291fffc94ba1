"""A footer that shows only the keys that apply now, while every key keeps answering."""

from __future__ import annotations

from dataclasses import replace

from textual.binding import ActiveBinding


class ApplicableKeys:
    """Mixed into a Screen: `_applicable(action)` decides what the footer shows.

    A key that does not apply still runs (and says why it did nothing); only the footer
    hides it. `TRACKED` names the actions whose applicability changes with state.
    """

    TRACKED: tuple[str, ...] = ()
    DESCRIBED: tuple[str, ...] = ()  # actions whose footer text `_described` may change
    _bindings_key: tuple[object, ...] | None = None

    def _applicable(self, action: str) -> bool:
        return True

    def _described(self, action: str) -> str | None:
        """What a key does now, where that differs from its binding's description (Esc
        closes the open find field before it goes back)."""
        return None

    def _update_bindings(self) -> None:
        key = (
            *(self._applicable(a) for a in self.TRACKED),
            *(self._described(a) for a in self.DESCRIBED),
        )
        if key != self._bindings_key:
            self._bindings_key = key
            self.refresh_bindings()  # type: ignore[attr-defined]

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        bindings = super().active_bindings  # type: ignore[misc]
        shown: dict[str, ActiveBinding] = {}
        for key, active in bindings.items():
            action = active.binding.action.split("(")[0]
            if active.node is not self:
                shown[key] = active
            elif self._applicable(action):
                text = self._described(action)
                if text is not None and text != active.binding.description:
                    active = active._replace(binding=replace(active.binding, description=text))
                shown[key] = active
        return shown
