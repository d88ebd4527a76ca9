"""The presets' parse cache (presets/parsed.json): current, and never trusted for a file that
changed since it was written (ffn_calc/model/sources.py)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import ffn_calc.model.sources as sources
from ffn_calc.reports.listings import presets_report

ROOT = Path(__file__).resolve().parent.parent


def test_the_shipped_cache_is_current() -> None:
    written = (ROOT / "presets" / sources.PARSE_CACHE).read_text(encoding="utf-8")
    assert written == sources.parse_cache_text(ROOT / "presets"), (
        "presets/parsed.json is out of date: run `python scripts/presets_cache.py`"
    )


@dataclass
class Folder:
    path: Path
    parsed: list[str]  # the origins of the files parsed from TOML


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Folder:
    """A copy of the presets folder, cache included, as the folder the presets come from; the
    files parsed from TOML are listed in `parsed`."""
    copy = tmp_path / "presets"
    shutil.copytree(ROOT / "presets", copy)
    monkeypatch.setattr(sources, "presets_dir", lambda: copy)
    monkeypatch.setattr(sources, "_ENTRIES", {})
    parsed: list[str] = []
    real = sources.parse_toml

    def spy(text: str, origin: str) -> dict[str, Any]:
        parsed.append(origin)
        return real(text, origin)

    monkeypatch.setattr(sources, "parse_toml", spy)
    return Folder(copy, parsed)


def _fields() -> dict[str, dict[str, Any]]:
    return {n: dict(sources.preset_entry(n).fields) for n in sources.preset_names()}


def test_unchanged_files_come_from_the_cache(folder: Folder) -> None:
    sources.read_every_preset()
    assert folder.parsed == []
    from_cache = _fields()
    sources._ENTRIES.clear()
    (folder.path / sources.PARSE_CACHE).unlink()
    sources.read_every_preset()
    assert len(folder.parsed) == len(from_cache)
    assert _fields() == from_cache  # the same fields as tomllib gives


def test_a_changed_file_is_parsed_again(folder: Folder) -> None:
    path = folder.path / "gpt2-small.toml"
    # The same length (3072 -> 3073), so only the checksum tells the change.
    path.write_text(path.read_text().replace("d_ff = 3072", "d_ff = 3073"))
    rows = {r.name: r for r in presets_report().presets}
    assert folder.parsed == ["preset gpt2-small"]
    assert rows["gpt2-small"].d_ff == 3073
    # gpt2-small's 124,439,808 parameters (tests/data/reference_cases.json) plus, in each of
    # its 12 layers, one more FFN unit: a column of W1 (768), b1 (1) and a row of W2 (768).
    assert rows["gpt2-small"].total_params == 124_439_808 + 12 * 1_537


@pytest.mark.parametrize("content", ["", "{", '{"presets": 3}', '{"presets": {"gpt2-small": 1}}'])
def test_a_broken_cache_means_parsing_the_files(folder: Folder, content: str) -> None:
    (folder.path / sources.PARSE_CACHE).write_text(content)
    sources.read_every_preset()
    assert len(folder.parsed) >= 1
    assert sources.preset_entry("gpt2-small").fields["d_ff"] == 3072
