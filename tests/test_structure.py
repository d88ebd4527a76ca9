"""Structure that keeps start-up small (timings live in benchmarks/startup.py, not here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def run_python(code: str) -> str:
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return r.stdout


def test_json_path_does_not_import_rich() -> None:
    out = run_python(
        "import sys, io, contextlib\n"
        "from ffn_calc.cli import main\n"
        "sys.argv = ['ffn-calc', 'params', '--preset', 'gpt2-small', '--format', 'json']\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    try:\n        main()\n    except SystemExit:\n        pass\n"
        "assert '124439808' in buf.getvalue()\n"
        "print(sorted(m for m in sys.modules if m == 'rich' or m.startswith('rich.')))\n"
    )
    assert out.strip() == "[]"


def test_importing_the_cli_does_no_work() -> None:
    out = run_python(
        "import sys\nimport ffn_calc.cli\n"
        "print([m for m in ('rich', 'ffn_calc.reports.params', 'ffn_calc.views.params', 'ffn_calc.families.hf') if m in sys.modules])"
    )
    assert out.strip() == "[]"


def test_loading_one_preset_reads_only_its_file(monkeypatch) -> None:
    from importlib.resources.abc import Traversable

    import ffn_calc.model.sources as presets

    real = presets.presets_dir()
    read: list[str] = []

    class Spy:
        def __init__(self, inner: Traversable) -> None:
            self.inner = inner

        def __truediv__(self, name: str) -> Spy:
            return Spy(self.inner / name)

        def is_file(self) -> bool:
            return self.inner.is_file()

        def read_text(self, encoding: str = "utf-8") -> str:
            read.append(self.inner.name)
            return self.inner.read_text(encoding=encoding)

        def iterdir(self):  # listing the folder would mean scanning every preset
            raise AssertionError("loading one preset listed the presets folder")

    monkeypatch.setattr(presets, "presets_dir", lambda: Spy(real))
    cfg = presets.resolve_model(preset="llama-2-7b")
    assert cfg.d_ff == 11008
    assert read == ["llama-2-7b.toml"]


def test_a_command_imports_only_the_family_it_uses() -> None:
    code = (
        "import sys, io, contextlib\n"
        "from ffn_calc.cli import main\n"
        "sys.argv = ['ffn-calc', {args}]\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        main()\n    except SystemExit:\n        pass\n"
        "shared = ('ffn_calc.families.base', 'ffn_calc.families.hf', 'ffn_calc.families.tensor_names')\n"
        "print(sorted(m for m in sys.modules if m.startswith('ffn_calc.families.')\n"
        "             and m not in shared))\n"
    )
    config = "'tests/data/checkpoints/tiny-llama-gqa.config.json'"
    out = run_python(code.format(args=f"'params', '--hf-config', {config}, '-f', 'json'"))
    assert out.strip() == "['ffn_calc.families.llama']"
    out = run_python(code.format(args="'tensors', '--preset', 'gpt2-small', '-f', 'json'"))
    assert out.strip() == "['ffn_calc.families.gpt2']"
    out = run_python(code.format(args="'params', '--preset', 'gpt2-small', '-f', 'json'"))
    assert out.strip() == "[]"


def test_no_import_cycle() -> None:
    """No module of the package imports, directly or through others, a module that imports it
    back: every import counts, at the top or inside a function (a lazy import is still an
    edge a reader follows)."""
    import ast
    from pathlib import Path

    package = Path(__file__).parent.parent / "ffn_calc"
    modules: dict[str, Path] = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ffn_calc"):
                base = node.module or ""
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    graph[name].add(full if full in modules else base)
            elif isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name.startswith("ffn_calc")}
        graph[name] = {m for m in graph[name] if m in modules and m != name}

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), list(graph[start])
        while todo:
            m = todo.pop()
            if m == goal:
                return True
            if m not in seen:
                seen.add(m)
                todo += graph[m]
        return False

    cycles = sorted((a, b) for a in graph for b in graph[a] if reaches(b, a))
    assert not cycles, f"import cycles (module, the module it imports that leads back): {cycles}"
