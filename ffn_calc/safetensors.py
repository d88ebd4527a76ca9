"""Read safetensors headers (names, dtypes, shapes), never the tensor data.

A .safetensors file starts with an 8-byte little-endian header length N, then N bytes of JSON:
{name: {"dtype", "shape", "data_offsets"}, "__metadata__": {...}}. Only those N bytes are
read, and only after N is checked against the file's size.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path

from ffn_calc.errors import FileError

MAX_HEADER = 100 * 1024 * 1024  # the safetensors format's own limit on the header


@dataclass(frozen=True)
class Entry:
    name: str
    dtype: str
    shape: tuple[int, ...]
    nbytes: int
    file: str


def read_header(path: Path) -> list[Entry]:
    """The entries of one .safetensors file, from its header alone."""
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            head = fh.read(8)
            if len(head) < 8:
                raise FileError(
                    f"'{path}' is not a safetensors file: {size} bytes, too short for the 8-byte header length."
                )
            (n,) = struct.unpack("<Q", head)
            if n > size - 8:
                raise FileError(
                    f"'{path}' is not a valid safetensors file: its header length {n:,} is beyond the file's size ({size:,} bytes)."
                )
            if n > MAX_HEADER:
                raise FileError(
                    f"'{path}': header length {n:,} exceeds the format's limit of {MAX_HEADER:,} bytes."
                )
            raw = fh.read(n)
    except FileNotFoundError:
        raise FileError(f"checkpoint '{path}' does not exist.") from None
    except IsADirectoryError:
        raise FileError(f"'{path}' is a directory, not a safetensors file.") from None
    except OSError as exc:
        raise FileError(f"cannot read checkpoint '{path}': {exc.strerror or exc}.") from None
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FileError(f"'{path}': the safetensors header is not valid JSON ({exc}).") from None
    if not isinstance(header, dict):
        raise FileError(f"'{path}': the safetensors header is not a JSON object.")
    out = []
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            shape = tuple(int(x) for x in info["shape"])
            start, end = info["data_offsets"]
            out.append(Entry(name, str(info["dtype"]), shape, int(end) - int(start), path.name))
        except (KeyError, TypeError, ValueError):
            raise FileError(
                f"'{path}': header entry '{name}' lacks a dtype, shape or data_offsets."
            ) from None
    return out


def read_checkpoint(path: Path) -> list[Entry]:
    """A .safetensors file, or a directory with model.safetensors or a sharded index."""
    if not path.is_dir():
        if path.name.endswith(".index.json"):
            return _read_index(path)
        return read_header(path)
    single = path / "model.safetensors"
    if single.is_file():
        return read_header(single)
    index = path / "model.safetensors.index.json"
    if index.is_file():
        return _read_index(index)
    raise FileError(
        f"directory '{path}' holds neither model.safetensors nor model.safetensors.index.json."
    )


def _read_index(index: Path) -> list[Entry]:
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FileError(f"'{index}': cannot read the shard index ({exc}).") from None
    weight_map = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(weight_map, dict):
        raise FileError(f"'{index}': the shard index has no weight_map object.")
    out: list[Entry] = []
    for shard in sorted(set(map(str, weight_map.values()))):
        file = index.parent / shard
        if not file.is_file():
            raise FileError(f"'{index}': shard '{shard}' is missing from {index.parent}.")
        out += read_header(file)
    return out
