"""The documentation: the README and the pages under docs/, one page per question.

Every relative link (and the heading it points to) exists; the README stays a newcomer's page
(set-up, examples, links) and links every page; the example outputs shown on the pages are
what the commands print today, whole or as a run of lines cut from the output.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import DOC_PAGES, README, ROOT, readme_block, shown

# The pages people follow links from: the three READMEs and every docs/ page.
LINKED = {
    **DOC_PAGES,
    "README.ja.md": (ROOT / "README.ja.md").read_text(encoding="utf-8"),
    "README.zh.md": (ROOT / "README.zh.md").read_text(encoding="utf-8"),
}
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def prose(text: str) -> str:
    """The text outside fenced code blocks and inline code spans (where links are not links)."""
    out, fence = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
            continue
        if not fence:
            out.append(line)
    return re.sub(r"`[^`]*`", "", "\n".join(out))


def anchors(text: str) -> set[str]:
    """GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to '-',
    a repeated heading suffixed -1, -2, ..."""
    seen: dict[str, int] = {}
    found = set()
    fence = False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"#{1,6} (.*)", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def links(page: str) -> list[str]:
    return LINK.findall(prose(LINKED[page]))


def test_the_anchor_rule_matches_github() -> None:
    # Headings of this documentation and the anchors GitHub gives them.
    text = "# JSON contract (`--format json`) and CSV\n## Hugging Face config.json\n## 詳しくは\n## A\n## A"
    assert anchors(text) == {"json-contract---format-json-and-csv", "hugging-face-configjson",
                             "詳しくは", "a", "a-1"}  # fmt: skip


@pytest.mark.parametrize("page", sorted(LINKED))
def test_every_relative_link_points_to_a_file_and_heading_that_exist(page: str) -> None:
    base = (ROOT / page).parent
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (base / path).resolve() if path else (ROOT / page).resolve()
        assert file.is_file(), f"{page}: {target} points to no file"
        assert ROOT.resolve() in file.parents, f"{page}: {target} leaves the project"
        if anchor:
            assert file.suffix == ".md", f"{page}: {target}: an anchor in a non-Markdown file"
            heads = anchors(file.read_text(encoding="utf-8"))
            assert anchor in heads, f"{page}: {target}: no heading #{anchor} in {path or page}"


def test_the_readme_and_its_translations_link_every_docs_page() -> None:
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")}
    assert len(pages) >= 8
    for readme in ("README.md", "README.ja.md", "README.zh.md"):
        linked = {t.partition("#")[0] for t in links(readme)}
        assert pages <= linked, f"{readme} does not link {sorted(pages - linked)}"
    for page in pages:  # each page leads back
        assert "../README.md" in {t.partition("#")[0] for t in links(page)}, page


def test_the_readme_is_a_newcomers_page() -> None:
    # The set-up commands, exactly as .ci/run runs the test command.
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = "pip install -e '.[test]' && pytest"
    assert f"\n{test_command}\n" in ci
    assert f"```sh\n{test_command}\n```" in README
    assert "pip install . && ffn-calc params --preset gpt2-small\n```" in README
    # The reference lives in docs/: the README is a few screens, not the contract.
    assert len(README.splitlines()) < 350
    for heading in ("## JSON contract", "## Counting conventions", "## Start-up time"):
        assert heading not in README


# (marker, command, terminal width, the whole output or a run of its lines)
EXAMPLES = [
    ("`ffn-calc kv --preset llama-3-8b --context 8192`", ["kv", "-p", "llama-3-8b", "--context", "8192"], 120, True),
    ("`ffn-calc kv --preset gpt-oss-20b --context 4096`", ["kv", "-p", "gpt-oss-20b", "--context", "4096"], 100, False),
    ("`ffn-calc flops --preset llama-3-8b --decode --context 512` gives:", ["flops", "-p", "llama-3-8b", "--decode", "--context", "512"], 120, False),
    ("and a bar chart of each part's share as L grows.", ["crossover", "-p", "llama-3-8b", "--decode"], 120, False),
    ("`ffn-calc memory --preset llama-3-8b --gpu-memory 24GB\n--context 8192`", ["memory", "-p", "llama-3-8b", "--gpu-memory", "24GB", "--context", "8192"], 120, False),
    ("`ffn-calc memory --preset gpt2-small --training --seq-len 1024`", ["memory", "-p", "gpt2-small", "--training", "--seq-len", "1024"], 120, False),
    ("`ffn-calc memory --preset llama-2-7b --training`", ["memory", "-p", "llama-2-7b", "--training"], 120, False),
    ("`ffn-calc roofline --preset llama-3-8b --context 2048 --batch 64 --gpu h100-sxm`", ["roofline", "-p", "llama-3-8b", "--context", "2048", "--batch", "64", "--gpu", "h100-sxm"], 120, False),
    ("`ffn-calc flops --preset gemma-3-4b --seq-len 256 --images 1`", ["flops", "-p", "gemma-3-4b", "--seq-len", "256", "--images", "1"], 120, False),
    ("`ffn-calc flops --preset gpt2-small --seq-len 1024`", ["flops", "-p", "gpt2-small", "--seq-len", "1024"], 96, False),
]  # fmt: skip


@pytest.mark.parametrize(("marker", "args", "width", "whole"), EXAMPLES)
def test_the_example_outputs_on_the_pages_are_current(
    marker: str, args: list[str], width: int, whole: bool
) -> None:
    block = readme_block(marker).split("\n")
    out = shown(args, width).split("\n")
    if whole:
        assert block == out, f"the example after {marker!r} is stale"
    else:
        runs = (out[i : i + len(block)] for i in range(len(out) - len(block) + 1))
        assert block in runs, f"the example after {marker!r} is not in today's output"


def test_the_examples_are_in_the_readme() -> None:
    # A handful of examples with real output, each checked here or beside its command's tests.
    for marker in (
        "`ffn-calc params --preset gpt2-small`:",
        "`ffn-calc crossover --preset gpt2-small`:",
        "`ffn-calc kv --preset llama-3-8b --context 8192`",
        "`ffn-calc sweep --preset gpt2-small",
        "```python\nimport ffn_calc\n",
    ):
        assert marker in README, marker
    assert Path(ROOT / "docs" / "crossover-llama-2-7b.png").is_file()
