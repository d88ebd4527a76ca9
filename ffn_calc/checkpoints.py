"""Read a checkpoint's tensor entries: one .safetensors file, or the shards of an index.

A sharded checkpoint is a model.safetensors.index.json: a JSON object whose `weight_map` maps
each tensor name to the shard file holding it (its other keys, such as `metadata`, are not
used). Shard names must be plain file names in the index's directory (no path separators, `.`,
`..`, drive letters or NUL); every shard must be a regular file and a valid safetensors file
(symbolic links are followed: the Hugging Face cache links shards to blobs elsewhere). The
index and the shards must agree exactly: a tensor the index puts in a shard that does not hold
it, and a tensor a shard holds that the index does not list in that shard, are both errors,
since either way the count would depend on which one is believed.

Each file is read and validated by `ffn_calc.safetensors`; the index is parsed as strictly as
a header (no duplicate keys, no NaN), and every failure is a FileError naming the file.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath

from ffn_calc.errors import FileError
from ffn_calc.safetensors import (
    Entry,
    _Duplicate,
    _json_kind,
    _JsonProblem,
    _kind,
    _load_json,
    _show,
    _stat_regular,
    read_header,
)


def read_checkpoint(path: Path) -> list[Entry]:
    """A .safetensors file, or a directory with model.safetensors or a sharded index."""
    if not path.is_dir():
        if path.name.endswith(".index.json"):
            return _read_index(path)
        return read_header(path)
    single = path / "model.safetensors"
    if single.exists() or single.is_symlink():
        return read_header(single)
    index = path / "model.safetensors.index.json"
    if index.exists() or index.is_symlink():
        return _read_index(index)
    raise FileError(
        f"directory '{path}' holds neither model.safetensors nor model.safetensors.index.json."
    )


def _plain_file_name(name: str) -> bool:
    """A name that can only mean a file in the index's own directory, on any system."""
    return (
        name not in ("", ".", "..")
        and "\x00" not in name
        and PurePosixPath(name).name == name
        and PureWindowsPath(name).name == name
    )


def _weight_map(index: Path) -> dict[str, str]:
    """The index's weight_map, every value a plain shard file name."""
    from ffn_calc.presets import read_text_file

    _stat_regular(index, "shard index", "a shard index file")
    try:
        data = _load_json(read_text_file(index, "shard index"))
    except _JsonProblem as exc:
        raise FileError(f"'{index}': the shard index is not valid JSON ({exc}).") from None
    except _Duplicate as dup:
        raise FileError(f"'{index}': the shard index has the key {_show(dup.key)} twice.") from None
    if not isinstance(data, dict):
        raise FileError(
            f"'{index}': the shard index is {_json_kind(data)}, not an object with a weight_map."
        )
    weight_map = data.get("weight_map")
    if not isinstance(weight_map, dict):
        raise FileError(f"'{index}': the shard index has no weight_map object.")
    for name, shard in weight_map.items():
        if not isinstance(shard, str):
            raise FileError(
                f"'{index}': weight_map maps tensor {_show(name)} to {_kind(shard)}, "
                "not a shard file name."
            )
        if not _plain_file_name(shard):
            raise FileError(
                f"'{index}': weight_map maps tensor {_show(name)} to {_show(shard)}, which is not "
                "a file name in the index's directory (no path separators, '..' or absolute paths)."
            )
    return weight_map


def _read_index(index: Path) -> list[Entry]:
    """Every shard's entries; the index and the shards must agree (module doc)."""
    listed: dict[str, set[str]] = {}
    for name, shard in _weight_map(index).items():
        listed.setdefault(shard, set()).add(name)
    out: list[Entry] = []
    for shard in sorted(listed):
        file = index.parent / shard
        if not (file.exists() or file.is_symlink()):
            raise FileError(f"'{index}': shard {_show(shard)} is missing from {index.parent}.")
        entries = read_header(file)
        _check_agreement(index, shard, listed[shard], {e.name for e in entries})
        out += entries
    return out


def _check_agreement(index: Path, shard: str, listed: set[str], held: set[str]) -> None:
    """The tensors the index lists in a shard are exactly the ones the shard holds."""
    if absent := sorted(listed - held):
        raise FileError(
            f"'{index}': weight_map puts tensor {_show(absent[0])} in shard {_show(shard)}, "
            f"but that shard does not hold it{_more(absent)}."
        )
    if unlisted := sorted(held - listed):
        raise FileError(
            f"'{index}': shard {_show(shard)} holds tensor {_show(unlisted[0])}, which weight_map "
            f"does not list in that shard{_more(unlisted)}."
        )


def _more(names: list[str]) -> str:
    return f" ({len(names) - 1:,} more like it)" if len(names) > 1 else ""
