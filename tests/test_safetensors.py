"""safetensors headers and shard indexes, validated as the format defines them.

Sources: the format section of huggingface/safetensors' README (layout, "MUST begin with {",
trailing spaces, duplicate keys disallowed, no holes), its docs/safetensors.schema.json (an entry
holds exactly dtype, shape and data_offsets; __metadata__ maps strings to strings), and the
reference reader's checks (safetensors/src/tensor.rs: offsets contiguous from 0 to the end of the
buffer, bytes = bits x elements / 8 with no partial byte, the dtype table).
"""

from __future__ import annotations

import json
import os
import re
import stat
import struct
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from ffn_calc.errors import FileError
from ffn_calc.reference.checkpoints import read_checkpoint
from ffn_calc.reference.safetensors import DTYPE_BITS, MAX_HEADER, read_header

CKPT = DATA / "checkpoints"
GPT2_CONFIG = str(CKPT / "tiny-gpt2.config.json")
SECRET = "s3cr3t-DO-NOT-ECHO"


def real_header(name: str) -> dict[str, Any]:
    # The header save_pretrained wrote for a tiny real checkpoint (tests/data/README.md).
    data: dict[str, Any] = json.loads((CKPT / f"{name}.safetensors-header.json").read_text())
    return data


def data_len(header: dict[str, Any]) -> int:
    ends = [v["data_offsets"][1] for k, v in header.items() if k != "__metadata__"]
    return max(ends, default=0)


def write_st(path: Path, header: dict[str, Any] | str | bytes, data: int | None = None) -> Path:
    """The 8-byte length, the header (a dict is dumped as JSON), then `data` zero bytes (by
    default, as many as the header's largest end offset)."""
    if isinstance(header, dict):
        raw = json.dumps(header).encode()
        data = data_len(header) if data is None else data
    else:
        raw = header.encode() if isinstance(header, str) else header
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + bytes(data or 0))
    return path


def one(
    dtype: str = "U8", shape: Any = (4,), offsets: Any = (0, 4), **extra: Any
) -> dict[str, Any]:
    """A header with the single tensor 't'."""
    shape, offsets = (list(v) if isinstance(v, tuple) else v for v in (shape, offsets))
    return {"t": {"dtype": dtype, "shape": shape, "data_offsets": offsets, **extra}}


def refused(path: Path) -> str:
    """read_header's FileError message, which names the file."""
    with pytest.raises(FileError) as exc:
        read_header(path)
    message = str(exc.value)
    assert str(path) in message
    return message


def cli_refuses(cli: Any, path: Path) -> str:
    """`verify --checkpoint path` exits 2, with nothing on stdout and the file named on stderr."""
    r = cli("verify", "--hf-config", GPT2_CONFIG, "--checkpoint", str(path))
    assert r.exit_code == 2, r.stdout
    assert r.stdout == "" and "Traceback" not in r.stderr
    assert str(path) in r.stderr
    return str(r.stderr)


# --- valid files ---------------------------------------------------------------------------------


def test_real_headers_read(tmp_path: Path) -> None:
    for name in ("tiny-gpt2", "tiny-llama-gqa"):
        header = real_header(name)
        entries = read_header(write_st(tmp_path / f"{name}.safetensors", header))
        assert {e.name for e in entries} == set(header) - {"__metadata__"}
        assert sum(e.nbytes for e in entries) == data_len(header)
        assert all(e.file == f"{name}.safetensors" for e in entries)


def test_header_padded_with_spaces_like_the_reference_writer(tmp_path: Path) -> None:
    # The reference writer pads the header with spaces to a multiple of 8 bytes; JSON whitespace
    # after the object is allowed.
    raw = json.dumps(one())
    for pad in (" " * (8 - len(raw) % 8), " \n\t\r "):
        assert read_header(write_st(tmp_path / "p.safetensors", raw + pad, 4))[0].nbytes == 4


