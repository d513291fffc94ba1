"""`d`, `r` and `t` in a job's log or terminal pane: the list's own verbs on that job.

The list holds the verbs (`JobActions`: the one y/N, the supervise rule, the kill under
way, the restarted job selected), so a pane asks the jobs screen it was opened from to
act on its job, rather than keeping a second copy of each. A pane pushed without a list
under it (a host that opens one directly) says where the verbs are.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding, BindingType

ACTIONS = {"kill_job": "kill", "restart_job": "restart", "take_over_job": "take_over"}


def pane_bindings(prefix: str) -> list[BindingType]:
    return [
        Binding("d", "kill_job", "Kill", id=f"{prefix}.kill"),
        Binding("r", "restart_job", "Restart", show=False, id=f"{prefix}.restart"),
        Binding("t", "take_over_job", "Take over", show=False, id=f"{prefix}.take-over"),
    ]


PANE_HELP = {
    "kill_job": "kill this job (y/N), as d on the list does",
    "restart_job": "restart this job as a new one (y/N while it runs)",
    "take_over_job": "take over this job of another session (y/N)",
}


class PaneVerbs:
    """Mixed into a pane Screen with a `job_id`: its `d`, `r`, `t`."""

    job_id: str

    def _jobs_screen(self) -> Any:
        """The jobs screen under this pane (the nearest list in the stack), if any."""
        stack = self.app.screen_stack  # type: ignore[attr-defined]
        for screen in reversed(stack):
            if screen is not self and hasattr(screen, "job_list"):
                return screen
        return None

    def _on_list(self, verb: str) -> None:
        jobs = self._jobs_screen()
        if jobs is None:
            self.notify(  # type: ignore[attr-defined]
                f"{self.job_id}: kill, restart and take over are on the jobs list here.",
                severity="warning",
            )
            return
        jobs.job_list.select(self.job_id)
        chosen = jobs.job_list.selected
        if chosen is None or chosen.id != self.job_id:
            self.notify(  # type: ignore[attr-defined]
                f"{self.job_id} is not in the list (its filter hides it); clear the filter.",
                severity="warning",
            )
            return
        getattr(jobs, f"action_{verb}")()

    def action_kill_job(self) -> None:
        self._on_list("kill")

    def action_restart_job(self) -> None:
        self._on_list("restart")

    def action_take_over_job(self) -> None:
        self._on_list("take_over")
