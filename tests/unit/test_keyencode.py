"""`encode_key` / `encode_paste`: every key as a terminal (xterm) sends it to the program.

Two kinds of checks: a table of keys (Textual's names) and their bytes, and a round
trip through Textual's own input parser: the bytes a real terminal sends for a key,
parsed by Textual into a key event, encoded again, give back the same bytes.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual._xterm_parser import XTermParser
from textual.keys import _character_to_key

from jobs_tui.screens.terminal.keyencode import PASTE_END, PASTE_START, encode_key, encode_paste
from jobs_tui.term.model import TermModes


def modes(*, app_cursor: bool = False, bracketed: bool = False) -> TermModes:
    return TermModes(
        bracketed_paste=bracketed,
        app_cursor=app_cursor,
        app_keypad=False,
        alt_screen=False,
        cursor_visible=True,
    )


NORMAL = modes()
APP = modes(app_cursor=True)

KEYS = [
    # (Textual key, character, bytes in normal cursor mode, bytes in application cursor mode)
    ("a", "a", b"a", b"a"),
    ("A", "A", b"A", b"A"),
    ("space", " ", b" ", b" "),
    ("full_stop", ".", b".", b"."),
    ("é", "é", "é".encode(), "é".encode()),
    ("euro_sign", "€", "€".encode(), "€".encode()),
    ("日", "日", "日".encode(), "日".encode()),
    ("no_break_space", "\xa0", "\xa0".encode(), "\xa0".encode()),
    ("ideographic_space", "\u3000", "\u3000".encode(), "\u3000".encode()),
    ("zero_width_joiner", "\u200d", "\u200d".encode(), "\u200d".encode()),
    ("enter", "\r", b"\r", b"\r"),
    ("tab", "\t", b"\t", b"\t"),
    ("shift+tab", None, b"\x1b[Z", b"\x1b[Z"),
    ("backspace", "\x7f", b"\x7f", b"\x7f"),
    ("ctrl+backspace", None, b"\x08", b"\x08"),
    ("escape", "\x1b", b"\x1b", b"\x1b"),
    ("up", None, b"\x1b[A", b"\x1bOA"),
    ("down", None, b"\x1b[B", b"\x1bOB"),
    ("right", None, b"\x1b[C", b"\x1bOC"),
    ("left", None, b"\x1b[D", b"\x1bOD"),
    ("home", None, b"\x1b[H", b"\x1bOH"),
    ("end", None, b"\x1b[F", b"\x1bOF"),
    ("ctrl+up", None, b"\x1b[1;5A", b"\x1b[1;5A"),
    ("shift+down", None, b"\x1b[1;2B", b"\x1b[1;2B"),
    ("alt+right", None, b"\x1b[1;3C", b"\x1b[1;3C"),
    ("ctrl+shift+left", None, b"\x1b[1;6D", b"\x1b[1;6D"),
    ("alt+ctrl+left", None, b"\x1b[1;7D", b"\x1b[1;7D"),  # kitty's sorted spelling
    ("ctrl+home", None, b"\x1b[1;5H", b"\x1b[1;5H"),
    ("insert", None, b"\x1b[2~", b"\x1b[2~"),
    ("delete", None, b"\x1b[3~", b"\x1b[3~"),
    ("pageup", None, b"\x1b[5~", b"\x1b[5~"),
    ("pagedown", None, b"\x1b[6~", b"\x1b[6~"),
    ("ctrl+pageup", None, b"\x1b[5;5~", b"\x1b[5;5~"),
    ("alt+delete", None, b"\x1b[3;3~", b"\x1b[3;3~"),
    ("f1", None, b"\x1bOP", b"\x1bOP"),
    ("f2", None, b"\x1bOQ", b"\x1bOQ"),
    ("f3", None, b"\x1bOR", b"\x1bOR"),
    ("f4", None, b"\x1bOS", b"\x1bOS"),
    ("f5", None, b"\x1b[15~", b"\x1b[15~"),
    ("f6", None, b"\x1b[17~", b"\x1b[17~"),
    ("f7", None, b"\x1b[18~", b"\x1b[18~"),
    ("f8", None, b"\x1b[19~", b"\x1b[19~"),
    ("f9", None, b"\x1b[20~", b"\x1b[20~"),
    ("f10", None, b"\x1b[21~", b"\x1b[21~"),
    ("f11", None, b"\x1b[23~", b"\x1b[23~"),
    ("f12", None, b"\x1b[24~", b"\x1b[24~"),
    ("shift+f1", None, b"\x1b[1;2P", b"\x1b[1;2P"),
    ("ctrl+f5", None, b"\x1b[15;5~", b"\x1b[15;5~"),
    ("ctrl+a", "\x01", b"\x01", b"\x01"),
    ("ctrl+c", "\x03", b"\x03", b"\x03"),
    ("ctrl+c", None, b"\x03", b"\x03"),  # kitty protocol: no character with a modifier
    ("ctrl+d", None, b"\x04", b"\x04"),
    ("ctrl+z", "\x1a", b"\x1a", b"\x1a"),
    ("ctrl+shift+a", None, b"\x01", b"\x01"),
    ("ctrl+j", "\n", b"\n", b"\n"),
    ("ctrl+space", None, b"\x00", b"\x00"),
    ("ctrl+@", "\x00", b"\x00", b"\x00"),
    ("ctrl-at", None, b"\x00", b"\x00"),
    ("ctrl+backslash", "\x1c", b"\x1c", b"\x1c"),
    ("ctrl+right_square_bracket", "\x1d", b"\x1d", b"\x1d"),
    ("ctrl+circumflex_accent", "\x1e", b"\x1e", b"\x1e"),
    ("ctrl+underscore", "\x1f", b"\x1f", b"\x1f"),
    ("alt+x", "x", b"\x1bx", b"\x1bx"),
    ("alt+shift+x", "X", b"\x1bX", b"\x1bX"),
    ("meta+x", "x", b"\x1bx", b"\x1bx"),
    ("alt+ctrl+a", None, b"\x1b\x01", b"\x1b\x01"),
    ("alt+enter", None, b"\x1b\r", b"\x1b\r"),
    ("alt+backspace", None, b"\x1b\x7f", b"\x1b\x7f"),
    ("alt+full_stop", ".", b"\x1b.", b"\x1b."),
]


@pytest.mark.parametrize(("key", "character", "normal", "app"), KEYS)
def test_every_key_as_a_terminal_sends_it(key, character, normal, app):
    assert encode_key(key, character, NORMAL) == normal
    assert encode_key(key, character, APP) == app


@pytest.mark.parametrize(
    ("key", "character"),
    [
        ("<ignore>", "\x1b[?1;2c"),
        ("super+a", None),
        ("hyper+up", None),
        ("f35", None),
        ("\x9b", "\x9b"),  # a C1 control (CSI) is never sent as typed text
    ],
)
def test_keys_a_terminal_sends_nothing_for(key, character):
    assert encode_key(key, character, NORMAL) is None


def parse(data: str) -> list[tuple[str, str | None]]:
    """The key events Textual makes of what a terminal sent (a lone ESC after its delay)."""
    parser = XTermParser()
    events = list(parser.feed(data))
    if data.endswith("\x1b") or (data.startswith("\x1b") and len(data) == 2):
        time.sleep(0.12)
        events += list(parser.tick())
    return [(e.key, e.character) for e in events if hasattr(e, "key")]


ROUND_TRIP = [
    "a", "Z", "7", " ", "~", "é", "€", "\r", "\t", "\x7f", "\x1b", "\x00", "\x01", "\x03",
    "\x04", "\x0c", "\x1a", "\x1c", "\x1d", "\x1e", "\x1f", "\n",
    "\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D", "\x1b[H", "\x1b[F", "\x1b[Z",
    "\x1b[1;5A", "\x1b[1;2B", "\x1b[1;3C", "\x1b[1;6D", "\x1b[1;5H",
    "\x1b[2~", "\x1b[3~", "\x1b[5~", "\x1b[6~", "\x1b[5;5~", "\x1b[3;3~",
    "\x1bOP", "\x1bOQ", "\x1bOR", "\x1bOS", "\x1b[1;2P",
    "\x1b[15~", "\x1b[17~", "\x1b[18~", "\x1b[19~", "\x1b[20~", "\x1b[21~", "\x1b[23~",
    "\x1b[24~", "\x1b[15;5~", "\x1bx", "\x1bX",
]  # fmt: skip


@pytest.mark.parametrize("sent", ROUND_TRIP)
def test_what_textual_parses_encodes_back_to_the_same_bytes(sent):
    keys = parse(sent)
    assert len(keys) == 1, keys
    key, character = keys[0]
    assert encode_key(key, character, NORMAL) == sent.encode()


@pytest.mark.parametrize("sent", ["\x1bOA", "\x1bOB", "\x1bOC", "\x1bOD", "\x1bOH", "\x1bOF"])
def test_application_cursor_keys_round_trip(sent):
    (key, character), *_ = parse(sent)
    assert encode_key(key, character, APP) == sent.encode()


@given(st.characters(blacklist_categories=("Cc", "Cs")))
def test_any_printable_character_is_sent_as_itself(char):
    key = _character_to_key(char)
    assert encode_key(key, char, NORMAL) == char.encode()
    assert encode_key(f"alt+{key}", char, NORMAL) == b"\x1b" + char.encode()


# -- paste ---------------------------------------------------------------------------
def test_paste_is_typed_text_unless_the_program_asked_for_brackets():
    assert encode_paste("echo hi\nls -l\n", NORMAL) == b"echo hi\rls -l\r"
    assert encode_paste("a\r\nb", NORMAL) == b"a\rb"
    assert encode_paste("naïve 日本", NORMAL) == "naïve 日本".encode()


def test_bracketed_paste_wraps_the_text():
    got = encode_paste("line one\nline two", modes(bracketed=True))
    assert got == b"\x1b[200~line one\rline two\x1b[201~"


def test_a_pasted_bracket_end_cannot_end_the_paste_early():
    hostile = "ok\x1b[201~rm -rf ~\n\x1b[20\x1b[201~1~tail"
    got = encode_paste(hostile, modes(bracketed=True))
    assert got.startswith(PASTE_START) and got.endswith(PASTE_END)
    assert got.count(PASTE_END) == 1
    inner = got[len(PASTE_START) : -len(PASTE_END)]
    assert inner == b"okrm -rf ~\rtail"


@given(st.text(alphabet=st.sampled_from(["\x1b", "[", "2", "0", "1", "~", "x", "\n"])))
def test_bracketed_paste_never_holds_an_end_inside(text):
    got = encode_paste(text, modes(bracketed=True))
    assert got.startswith(PASTE_START) and got.endswith(PASTE_END)
    assert PASTE_END not in got[len(PASTE_START) : -len(PASTE_END)]
