"""Read a checkpoint's tensor entries: one .safetensors file, or the shards of an index.

A sharded checkpoint is a model.safetensors.index.json: a JSON object whose `weight_map` maps
each tensor name to the shard file holding it (its other keys, such as `metadata`, are not
used). Shard names must be plain file names in the index's directory (no path separators, `.`,
`..`, drive letters or NUL); every shard must be a regular file and a valid safetensors file
(symbolic links are followed: the Hugging Face cache links shards to blobs elsewhere). The
index and the shards must agree exactly: a tensor the index puts in a shard that does not hold
it, and a tensor a shard holds that the index does not list in that shard, are both errors,
since either way the count would depend on which one is believed.

Each file is read and validated by `ffn_calc.reference.safetensors`; the index is parsed as strictly as
a header (no duplicate keys, no NaN), and every failure is a FileError naming the file.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath

from ffn_calc.errors import FileError
from ffn_calc.files import is_dir
from ffn_calc.i18n.translate import N_, _
from ffn_calc.reference.safetensors import (
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
    if not is_dir(path):  # False for a name the system refuses: reading it says why
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
        _(
            "directory '{path}' holds neither model.safetensors nor model.safetensors.index.json."
        ).format(path=path)
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
    from ffn_calc.model.sources import read_text_file

    _stat_regular(index, N_("shard index"), N_("a shard index file"))
    try:
        data = _load_json(read_text_file(index, "shard index"))
    except _JsonProblem as exc:
        raise FileError(
            _("'{index}': the shard index is not valid JSON ({problem}).").format(
                index=index, problem=exc
            )
        ) from None
    except _Duplicate as dup:
        raise FileError(
            _("'{index}': the shard index has the key {key} twice.").format(
                index=index, key=_show(dup.key)
            )
        ) from None
    if not isinstance(data, dict):
        raise FileError(
            _("'{index}': the shard index is {kind}, not an object with a weight_map.").format(
                index=index, kind=_json_kind(data)
            )
        )
    weight_map = data.get("weight_map")
    if not isinstance(weight_map, dict):
        raise FileError(
            _("'{index}': the shard index has no weight_map object.").format(index=index)
        )
    for name, shard in weight_map.items():
        if not isinstance(shard, str):
            raise FileError(
                _(
                    "'{index}': weight_map maps tensor {name} to {kind}, not a shard file name."
                ).format(index=index, name=_show(name), kind=_kind(shard))
            )
        if not _plain_file_name(shard):
            raise FileError(
                _(
                    "'{index}': weight_map maps tensor {name} to {shard}, which is not a file "
                    "name in the index's directory (no path separators, '..' or absolute paths)."
                ).format(index=index, name=_show(name), shard=_show(shard))
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
            raise FileError(
                _("'{index}': shard {shard} is missing from {directory}.").format(
                    index=index, shard=_show(shard), directory=index.parent
                )
            )
        entries = read_header(file)
        _check_agreement(index, shard, listed[shard], {e.name for e in entries})
        out += entries
    return out


def _check_agreement(index: Path, shard: str, listed: set[str], held: set[str]) -> None:
    """The tensors the index lists in a shard are exactly the ones the shard holds."""
    if absent := sorted(listed - held):
        message = (
            _(
                "'{index}': weight_map puts tensor {name} in shard {shard}, but that shard does "
                "not hold it ({more} more like it)."
            )
            if len(absent) > 1
            else _(
                "'{index}': weight_map puts tensor {name} in shard {shard}, but that shard does "
                "not hold it."
            )
        )
        raise FileError(
            message.format(
                index=index, name=_show(absent[0]), shard=_show(shard), more=_more(absent)
            )
        )
    if unlisted := sorted(held - listed):
        message = (
            _(
                "'{index}': shard {shard} holds tensor {name}, which weight_map does not list "
                "in that shard ({more} more like it)."
            )
            if len(unlisted) > 1
            else _(
                "'{index}': shard {shard} holds tensor {name}, which weight_map does not list "
                "in that shard."
            )
        )
        raise FileError(
            message.format(
                index=index, shard=_show(shard), name=_show(unlisted[0]), more=_more(unlisted)
            )
        )


def _more(names: list[str]) -> str:
    """How many more names are like the first, for a message that gives the first."""
    return f"{len(names) - 1:,}"
