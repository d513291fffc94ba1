"""JSON for the shim, from the C accelerator alone.

`import json` costs the shim milliseconds before its first byte (its decoder imports
`re`, which imports `enum`, `functools` and `collections`); `_json` is the same scanner
and encoder without them. Output and errors are `json`'s: `loads` raises `ValueError`
on bad input (a `json.JSONDecodeError` where the scanner says where; `json` is loaded
then, on that error path only). Where `_json` is missing (another interpreter), the
`json` package does the work.
"""

try:
    import _json
except ImportError:  # pragma: no cover - CPython always has it
    _json = None


class _Context:
    """What `_json.make_scanner` reads from a decoder: json.loads' defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


def _no_default(obj: object) -> object:
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


_WHITESPACE = " \t\n\r"
_scan = None


def loads(text: str | bytes | bytearray) -> object:
    """`json.loads(text)`: one JSON value, surrounded by whitespace at most."""
    global _scan
    if _json is None:  # pragma: no cover
        import json

        return json.loads(text)
    if not isinstance(text, str):
        text = bytes(text).decode("utf-8", "surrogatepass")  # as json does for UTF-8
    if _scan is None:
        _scan = _json.make_scanner(_Context())
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as exc:
        raise ValueError(f"Expecting value: char {exc.value}") from None
    if text[end:].strip(_WHITESPACE):
        raise ValueError(f"Extra data: char {end}")
    return value


def dumps(value: object, separators: tuple[str, str] = (", ", ": ")) -> str:
    """`json.dumps(value, separators=separators)` (ASCII, NaN allowed, no sorting)."""
    if _json is None:  # pragma: no cover
        import json

        return json.dumps(value, separators=separators)
    if isinstance(value, str):
        return _json.encode_basestring_ascii(value)
    item, key = separators
    encode = _json.make_encoder(  # markers fresh each call, as json's: a failed call's stay
        {}, _no_default, _json.encode_basestring_ascii, None, key, item, False, False, True
    )
    return "".join(encode(value, 0))