@pytest.mark.parametrize(
    ("dtype", "shape", "nbytes"),
    [
        ("BOOL", [3], 3),
        ("F4", [2, 3], 3),  # 6 x 4 bits
        ("F6_E2M3", [4], 3),  # 4 x 6 bits
        ("F6_E3M2", [8], 6),
        ("F8_E5M2", [5], 5),
        ("F8_E4M3", [5], 5),
        ("F8_E8M0", [5], 5),
        ("BF16", [4, 4], 32),
        ("C64", [2], 16),
        ("F64", [], 8),  # a scalar: shape [] holds one element
        ("F32", [0, 7], 0),  # an empty tensor
    ],
)
def test_dtype_sizes(tmp_path: Path, dtype: str, shape: list[int], nbytes: int) -> None:
    (entry,) = read_header(write_st(tmp_path / "d.safetensors", one(dtype, shape, (0, nbytes))))
    assert (entry.dtype, entry.shape, entry.nbytes) == (dtype, tuple(shape), nbytes)


def test_dtype_table_is_the_formats() -> None:
    # safetensors/src/tensor.rs, Dtype::bitsize.
    assert DTYPE_BITS == {
        "BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8, "F8_E5M2": 8,
        "F8_E4M3": 8, "F8_E8M0": 8, "I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32,
        "U32": 32, "F32": 32, "C64": 64, "F64": 64, "I64": 64, "U64": 64,
    }  # fmt: skip


def test_edge_layouts_that_are_valid(tmp_path: Path) -> None:
    # No tensors and no data; tensors listed in any order; empty tensors at the buffer's end;
    # metadata; an empty tensor name (the reference reader accepts it).
    assert read_header(write_st(tmp_path / "e.safetensors", "{}")) == []
    header = {
        "__metadata__": {"format": "pt"},
        "b": {"dtype": "F16", "shape": [2], "data_offsets": [4, 8]},
        "a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
        "z": {"dtype": "I64", "shape": [0], "data_offsets": [8, 8]},
        "": {"dtype": "U8", "shape": [0], "data_offsets": [8, 8]},
    }
    entries = read_header(write_st(tmp_path / "o.safetensors", header))
    assert [(e.name, e.nbytes) for e in entries] == [("b", 4), ("a", 4), ("z", 0), ("", 0)]


def test_mixed_dtypes_byte_totals_via_cli(cli: Any, tmp_path: Path) -> None:
    header = real_header("tiny-gpt2")
    end = data_len(header)
    header["h.0.attn.bias"] = {
        "dtype": "BOOL",
        "shape": [1, 1, 8, 8],
        "data_offsets": [end, end + 64],
    }
    header["h.0.attn.masked_bias"] = {"dtype": "BF16", "shape": [], "data_offsets": [end + 64, end + 66]}  # fmt: skip
    f = write_st(tmp_path / "m.safetensors", header)
    r = cli("verify", "--hf-config", GPT2_CONFIG, "--checkpoint", str(f), "-f", "json")
    assert r.exit_code == 0, r.stdout
    assert r.json()["checkpoint"]["bytes_by_dtype"] == {"BF16": 2, "BOOL": 64, "F32": end}


def test_never_reads_the_data_buffer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A tensor of 1 GiB (a sparse file): only 8 + N bytes are read.
    gib = 1 << 30
    f = write_st(tmp_path / "big.safetensors", one("U8", [gib], (0, gib)), 0)
    with f.open("r+b") as fh:
        fh.truncate(f.stat().st_size + gib)
    real_read, asked = os.read, []

    def counting_read(fd: int, n: int) -> bytes:
        asked.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", counting_read)
    assert read_header(f)[0].nbytes == gib
    assert sum(asked) <= f.stat().st_size - gib


# --- data_offsets ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("offsets", "problem"),
    [
        ([-1, 3], r"data_offsets\[0\] is -1, not a non-negative integer"),
        ([True, 4], r"data_offsets\[0\] is a boolean, not a non-negative integer"),
        ([0, 4.0], r"data_offsets\[1\] is a floating-point number, not a non-negative integer"),
        (["0", "4"], r"data_offsets\[0\] is a string, not a non-negative integer"),
        ([0, None], r"data_offsets\[1\] is null, not a non-negative integer"),
        ([0, 2**64], r"data_offsets\[1\] is 18,446,744,073,709,551,616, beyond the format's 64-bit limit"),
        ([0], r"data_offsets must be an array of two integers \[begin, end\]; it has 1 item\b"),
        ([0, 4, 4], r"data_offsets must be an array of two integers \[begin, end\]; it has 3 items"),
        ({"begin": 0}, r"data_offsets must be an array of two integers \[begin, end\]; it is an object"),
        ([4, 0], r"data_offsets \[4, 0\] end before they begin"),
        ([0, 8], r"data_offsets \[0, 8\] reach past the end of the data buffer \(4 bytes\)"),
    ],
)  # fmt: skip
def test_bad_offsets(tmp_path: Path, offsets: Any, problem: str) -> None:
    f = write_st(tmp_path / "o.safetensors", one("U8", [4], offsets), 4)
    message = refused(f)
    assert re.search(f"^'{re.escape(str(f))}': tensor 't': {problem}", message), message


