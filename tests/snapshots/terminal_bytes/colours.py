"""Colours (16, 256, truecolour), attributes and wide characters: a snapshot's bytes."""

import sys

w = sys.stdout.write
w(
    "16: "
    + "".join(f"\x1b[{30 + i}m{i}\x1b[0m" for i in range(8))
    + "".join(f"\x1b[{90 + i}m{i}\x1b[0m" for i in range(8))
)
w(
    " bg: "
    + "".join(f"\x1b[{40 + i}m \x1b[0m" for i in range(8))
    + "".join(f"\x1b[{100 + i}m \x1b[0m" for i in range(8))
    + "\n"
)
w("256: " + "".join(f"\x1b[48;5;{16 + i * 6}m \x1b[0m" for i in range(36)) + "\n")
w(
    "rgb: "
    + "".join(f"\x1b[48;2;{i * 7};{100 + i};{255 - i * 7}m \x1b[0m" for i in range(36))
    + "\n"
)
w(
    "\x1b[1mbold\x1b[0m \x1b[3mitalic\x1b[0m \x1b[4munderline\x1b[0m "
    "\x1b[7mreverse\x1b[0m \x1b[9mstrike\x1b[0m\n"
)
w("wide: 中文字符 テスト 한국어 | emoji 🚀✨ | end\n")
w("mixed: a中b文c\x1b[31m红\x1b[0md\n")
