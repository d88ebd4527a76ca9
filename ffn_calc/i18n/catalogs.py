"""The message catalogs: extract the messages, compile the .po sources, check them.

    python -m ffn_calc.i18n.catalogs extract   # update every .po from the code (keeps translations)
    python -m ffn_calc.i18n.catalogs compile   # .po -> .mo (what gettext reads; shipped in the wheel)
    python -m ffn_calc.i18n.catalogs check     # every message translated, placeholders kept, .mo fresh
    python -m ffn_calc.i18n.catalogs merge F.json ...  # take translations {msgid: {"ja": .., "zh": ..}}

Standard library only: the messages are found with `ast` (calls of `_` and `N_`
whose arguments are string literals), the `description=` literals of ffn_calc/model/fields.py (each
field's meaning in `ffn-calc show NAME`), plus the texts of the exercise catalog; the .mo files
are written in GNU gettext's format, which `gettext.GNUTranslations` reads.
"""

from __future__ import annotations

import ast
import re
import struct
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = Path(__file__).parents[1]
LOCALE = Path(__file__).parent / "locale"
TRANSLATED = ("ja", "zh")
MARKERS = {"_", "N_"}
# The exercise catalog's texts that people read (translated where they are shown).
EXERCISE_KEYS = ("question", "note")  # an [[exercise]]'s texts (and its slips' notes)
# The file whose Field(description=...) texts people read (`ffn-calc show NAME`'s meanings).
DESCRIBED = "ffn_calc/model/fields.py"


@dataclass
class Message:
    msgid: str
    where: list[str] = field(default_factory=list)


def extract() -> dict[str, Message]:
    """Every message in the package, in order of first appearance."""
    found: dict[str, Message] = {}

    def add(msgid: str, where: str) -> None:
        if not msgid:
            return
        m = found.setdefault(msgid, Message(msgid))
        m.where.append(where)

    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if rel == DESCRIBED and isinstance(node, ast.Call):
                for kw in node.keywords:  # Field(..., description="..."): `show`'s meanings
                    text = kw.value.value if isinstance(kw.value, ast.Constant) else None
                    if kw.arg == "description" and isinstance(text, str):
                        add(text, f"{rel}:{kw.value.lineno}")
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            args = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
                    for a in node.args]  # fmt: skip
            if node.func.id in MARKERS and args and args[0] is not None:
                add(args[0], f"{rel}:{node.lineno}")
    for exercises in sorted((PACKAGE / "homework").glob("*.toml")):  # the built-in catalogs
        data = tomllib.loads(exercises.read_text(encoding="utf-8"))
        where = f"ffn_calc/homework/{exercises.name}"
        for entry in data.get("exercise", []):
            texts = [entry.get(key) for key in EXERCISE_KEYS]
            texts += [slip.get("note") for slip in entry.get("slips", []) if isinstance(slip, dict)]
            for text in texts:
                if isinstance(text, str):
                    add(text, f"{where}:{entry.get('id', '?')}")
    return found


# --- .po files ------------------------------------------------------------------------------


def _quote(text: str) -> str:
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{body}"'


