"""Fonts for the figures' Japanese and Chinese labels that matplotlib's font cache does not
list: a font installed in the system's font folders after the cache was written, and the fonts
a Python package ships (the `plot-cjk` extra). Matplotlib is imported only when a figure is
drawn; a package is found, never imported."""

from __future__ import annotations

from pathlib import Path

# Python packages that ship a CJK font, found without importing them: the `plot-cjk` extra
# installs the first (WenQuanYi Micro Hei, Japanese and Chinese glyphs, a 2.3 MB wheel);
# matplotlib-fontja (IPAexGothic) has the Japanese glyphs only.
FONT_PACKAGES = ("paperang_p2_fonts_cjk", "matplotlib_fontja", "mplfonts")
FONT_SUFFIXES = (".ttf", ".otf", ".ttc")


def _font_files(package: str) -> list[str]:
    """The font files a package ships (found, not imported), or none."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    found: list[str] = []
    for root in (spec.submodule_search_locations or []) if spec is not None else []:
        found += sorted(str(f) for f in Path(root).rglob("*") if f.suffix.lower() in FONT_SUFFIXES)
    return found


def more_fonts() -> list[str]:
    """Add to matplotlib's font list the fonts its cache does not hold: those installed in the
    system's font folders since the cache was written, and those of a font package. Returns
    the files added."""
    from matplotlib import font_manager

    known = {e.fname for e in font_manager.fontManager.ttflist}
    files = [*font_manager.findSystemFonts()]
    for package in FONT_PACKAGES:
        files += _font_files(package)
    added = []
    for fname in dict.fromkeys(files):
        if fname in known or Path(fname).suffix.lower() not in FONT_SUFFIXES:
            continue
        try:
            font_manager.fontManager.addfont(fname)
        except (OSError, RuntimeError, ValueError):
            continue
        added.append(fname)
    return added
