"""Read safetensors headers (names, dtypes, shapes), validated as the format defines them.

Sources: the "Format" section of the huggingface/safetensors README (the spec), its
docs/safetensors.schema.json (the schema), and the checks of the reference reader
(safetensors/src/tensor.rs: `read_metadata`, `Metadata::validate`, `Dtype::bitsize`). Where
the spec or the schema is explicit and the reference reader is more lenient, the spec wins;
where they are silent, the reader's checks apply.

A file is an 8-byte little-endian header length N, N bytes of header, then the data buffer.
This module reads one file; `ffn_calc.reference.checkpoints` reads a directory or a sharded index.

- The file must be a regular file (never a FIFO or a device: they could block or never end).
  Only the 8 + N header bytes are read; N must be at least 1, fit in the file, and be at most
  100,000,000 (the reference reader's MAX_HEADER_SIZE). The data buffer is never read.
- The header is UTF-8 JSON (the spec), an object that begins with `{` (the spec: "MUST begin
  with a `{`"; the reference reader does not check this yet); whitespace may follow it (the
  spec: "MAY be trailing padded"). Duplicate keys are an error (the spec: "Duplicate keys are
  disallowed"; the reference reader keeps the last of two tensors of one name). NaN, Infinity and unpaired surrogate escapes are not JSON and are refused
  (serde_json refuses them too).
- `__metadata__`, if present, is an object mapping strings to strings (the spec and the schema;
  the reference reader also takes `null`, the schema does not).
- Every other key names a tensor whose entry is an object with exactly `dtype`, `shape` and
  `data_offsets` (the schema: additionalProperties false; the reference reader ignores unknown
  keys). `dtype` is one of DTYPE_BITS (the reference reader's Dtype, with its bit sizes).
  `shape` is an array of integers in [0, 2**64 - 1]; `data_offsets` is an array of two such
  integers [begin, end], relative to the start of the data buffer, begin <= end <= its length.
  JSON booleans and floats (even 4.0) are not integers (serde_json's usize).
- The bytes of a tensor are bits x elements / 8, which must be whole (the reference reader:
  MisalignedSlice), and must equal end - begin (TensorInvalidInfo). A shape [] is a scalar of
  one element; a 0 in the shape makes an empty tensor.
- Sorted by (begin, end), the tensors cover the data buffer from 0 to its end, each beginning
  where the previous ends: no hole, no overlap, nothing after the last (the spec: "The byte
  buffer needs to be entirely indexed, and cannot contain holes"; the reference reader:
  InvalidOffset, MetadataIncompleteBuffer).

Every failure is a FileError naming the file and, where there is one, the tensor. Messages
never quote bytes of a file that is not a checkpoint: until the header has parsed as a JSON
object they give sizes and positions only, never the header length read from the file. Names from a header are shown escaped and cut short.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ffn_calc.errors import FileError
from ffn_calc.i18n.translate import N_, _

MAX_HEADER = 100_000_000  # the reference reader's MAX_HEADER_SIZE
MAX_INT = 2**64 - 1  # offsets and dimensions are usize in the reference reader
METADATA = "__metadata__"
ENTRY_KEYS = ("dtype", "shape", "data_offsets")

# Bits per element of every dtype the format defines (safetensors/src/tensor.rs, Dtype::bitsize).
DTYPE_BITS: dict[str, int] = {
    "BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8, "F8_E5M2": 8,
    "F8_E4M3": 8, "F8_E8M0": 8, "I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32,
    "U32": 32, "F32": 32, "C64": 64, "F64": 64, "I64": 64, "U64": 64,
}  # fmt: skip

NOT_REGULAR = N_(
    "'{path}' is not a regular file (a FIFO, device or socket); "
    "checkpoints are read from regular files only."
)


@dataclass(frozen=True)
class Entry:
    """One tensor of a checkpoint, from a validated header entry."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    nbytes: int
    file: str


class _Bad(Exception):
    """What is wrong with one tensor's entry; _entry adds the file and the tensor."""


@dataclass(frozen=True)
class _Span:
    name: str
    begin: int
    end: int


# --- small helpers for messages ----------------------------------------------------------------


def _show(text: str, limit: int = 120) -> str:
    """A name from a file, quoted with control characters escaped, cut short."""
    return repr(text[:limit]) + ("..." if len(text) > limit else "")