def test_size_must_match_dtype_and_shape(cli: Any, tmp_path: Path) -> None:
    f = write_st(
        tmp_path / "x.safetensors",
        {"model.embed_tokens.weight": {"dtype": "BF16", "shape": [4, 4], "data_offsets": [0, 10]}},
    )
    expected = (
        f"'{f}': tensor 'model.embed_tokens.weight': data_offsets [0, 10] hold 10 bytes, "
        "but BF16 x [4, 4] needs 32."
    )
    assert refused(f) == expected
    assert expected in " ".join(cli_refuses(cli, f).split())


def test_sub_byte_sizes_must_be_whole_bytes(tmp_path: Path) -> None:
    # The reference reader refuses a tensor whose bits do not fill whole bytes (MisalignedSlice).
    f = write_st(tmp_path / "f4.safetensors", one("F4", [3], (0, 2)))
    assert "F4 x [3] is 12 bits, not a whole number of bytes" in refused(f)


def test_huge_shape_is_refused_without_big_arithmetic(tmp_path: Path) -> None:
    f = write_st(tmp_path / "h.safetensors", one("F64", [2**63] * 20_000, (0, 4)))
    message = refused(f)
    assert (
        "needs more than 18,446,744,073,709,551,615 bytes, more than the format can address"
        in message
    )
    assert len(message) < 400


# --- the layout of the data buffer -------------------------------------------------------------


def two(a: tuple[int, int], b: tuple[int, int]) -> dict[str, Any]:
    return {
        "a": {"dtype": "U8", "shape": [a[1] - a[0]], "data_offsets": list(a)},
        "b": {"dtype": "U8", "shape": [b[1] - b[0]], "data_offsets": list(b)},
    }


def test_hole_before_the_first_tensor(tmp_path: Path) -> None:
    f = write_st(tmp_path / "h.safetensors", one("U8", [4], (4, 8)))
    assert (
        "bytes 0 to 4 of the data buffer belong to no tensor (the next is tensor 't')" in refused(f)
    )


def test_hole_between_tensors(cli: Any, tmp_path: Path) -> None:
    f = write_st(tmp_path / "h.safetensors", two((0, 4), (8, 12)))
    assert (
        "bytes 4 to 8 of the data buffer belong to no tensor (the next is tensor 'b')" in refused(f)
    )
    assert "tensor 'b'" in cli_refuses(cli, f)


def test_overlapping_tensors(tmp_path: Path) -> None:
    f = write_st(tmp_path / "o.safetensors", two((0, 8), (4, 12)))
    assert "tensor 'b' (data_offsets [4, 12]) overlaps tensor 'a' (data_offsets [0, 8])" in refused(
        f
    )
    # An empty tensor inside another's bytes is refused too (the reference reader does).
    header = {**one("U8", [4], (0, 4)), "z": {"dtype": "U8", "shape": [0], "data_offsets": [2, 2]}}
    assert "tensor 'z' (data_offsets [2, 2]) overlaps tensor 't'" in refused(write_st(tmp_path / "z.safetensors", header))  # fmt: skip


def test_same_bytes_for_two_tensors(tmp_path: Path) -> None:
    f = write_st(tmp_path / "s.safetensors", two((0, 4), (0, 4)))
    assert "overlaps tensor" in refused(f)


def test_bytes_after_the_last_tensor(tmp_path: Path) -> None:
    f = write_st(tmp_path / "t.safetensors", one(), 12)
    assert "the last 8 bytes of the 12-byte data buffer belong to no tensor" in refused(f)
    f = write_st(tmp_path / "e.safetensors", "{}", 4)
    assert "the last 4 bytes of the 4-byte data buffer belong to no tensor" in refused(f)


