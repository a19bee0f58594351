"""The provider files: one per library, each consistent with the registry and the presets.

Iterates every provider (recmetrics/providers/<library>.py), the way
scikit-learn's test_common iterates its metrics: a new library is tested by
adding its file (and its runner in tests/test_preset_parity.py).
"""

from __future__ import annotations

import ast
import inspect
import pkgutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics import conventions as cv
from recmetrics._keywords import CONVENTION_KEYWORDS
from recmetrics.metrics import _registry
from recmetrics.providers import (
    BEYOND_PRESETS,
    LIBRARIES,
    PROVIDERS,
    Provider,
)

ROOT = Path(rm.__file__).parent
RANKING = [name for name, p in PROVIDERS.items() if p.ranking]
BEYOND = [name for name, p in PROVIDERS.items() if p.beyond]


def test_one_file_per_provider():
    files = {m.name for m in pkgutil.iter_modules([str(ROOT / "providers")])}
    assert {f for f in files if not f.startswith("_")} == set(PROVIDERS)
    assert list(PROVIDERS)[:2] == ["trec_eval", "sklearn"]  # the order of the tables
    orders = [p.order for p in PROVIDERS.values()]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)


def test_providers_hold_data_only():
    """A provider file imports nothing from the package but the Provider record."""
    for name in PROVIDERS:
        tree = ast.parse((ROOT / "providers" / f"{name}.py").read_text())
        local = [
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level > 0
        ]
        assert local == ["_provider"], (name, local)


@pytest.mark.parametrize("name", RANKING)
def test_ranking_metrics_are_registered(name):
    p = PROVIDERS[name]
    for metric, rule in p.metrics.items():
        spec = _registry.get(metric)
        assert spec.name == metric, f"{name}: use the canonical name {spec.name!r}"
        assert spec.kind == "ranking"
        if not spec.takes_cutoff:
            assert rule == "none", (name, metric)
    assert set(p.sources) <= set(p.metrics) | {"ties", "no_relevant"}
    assert cv.SUPPORTED[name] == dict(p.metrics)
    # in the registry's order, whatever the file's
    order = list(_registry.REGISTRY)
    assert list(cv.SUPPORTED[name]) == sorted(cv.SUPPORTED[name], key=order.index)


@pytest.mark.parametrize("name", RANKING)
def test_preset_is_the_defaults_plus_the_file(name):
    p = PROVIDERS[name]
    preset = cv.PRESETS[name]
    assert list(preset) == list(CONVENTION_KEYWORDS)
    for key, default in CONVENTION_KEYWORDS.items():
        assert preset[key] == p.keywords.get(key, default)
    assert LIBRARIES[name]["version"] == p.version
    # resolve() fills every keyword from the file
    options, overrides, supported = cv.resolve(name, dict.fromkeys(CONVENTION_KEYWORDS))
    assert supported == cv.SUPPORTED[name]
    assert overrides == dict(p.metric_keywords)
    for key, value in p.keywords.items():
        assert options[key] == value


@pytest.mark.parametrize("name", RANKING)
def test_every_supported_metric_evaluates(name):
    """Each metric the file declares runs under the preset, with its cutoff rule."""
    rng = np.random.default_rng(0)
    y_true = (rng.random((6, 12)) < 0.3).astype(int)
    y_true[:, 0] = 1
    y_score = rng.random((6, 12))
    for metric, rule in cv.SUPPORTED[name].items():
        asked = metric if rule == "none" else f"{metric}@5"
        value = rm.evaluate(y_true, y_score, [asked], convention=name)[asked]
        assert np.isfinite(value), (name, asked)
        if rule == "k":
            with pytest.raises(ValueError, match="needs a cutoff"):
                cv.check_supported(name, metric, None)
        if rule == "none":
            with pytest.raises(ValueError, match="has no cutoff"):
                cv.check_supported(name, metric, 5)
    row = cv.describe().loc[name]
    assert row["library"] == PROVIDERS[name].library


@pytest.mark.parametrize("name", BEYOND)
def test_beyond_presets_name_registered_metrics(name):
    p = PROVIDERS[name]
    assert rm.beyond.PRESETS[name] == dict(p.beyond)
    for metric, keywords in p.beyond.items():
        spec = _registry.get(metric)
        assert spec.kind in ("list", "catalogue"), (name, metric)

        params = inspect.signature(spec.function).parameters
        assert "convention" in params
        assert set(keywords) <= set(params), (name, metric, set(keywords) - set(params))
    table = rm.beyond.describe(name)
    assert list(table.index.get_level_values("metric")) == list(p.beyond)


def test_beyond_order_follows_the_providers():
    assert list(BEYOND_PRESETS) == [n for n in PROVIDERS if n in BEYOND_PRESETS]


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("keywords", {"gains": "binary"}, "unknown keywords"),
        ("metrics", {"ndcg": "always"}, "cutoff rules"),
        ("metric_keywords", {"ndcg": {"gain": "binary"}}, "overrides metrics it lacks"),
        ("beyond", {"novelty": {"base": 2.0}}, "needs its source"),
    ],
)
def test_provider_record_is_checked(field, value, match):
    with pytest.raises(ValueError, match=match):
        Provider(name="x", order=1, library="X", version="0", **{field: value})


def test_describe_has_one_row_per_ranking_provider():
    table = cv.describe()
    assert list(table.index) == RANKING
    assert isinstance(table, pd.DataFrame)
