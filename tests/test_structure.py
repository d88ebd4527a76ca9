"""The package's structure: imports go down the layers, no cycle, one Rich importer, and what
keeps start-up small (timings live in benchmarks/startup.py, not here)."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

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
    from ffn_calc.families.resolve import resolve_model

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
    cfg = resolve_model(preset="llama-2-7b")
    assert cfg.d_ff == 11008
    assert read == ["llama-2-7b.toml"]


def test_a_command_imports_only_the_family_it_uses() -> None:
    code = (
        "import sys, io, contextlib\n"
        "from ffn_calc.cli import main\n"
        "sys.argv = ['ffn-calc', {args}]\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        main()\n    except SystemExit:\n        pass\n"
        "shared = ('ffn_calc.families.base', 'ffn_calc.families.hf', 'ffn_calc.families.resolve',\n"
        "          'ffn_calc.families.tensor_names')\n"
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


LOADED = (
    "import sys, io, contextlib\n"
    "from ffn_calc.cli import main\n"
    "sys.argv = ['ffn-calc', {args}]\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    try:\n        main()\n    except SystemExit:\n        pass\n"
    "print(sorted(m for m in sys.modules if m.startswith('ffn_calc.')))\n"
)


def loaded(*args: str) -> set[str]:
    """The package's modules a command (run in a fresh interpreter) has imported."""
    return set(ast.literal_eval(run_python(LOADED.format(args=", ".join(map(repr, args))))))


def test_a_command_loads_only_the_mixers_it_counts() -> None:
    """The counts of a token mixer other than attention live in a module per mixer, imported
    the first time a model has that mixer."""
    every = {"mamba", "mamba2", "gated_deltanet", "kda", "lightning", "short_conv", "traffic"}
    mixers = {f"ffn_calc.counts.mixers.{name}" for name in every}
    assert loaded("params", "--preset", "gpt2-small", "-f", "json") & mixers == set()
    jamba = loaded("params", "--preset", "jamba-mini-1.5", "-f", "json") & mixers
    assert jamba == {"ffn_calc.counts.mixers.mamba", "ffn_calc.counts.mixers.traffic"}


@pytest.mark.parametrize(
    ("args", "unused"),
    [
        (("params", "--preset", "gemma-3-4b", "-f", "json"),
         {"ffn_calc.counts.flops", "ffn_calc.counts.inference", "ffn_calc.counts.reach"}),
        (("kv", "--preset", "llama-3-8b", "--context", "8192"),
         {"ffn_calc.reports.crossover", "ffn_calc.reports.decode_crossover", "ffn_calc.counts.reach",
          "ffn_calc.counts.flops"}),
        (("memory", "--preset", "llama-3-8b", "-f", "json"),
         {"ffn_calc.reports.inference", "ffn_calc.reports.crossover", "ffn_calc.counts.reach",
          "ffn_calc.counts.flops"}),
        (("flops", "--preset", "llama-2-7b", "--seq-len", "4096"),
         {"ffn_calc.reports.crossover", "ffn_calc.reports.inference", "ffn_calc.counts.reach"}),
        (("crossover", "--preset", "gpt2-small"),
         {"ffn_calc.reports.inference", "ffn_calc.reports.decode_crossover"}),
    ],
)  # fmt: skip
def test_a_command_loads_only_the_reports_it_answers_with(
    args: tuple[str, ...], unused: set[str]
) -> None:
    """A table that only names a crossover, or a report that shares a helper with another
    question, does not load that question's report."""
    assert loaded(*args) & unused == set()


PACKAGE = ROOT / "ffn_calc"

# The layers, top to bottom: a module imports from its own layer and the layers below, never
# from a layer above. Keys are the first name under ffn_calc ("" is ffn_calc/__init__.py).
LAYERS: list[tuple[str, ...]] = [
    ("console", "__main__"),
    ("cli",),
    ("api", ""),
    ("output",),
    ("views",),
    ("sweeps", "homework"),
    ("reports",),
    ("reference",),
    ("counts",),
    ("families",),
    ("model",),
    ("files", "i18n", "errors", "limits", "quantities"),
]


def package_modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    modules: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def imports_in(source: str, modules: Mapping[str, object], typing: bool = True) -> dict[str, int]:
    """{module of the package that `source` imports: line}. Every import counts: at the top,
    inside a function, under `if TYPE_CHECKING:` (unless `typing` is False), and a module named
    by its full dotted name in a string (`importlib.import_module("ffn_calc.api")`, a table of
    where names live)."""
    tree = ast.parse(source)
    type_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    edges: dict[str, int] = {}
    for node in ast.walk(tree):
        if not typing and id(node) in type_only:
            continue
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level:
            raise AssertionError(f"line {node.lineno}: a relative import; write it absolute")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ffn_calc"):
            base = node.module or ""
            for alias in node.names:
                full = f"{base}.{alias.name}"
                targets.append(full if full in modules else base)
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names if a.name.startswith("ffn_calc")]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "." in node.value:
            targets = [node.value]
        for target in targets:
            if target in modules:
                edges.setdefault(target, node.lineno)
    return edges


