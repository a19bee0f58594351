"""Every chapter must be stored as a clean top-to-bottom run.

nbval checks that re-executing a notebook reproduces its stored outputs; these
checks make sure those stored outputs came from one fresh run (counts 1, 2, 3,
...), that no code cell was skipped, and that no cell stored an error. One more
check reads the markdown: no inline formula may be cut by a line that MyST would
read as a list item (the strict book build does not catch it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))


def test_there_are_chapters():
    assert len(NOTEBOOKS) >= 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_executed_top_to_bottom(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, f"{path.name} has no code cells"
    counts = [c.get("execution_count") for c in code]
    never = [i for i, n in enumerate(counts) if n is None]
    assert not never, f"{path.name}: code cells {never} were never executed"
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name}: execution counts {counts} are not 1, 2, 3, ...; "
        "re-run it with `make notebooks NB={path}`"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_stored_errors(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb["cells"]):
        for out in cell.get("outputs", []):
            assert out.get("output_type") != "error", f"{path.name}: cell {i} stored an error"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_imports_the_package(path):
    """Chapters import recmetrics rather than re-implementing metrics inline."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    source = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert "recmetrics" in source, f"{path.name} never imports recmetrics"


# --- inline math broken across a list marker -------------------------------------
#
# MyST reads a markdown line that starts with "-", "+" or "*" as a list item, even
# in the middle of a paragraph, and an inline formula $...$ that was opened on the
# line before is then cut in two: the book shows raw dollars and a stray bullet.
# The strict build does not warn about it, so this check reads the markdown cells.

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*(.*)$")
# directives whose body is markdown (everything else fenced is code or math)
_MARKDOWN_DIRECTIVES = {
    "admonition",
    "note",
    "warning",
    "tip",
    "important",
    "hint",
    "caution",
    "attention",
    "danger",
    "error",
    "seealso",
    "topic",
    "sidebar",
    "margin",
    "epigraph",
    "dropdown",
    "exercise",
    "solution",
    "figure",
    "table",
}


def _dollars(line: str) -> list[str]:
    """The `$` and `$$` delimiters of one line, outside code spans and escapes."""
    out, i, n = [], 0, len(line)
    while i < n:
        c = line[i]
        if c == "\\":
            i += 2
        elif c == "`":
            j = i
            while j < n and line[j] == "`":
                j += 1
            end = line.find(line[i:j], j)
            i = n if end < 0 else end + (j - i)
        elif line.startswith("$$", i):
            out.append("$$")
            i += 2
        else:
            if c == "$":
                out.append("$")
            i += 1
    return out


def broken_inline_math(text: str) -> list[tuple[int, str]]:
    """Lines (1-based number, text) that start with -, + or * inside open $...$."""
    bad: list[tuple[int, str]] = []
    fences: list[tuple[str, bool]] = []  # (fence, body is markdown)
    inline = display = False
    for number, line in enumerate(text.splitlines(), start=1):
        fence = _FENCE.match(line)
        if fence:
            mark, info = fence.group(1), fence.group(2).strip()
            if (
                fences
                and mark[0] == fences[-1][0][0]
                and len(mark) >= len(fences[-1][0])
                and not info
            ):
                fences.pop()
                inline = False
                continue
            if not fences or fences[-1][1]:
                name = re.match(r"\{([^}]*)\}", info)
                fences.append((mark, bool(name) and name.group(1) in _MARKDOWN_DIRECTIVES))
                inline = False
                continue
        if fences and not fences[-1][1]:
            continue  # code or a {math} block
        if not line.strip():
            inline = False  # a blank line ends the paragraph
            continue
        if inline and re.match(r"\s*[-+*]", line):
            bad.append((number, line))
        for token in _dollars(line):
            if token == "$$":
                display, inline = not display, False
            elif not display:
                inline = not inline
    return bad


def test_broken_inline_math_is_detected():
    text = "Here $a = b\n- c$ is split.\n\n$$\n- x\n$$\n\n```python\nx = '$'\n- 1\n```\n"
    assert broken_inline_math(text) == [(2, "- c$ is split.")]
    assert broken_inline_math("one $x$ line\n- a real list item\n") == []
    assert broken_inline_math("a `$` in code\n* an item\n") == []
    assert broken_inline_math("````{solution} s\n$a\n+ b$\n````\n") == [(3, "+ b$")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_inline_math_broken_by_a_list_marker(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    problems = [
        f"cell {i}, line {number}: {line.strip()!r}"
        for i, cell in enumerate(nb["cells"])
        if cell["cell_type"] == "markdown"
        for number, line in broken_inline_math("".join(cell["source"]))
    ]
    assert not problems, (
        f"{path.name}: a line starting with -, + or * continues an inline $...$ formula, "
        "which MyST renders as a list item; keep the formula on one line or use $$...$$: "
        + "; ".join(problems)
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_is_captioned_named_and_described(path):
    """A plot becomes a numbered figure only through the cell's mystnb metadata.

    Every code cell with an image output carries a caption, a name (for numref) that
    the chapter's text refers to, and alt text that describes the plot.
    """
    nb = json.loads(path.read_text(encoding="utf-8"))
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    for i, cell in enumerate(nb["cells"]):
        outputs = cell.get("outputs", [])
        images = [o for o in outputs if "image/png" in o.get("data", {})]
        if not images:
            continue
        meta = cell["metadata"].get("mystnb", {})
        figure, image = meta.get("figure", {}), meta.get("image", {})
        where = f"{path.name}, cell {i}"
        assert len(images) == 1, f"{where}: one figure per cell"
        assert len(outputs) == len(images) or all(
            o["output_type"] == "stream" for o in outputs if o not in images
        ), f"{where}: a table next to a figure gets the figure's label too; split the cell"
        assert len(figure.get("caption", "")) > 30, f"{where}: no caption"
        assert f"{{numref}}`{figure.get('name')}`" in text, f"{where}: never referenced"
        assert len(image.get("alt", "")) > 40, f"{where}: no alt text"


def test_introduction_links_every_chapter():
    toc = (BOOK.parent / "_toc.yml").read_text(encoding="utf-8")
    chapters = re.findall(r"file:\s*book/(\S+)", toc)
    intro = json.loads((BOOK / "intro.ipynb").read_text(encoding="utf-8"))
    text = "\n".join("".join(c["source"]) for c in intro["cells"])
    missing = [c for c in chapters if c != "intro" and f"{{doc}}`{c}`" not in text]
    assert not missing, f"the introduction's map does not link {missing}"