# --- entries -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("info", "problem"),
    [
        ([1, 2], "the entry is an array, not an object with dtype, shape and data_offsets"),
        ("F32", "the entry is a string, not an object with dtype, shape and data_offsets"),
        ({"dtype": "U8", "shape": [4]}, "the entry lacks data_offsets"),
        ({"data_offsets": [0, 4]}, "the entry lacks dtype and shape"),
        ({"dtype": "U8", "shape": [4], "data_offsets": [0, 4], "offsets": [0, 4]},
         "the entry has the unknown key 'offsets'; an entry holds only dtype, shape and data_offsets"),
        ({"dtype": 8, "shape": [4], "data_offsets": [0, 4]}, "dtype is a number, not a string"),
        ({"dtype": "u8", "shape": [4], "data_offsets": [0, 4]}, "dtype 'u8' is not a safetensors dtype"),
        ({"dtype": "F17", "shape": [4], "data_offsets": [0, 4]}, "dtype 'F17' is not a safetensors dtype"),
        ({"dtype": "U8", "shape": 4, "data_offsets": [0, 4]}, "shape is a number, not an array of dimensions"),
        ({"dtype": "U8", "shape": "4", "data_offsets": [0, 4]}, "shape is a string, not an array of dimensions"),
        ({"dtype": "U8", "shape": [2, -2], "data_offsets": [0, 4]}, "shape[1] is -2, not a non-negative integer"),
        ({"dtype": "U8", "shape": [True], "data_offsets": [0, 4]}, "shape[0] is a boolean, not a non-negative integer"),
        ({"dtype": "U8", "shape": [4.0], "data_offsets": [0, 4]}, "shape[0] is a floating-point number, not a non-negative integer"),
        ({"dtype": "U8", "shape": ["4"], "data_offsets": [0, 4]}, "shape[0] is a string, not a non-negative integer"),
        ({"dtype": "U8", "shape": [None], "data_offsets": [0, 4]}, "shape[0] is null, not a non-negative integer"),
        ({"dtype": "U8", "shape": [0, 2**64], "data_offsets": [0, 4]}, "shape[1] is 18,446,744,073,709,551,616, beyond the format's 64-bit limit"),
    ],
)  # fmt: skip
def test_bad_entries(cli: Any, tmp_path: Path, info: Any, problem: str) -> None:
    f = write_st(tmp_path / "e.safetensors", {"model.wte.weight": info}, 4)
    message = refused(f)
    assert f"'{f}': tensor 'model.wte.weight': {problem}" in message, message
    assert "tensor 'model.wte.weight'" in cli_refuses(cli, f)


def test_duplicate_tensor_name(cli: Any, tmp_path: Path) -> None:
    entry = json.dumps({"dtype": "U8", "shape": [4], "data_offsets": [0, 4]})
    f = write_st(tmp_path / "d.safetensors", f'{{"w": {entry}, "w": {entry}}}', 4)
    assert "the header has the key 'w' twice; the format disallows duplicate keys" in refused(f)
    assert "'w' twice" in cli_refuses(cli, f)
    f = write_st(tmp_path / "k.safetensors", '{"w": {"dtype": "U8", "dtype": "U8", "shape": [4], "data_offsets": [0, 4]}}', 4)  # fmt: skip
    assert "the key 'dtype' twice" in refused(f)


def test_names_in_messages_are_quoted_safely(tmp_path: Path) -> None:
    # A name holding a terminal escape or a million characters is shown escaped and cut short.
    f = write_st(tmp_path / "n.safetensors", {"\x1b[2J" + "x" * 1_000_000: {"dtype": "U8"}}, 0)
    message = refused(f)
    assert "\x1b" not in message and "\\x1b[2J" in message and len(message) < 600


# --- __metadata__ ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metadata", "problem"),
    [
        (None, "it is null"),
        (["pt"], "it is an array"),
        ({"format": 1}, "its value for 'format' is a number"),
        ({"format": {"x": "y"}}, "its value for 'format' is an object"),
    ],
)
def test_metadata_maps_strings_to_strings(tmp_path: Path, metadata: Any, problem: str) -> None:
    f = write_st(tmp_path / "m.safetensors", {"__metadata__": metadata, **one()})
    message = refused(f)
    assert "__metadata__ must be an object mapping strings to strings" in message
    assert problem in message