def import_edges(typing: bool = True) -> dict[str, dict[str, int]]:
    """module -> {module of the package it imports: line}, for every module of the package."""
    modules = package_modules()
    graph = {}
    for name, path in modules.items():
        edges = imports_in(path.read_text(encoding="utf-8"), modules, typing)
        graph[name] = {m: line for m, line in edges.items() if m != name}
    return graph


def layer_of(module: str) -> int:
    """The index in LAYERS (0 = top) of a module of the package."""
    head = module.split(".")[1] if "." in module else ""
    for index, names in enumerate(LAYERS):
        if head in names:
            return index
    raise AssertionError(f"{module} is in no layer: add it to LAYERS")


def layer_name(index: int) -> str:
    return ", ".join(n or "__init__" for n in LAYERS[index])


def upward_imports(graph: dict[str, dict[str, int]]) -> list[str]:
    return [
        f"{module} -> {imported} (layer {layer_name(layer_of(imported))} above layer "
        f"{layer_name(layer_of(module))}; line {line})"
        for module, edges in sorted(graph.items())
        for imported, line in sorted(edges.items())
        if layer_of(imported) < layer_of(module)
    ]


def test_imports_go_down_the_layers() -> None:
    """Each module imports only from its own layer and the layers below (LAYERS, top to
    bottom): the CLI over the API, the writers over the tables, the tables over the reports,
    down to the model and the leaf modules. Every import counts, lazy ones inside functions
    and those under `if TYPE_CHECKING:` too (a lazy upward import is still an upward
    dependency; none is exempt)."""
    violations = upward_imports(import_edges())
    assert not violations, "imports from a layer above:\n" + "\n".join(violations)


def test_the_layer_check_sees_every_kind_of_import() -> None:
    """An upward import is found at the top, inside a function, under TYPE_CHECKING and as
    a module named in a string, and reported as 'module -> imported (layer X above layer Y)'."""
    code = (
        "from typing import TYPE_CHECKING\n"
        "from ffn_calc.errors import UsageError\n"
        "if TYPE_CHECKING:\n    from ffn_calc.views.table import Table\n"
        "def f():\n    import ffn_calc.output.rich\n"
        "    from ffn_calc.families import family_module\n"
        "HOME = {'x': 'ffn_calc.cli.app'}\n"
    )
    edges = imports_in(code, package_modules())
    with pytest.raises(AssertionError, match="relative import"):
        imports_in("from .table import Table\n", package_modules())
    assert "ffn_calc.views.table" not in imports_in(code, package_modules(), typing=False)
    assert edges == {
        "ffn_calc.errors": 2,
        "ffn_calc.views.table": 4,
        "ffn_calc.output.rich": 6,
        "ffn_calc.families": 7,
        "ffn_calc.cli.app": 8,
    }
    assert upward_imports({"ffn_calc.model.config": edges}) == [
        "ffn_calc.model.config -> ffn_calc.cli.app (layer cli above layer model; line 8)",
        "ffn_calc.model.config -> ffn_calc.families (layer families above layer model; line 7)",
        "ffn_calc.model.config -> ffn_calc.output.rich (layer output above layer model; line 6)",
        "ffn_calc.model.config -> ffn_calc.views.table (layer views above layer model; line 4)",
    ]


def test_every_module_is_in_a_layer() -> None:
    for module in package_modules():
        layer_of(module)


def test_only_output_rich_imports_rich() -> None:
    """Rich is imported in one module, the drawing (wrapping is output/wrap.py, measured by
    the cells the writer passes): every other writer and the JSON path stay Rich-free."""
    importers = sorted(
        name
        for name, path in package_modules().items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "rich")
        or (
            isinstance(node, ast.Import) and any(a.name.split(".")[0] == "rich" for a in node.names)
        )
    )
    assert set(importers) == {"ffn_calc.output.rich"}, importers


def test_layer_packages_have_empty_init() -> None:
    """The layer packages' __init__.py stay empty: importing one module of a layer loads
    nothing else of it (start-up)."""
    nonempty = [
        name
        for name in ("i18n", "model", "counts", "reference", "reports", "sweeps", "homework",
                     "views", "output")
        if (PACKAGE / name / "__init__.py").read_text(encoding="utf-8").strip()
    ]  # fmt: skip
    assert not nonempty, nonempty


def test_no_import_cycle() -> None:
    """No module of the package imports, directly or through others, a module that imports it
    back: every import that runs counts, at the top or inside a function (a lazy import is
    still an edge a reader follows). An import under `if TYPE_CHECKING:` never runs, so it is
    left out here (model.rules names ModelConfig in its annotations, model.config calls the
    rules); the layer test above still counts it."""
    graph = {name: set(edges) for name, edges in import_edges(typing=False).items()}

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


def test_the_tree_stays_easy_to_see() -> None:
    """The top of the package holds at most 10 modules (the rest live in their layer's
    folder), and no module grows past 600 lines: split it by question instead."""
    package = Path(__file__).parent.parent / "ffn_calc"
    top = sorted(p.name for p in package.glob("*.py"))
    assert len(top) <= 10, top
    long = {
        p.relative_to(package).as_posix(): n
        for p in package.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}, long
