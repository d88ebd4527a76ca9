"""Reading a user's files, bounded: config files, config.json, catalogs, shard indexes.

Only regular files and pipes (`-c <(...)`) are read, never more than MAX_FILE_BYTES, and
parsing is bounded too (nesting depth, digits of an integer). Every way a file can fail
becomes a FileError whose text names the file and, where there is one, the line.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

from ffn_calc.errors import FileError
from ffn_calc.i18n.translate import N_, _

# No real config, config.json, catalog or shard index comes near this (the largest Hugging Face
# config.json files are tens of kilobytes; a shard index of a 400B model, about 1 MiB).
MAX_FILE_BYTES = 16 * 1024 * 1024
# Brackets nested deeper than this are refused before parsing (real files nest 3 or 4 deep).
MAX_DEPTH = 64
BOM = "\ufeff"
# How long a named pipe may wait for its first writer before the read gives up.
FIFO_WAIT_SECONDS = 5
# What the callers call the files they read (`what`), translated where a message names it.
FILE_KINDS = (N_("config file"), N_("exercise catalog"), N_("shard index"))


def is_dir(path: Path) -> bool:
    """Whether `path` is a directory; False for a name the system refuses (too long), which
    the read that follows then reports."""
    try:
        return path.is_dir()
    except OSError:
        return False


def _stat(path: Path, what: str) -> os.stat_result:
    try:
        return path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise FileError(
                _("{what} '{path}' is a broken symbolic link.").format(what=_(what), path=path)
            ) from None
        raise FileError(
            _("{what} '{path}' does not exist.").format(what=_(what), path=path)
        ) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FileError(
                _("{what} '{path}' is a symbolic link loop.").format(what=_(what), path=path)
            ) from None
        if exc.errno == errno.ENAMETOOLONG:
            raise FileError(
                _("{what} path is too long ({length} characters).").format(
                    what=_(what), length=f"{len(str(path)):,}"
                )
            ) from None
        raise FileError(_cannot_read(path, what, exc)) from None
    except ValueError:  # an embedded NUL byte
        raise FileError(
            _("{what} path {path} is not a valid file name.").format(
                what=_(what), path=repr(str(path)[:80])
            )
        ) from None


def _cannot_read(path: Path, what: str, exc: OSError) -> str:
    return _("cannot read {what} '{path}': {reason}.").format(
        what=_(what), path=path, reason=exc.strerror or exc
    )


def read_bytes_bounded(path: Path, what: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file or a pipe, at most `limit` of them, else a FileError."""
    st = _stat(path, what)
    if stat.S_ISDIR(st.st_mode):
        raise FileError(
            _("{what} '{path}' is a directory, not a file.").format(what=_(what), path=path)
        )
    fifo = stat.S_ISFIFO(st.st_mode)
    if not (stat.S_ISREG(st.st_mode) or fifo):
        raise FileError(
            _("{what} '{path}' is not a regular file (a device or socket).").format(
                what=_(what), path=path
            )
        )
    if st.st_size > limit:
        raise FileError(_too_big(path, what, limit))
    try:
        fd = os.open(path, os.O_RDONLY | (os.O_NONBLOCK if fifo else 0))
        try:
            data = _read_pipe(fd, limit) if fifo else _read_file(fd, limit)
        finally:
            os.close(fd)
    except OSError as exc:
        raise FileError(_cannot_read(path, what, exc)) from None
    if fifo and data is None:
        raise FileError(
            _(
                "{what} '{path}' is a named pipe that no program wrote to within {seconds} seconds."
            ).format(what=_(what), path=path, seconds=FIFO_WAIT_SECONDS)
        )
    size = len(data or b"")
    if size > limit:
        raise FileError(_too_big(path, what, limit))
    return data or b""


def _read_file(fd: int, limit: int) -> bytes:
    """Up to limit + 1 bytes of a regular file (one more than allowed tells it is too big)."""
    chunks, size = [], 0
    while size <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _read_pipe(fd: int, limit: int) -> bytes | None:
    """Up to limit + 1 bytes of a pipe opened without blocking; None when no writer came.

    A pipe from process substitution (`-c <(...)`) has its writer: read until it closes. A
    named pipe may have none yet: wait up to FIFO_WAIT_SECONDS for one, never forever.
    """
    import select
    import time

    poll = select.poll()
    poll.register(fd, select.POLLIN)
    chunks, size, written = [], 0, False
    deadline = time.monotonic() + FIFO_WAIT_SECONDS
    while size <= limit:
        try:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        except BlockingIOError:  # a writer is there, its data is not yet
            written = True
            poll.poll()
            continue
        if chunk:
            chunks.append(chunk)
            size += len(chunk)
            written = True
            continue
        if written:  # end of file after a writer
            break
        # Nobody has opened the pipe for writing (yet): a writer's data or its close wakes us.
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        events = poll.poll(int(remaining * 1000) + 1)
        if any(ev & select.POLLHUP and not ev & select.POLLIN for _, ev in events):
            written = True  # a writer came and went without writing: empty
    return b"".join(chunks)


