"""A Hugging Face repo id (`ORG/NAME`, `ORG/NAME@REVISION`) found in the local Hugging Face
cache, offline: nothing here opens a socket or imports huggingface_hub.

The cache is the one huggingface_hub writes (`hf download ORG/NAME config.json`):

    <cache>/models--ORG--NAME/refs/main                    the commit hash main points at
    <cache>/models--ORG--NAME/snapshots/<hash>/config.json  a symbolic link to ../../blobs/<sha>

and <cache> is chosen as huggingface_hub chooses it: `HF_HUB_CACHE` (or its older name
`HUGGINGFACE_HUB_CACHE`), else `$HF_HOME/hub`, else `$XDG_CACHE_HOME/huggingface/hub`, else
`~/.cache/huggingface/hub`; an empty variable counts as unset. A revision is a branch or tag
name (read from `refs/<name>`) or a full 40-hex commit (the snapshot of that name); a shorter
hash is not matched. A repo without `refs/<revision>` is refused (its snapshots named), never
guessed from whichever snapshot is there.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ffn_calc.errors import FileError
from ffn_calc.files import read_bytes_bounded
from ffn_calc.i18n.translate import _

# The Hub's repo-id grammar (huggingface_hub's validate_repo_id): a namespace and a name of
# 1 to 96 characters each from A-Z a-z 0-9 _ . -, each starting and ending with a letter,
# digit or underscore, no "--" or "..", not ending in ".git". A bare NAME (no ORG) is not
# taken: it is too easily a misspelt file name.
_PART = r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?"
REPO_ID = re.compile(rf"{_PART}/{_PART}")
# A branch or tag name as stored under refs/ (components of the same characters; "refs/pr/1").
REVISION = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}(?:/[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}){0,4}")
COMMIT = re.compile(r"[0-9a-f]{40}")
# What marks the entry as from the cache in the model's source line (JSON stays English).
CACHE_LABEL = "Hugging Face cache"


@dataclass(frozen=True)
class RepoRef:
    repo: str
    revision: str  # "main" unless one was given


def parse_repo_id(text: str) -> RepoRef | None:
    """`ORG/NAME` or `ORG/NAME@REVISION` as a RepoRef; None for anything else."""
    repo, at, revision = text.partition("@")
    if not REPO_ID.fullmatch(repo) or "--" in repo or ".." in repo or repo.endswith(".git"):
        return None
    if at and (not REVISION.fullmatch(revision) or ".." in revision):
        return None
    return RepoRef(repo, revision if at else "main")


def cache_folder(env: Mapping[str, str] | None = None) -> tuple[Path, str]:
    """The cache folder and what chose it (a variable's name, or "" for the default)."""
    env = os.environ if env is None else env
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if env.get(var):
            return _expand(env[var]), var
    if env.get("HF_HOME"):
        return _expand(env["HF_HOME"]) / "hub", "HF_HOME"
    if env.get("XDG_CACHE_HOME"):
        return _expand(env["XDG_CACHE_HOME"]) / "huggingface" / "hub", "XDG_CACHE_HOME"
    return Path(os.path.expanduser("~")) / ".cache" / "huggingface" / "hub", ""


def _expand(value: str) -> Path:
    return Path(os.path.expandvars(os.path.expanduser(value)))


def cached_config(ref: RepoRef, env: Mapping[str, str] | None = None) -> tuple[Path, str]:
    """The snapshot's config.json (a path to read through its link) and the label naming the
    repo and commit, e.g. "org/name@0123456789ab (Hugging Face cache)"; a FileError (exit 2)
    saying how to fetch it when it is not cached."""
    cache, chosen_by = cache_folder(env)
    folder = cache / ("models--" + ref.repo.replace("/", "--"))
    if not os.path.isdir(folder):  # False too for a folder it may not read
        raise _not_cached(ref, folder, cache, chosen_by)
    if COMMIT.fullmatch(ref.revision):
        commit = ref.revision
    else:
        pointer = folder / "refs" / ref.revision
        if not os.path.isfile(pointer):
            if ref.revision == "main":
                _refuse_without_main(ref, folder)
            raise _not_cached(ref, pointer, cache, chosen_by)
        commit = read_bytes_bounded(pointer, "config file", limit=4096).decode("ascii", "replace")
        commit = commit.strip()
        if not COMMIT.fullmatch(commit):
            raise FileError(
                _("'{path}' does not hold a commit hash (40 hex digits).").format(path=pointer)
            )
    file = folder / "snapshots" / commit / "config.json"
    if not os.path.lexists(file):
        raise _not_cached(ref, file, cache, chosen_by)
    return file, f"{ref.repo}@{commit[:12]} ({CACHE_LABEL})"


def _snapshots(folder: Path) -> list[str]:
    try:
        found = sorted(p.name for p in (folder / "snapshots").iterdir())
    except OSError:
        return []
    return [n for n in found if os.path.lexists(folder / "snapshots" / n / "config.json")]


def _refuse_without_main(ref: RepoRef, folder: Path) -> None:
    snapshots = _snapshots(folder)
    if snapshots:
        raise FileError(
            _(
                "'{repo}' is in the Hugging Face cache ({folder}) but has no refs/main to say "
                "which snapshot is current; snapshots holding a config.json: {snapshots}. "
                "Name one as {repo}@COMMIT."
            ).format(repo=ref.repo, folder=folder, snapshots=", ".join(snapshots))
        )


def _not_cached(ref: RepoRef, missing: Path, cache: Path, chosen_by: str) -> FileError:
    shown_id = ref.repo if ref.revision == "main" else f"{ref.repo}@{ref.revision}"
    command = f"hf download {ref.repo} config.json" + (
        f" --revision {ref.revision}" if ref.revision != "main" else ""
    )
    where = (
        _("the cache folder {cache}, from {variable}").format(cache=cache, variable=chosen_by)
        if chosen_by
        else _("the default cache folder {cache}").format(cache=cache)
    )
    return FileError(
        _(
            "'{repo}' is not in the Hugging Face cache: looked for {missing} in {where}. "
            "Nothing is downloaded: fetch it with `{command}` (huggingface_hub), or give the "
            "path of a config.json."
        ).format(repo=shown_id, missing=missing.relative_to(cache), where=where, command=command)
    )