# --- the header as a whole; files that are not checkpoints --------------------------------------


def test_header_must_begin_with_a_brace(tmp_path: Path) -> None:
    f = write_st(tmp_path / "b.safetensors", " " + json.dumps(one()), 4)
    assert "the safetensors header must begin with '{'" in refused(f)


@pytest.mark.parametrize(
    ("header", "problem"),
    [
        (b"\xff\xfe{}", "its header is not valid JSON (not UTF-8 text)"),
        (b"{\"t\": 1,}", "its header is not valid JSON (Expecting property name enclosed in double quotes at line 1, column 9)"),
        (b'{"a": NaN}', "its header is not valid JSON (NaN and Infinity are not JSON numbers)"),
        (b'{"a\\ud800": 1}', "its header is not valid JSON (a string holds an unpaired UTF-16 surrogate escape)"),
        (b"{\"a\": " + b"[" * 100_000 + b"]" * 100_000 + b"}", "its header is not valid JSON (nested too deeply)"),
        (b'{"a": ' + b"1" * 5000 + b"}", "its header is not valid JSON (a number with thousands of digits)"),
        (b"[]", "its header is a JSON array, not a JSON object"),
        (b'"' + SECRET.encode() + b'"', "its header is a JSON string, not a JSON object"),
        (b"\xef\xbb\xbf{}", "its header is not valid JSON (Unexpected UTF-8 BOM"),
    ],
)  # fmt: skip
def test_header_not_json_object(tmp_path: Path, header: bytes, problem: str) -> None:
    message = refused(write_st(tmp_path / "j.safetensors", header))
    assert "is not a safetensors file: " in message and problem in message, message
    assert SECRET not in message


def test_not_json_does_not_echo_content(cli: Any, tmp_path: Path) -> None:
    f = write_st(tmp_path / "secret.safetensors", f"oops {SECRET} oops")
    message = cli_refuses(cli, f)
    assert "is not a safetensors file: its header is not valid JSON" in message
    assert SECRET not in message and "oops" not in message


@pytest.mark.parametrize(
    "content",
    [
        f"password = {SECRET}\n".encode(),  # a text file
        b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + SECRET.encode(),  # a JPEG
        f'{{"api_key": "{SECRET}"}}'.encode(),  # a JSON file
    ],
)
def test_files_that_are_not_checkpoints(cli: Any, tmp_path: Path, content: bytes) -> None:
    f = tmp_path / "notes.safetensors"
    f.write_bytes(content)
    message = cli_refuses(cli, f)
    assert f"is not a safetensors file: its first 8 bytes give a header length beyond the file's size ({len(content):,} bytes)" in message  # fmt: skip
    assert SECRET not in message
    # No number read from the content is shown either (it spells the content's first 8 bytes).
    (n,) = struct.unpack("<Q", content[:8])
    assert f"{n:,}" not in message and str(n) not in message


def test_header_length_zero_or_over_the_limit(tmp_path: Path) -> None:
    f = tmp_path / "zero.safetensors"
    f.write_bytes(bytes(64))
    assert "is not a safetensors file: its header length is 0" in refused(f)
    assert MAX_HEADER == 100_000_000  # the reference reader's MAX_HEADER_SIZE
    f = tmp_path / "over.safetensors"
    with f.open("wb") as fh:
        fh.write(struct.pack("<Q", MAX_HEADER + 1) + b"{")
        fh.truncate(MAX_HEADER + 100)  # sparse: nothing past the length is read
    assert "its header length is over the format's limit of 100,000,000 bytes" in refused(f)


def test_truncated_files(tmp_path: Path) -> None:
    f = tmp_path / "short.safetensors"
    f.write_bytes(b"\x01\x02")
    assert "2 bytes, too short for the 8-byte header length" in refused(f)
    f.write_bytes(b"")
    assert "0 bytes, too short" in refused(f)


# --- what a checkpoint path may be -------------------------------------------------------------


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.safetensors"
    os.mkfifo(fifo)
    outcome: list[str] = []

    def attempt() -> None:
        try:
            read_checkpoint(fifo)
            outcome.append("read")
        except FileError as exc:
            outcome.append(str(exc))

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=10)
    if worker.is_alive():  # blocked in open(): release it, then fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a FIFO blocked")
    assert outcome == [f"'{fifo}' is not a regular file (a FIFO, device or socket); checkpoints are read from regular files only."]  # fmt: skip


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_device_is_refused(cli: Any) -> None:
    assert "is not a regular file" in cli_refuses(cli, Path("/dev/zero"))