def _too_big(path: Path, what: str, limit: int) -> str:
    return _(
        "{what} '{path}' is larger than {mib} MiB, the limit for files ffn-calc reads; "
        "no real config or index file is that large."
    ).format(what=_(what), path=path, mib=limit // (1024 * 1024))


def read_text_file(path: Path, what: str = "config file") -> str:
    """A user's text file as str: bounded, UTF-8 (a byte-order mark is dropped), not binary."""
    raw = read_bytes_bounded(path, what)
    if not raw.strip():
        raise FileError(_("{what} '{path}' is empty.").format(what=_(what), path=path))
    if b"\x00" in raw[:8192]:
        raise FileError(
            _("{what} '{path}' is a binary file, not TOML or JSON text.").format(
                what=_(what), path=path
            )
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileError(
            _("{what} '{path}' is not UTF-8 text (bad byte at offset {offset}).").format(
                what=_(what), path=path, offset=exc.start
            )
        ) from None
    return text.removeprefix(BOM)


def _check_depth(text: str, origin: str) -> None:
    """Refuse brackets nested deeper than MAX_DEPTH (strings are skipped roughly: a quote
    toggles; enough to keep the parsers' recursion bounded, never a false alarm on real files).
    A text with no more openers than MAX_DEPTH in all cannot nest deeper: no scan."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth, quote, escaped = 0, "", False
    for number, line in enumerate(text.splitlines(), start=1):
        for ch in line:
            if quote:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "#":
                break  # a TOML comment (JSON has none outside strings)
            elif ch in "[{":
                depth += 1
                if depth > MAX_DEPTH:
                    where = _("{origin}, line {line}").format(origin=origin, line=number)
                    raise FileError(
                        _(
                            "{where}: brackets nested more than {depth} deep; "
                            "no real config nests like that."
                        ).format(where=where, depth=MAX_DEPTH)
                    )
            elif ch in "]}":
                depth = max(0, depth - 1)
        if quote == "'":
            quote = ""  # TOML literal strings end at the line's end


# What Python's TOML and JSON parsers say (in English), shown in the reader's language; a
# message not listed here is shown as the parser wrote it.
PARSER_MESSAGES = frozenset((
    N_("Invalid value"), N_("Invalid statement"), N_("Cannot overwrite a value"),
    N_("Unclosed array"), N_("Unclosed inline table"), N_("Unterminated string"),
    N_("Invalid date or datetime"), N_("Invalid hex value"),
    N_("Invalid initial character for a key part"),
    N_("Expected '=' after a key in a key/value pair"),
    N_("Expected ']' at the end of a table declaration"),
    N_("Expected ']]' at the end of an array declaration"),
    N_("Expected newline or end of document after a statement"),
    N_("Unescaped '\\' in a string"), N_("Escaped character is not a Unicode scalar value"),
    N_("Expecting value"), N_("Expecting property name enclosed in double quotes"),
    N_("Expecting ':' delimiter"), N_("Expecting ',' delimiter"),
    N_("Unterminated string starting at"), N_("Extra data"), N_("Invalid \\escape"),
    N_("Invalid control character at"), N_("Invalid \\uXXXX escape"),
))  # fmt: skip
PARSER_TEMPLATES = (
    (re.compile(r"Cannot declare (.+) twice"), N_("Cannot declare {key} twice")),
    (re.compile(r"Duplicate inline table key (.+)"), N_("Duplicate inline table key {key}")),
    (re.compile(r"Cannot redefine namespace (.+)"), N_("Cannot redefine namespace {key}")),
    (re.compile(r"Cannot mutate immutable namespace (.+)"),
     N_("Cannot mutate immutable namespace {key}")),
    (re.compile(r"Illegal character (.+)"), N_("Illegal character {key}")),
    (re.compile(r"Found invalid character (.+)"), N_("Found invalid character {key}")),
    (re.compile(r"Expected (.+)"), N_("Expected {key}")),
)  # fmt: skip
_AT = re.compile(r"(.*) \(at (?:line (\d+), column (\d+)|end of document)\)", re.DOTALL)


def parser_error(text: str) -> str:
    """A TOML or JSON parser's message in the current language, its position included."""
    m = _AT.fullmatch(text)
    message = m[1] if m else text
    shown = _(message) if message in PARSER_MESSAGES else message
    if shown is message:
        for pattern, template in PARSER_TEMPLATES:
            if found := pattern.fullmatch(message):
                shown = _(template).format(key=found[1])
                break
    if m is None:
        return shown
    if m[2] is None:
        return _("{error} (at end of document)").format(error=shown)
    return _("{error} (at line {line}, column {column})").format(
        error=shown, line=m[2], column=m[3]
    )


def parse_toml(text: str, origin: str) -> dict[str, Any]:
    """Parse TOML text; malformed, too deep or absurd integers become a FileError."""
    _check_depth(text, origin)
    try:
        return tomllib.loads(text.removeprefix(BOM))
    except tomllib.TOMLDecodeError as exc:
        raise FileError(
            _("{origin}: malformed TOML: {error}.").format(
                origin=origin, error=parser_error(str(exc))
            )
        ) from None
    except ValueError as exc:  # an integer of thousands of digits
        raise FileError(_digits_message(exc, origin)) from None
    except RecursionError:
        raise FileError(_too_deep(origin)) from None


def _too_deep(origin: str) -> str:
    return _("{origin}: nested too deeply to be a config file.").format(origin=origin)


def _digits_message(exc: ValueError, origin: str) -> str:
    if "digits" in str(exc):
        return _("{origin}: a number with thousands of digits; no real size is that large.").format(
            origin=origin
        )
    return _("{origin}: malformed: {error}.").format(origin=origin, error=exc)


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


def _line_of_nth(text: str, key: str, nth: int) -> int | None:
    """The line of the nth `"key":` in JSON text."""
    needle, seen = f'"{key}"', 0
    for number, line in enumerate(text.splitlines(), start=1):
        seen += line.count(needle)
        if seen >= nth:
            return number
    return None


def parse_json(text: str, origin: str) -> Any:
    """Parse JSON text: duplicate keys, too deep nesting and absurd integers are errors."""
    import json

    _check_depth(text, origin)
    try:
        return json.loads(text.removeprefix(BOM), object_pairs_hook=_no_duplicates)
    except _Duplicate as dup:
        line = _line_of_nth(text, dup.key, 2)
        where = _("{origin}, line {line}").format(origin=origin, line=line) if line else origin
        raise FileError(
            _("{where}: duplicate key {key}.").format(where=where, key=repr(dup.key[:80]))
        ) from None
    except json.JSONDecodeError as exc:
        raise FileError(
            _("{origin}, line {line}, column {column}: malformed JSON: {error}.").format(
                origin=origin, line=exc.lineno, column=exc.colno, error=parser_error(exc.msg)
            )
        ) from None
    except ValueError as exc:
        raise FileError(_digits_message(exc, origin)) from None
    except RecursionError:
        raise FileError(_too_deep(origin)) from None


def parse_json_object(text: str, origin: str) -> dict[str, Any]:
    """Parse JSON text that must hold an object."""
    data = parse_json(text, origin)
    if not isinstance(data, dict):
        kinds = {"list": N_("an array"), "str": N_("a string"), "int": N_("a number"),
                 "float": N_("a number"), "bool": N_("a boolean"), "NoneType": "null"}  # fmt: skip
        name = type(data).__name__
        kind = _(kinds[name]) if name in kinds else name
        raise FileError(
            _("{origin}: expected a JSON object {{...}} at the top level, found {kind}.").format(
                origin=origin, kind=kind
            )
        )
    return data


def line_of(text: str | None, key: str) -> int | None:
    """The first line that sets `key` in TOML (`key =`) or JSON (`"key":`) text."""
    if not text:
        return None
    pattern = re.compile(rf'^\s*"?{re.escape(key)}"?\s*=|"{re.escape(key)}"\s*:')
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.search(line):
            return number
    return None


def shown(value: object, limit: int = 60) -> str:
    """A value as a message quotes it: short, and never deep (a huge or nested input is cut)."""
    import reprlib

    r = reprlib.Repr()
    r.maxstring, r.maxother, r.maxlevel, r.maxlist, r.maxdict = limit, limit, 2, 4, 4
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    text = r.repr(value)
    return text if len(text) <= limit + 10 else text[:limit] + "..."


def printable(text: str) -> str:
    """A name as a terminal may show it: control characters (escapes, newlines) as '?'."""
    return re.sub(r"[\x00-\x1f\x7f-\x9f]", "?", text)