def _kind(value: Any) -> str:
    """What a JSON value is, in words, without quoting it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return _("a boolean")
    if isinstance(value, int):
        return _("a number")
    if isinstance(value, float):
        return _("a floating-point number")
    if isinstance(value, str):
        return _("a string")
    if isinstance(value, list):
        return _("an array")
    return _("an object")


def _json_kind(value: Any) -> str:
    """_kind for a whole document: "a JSON array", "JSON null"."""
    if value is None:
        return "JSON null"
    if isinstance(value, bool):
        return _("a JSON boolean")
    if isinstance(value, int):
        return _("a JSON number")
    if isinstance(value, float):
        return _("a JSON floating-point number")
    if isinstance(value, str):
        return _("a JSON string")
    if isinstance(value, list):
        return _("a JSON array")
    return _("a JSON object")


def _list(items: list[str]) -> str:
    """Names in a sentence: "dtype and shape" (ja/zh: a list with 、)."""
    out = items[0]
    for item in items[1:]:
        out = _("{first} and {second}").format(first=out, second=item)
    return out


def _shape_text(shape: tuple[int, ...], limit: int = 8) -> str:
    dims = ", ".join(str(d) for d in shape[:limit])
    return f"[{dims}{', ...' if len(shape) > limit else ''}]"


# --- JSON ----------------------------------------------------------------------------------------


class _JsonProblem(Exception):
    """Why text is not JSON, in words that quote none of it."""


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _checked_str(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _JsonProblem(_("a string holds an unpaired UTF-16 surrogate escape")) from None
    return text


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(_checked_str(key))
        out[_checked_str(key)] = _checked_str(value) if isinstance(value, str) else value
    return out


def _no_constant(name: str) -> Any:
    raise _JsonProblem(_("NaN and Infinity are not JSON numbers"))


def _load_json(text: str) -> Any:
    """Parse JSON strictly: a _JsonProblem or a _Duplicate for anything the spec refuses."""
    try:
        return json.loads(text, object_pairs_hook=_object, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise _JsonProblem(
            _("{problem} at line {line}, column {column}").format(
                problem=exc.msg, line=exc.lineno, column=exc.colno
            )
        ) from None
    except RecursionError:
        raise _JsonProblem(_("nested too deeply")) from None
    except ValueError:  # an integer of more digits than Python converts
        raise _JsonProblem(_("a number with thousands of digits")) from None


# --- the file ------------------------------------------------------------------------------------


def _stat_regular(path: Path, what: str, kind: str = N_("a safetensors file")) -> os.stat_result:
    """The stat of a regular file (symbolic links followed), else a FileError. `what` and
    `kind` are English nouns marked with N_ ("checkpoint", "a shard index file")."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise FileError(
            _("{what} '{path}' does not exist.").format(what=_(what), path=path)
        ) from None
    except ValueError:  # a NUL byte in the name
        raise FileError(
            _("{what} path {name} is not a valid file name.").format(
                what=_(what), name=_show(str(path))
            )
        ) from None
    except OSError as exc:
        raise _unreadable(path, what, exc) from None
    if stat.S_ISDIR(st.st_mode):
        raise FileError(_("'{path}' is a directory, not {kind}.").format(path=path, kind=_(kind)))
    if not stat.S_ISREG(st.st_mode):
        raise FileError(_(NOT_REGULAR).format(path=path))
    return st


def _unreadable(path: Path, what: str, exc: OSError) -> FileError:
    return FileError(
        _("cannot read {what} '{path}': {reason}.").format(
            what=_(what), path=path, reason=exc.strerror or exc
        )
    )


def _read_exact(fd: int, count: int) -> bytes:
    chunks, got = [], 0
    while got < count:
        chunk = os.read(fd, min(count - got, 1 << 24))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _check_length(path: Path, n: int, size: int) -> None:
    """N, the header length the first 8 bytes give; never shown, it may be text."""
    if n > size - 8:
        raise FileError(
            _(
                "'{path}' is not a safetensors file: its first 8 bytes give a header length "
                "beyond the file's size ({size} bytes)."
            ).format(path=path, size=f"{size:,}")
        )
    if n == 0:
        raise FileError(
            _("'{path}' is not a safetensors file: its header length is 0.").format(path=path)
        )
    if n > MAX_HEADER:
        raise FileError(
            _(
                "'{path}' is not a safetensors file: its header length is over the format's "
                "limit of {limit} bytes."
            ).format(path=path, limit=f"{MAX_HEADER:,}")
        )


def _read_raw_header(path: Path) -> tuple[bytes, int]:
    """The N header bytes and the length of the data buffer; nothing past the header is read."""
    _stat_regular(path, N_("checkpoint"))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _unreadable(path, "checkpoint", exc) from None
    try:
        st = os.fstat(fd)  # the file opened, in case the path changed since the stat
        if not stat.S_ISREG(st.st_mode):
            raise FileError(_(NOT_REGULAR).format(path=path))
        size = st.st_size
        if size < 8:
            message = (
                _(
                    "'{path}' is not a safetensors file: {size} byte, too short for the 8-byte "
                    "header length."
                )
                if size == 1
                else _(
                    "'{path}' is not a safetensors file: {size} bytes, too short for the 8-byte "
                    "header length."
                )
            )
            raise FileError(message.format(path=path, size=f"{size:,}"))
        n = int.from_bytes(_read_exact(fd, 8), "little")
        _check_length(path, n, size)
        raw = _read_exact(fd, n)
    except OSError as exc:
        raise _unreadable(path, "checkpoint", exc) from None
    finally:
        os.close(fd)
    if len(raw) < n:
        raise FileError(
            _("'{path}': the file ended inside its header (was it being written?).").format(
                path=path
            )
        )
    return raw, size - 8 - n


