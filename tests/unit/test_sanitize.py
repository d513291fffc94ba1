"""The untrusted-text boundary (registry-format.md, "Sanitizing")."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobs_tui.engine.records import sanitize as rules
from jobs_tui.engine.records.sanitize import (
    LINE_LIMIT,
    clip,
    last_line,
    sanitize_line,
    sanitize_log,
    strip_escapes,
)

ESC = "\x1b"
SGR = re.compile(r"\x1b\[[0-9;:]*m")
C0_C1_DEL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
BIDI_CHARS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"

# -- strategies ----------------------------------------------------------------------

# Anything a job might print: plain text, controls, C1, escapes, CR/LF, bidi, unicode.
hostile_alphabet = st.one_of(
    st.characters(codec="utf-8"),
    st.sampled_from(
        list("\x1b\x1b\x1b\r\n\r\n\t\x07\x00\x7f\x85\x9b\x9c\x9d\x90[]\\;m0123 PX^_")
        + list(BIDI_CHARS)
        + ["\u2028", "\u00a0"]
    ),
)
hostile_text = st.text(alphabet=hostile_alphabet, max_size=400)

# Plain text with nothing for a sanitizer to remove (no controls, no bidi, no CR).
clean_char = st.characters(
    codec="utf-8",
    exclude_categories=("Cc", "Cs", "Zl", "Zp"),
    exclude_characters=BIDI_CHARS,
)
clean_text = st.text(alphabet=clean_char, max_size=40)

sgr_seq = st.lists(st.integers(0, 255), max_size=4).map(
    lambda ps: "\x1b[" + ";".join(map(str, ps)) + "m"
)
non_sgr_csi = st.sampled_from(
    [
        "\x1b[2J",
        "\x1b[H",
        "\x1b[10;20H",
        "\x1b[?25l",
        "\x1b[?1049h",
        "\x1b[2K",
        "\x1b[>4;1m",  # private-parameter CSI ending in m: not SGR
        "\x1b[1 q",
        "\x9b2J",
        "\x9b31m",  # 8-bit CSI is never kept
    ]
)
osc_seq = st.sampled_from(
    [
        "\x1b]0;window title\x07",
        "\x1b]2;title\x1b\\",
        "\x1b]8;;https://example.com\x1b\\",
        "\x1b]52;c;aGVsbG8=\x07",
        "\x9d0;eight-bit title\x9c",
    ]
)
other_escape = st.sampled_from(
    ["\x1b7", "\x1b8", "\x1bc", "\x1b(B", "\x1b)0", "\x1b=", "\x1b>", "\x1bM", "\x1bPq#0;1\x1b\\"]
)


@st.composite
def tokens(draw, with_sgr: bool = True):
    """A list of (kind, text) pieces: clean text interleaved with escape sequences."""
    kinds = [clean_text.map(lambda t: ("text", t)), non_sgr_csi.map(lambda t: ("esc", t))]
    kinds += [osc_seq.map(lambda t: ("esc", t)), other_escape.map(lambda t: ("esc", t))]
    if with_sgr:
        kinds.append(sgr_seq.map(lambda t: ("sgr", t)))
    return draw(st.lists(st.one_of(*kinds), max_size=12))


def _join(pieces, keep=("text",)):
    return "".join(text for kind, text in pieces if kind in keep)


# -- the reference examples ------------------------------------------------------------


def test_progress_rewrite_keeps_text_after_last_cr():
    assert sanitize_line("10%\r50%\r100% done") == "100% done"


def test_bell_becomes_space_and_whitespace_collapses():
    assert sanitize_line("a\x07b\tc   d") == "a b c d"


@pytest.mark.parametrize(
    "title",
    [
        "\x1b]0;my window title\x07",
        "\x1b]2;my window title\x1b\\",
        "\x9d0;my window title\x9c",
        "\x9d0;my window title\x07",
    ],
)
def test_osc_window_title_disappears(title):
    assert sanitize_line(f"before{title}after") == "beforeafter"
    assert "window" not in sanitize_log(f"x{title}y\n")


# -- escapes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b[1;32;40mgreen\x1b[m", "green"),
        ("a\x1b[2Jb", "ab"),
        ("a\x1b[10;20Hb", "ab"),
        ("a\x1b[?25lb\x1b[?25h", "ab"),
        ("a\x1b[2Kb", "ab"),
        ("a\x1b7b\x1b8c", "abc"),  # two-character escapes
        ("a\x1bcb", "ab"),
        ("a\x1b(Bb", "ab"),  # charset designation (intermediate + final)
        ("a\x1b=b\x1b>c", "abc"),
        ("a\x1bPq#0;2;0;0;0\x1b\\b", "ab"),  # DCS string
        ("a\x1b_apc payload\x1b\\b", "ab"),  # APC string
        ("a\x1b^pm payload\x1b\\b", "ab"),  # PM string
        ("a\x1bXsos payload\x1b\\b", "ab"),  # SOS string
        ("a\x9b31mb", "ab"),  # 8-bit CSI
        ("a\x90dcs\x9cb", "ab"),  # 8-bit DCS
        ("a\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),  # hyperlink
        ("a\x1b", "a"),  # lone ESC at the end
    ],
)
def test_strip_escapes(raw, expected):
    assert strip_escapes(raw) == expected


def test_strip_escapes_leaves_plain_text_alone():
    text = "plain [31m text; with brackets ] and \\ backslashes"
    assert strip_escapes(text) == text
    assert strip_escapes(text, keep_sgr=True) == text


def test_unterminated_osc_does_not_swallow_later_lines():
    raw = "one\x1b]0;title never terminated\ntwo\nthree\n"
    assert sanitize_log(raw) == "one\ntwo\nthree\n"


def test_unterminated_dcs_does_not_swallow_later_lines():
    raw = "one\x1bPbinary garbage\ntwo\x1bXmore\nthree"
    assert sanitize_log(raw) == "one\ntwo\nthree"


def test_osc_interrupted_by_another_escape_hides_its_body():
    assert sanitize_line("a\x1b]0;secret title\x1b[31mred") == "ared"


def test_unterminated_osc_at_end_of_text_is_removed():
    assert sanitize_line("visible\x1b]0;half a title") == "visible"


@given(tokens())
def test_escapes_are_invisible_in_a_line(pieces):
    raw = "".join(text for _kind, text in pieces)
    assert sanitize_line(raw) == sanitize_line(_join(pieces))


@given(tokens())
def test_strip_escapes_removes_exactly_the_sequences(pieces):
    raw = "".join(text for _kind, text in pieces)
    assert strip_escapes(raw) == _join(pieces)


@given(tokens())
def test_keep_sgr_keeps_only_sgr_sequences(pieces):
    raw = "".join(text for _kind, text in pieces)
    assert strip_escapes(raw, keep_sgr=True) == _join(pieces, keep=("text", "sgr"))


# -- keep_sgr --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sgr", ["\x1b[31m", "\x1b[0m", "\x1b[m", "\x1b[1;4;38;5;196m", "\x1b[38:2:10:20:30m"]
)
def test_keep_sgr_keeps_colours(sgr):
    raw = f"a{sgr}b\x1b[2Jc\x1b]0;t\x07d\n"
    assert sanitize_log(raw, keep_sgr=True) == f"a{sgr}bcd\n"
    assert sanitize_log(raw) == "abcd\n"


@pytest.mark.parametrize(
    "seq", ["\x1b[?25l", "\x1b[>4;1m", "\x1b[2J", "\x1b7", "\x1b]0;t\x07", "\x9b31m", "\x1b[1 q"]
)
def test_keep_sgr_drops_everything_else(seq):
    assert sanitize_log(f"x{seq}y", keep_sgr=True) == "xy"


def test_keep_sgr_line_sanitizer_still_drops_colours():
    assert sanitize_line("\x1b[31mred\x1b[0m") == "red"


# -- carriage returns and line ends -----------------------------------------------------


def test_crlf_is_a_line_end_in_logs():
    assert sanitize_log("one\r\ntwo\r\n") == "one\ntwo\n"


def test_crlf_is_a_line_end_in_a_line():
    assert sanitize_line("one\r\ntwo") == "one two"


def test_cr_rewrite_per_log_line():
    raw = "a\rb\rc\n10%\r100%\r\nplain\n"
    assert sanitize_log(raw) == "c\n100%\nplain\n"


def test_trailing_cr_keeps_what_the_terminal_still_shows():
    # A progress line that ends in \r still shows its last text until overwritten.
    assert sanitize_line("10%\r50%\r") == "50%"


def test_cr_inside_escape_does_not_cut_the_line():
    assert sanitize_line("keep\x1b]0;a\rb\x07 me") == "keep me"


# -- control characters -----------------------------------------------------------------


# CR and the escape introducers (ESC, 8-bit DCS/SOS/CSI/OSC/PM/APC) follow their own rules.
_SPECIAL = {0x0D, 0x1B, 0x90, 0x98, 0x9B, 0x9D, 0x9E, 0x9F}


@pytest.mark.parametrize(
    "code", [c for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)] if c not in _SPECIAL]
)
def test_every_c0_c1_and_del_becomes_a_space_in_a_line(code):
    assert sanitize_line(f"a{chr(code)}b") == "a b"


@pytest.mark.parametrize("code", [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x1B), 0x7F, 0x85])
def test_controls_become_spaces_in_logs_but_tab_and_newline_stay(code):
    assert sanitize_log(f"a{chr(code)}b") == "a b"
    assert sanitize_log("\ta\n\tb") == "\ta\n\tb"


def test_bidi_controls_are_removed():
    for ch in BIDI_CHARS:
        assert sanitize_line(f"abc{ch}def") == "abcdef"
        assert sanitize_log(f"abc{ch}def\n") == "abcdef\n"


def test_unicode_text_survives():
    text = "héllo 世界 — ok ✓ 🎉"
    assert sanitize_line(text) == text
    assert sanitize_log(text + "\n") == text + "\n"


# -- whitespace, trim and clip ----------------------------------------------------------


def test_whitespace_collapses_and_trims():
    assert sanitize_line("  \t a \n\n  b\u00a0\u2028 c  \t") == "a b c"


def test_clip_is_199_chars_and_an_ellipsis():
    out = sanitize_line("x" * 500)
    assert len(out) == LINE_LIMIT == 200
    assert out == "x" * 199 + "…"


def test_exactly_the_limit_is_not_clipped():
    assert sanitize_line("y" * 200) == "y" * 200
    assert sanitize_line("y" * 201) == "y" * 199 + "…"


def test_clip_counts_after_escapes_and_collapse():
    raw = "\x1b[31m" + "a  " * 100 + "\x1b[0m"  # 300 chars raw, 199 after collapse and trim
    assert sanitize_line(raw) == " ".join(["a"] * 100)


@pytest.mark.parametrize("limit", [1, 2, 10, 48])
def test_custom_limit(limit):
    out = sanitize_line("z" * 100, limit)
    assert len(out) == limit
    assert out.endswith("…")
    assert out[:-1] == "z" * (limit - 1)


def test_log_lines_are_not_clipped_to_the_line_limit():
    long = "w" * 5000
    assert sanitize_log(long + "\n") == long + "\n"


def test_log_keeps_empty_lines_and_indentation():
    raw = "def f():\n    return 1\n\n\n\tx = 2   \n"
    assert sanitize_log(raw) == raw


# -- last_line --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"first\nsecond\n", "second"),
        (b"first\nsecond", "second"),
        (b"first\nsecond\n\n\n   \n", "second"),
        (b"done\n\x1b[0m\n", "done"),
        (b"10%\r50%\r100% done\r\n", "100% done"),
        (b"\x1b]0;title\x07building \x1b[1mfoo\x1b[0m\n", "building foo"),
        (b"", ""),
        (b"\n\n\r\n", ""),
        ("caf\u00e9 \u2713\n".encode(), "caf\u00e9 \u2713"),
    ],
)
def test_last_line(raw, expected):
    assert last_line(raw) == expected


def test_last_line_replaces_invalid_utf8():
    assert last_line(b"bad \xff\xfe bytes\n") == "bad \ufffd\ufffd bytes"


def test_last_line_clips():
    assert last_line(b"q" * 1000) == "q" * 199 + "…"
    assert last_line(b"q" * 1000, 10) == "q" * 9 + "…"


# -- properties -------------------------------------------------------------------------


@settings(max_examples=300)
@given(hostile_text, st.integers(min_value=1, max_value=300))
def test_sanitize_line_output_is_one_clean_line(raw, limit):
    out = sanitize_line(raw, limit)
    assert ESC not in out
    assert "\n" not in out and "\r" not in out
    assert not C0_C1_DEL.search(out)
    assert not any(ch in out for ch in BIDI_CHARS)
    assert len(out) <= limit
    assert out == out.strip()
    assert "  " not in out
    assert not re.search(r"[^\S ]", out)  # the only whitespace left is a plain space


@given(hostile_text)
def test_sanitize_line_default_limit(raw):
    assert len(sanitize_line(raw)) <= LINE_LIMIT


@given(hostile_text)
def test_sanitize_line_is_idempotent(raw):
    once = sanitize_line(raw)
    assert sanitize_line(once) == once


@settings(max_examples=300)
@given(hostile_text)
def test_sanitize_log_output_has_no_escapes_or_controls(raw):
    out = sanitize_log(raw)
    assert ESC not in out
    assert "\r" not in out
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", out)
    assert not any(ch in out for ch in BIDI_CHARS)


@settings(max_examples=300)
@given(hostile_text)
def test_sanitize_log_keeps_newline_structure(raw):
    out = sanitize_log(raw)
    assert out.count("\n") == raw.count("\n")
    assert sanitize_log(raw, keep_sgr=True).count("\n") == raw.count("\n")


@settings(max_examples=300)
@given(hostile_text)
def test_sanitize_log_keep_sgr_leaves_esc_only_inside_sgr(raw):
    out = sanitize_log(raw, keep_sgr=True)
    assert ESC not in SGR.sub("", out)
    assert "\r" not in out
    assert not re.search(r"[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]", out)


@given(hostile_text, st.booleans())
def test_sanitize_log_is_idempotent(raw, keep_sgr):
    once = sanitize_log(raw, keep_sgr=keep_sgr)
    assert sanitize_log(once, keep_sgr=keep_sgr) == once


@given(st.lists(st.tuples(st.text(" \t", max_size=6), clean_text), max_size=10))
def test_sanitize_log_is_identity_on_clean_text_and_keeps_indentation(lines):
    raw = "\n".join(indent + body for indent, body in lines)
    assert sanitize_log(raw) == raw
    assert sanitize_log(raw, keep_sgr=True) == raw


@given(st.lists(st.tuples(st.text(" \t", max_size=6), tokens()), max_size=8))
def test_sanitize_log_keeps_indentation_behind_escapes(lines):
    raw = "\n".join(indent + "".join(t for _k, t in pieces) for indent, pieces in lines)
    expected = "\n".join(indent + _join(pieces) for indent, pieces in lines)
    assert sanitize_log(raw) == expected


@given(
    st.lists(st.text(alphabet=clean_char, min_size=1, max_size=20), min_size=1, max_size=6),
    clean_text,
)
def test_cr_rewrite_keeps_the_final_state(frames, tail):
    rewrite = "\r".join(frames)
    assert sanitize_log(rewrite + "\n" + tail) == frames[-1] + "\n" + tail
    assert sanitize_line(rewrite) == sanitize_line(frames[-1])


# -- surrogates (issue 9, item 3): display never raises -------------------------------------


@pytest.mark.parametrize("text", ["x\ud800y", "\udcff", "a\udc80\udcffb", "\udbff\udfff"])
def test_every_surrogate_is_shown_as_a_replacement_character(text):
    for shown in (sanitize_line(text), sanitize_log(text), sanitize_log(text, keep_sgr=True)):
        assert not any("\ud800" <= ch <= "\udfff" for ch in shown)
        assert shown.count("\ufffd") == sum("\ud800" <= ch <= "\udfff" for ch in text)
        shown.encode("utf-8")
    assert last_line(text).encode("utf-8")


@given(
    st.text(
        alphabet=st.one_of(
            hostile_alphabet, st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
        )
    )
)
def test_sanitized_text_always_encodes(text):
    sanitize_line(text).encode("utf-8")
    sanitize_log(text).encode("utf-8")
    sanitize_log(text, keep_sgr=True).encode("utf-8")


# The rules as plain regex passes (no shortcut for the usual ASCII text): the oracle for
# the module's fast paths, which test ASCII text at C speed before any regex runs.
_ALPHABET = st.sampled_from(
    [
        *"ab \t\n\r;[m]0\x1b\x07\x00\x08\x0b\x1f\x7f\x9b\x9d\x90\x85é\u202e\ud800",
        *("\x1b[31m", "\x1b]0;t\x07"),
    ]
)


def _no_sgr(match: re.Match[str]) -> str:
    return match.group(0) if rules._SGR.fullmatch(match.group(0)) else ""


def _lines_after_cr(text: str, join: str) -> str:
    return join.join(rules._after_last_cr(p) for p in text.replace("\r\n", "\n").split("\n"))


def _oracle_log(text: str, keep_sgr: bool) -> str:
    text = rules._SGR_OR_ESCAPE.sub(_no_sgr, text) if keep_sgr else rules._ESCAPES.sub("", text)
    text = rules._SURROGATES.sub("\ufffd", rules._BIDI.sub("", _lines_after_cr(text, "\n")))
    return (rules._CONTROLS_LOG_SGR if keep_sgr else rules._CONTROLS_LOG).sub(" ", text)


def _oracle_line(text: str) -> str:
    text = _lines_after_cr(rules._ESCAPES.sub("", text), " ")
    text = rules._CONTROLS_LINE.sub(" ", rules._SURROGATES.sub("\ufffd", rules._BIDI.sub("", text)))
    return clip(rules._SPACES.sub(" ", text).strip(), LINE_LIMIT)


@settings(max_examples=400)
@given(st.lists(_ALPHABET, max_size=40).map("".join), st.booleans())
def test_the_fast_paths_give_what_the_plain_rules_give(text: str, keep_sgr: bool):
    assert strip_escapes(text) == rules._ESCAPES.sub("", text)
    assert sanitize_log(text, keep_sgr=keep_sgr) == _oracle_log(text, keep_sgr)
    assert sanitize_line(text) == _oracle_line(text)
