"""The log pane's keys, each with an id under `log.` (what a keymap rebinds), and their help."""

from __future__ import annotations

from textual.binding import Binding, BindingType

from jobs_tui.screens.widgets.pane_keys import find_bindings, scroll_bindings
from jobs_tui.screens.widgets.pane_verbs import PANE_HELP, pane_bindings

BINDINGS: list[BindingType] = [
    *scroll_bindings("log"),
    Binding("left,h", "pan(-1)", "Left", show=False, id="log.left"),
    Binding("right,l", "pan(1)", "Right", show=False, id="log.right"),
    *find_bindings("log"),
    Binding("w", "toggle_wrap", "Wrap", id="log.wrap"),
    Binding("i", "send", "Send a line", id="log.send"),
    # priority: they reach the screen before the input bar's own ctrl+d / ctrl+c
    Binding("ctrl+d", "eof", "EOF", priority=True, id="log.eof"),
    Binding("ctrl+c", "interrupt", "Interrupt", priority=True, id="log.interrupt"),
    Binding("T", "toggle_times", "Times", show=False, id="log.times"),
    Binding("ampersand", "filter", "Filter", show=False, key_display="&", id="log.filter"),
    Binding("question_mark", "help", "Keys", key_display="?", id="log.help"),
    *pane_bindings("log"),
    Binding("q,escape,backspace", "back", "Back", id="log.back"),
]

HELP: dict[str, str] = {
    **PANE_HELP,
    "scroll(-1)": "scroll up (pauses following)",
    "scroll(1)": "scroll down",
    "page": "a page up / down",
    "top": "the first line still on disk (earlier pages load as you scroll up)",
    "follow": "follow the tail again",
    "pan": "scroll long lines sideways",
    "find": "find in the whole log (smart case)",
    "match(1)": "next match",
    "match(-1)": "previous match",
    "toggle_wrap": "wrap long lines (again: unwrap)",
    "send": "type a line for the job's stdin",
    "eof": "end the job's input (closes its stdin)",
    "interrupt": "Ctrl-C: SIGINT to the job's process group (not a kill)",
    "toggle_times": "show when each line was written (again: hide)",
    "filter": "show only the loaded lines that contain a text (Esc: all lines)",
    "help": "this list of keys",
    "back": "back to the list (closes find or a filter first)",
}