def _parse_header(path: Path, raw: bytes) -> dict[str, Any]:
    """The header as a JSON object, or a FileError that quotes none of it."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise FileError(
            _(
                "'{path}' is not a safetensors file: its header is not valid JSON (not UTF-8 text)."
            ).format(path=path)
        ) from None
    try:
        header = _load_json(text)
    except _JsonProblem as exc:
        raise FileError(
            _(
                "'{path}' is not a safetensors file: its header is not valid JSON ({problem})."
            ).format(path=path, problem=exc)
        ) from None
    except _Duplicate as dup:
        raise FileError(
            _(
                "'{path}': the header has the key {key} twice; the format disallows duplicate keys."
            ).format(path=path, key=_show(dup.key))
        ) from None
    if not isinstance(header, dict):
        raise FileError(
            _(
                "'{path}' is not a safetensors file: its header is {kind}, not a JSON object."
            ).format(path=path, kind=_json_kind(header))
        )
    if not text.startswith("{"):
        raise FileError(
            _(
                "'{path}': the safetensors header must begin with '{{' (the format requires "
                "it), not with whitespace."
            ).format(path=path)
        )
    return header


# --- entries -------------------------------------------------------------------------------------


def _integer(value: Any, what: str) -> int:
    """A JSON integer in [0, 2**64 - 1]; else the problem, for the caller to place."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Bad(
            _("{what} is {kind}, not a non-negative integer.").format(what=what, kind=_kind(value))
        )
    if value < 0:
        raise _Bad(
            _("{what} is {value}, not a non-negative integer.").format(what=what, value=value)
        )
    if value > MAX_INT:
        raise _Bad(
            _("{what} is {value}, beyond the format's 64-bit limit.").format(
                what=what, value=f"{value:,}"
            )
        )
    return value


def _check_keys(info: Any) -> None:
    if not isinstance(info, dict):
        raise _Bad(
            _("the entry is {kind}, not an object with dtype, shape and data_offsets.").format(
                kind=_kind(info)
            )
        )
    missing = [k for k in ENTRY_KEYS if k not in info]
    if missing:
        raise _Bad(_("the entry lacks {keys}.").format(keys=_list(missing)))
    unknown = sorted(k for k in info if k not in ENTRY_KEYS)
    if unknown:
        raise _Bad(
            _(
                "the entry has the unknown key {key}; an entry holds only dtype, "
                "shape and data_offsets."
            ).format(key=_show(unknown[0]))
        )


def _dtype(value: Any) -> str:
    if not isinstance(value, str):
        raise _Bad(_("dtype is {kind}, not a string.").format(kind=_kind(value)))
    if value not in DTYPE_BITS:
        raise _Bad(
            _("dtype {dtype} is not a safetensors dtype ({dtypes}).").format(
                dtype=_show(value, 20), dtypes=", ".join(DTYPE_BITS)
            )
        )
    return value


