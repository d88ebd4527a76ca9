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

# No real config, config.json, catalog or shard index comes near this (the largest Hugging Face
# config.json files are tens of kilobytes; a shard index of a 400B model, about 1 MiB).
MAX_FILE_BYTES = 16 * 1024 * 1024
# Brackets nested deeper than this are refused before parsing (real files nest 3 or 4 deep).
MAX_DEPTH = 64
BOM = "\ufeff"
# How long a named pipe may wait for its first writer before the read gives up.
FIFO_WAIT_SECONDS = 5


def _stat(path: Path, what: str) -> os.stat_result:
    try:
        return path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise FileError(f"{what} '{path}' is a broken symbolic link.") from None
        raise FileError(f"{what} '{path}' does not exist.") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FileError(f"{what} '{path}' is a symbolic link loop.") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise FileError(f"{what} path is too long ({len(str(path)):,} characters).") from None
        raise FileError(f"cannot read {what} '{path}': {exc.strerror or exc}.") from None
    except ValueError:  # an embedded NUL byte
        raise FileError(f"{what} path {str(path)[:80]!r} is not a valid file name.") from None


def read_bytes_bounded(path: Path, what: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file or a pipe, at most `limit` of them, else a FileError."""
    st = _stat(path, what)
    if stat.S_ISDIR(st.st_mode):
        raise FileError(f"{what} '{path}' is a directory, not a file.")
    fifo = stat.S_ISFIFO(st.st_mode)
    if not (stat.S_ISREG(st.st_mode) or fifo):
        raise FileError(f"{what} '{path}' is not a regular file (a device or socket).")
    if st.st_size > limit:
        raise FileError(_too_big(path, what, limit))
    try:
        fd = os.open(path, os.O_RDONLY | (os.O_NONBLOCK if fifo else 0))
        try:
            data = _read_pipe(fd, limit) if fifo else _read_file(fd, limit)
        finally:
            os.close(fd)
    except OSError as exc:
        raise FileError(f"cannot read {what} '{path}': {exc.strerror or exc}.") from None
    if fifo and data is None:
        raise FileError(
            f"{what} '{path}' is a named pipe that no program wrote to within "
            f"{FIFO_WAIT_SECONDS} seconds."
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
    return (
        f"{what} '{path}' is larger than {limit // (1024 * 1024)} MiB, the limit for files "
        "ffn-calc reads; no real config or index file is that large."
    )


def read_text_file(path: Path, what: str = "config file") -> str:
    """A user's text file as str: bounded, UTF-8 (a byte-order mark is dropped), not binary."""
    raw = read_bytes_bounded(path, what)
    if not raw.strip():
        raise FileError(f"{what} '{path}' is empty.")
    if b"\x00" in raw[:8192]:
        raise FileError(f"{what} '{path}' is a binary file, not TOML or JSON text.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileError(
            f"{what} '{path}' is not UTF-8 text (bad byte at offset {exc.start})."
        ) from None
    return text.removeprefix(BOM)


def _check_depth(text: str, origin: str) -> None:
    """Refuse brackets nested deeper than MAX_DEPTH (strings are skipped roughly: a quote
    toggles; enough to keep the parsers' recursion bounded, never a false alarm on real files)."""
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
                    raise FileError(
                        f"{origin}, line {number}: brackets nested more than {MAX_DEPTH} deep; "
                        "no real config nests like that."
                    )
            elif ch in "]}":
                depth = max(0, depth - 1)
        if quote == "'":
            quote = ""  # TOML literal strings end at the line's end


def parse_toml(text: str, origin: str) -> dict[str, Any]:
    """Parse TOML text; malformed, too deep or absurd integers become a FileError."""
    _check_depth(text, origin)
    try:
        return tomllib.loads(text.removeprefix(BOM))
    except tomllib.TOMLDecodeError as exc:
        raise FileError(f"{origin}: malformed TOML: {exc}.") from None
    except ValueError as exc:  # an integer of thousands of digits
        raise FileError(f"{origin}: {_digits_message(exc)}") from None
    except RecursionError:
        raise FileError(f"{origin}: nested too deeply to be a config file.") from None


def _digits_message(exc: ValueError) -> str:
    if "digits" in str(exc):
        return "a number with thousands of digits; no real size is that large."
    return f"malformed: {exc}."


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
        where = f"{origin}, line {line}" if line else origin
        raise FileError(f"{where}: duplicate key {dup.key[:80]!r}.") from None
    except json.JSONDecodeError as exc:
        raise FileError(
            f"{origin}, line {exc.lineno}, column {exc.colno}: malformed JSON: {exc.msg}."
        ) from None
    except ValueError as exc:
        raise FileError(f"{origin}: {_digits_message(exc)}") from None
    except RecursionError:
        raise FileError(f"{origin}: nested too deeply to be a config file.") from None


def parse_json_object(text: str, origin: str) -> dict[str, Any]:
    """Parse JSON text that must hold an object."""
    data = parse_json(text, origin)
    if not isinstance(data, dict):
        kinds = {"list": "an array", "str": "a string", "int": "a number", "float": "a number",
                 "bool": "a boolean", "NoneType": "null"}  # fmt: skip
        kind = kinds.get(type(data).__name__, type(data).__name__)
        raise FileError(f"{origin}: expected a JSON object {{...}} at the top level, found {kind}.")
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
