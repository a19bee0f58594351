"""What an install needs: every subpackage packaged, the name clash with PyPI's recmetrics.

The wheel itself is built, installed into a fresh environment and exercised
by ``.ci/wheel_check.py`` (``make wheel-check``); these are the quick checks.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import setuptools

ROOT = Path(__file__).resolve().parents[1]


def test_package_discovery_finds_every_subpackage():
    """The package discovery of pyproject.toml includes every folder of the package with code."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    setuptools_config = config["tool"]["setuptools"]
    assert "packages" not in setuptools_config or "find" in setuptools_config["packages"]
    include = setuptools_config["packages"]["find"]["include"]
    found = set(setuptools.find_packages(where=str(ROOT), include=include))
    on_disk = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "recmetrics").rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert {"recmetrics.ranking", "recmetrics.metrics.topn", "recmetrics.sampled"} <= on_disk
    assert found == on_disk


def test_numba_is_a_declared_dependency():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(dep.startswith("numba") for dep in config["project"]["dependencies"])


_IMPORT = """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import recmetrics
for w in caught:
    print(w.category.__name__, w.filename, w.message, sep=" | ")
"""


def _import_with(path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(path), str(ROOT)])))
    out = subprocess.run(
        [sys.executable, "-c", _IMPORT], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return [line for line in out.stdout.splitlines() if "recmetrics" in line]


def test_the_unrelated_pypi_recmetrics_is_named_at_import(tmp_path):
    """A distribution called ``recmetrics`` (PyPI's, 0.1.5) beside this one: one warning."""
    info = tmp_path / "recmetrics-0.1.5.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: recmetrics\nVersion: 0.1.5\n")
    lines = _import_with(tmp_path)
    assert len(lines) == 1
    category, filename, message = lines[0].split(" | ")
    assert category == "UserWarning" and filename == "<string>"  # the importing line
    assert "'recmetrics' (0.1.5)" in message and "pip uninstall recmetrics" in message
    assert _import_with(tmp_path / "nothing-here") == []