def test_directory_with_model_safetensors_that_is_not_a_file(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").mkdir()
    with pytest.raises(FileError, match="is a directory, not a safetensors file"):
        read_checkpoint(tmp_path)


# --- shard indexes -----------------------------------------------------------------------------


def sharded(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The tiny Llama split into two shards; the index and its weight_map."""
    entries = real_header("tiny-llama-gqa")
    names = sorted(k for k in entries if k != "__metadata__")
    weight_map = {}
    for shard, part in (("a.safetensors", names[:10]), ("b.safetensors", names[10:])):
        sub, offset = {}, 0
        for n in part:
            size = entries[n]["data_offsets"][1] - entries[n]["data_offsets"][0]
            sub[n] = {**entries[n], "data_offsets": [offset, offset + size]}
            offset += size
            weight_map[n] = shard
        write_st(tmp_path / shard, sub)
    index = tmp_path / "model.safetensors.index.json"
    index.write_text(json.dumps({"metadata": {"total_size": 264_384}, "weight_map": weight_map}))
    return index, weight_map


def write_index(index: Path, weight_map: Any) -> None:
    index.write_text(json.dumps({"weight_map": weight_map}))


def test_sharded_checkpoint_reads(tmp_path: Path) -> None:
    index, weight_map = sharded(tmp_path)
    for path in (tmp_path, index):
        entries = read_checkpoint(path)
        assert {e.name: e.file for e in entries} == weight_map
        assert sum(e.nbytes for e in entries) == 264_384


@pytest.mark.parametrize(
    "shard",
    ["../a.safetensors", "/tmp/a.safetensors", "sub/a.safetensors", "sub\\a.safetensors",
     "", ".", "..", "a\x00.safetensors", "C:a.safetensors"],
)  # fmt: skip
def test_shard_names_stay_in_the_directory(cli: Any, tmp_path: Path, shard: str) -> None:
    index, weight_map = sharded(tmp_path)
    name = sorted(weight_map)[3]
    write_index(index, {**weight_map, name: shard})
    with pytest.raises(FileError) as exc:
        read_checkpoint(tmp_path)
    assert (
        f"'{index}': weight_map maps tensor {name!r} to {shard!r}, which is not a file name in "
        "the index's directory (no path separators, '..' or absolute paths)."
    ) == str(exc.value)
    assert name in cli_refuses(cli, tmp_path)


def test_shard_that_is_not_a_regular_file(tmp_path: Path) -> None:
    index, _ = sharded(tmp_path)
    (tmp_path / "b.safetensors").unlink()
    (tmp_path / "b.safetensors").mkdir()
    with pytest.raises(FileError, match=r"b\.safetensors' is a directory, not a safetensors file"):
        read_checkpoint(index)
    (tmp_path / "b.safetensors").rmdir()
    os.mkfifo(tmp_path / "b.safetensors")
    assert stat.S_ISFIFO((tmp_path / "b.safetensors").stat().st_mode)
    with pytest.raises(FileError, match=r"b\.safetensors' is not a regular file"):
        read_checkpoint(index)


def test_shard_missing(tmp_path: Path) -> None:
    sharded(tmp_path)
    (tmp_path / "b.safetensors").unlink()
    with pytest.raises(FileError, match=r"shard 'b\.safetensors' is missing"):
        read_checkpoint(tmp_path)


def test_index_lists_a_tensor_its_shard_lacks(cli: Any, tmp_path: Path) -> None:
    index, weight_map = sharded(tmp_path)
    write_index(index, {**weight_map, "model.extra.weight": "a.safetensors"})
    expected = (
        f"'{index}': weight_map puts tensor 'model.extra.weight' in shard 'a.safetensors', "
        "but that shard does not hold it."
    )
    with pytest.raises(FileError) as exc:
        read_checkpoint(tmp_path)
    assert str(exc.value) == expected
    assert "model.extra.weight" in cli_refuses(cli, tmp_path)


def test_shard_holds_a_tensor_the_index_does_not_list(tmp_path: Path) -> None:
    index, weight_map = sharded(tmp_path)
    name = sorted(weight_map)[-1]  # in b.safetensors
    write_index(index, {k: v for k, v in weight_map.items() if k != name})
    with pytest.raises(FileError) as exc:
        read_checkpoint(index)
    assert str(exc.value) == (
        f"'{index}': shard 'b.safetensors' holds tensor {name!r}, which weight_map does not "
        "list in that shard."
    )
    # Listed under the wrong shard: absent from one, unlisted in the other.
    write_index(index, {**weight_map, name: "a.safetensors"})
    with pytest.raises(FileError, match="does not hold it"):
        read_checkpoint(index)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[]", "the shard index is a JSON array, not an object with a weight_map"),
        ('{"metadata": {}}', "the shard index has no weight_map object"),
        ('{"weight_map": []}', "the shard index has no weight_map object"),
        ('{"weight_map": {"w": 3}}', "weight_map maps tensor 'w' to a number, not a shard file name"),
        ('{"weight_map": {"w": null}}', "weight_map maps tensor 'w' to null, not a shard file name"),
        ('{"weight_map": {"w": "a.safetensors", "w": "b.safetensors"}}', "the shard index has the key 'w' twice"),
        (f'{{"weight_map": {{"w": {SECRET}}}}}', "the shard index is not valid JSON (Expecting value at line 1, column 22)"),
    ],
)  # fmt: skip
def test_bad_index(tmp_path: Path, text: str, problem: str) -> None:
    sharded(tmp_path)
    index = tmp_path / "model.safetensors.index.json"
    index.write_text(text)
    with pytest.raises(FileError) as exc:
        read_checkpoint(tmp_path)
    assert str(exc.value).startswith(f"'{index}': ") or str(index) in str(exc.value)
    assert problem in str(exc.value) and SECRET not in str(exc.value)


def test_index_that_is_not_a_regular_file(tmp_path: Path) -> None:
    index = tmp_path / "model.safetensors.index.json"
    os.mkfifo(index)
    with pytest.raises(FileError, match="is not a regular file"):
        read_checkpoint(tmp_path)


# --- against the reference reader (optional: needs the `oracle` extra) --------------------------

# Where the format's README or schema is explicit and the reference reader is lenient, this
# module follows the format: these headers load in the reader but are refused here.
STRICTER_THAN_THE_READER = {"unknown key", "leading space", "metadata null", "duplicate name"}

E = {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}
CASES: dict[str, tuple[str, int]] = {
    "valid": (json.dumps({"a": E}), 4),
    "unknown key": (json.dumps({"a": {**E, "extra": 1}}), 4),
    "leading space": (" " + json.dumps({"a": E}), 4),
    "metadata null": (json.dumps({"__metadata__": None, "a": E}), 4),
    "duplicate name": (f'{{"a": {json.dumps(E)}, "a": {json.dumps(E)}}}', 4),
    "trailing whitespace": (json.dumps({"a": E}) + " \n\t", 4),
    "metadata int": (json.dumps({"__metadata__": {"k": 1}, "a": E}), 4),
    "duplicate field": (
        '{"a": {"dtype": "U8", "dtype": "U8", "shape": [4], "data_offsets": [0, 4]}}',
        4,
    ),
    "bool dim": (json.dumps({"a": {**E, "shape": [True]}}), 4),
    "float dim": (json.dumps({"a": {**E, "shape": [4.0]}}), 4),
    "float offset": (json.dumps({"a": {**E, "data_offsets": [0, 4.0]}}), 4),
    "three offsets": (json.dumps({"a": {**E, "data_offsets": [0, 4, 4]}}), 4),
    "F4 odd": (json.dumps({"a": {"dtype": "F4", "shape": [3], "data_offsets": [0, 2]}}), 2),
    "F4 even": (json.dumps({"a": {"dtype": "F4", "shape": [4], "data_offsets": [0, 2]}}), 2),
    "F6": (json.dumps({"a": {"dtype": "F6_E2M3", "shape": [4], "data_offsets": [0, 3]}}), 3),
    "C64": (json.dumps({"a": {"dtype": "C64", "shape": [2], "data_offsets": [0, 16]}}), 16),
    "lowercase dtype": (json.dumps({"a": {**E, "dtype": "u8"}}), 4),
    "empty": ("{}", 0),
    "empty with data": ("{}", 4),
    "hole": (json.dumps(two((0, 4), (8, 12))), 12),
    "overlap": (json.dumps(two((0, 8), (4, 12))), 12),
    "empty inside": (
        json.dumps({"a": E, "z": {"dtype": "U8", "shape": [0], "data_offsets": [2, 2]}}),
        4,
    ),
    "empty at end": (
        json.dumps({"a": E, "z": {"dtype": "U8", "shape": [0], "data_offsets": [4, 4]}}),
        4,
    ),
    "scalar": (json.dumps({"a": {"dtype": "F32", "shape": [], "data_offsets": [0, 4]}}), 4),
    "lone surrogate": ('{"a\\ud800": ' + json.dumps(E) + "}", 4),
    "NaN": ('{"a": ' + json.dumps(E) + ', "b": NaN}', 4),
    "empty name": (json.dumps({"": E}), 4),
    "BOM": ("\ufeff" + json.dumps({"a": E}), 4),
    "largest dim": (
        json.dumps({"a": {"dtype": "U8", "shape": [0, 2**64 - 1], "data_offsets": [0, 0]}}),
        0,
    ),
    "dim too large": (
        json.dumps({"a": {"dtype": "U8", "shape": [0, 2**64], "data_offsets": [0, 0]}}),
        0,
    ),
    "entry not an object": (json.dumps({"a": [1]}), 0),
    "short data": (json.dumps({"a": E}), 3),
    "long data": (json.dumps({"a": E}), 5),
}


def reference_accepts(path: Path) -> bool:
    safetensors = pytest.importorskip("safetensors")
    try:
        with safetensors.safe_open(str(path), framework="numpy") as f:
            list(f.keys())
    except Exception:
        return False
    return True


def accepts(path: Path) -> bool:
    try:
        read_header(path)
    except FileError:
        return False
    return True


@pytest.mark.parametrize("case", sorted(CASES))
def test_agrees_with_the_reference_reader(tmp_path: Path, case: str) -> None:
    header, data = CASES[case]
    f = write_st(tmp_path / "c.safetensors", header, data)
    expected = reference_accepts(f) and case not in STRICTER_THAN_THE_READER
    assert accepts(f) is expected
    if case in STRICTER_THAN_THE_READER:
        assert reference_accepts(f)  # still lenient there; else this list is stale


@st.composite
def mutated_header(draw: Any) -> tuple[dict[str, Any], int]:
    """A small valid header, then perhaps one field changed to a nearby or odd value."""
    dtypes = sorted(DTYPE_BITS)
    header: dict[str, Any] = {}
    offset = 0
    for i in range(draw(st.integers(0, 4))):
        dtype = draw(st.sampled_from(dtypes))
        shape = draw(st.lists(st.integers(0, 5), max_size=3))
        elements = 1
        for d in shape:
            elements *= d
        bits = elements * DTYPE_BITS[dtype]
        if bits % 8:
            shape, bits = [*shape, 8], bits * 8
        header[f"t{i}"] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + bits // 8]}  # fmt: skip
        offset += bits // 8
    data = offset
    if header and draw(st.booleans()):
        name = draw(st.sampled_from(sorted(header)))
        field = draw(st.sampled_from(["dtype", "shape", "begin", "end", "data"]))
        odd = st.one_of(st.integers(-2, 40), st.booleans(), st.none(), st.just(2.0), st.just("4"))
        if field == "dtype":
            header[name]["dtype"] = draw(st.sampled_from([*dtypes, "F8", "bf16", "Q4"]))
        elif field == "shape":
            header[name]["shape"] = draw(st.lists(odd, max_size=3))
        elif field in ("begin", "end"):
            header[name]["data_offsets"][field == "end"] = draw(odd)
        else:
            data = draw(st.integers(0, offset + 4))
    return header, data


@settings(max_examples=300, deadline=None)
@given(case=mutated_header())
def test_random_headers_agree_with_the_reference_reader(case: tuple[dict[str, Any], int]) -> None:
    pytest.importorskip("safetensors")
    header, data = case
    with tempfile.TemporaryDirectory() as tmp:
        f = write_st(Path(tmp) / "r.safetensors", header, data)
        assert accepts(f) is reference_accepts(f), (header, data)
