"""Write presets/parsed.json, the parse cache `ffn-calc presets` reads the presets from (see
ffn_calc/model/sources.py): run it after changing a preset file.

    python scripts/presets_cache.py          # write it
    python scripts/presets_cache.py --check  # exit 1 when it is not current
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ffn_calc.model.sources import PARSE_CACHE, parse_cache_text  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that it is current")
    args = parser.parse_args()
    folder = ROOT / "presets"
    text = parse_cache_text(folder)
    target = folder / PARSE_CACHE
    if args.check:
        current = target.exists() and target.read_text(encoding="utf-8") == text
        print(f"{target.name}: {'current' if current else 'out of date'}")
        return 0 if current else 1
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target.relative_to(ROOT)} ({len(text):,} characters)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