def _unquote(text: str) -> str:
    assert text.startswith('"') and text.endswith('"'), text
    out, i, body = [], 0, text[1:-1]
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            out.append(escapes.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


@dataclass
class Entry:
    msgid: str
    msgstr: str = ""
    where: list[str] = field(default_factory=list)


def read_po(path: Path) -> tuple[str, dict[str, Entry]]:
    """(the header's msgstr, the entries by msgid)."""
    entries: dict[str, Entry] = {}
    header = ""
    current: dict[str, str] = {}
    last = ""

    def flush() -> None:
        nonlocal header
        if "msgid" not in current:
            return
        msgid = current["msgid"]
        if msgid == "":
            header = current.get("msgstr", "")
        else:
            entries[msgid] = Entry(msgid, current.get("msgstr", ""))
        current.clear()

    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            if not line:
                flush()
            continue
        m = re.match(r"(msgid|msgstr)\s+(\".*\")$", line)
        if m:
            if m.group(1) == "msgid" and "msgid" in current:
                flush()
            last = m.group(1)
            current[last] = _unquote(m.group(2))
        elif line.startswith('"'):
            current[last] += _unquote(line)
    flush()
    return header, entries


def header_for(lang: str) -> str:
    plural = "nplurals=1; plural=0;"  # neither Japanese nor Chinese inflects for number
    return (
        f"Project-Id-Version: ffn-calc\nLanguage: {lang}\nMIME-Version: 1.0\n"
        f"Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n"
        f"Plural-Forms: {plural}\n"
    )


def write_po(path: Path, lang: str, entries: list[Entry]) -> None:
    lines = [f"# ffn-calc messages: {lang}. Edit the msgstr lines; keep each {{placeholder}}.",
             'msgid ""', f"msgstr {_quote(header_for(lang))}", ""]  # fmt: skip
    for e in entries:
        lines += [f"#: {w}" for w in e.where[:3]]
        lines.append(f"msgid {_quote(e.msgid)}")
        lines.append(f"msgstr {_quote(e.msgstr)}")
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "ffn_calc.po"


def update() -> None:
    """Bring every .po in line with the code: new messages untranslated, old ones dropped."""
    messages = extract()
    for lang in TRANSLATED:
        path = po_path(lang)
        old = read_po(path)[1] if path.exists() else {}
        entries = []
        for m in messages.values():
            e = old.get(m.msgid, Entry(m.msgid))
            e.where = m.where
            entries.append(e)
        write_po(path, lang, entries)


# --- .mo files ------------------------------------------------------------------------------


def mo_bytes(header: str, entries: dict[str, Entry]) -> bytes:
    """GNU gettext's .mo format: the translated entries, sorted by msgid."""
    pairs: list[tuple[bytes, bytes]] = [(b"", header.encode())]
    for e in entries.values():
        if e.msgstr:
            pairs.append((e.msgid.encode(), e.msgstr.encode()))
    pairs.sort()
    n = len(pairs)
    ids_start = 7 * 4
    strs_start = ids_start + 8 * n
    data_start = strs_start + 8 * n
    ids, strs, data = b"", b"", b""
    for key, _value in pairs:
        ids += struct.pack("<II", len(key), data_start + len(data))
        data += key + b"\0"
    for _key, value in pairs:
        strs += struct.pack("<II", len(value), data_start + len(data))
        data += value + b"\0"
    head = struct.pack("<7I", 0x950412DE, 0, n, ids_start, strs_start, 0, 0)
    return head + ids + strs + data


def mo_path(lang: str) -> Path:
    return po_path(lang).with_suffix(".mo")


def compile_all() -> None:
    for lang in TRANSLATED:
        header, entries = read_po(po_path(lang))
        mo_path(lang).write_bytes(mo_bytes(header, entries))


# --- checks ---------------------------------------------------------------------------------

_FIELD = re.compile(r"\{[^{}]*\}")


def problems() -> list[str]:
    """Every message untranslated, a placeholder lost, a stale .po or .mo: one line each."""
    out: list[str] = []
    messages = extract()
    for lang in TRANSLATED:
        path = po_path(lang)
        if not path.exists():
            out.append(f"{lang}: no catalog {path}")
            continue
        header, entries = read_po(path)
        for m in messages.values():
            e = entries.get(m.msgid)
            if e is None:
                out.append(f"{lang}: not in the catalog (run extract): {m.msgid!r} ({m.where[0]})")
                continue
            if not e.msgstr:
                out.append(f"{lang}: untranslated: {m.msgid!r} ({m.where[0]})")
            elif sorted(_FIELD.findall(e.msgstr)) != sorted(_FIELD.findall(m.msgid)):
                out.append(f"{lang}: placeholders differ: {m.msgid!r} -> {e.msgstr!r}")
        for msgid in entries:
            if msgid not in messages:
                out.append(f"{lang}: obsolete (run extract): {msgid!r}")
        mo = mo_path(lang)
        if not mo.exists() or mo.read_bytes() != mo_bytes(header, entries):
            out.append(f"{lang}: {mo} is stale (run compile)")
    return out


def merge(paths: list[Path]) -> int:
    """Fill the catalogs' msgstr from JSON files {msgid: {"ja": text, "zh": text}} (a
    translator's hand-off); returns how many entries were filled."""
    import json

    given: dict[str, dict[str, str]] = {}
    for path in paths:
        given |= json.loads(path.read_text(encoding="utf-8"))
    filled = 0
    for lang in TRANSLATED:
        path = po_path(lang)
        _header, entries = read_po(path)
        for msgid, e in entries.items():
            text = given.get(msgid, {}).get(lang)
            if text and e.msgstr != text:
                e.msgstr = text
                filled += 1
        write_po(path, lang, list(entries.values()))
    return filled


def main(argv: list[str]) -> int:
    what = argv[0] if argv else "check"
    if what == "extract":
        update()
    elif what == "compile":
        compile_all()
    elif what == "merge":
        print(f"{merge([Path(p) for p in argv[1:]])} translations filled")
    elif what == "check":
        found = problems()
        print("\n".join(found) if found else "catalogs complete")
        return 1 if found else 0
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
