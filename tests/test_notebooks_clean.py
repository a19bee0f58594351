"""Every chapter must be stored as a clean top-to-bottom run.

nbval checks that re-executing a notebook reproduces its stored outputs; these
checks make sure those stored outputs came from one fresh run (counts 1, 2, 3,
...), that no code cell was skipped, and that no cell stored an error.
"""
from __future__ import annotations

import json
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
