"""Escapes, key tokens, hex bytes and bracketed paste: the bytes an agent's input becomes."""

from __future__ import annotations

import pytest

from jobs_tui.engine.tools.keys import (
    InputError,
    application_cursor_mode,
    bracketed_paste,
    encode_key,
    encode_keys,
    parse_escapes,
    parse_hex,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain text", b"plain text"),
        (r"ls\n", b"ls\n"),
        (r"a\r\n\tb", b"a\r\n\tb"),
        (r"\\n stays a backslash and n", b"\\n stays a backslash and n"),
        (r"\e[A\x1b[B", b"\x1b[A\x1b[B"),
        (r"\a\b\f\v\?\'\"", b"\x07\x08\x0c\x0b?'\""),
        (r"\0\012\101\377", b"\x00\n\x41\xff"),
        (r"\x4\x41\xff", b"\x04A\xff"),  # one or two hex digits; \x is a raw byte
        (r"\u00e9\U0001F600", "é😀".encode()),
        ("é already decoded", "é already decoded".encode()),
    ],
)
def test_c_style_escapes(text: str, expected: bytes):
    assert parse_escapes(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ends with \\", "lone backslash"),
        (r"\q", "unknown escape \\q"),
        (r"\xZZ", "\\x needs"),
        (r"\u12", "\\u needs 4 hex digits"),
        (r"\U0011FFFF", "not a Unicode scalar"),
        (r"\ud800", "not a Unicode scalar"),
        (r"\400", "above \\377"),
    ],
)
def test_bad_escapes_name_the_field(text: str, message: str):
    with pytest.raises(InputError, match=message.replace("\\", "\\\\")) as caught:
        parse_escapes(text, "chars")
    assert caught.value.field == "chars"


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("Enter", "\r"),
        ("return", "\r"),
        ("Tab", "\t"),
        ("Escape", "\x1b"),
        ("Esc", "\x1b"),
        ("Backspace", "\x7f"),
        ("Space", " "),
        ("Up", "\x1b[A"),
        ("Down", "\x1b[B"),
        ("Right", "\x1b[C"),
        ("Left", "\x1b[D"),
        ("Home", "\x1b[H"),
        ("End", "\x1b[F"),
        ("PageUp", "\x1b[5~"),
        ("PgDn", "\x1b[6~"),
        ("Insert", "\x1b[2~"),
        ("Delete", "\x1b[3~"),
        ("F1", "\x1bOP"),
        ("F4", "\x1bOS"),
        ("F5", "\x1b[15~"),
        ("F12", "\x1b[24~"),
        ("C-c", "\x03"),
        ("C-d", "\x04"),
        ("^C", "\x03"),
        ("C-?", "\x7f"),
        ("C-Space", "\x00"),
        ("M-x", "\x1bx"),
        ("M-Enter", "\x1b\r"),
        ("S-a", "A"),
        ("C-M-a", "\x1b\x01"),
        ("S-Tab", "\x1b[Z"),
        ("BTab", "\x1b[Z"),
        ("S-Up", "\x1b[1;2A"),
        ("M-Left", "\x1b[1;3D"),
        ("C-Right", "\x1b[1;5C"),
        ("C-S-Up", "\x1b[1;6A"),
        ("C-Delete", "\x1b[3;5~"),
        ("S-F1", "\x1b[1;2P"),
        ("C-F5", "\x1b[15;5~"),
        ("x", "x"),
        ("hello world", "hello world"),  # anything else is literal text
    ],
)
def test_key_tokens(token: str, expected: str):
    assert encode_key(token) == expected


def test_application_cursor_mode_sends_ss3_arrows_but_keeps_modified_ones():
    assert encode_key("Up", application=True) == "\x1bOA"
    assert encode_key("Home", application=True) == "\x1bOH"
    assert encode_key("C-Up", application=True) == "\x1b[1;5A"
    assert encode_key("PageUp", application=True) == "\x1b[5~"


def test_cursor_mode_is_the_last_decckm_switch_in_the_stream():
    assert application_cursor_mode(b"prompt \x1b[?1h editing")
    assert not application_cursor_mode(b"\x1b[?1h vim \x1b[?1l back at the shell")
    assert not application_cursor_mode(b"plain output")


@pytest.mark.parametrize(("token", "message"), [("C-1", "no control"), ("C-Enterr", "not a key")])
def test_bad_modified_tokens_are_errors_naming_keys(token: str, message: str):
    with pytest.raises(InputError, match=message) as caught:
        encode_key(token)
    assert caught.value.field == "keys"


def test_hex_bytes_and_their_errors():
    assert parse_hex(["1b", "0x5b", "41", "0X0"]) == b"\x1b[A\x00"
    for bad in ("123", "zz", "0x", ""):
        with pytest.raises(InputError, match="hex") as caught:
            parse_hex([bad])
        assert caught.value.field == "hex"


def test_send_keys_orders_literal_then_hex_then_keys():
    data = encode_keys(["Enter", "C-c"], ["41"], "ls")
    assert data == b"lsA\r\x03"
    assert encode_keys(["é"]) == "é".encode()


def test_bracketed_paste_wraps_and_cannot_be_broken_out_of():
    assert bracketed_paste("hello\n") == b"\x1b[200~hello\n\x1b[201~"
    sneaky = "a\x1b[201~rm -rf x\x1b[200~b"
    assert bracketed_paste(sneaky) == b"\x1b[200~arm -rf xb\x1b[201~"
    assert bracketed_paste("plain", bracketed=False) == b"plain"