def _shape(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise _Bad(_("shape is {kind}, not an array of dimensions.").format(kind=_kind(value)))
    return tuple(_integer(d, f"shape[{i}]") for i, d in enumerate(value))


def _offsets(value: Any, buffer: int) -> tuple[int, int]:
    if not isinstance(value, list):
        raise _Bad(
            _("data_offsets must be an array of two integers [begin, end]; it is {kind}.").format(
                kind=_kind(value)
            )
        )
    if len(value) != 2:
        one = len(value) == 1
        raise _Bad(
            (
                _(
                    "data_offsets must be an array of two integers [begin, end]; it has {count} item."
                )
                if one
                else _(
                    "data_offsets must be an array of two integers [begin, end]; it has {count} "
                    "items."
                )
            ).format(count=len(value))
        )
    begin, end = (_integer(v, f"data_offsets[{i}]") for i, v in enumerate(value))
    if end < begin:
        raise _Bad(
            _("data_offsets [{begin}, {end}] end before they begin.").format(begin=begin, end=end)
        )
    if end > buffer:
        message = (
            _("data_offsets [{begin}, {end}] reach past the end of the data buffer ({size} byte).")
            if buffer == 1
            else _(
                "data_offsets [{begin}, {end}] reach past the end of the data buffer "
                "({size} bytes)."
            )
        )
        raise _Bad(message.format(begin=begin, end=end, size=f"{buffer:,}"))
    return begin, end


def _nbytes(dtype: str, shape: tuple[int, ...]) -> int:
    """The bytes dtype x shape takes. The product stops once past what the format can address
    (the reference reader's ValidationOverflow), so a hostile shape costs no big arithmetic."""
    what = f"{dtype} x {_shape_text(shape)}"
    bits, elements = DTYPE_BITS[dtype], 0 if 0 in shape else 1
    if elements:
        for d in shape:
            elements *= d
            if elements * bits > 8 * MAX_INT:
                raise _Bad(
                    _(
                        "{what} needs more than {limit} bytes, more than the format can address."
                    ).format(what=what, limit=f"{MAX_INT:,}")
                )
    total = elements * bits
    if total % 8:
        raise _Bad(
            _("{what} is {bits} bits, not a whole number of bytes.").format(
                what=what, bits=f"{total:,}"
            )
        )
    return total // 8


def _entry(path: Path, name: str, info: Any, buffer: int) -> tuple[Entry, _Span]:
    """One tensor's entry, validated; a FileError naming the file and the tensor."""
    try:
        _check_keys(info)
        dtype = _dtype(info["dtype"])
        shape = _shape(info["shape"])
        begin, end = _offsets(info["data_offsets"], buffer)
        nbytes = _nbytes(dtype, shape)
        if nbytes != end - begin:
            held = (
                _("data_offsets [{begin}, {end}] hold {held} byte, but {what} needs {needed}.")
                if end - begin == 1
                else _(
                    "data_offsets [{begin}, {end}] hold {held} bytes, but {what} needs {needed}."
                )
            )
            raise _Bad(
                held.format(
                    begin=begin, end=end, held=f"{end - begin:,}",
                    what=f"{dtype} x {_shape_text(shape)}", needed=f"{nbytes:,}",
                )
            )  # fmt: skip
    except _Bad as exc:
        raise FileError(
            _("'{path}': tensor {name}: {problem}").format(path=path, name=_show(name), problem=exc)
        ) from None
    return Entry(name, dtype, shape, nbytes, path.name), _Span(name, begin, end)


def _check_metadata(path: Path, value: Any) -> None:
    if not isinstance(value, dict):
        raise FileError(
            _(
                "'{path}': __metadata__ must be an object mapping strings to strings; it is {kind}."
            ).format(path=path, kind=_kind(value))
        )
    for key, item in value.items():
        if not isinstance(item, str):
            raise FileError(
                _(
                    "'{path}': __metadata__ must be an object mapping strings to strings; its "
                    "value for {key} is {kind}."
                ).format(path=path, key=_show(key), kind=_kind(item))
            )


def _check_layout(path: Path, spans: list[_Span], buffer: int) -> None:
    """The tensors, sorted by offsets, cover the data buffer exactly: no hole, no overlap."""
    cursor, last = 0, None
    for span in sorted(spans, key=lambda s: (s.begin, s.end)):
        if span.begin > cursor:
            raise FileError(
                _(
                    "'{path}': bytes {start} to {end} of the data buffer belong to no tensor "
                    "(the next is tensor {name}); the format requires the tensors to cover the "
                    "buffer without holes."
                ).format(
                    path=path, start=f"{cursor:,}", end=f"{span.begin:,}", name=_show(span.name)
                )
            )
        if span.begin < cursor and last is not None:
            raise FileError(
                _(
                    "'{path}': tensor {name} (data_offsets [{begin}, {end}]) overlaps tensor "
                    "{other} (data_offsets [{other_begin}, {other_end}])."
                ).format(
                    path=path, name=_show(span.name), begin=span.begin, end=span.end,
                    other=_show(last.name), other_begin=last.begin, other_end=last.end,
                )
            )  # fmt: skip
        cursor, last = span.end, span
    if cursor != buffer:
        message = (
            _(
                "'{path}': the last byte of the {size}-byte data buffer belongs to no tensor; "
                "the format requires the tensors to cover the buffer to its end."
            )
            if buffer - cursor == 1
            else _(
                "'{path}': the last {count} bytes of the {size}-byte data buffer belong to no "
                "tensor; the format requires the tensors to cover the buffer to its end."
            )
        )
        raise FileError(message.format(path=path, count=f"{buffer - cursor:,}", size=f"{buffer:,}"))


def read_header(path: Path) -> list[Entry]:
    """The entries of one .safetensors file, from its header alone, validated (module doc)."""
    raw, buffer = _read_raw_header(path)
    header = _parse_header(path, raw)
    entries, spans = [], []
    for name, info in header.items():
        if name == METADATA:
            _check_metadata(path, info)
            continue
        entry, span = _entry(path, name, info, buffer)
        entries.append(entry)
        spans.append(span)
    _check_layout(path, spans, buffer)
    return entries
