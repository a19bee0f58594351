"""The package's layout, measured: modules, their imports, cycles, sizes.

Run ``python tests/import_graph.py`` from the repository root: it prints
every module of ``recmetrics`` with its line count and the package modules it
imports (at module level or inside functions), then the import cycles (none
expected), the modules over 600 lines and the functions over 150 lines (the
docstring excluded). ``tests/test_layout.py`` asserts the same limits.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "recmetrics"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 150


def modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(name: str, path: Path, node: ast.ImportFrom) -> list[str]:
    """The absolute module names an ``import from`` statement names."""
    if node.level:
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        base = package.split(".")
        base = base[: len(base) - (node.level - 1)]
        module = ".".join(base + ([node.module] if node.module else []))
    else:
        module = node.module or ""
    return [module] + [f"{module}.{alias.name}" for alias in node.names]


def imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package modules it imports."""
    graph = {}
    for name, path in mods.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                targets = _resolve(name, path, node)
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            found.update(t for t in targets if t in mods and t != name)
        # a package's own __init__ is imported on the way: not an edge of its own
        graph[name] = {t for t in found if not name.startswith(t + ".")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def long_functions(mods: dict[str, Path]) -> list[tuple[str, int]]:
    """(module:function, lines without the docstring) over the limit."""
    out = []
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            lines = node.end_lineno - node.lineno + 1
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                lines -= body[0].end_lineno - body[0].lineno + 1
            if lines > MAX_FUNCTION_LINES:
                out.append((f"{name}:{node.name}", lines))
    return out


def line_counts(mods: dict[str, Path]) -> dict[str, int]:
    return {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in mods.items()}


def main() -> int:
    mods = modules()
    graph = imports(mods)
    counts = line_counts(mods)
    for name in mods:
        short = sorted(t.removeprefix("recmetrics.") for t in graph[name])
        print(f"{counts[name]:5d}  {name}  -> {', '.join(short) or '-'}")
    found = cycles(graph)
    big = {n: c for n, c in counts.items() if c > MAX_MODULE_LINES}
    long = long_functions(mods)
    n_imports = sum(map(len, graph.values()))
    print(f"\n{len(mods)} modules, {sum(counts.values())} lines, {n_imports} imports")
    print(f"cycles: {found or 'none'}")
    print(f"modules over {MAX_MODULE_LINES} lines: {big or 'none'}")
    print(f"functions over {MAX_FUNCTION_LINES} lines (docstring excluded): {long or 'none'}")
    return 1 if found or big or long else 0


if __name__ == "__main__":
    sys.exit(main())
