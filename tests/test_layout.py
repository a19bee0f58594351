"""The package's layout keeps its limits: no import cycle, short modules and functions.

The measurements are those of ``tests/import_graph.py`` (run it to see the
whole graph).
"""

from __future__ import annotations

import import_graph as graph
import pytest

import recmetrics as rm

MODULES = graph.modules()
IMPORTS = graph.imports(MODULES)


def test_no_import_cycle():
    assert graph.cycles(IMPORTS) == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_is_short(name):
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= graph.MAX_MODULE_LINES, f"{name}: {lines} lines"


def test_functions_are_short():
    assert graph.long_functions(MODULES) == []


def test_lower_layers_import_no_consumer():
    """Providers hold data; inputs, ranking and metrics never import a consumer."""
    consumers = (
        "recmetrics.evaluation",
        "recmetrics.conventions",
        "recmetrics.cli",
        "recmetrics.distributed",
        "recmetrics.stats",
        "recmetrics.sampled",
    )
    lower = ("recmetrics.providers", "recmetrics.inputs", "recmetrics.ranking")
    lower += ("recmetrics.metrics", "recmetrics._kernels", "recmetrics._validation")
    for name, targets in IMPORTS.items():
        if name.startswith(lower):
            bad = [t for t in targets if t.startswith(consumers)]
            assert not bad, f"{name} imports {bad}"
    for name in MODULES:
        if name.startswith("recmetrics.providers."):
            assert IMPORTS[name] <= {"recmetrics.providers._provider", "recmetrics._keywords"}


def test_public_names_do_not_shadow_modules():
    """``recmetrics.X`` is never a function where a module ``recmetrics/X`` exists."""
    import inspect

    for name in dir(rm):
        value = getattr(rm, name)
        if f"recmetrics.{name}" in MODULES:
            assert inspect.ismodule(value), f"rm.{name} hides the module recmetrics.{name}"
