"""Execute chapters top to bottom in a fresh kernel and store their outputs.

Usage: python tests/execute_notebooks.py book/chapter.ipynb [...]

Each notebook runs in its own new kernel from the current environment, with the
working directory set to the notebook's folder, exactly as nbval will run it.
Per-cell timing metadata is not recorded, so re-executing an unchanged chapter
leaves git with nothing to show except genuinely changed outputs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

# The one-line notice of a first call that compiles (cold numba cache) goes to
# standard error; it is not part of a chapter's stored outputs.
os.environ["RECMETRICS_COMPILE_NOTICE"] = "0"


def execute(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        cell.get("metadata", {}).pop("execution", None)
    client = NotebookClient(
        nb,
        timeout=1200,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
    )
    client.execute()
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code"]
    print(f"{path}: executed {len(counts)} code cells")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for arg in sys.argv[1:]:
        execute(Path(arg))
