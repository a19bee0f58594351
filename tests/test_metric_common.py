"""Every ranking metric of the registry, in every input form and under every preset.

Iterates the registry (``recmetrics/metrics/_registry.py``, kind
``'ranking'``) and the provider files (``recmetrics.conventions.SUPPORTED``),
the way scikit-learn's ``test_common.py`` iterates its metrics: a metric or a
preset added there is tested here with nothing else to add. Each metric is
called at its default keywords, at ``k=None`` and ``k=3`` where it takes a
cutoff. On a seeded input of graded relevance (one user without relevant
items, one user whose items all share one score), without ties and with ties:

* every input form gives the same per-user values (to 1e-12) as the dense
  ``(y_true, y_score)`` matrices: scipy.sparse relevance (``y_score`` is
  always dense), score matrices with a mask (dense and sparse) against data
  frames without the masked items, long data frames (as frames, and as a
  prebuilt Ranking from :func:`recmetrics.from_frames` with grades), a
  prebuilt Ranking from :func:`recmetrics.from_scores`; and, without ties
  only (they hold a strict order), ranked lists with graded dicts and with
  sets (binary), and ``ranks=`` with ``n_items`` (binary);
* ``per_user=True`` gives one value per user, indexed by the user ids for
  data frames (a plain array in user order for matrices), and its mean over
  the users with relevant items is the metric's mean;
* the normalised metrics (``REFERENCE[name].normalised`` in tests/reference.py)
  stay within [0, 1] under every tie policy;

and for every preset, each metric its provider file declares runs through
``rm.evaluate(..., convention=preset)`` on data frames with grades and ties,
with the cutoff rule of the file, and gives a finite value.

What each metric's value should be is checked against the plain reference in
test_ranking_reference.py; here only the agreement of the forms is.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
import reference as ref
import scipy.sparse as sp

import recmetrics as rm
from recmetrics import conventions as cv
from recmetrics.metrics import _registry

TOL = 1e-12
N_USERS, N_ITEMS = 9, 8
USER_IDS = [f"u{u}" for u in range(N_USERS)]  # sorted as the rows
ITEM_IDS = [f"i{j}" for j in range(N_ITEMS)]
TIE_POLICIES = ("expected", "optimistic", "pessimistic", "trec_eval")


def _variants():
    """(metric name, keywords): every registry ranking metric at k=None and k=3 if it has k."""
    out = []
    for name in _registry.ranking_names():
        if _registry.get(name).takes_cutoff:
            out += [(name, {"k": None}), (name, {"k": 3})]
        else:
            out.append((name, {}))
    return out


VARIANTS = _variants()
IDS = [name + ("" if kw.get("k") is None else f"@{kw['k']}") for name, kw in VARIANTS]


def _function(name):
    return _registry.get(name).function


# --------------------------------------------------------------------------
# one seeded problem, as every input form
def _problem(tied):
    rng = np.random.default_rng(25 + tied)
    y_true = rng.integers(1, 4, (N_USERS, N_ITEMS)) * (rng.random((N_USERS, N_ITEMS)) < 0.4)
    y_true[0] = 0  # no relevant item
    for u in range(1, N_USERS):  # every other user has one
        y_true[u, rng.integers(N_ITEMS)] = rng.integers(1, 4)
    if tied:
        y_score = 1.0 + rng.integers(0, 3, (N_USERS, N_ITEMS)) / 2.0
        y_score[2] = 1.5  # every item tied
    else:
        y_score = 1.0 + rng.permutation(N_USERS * N_ITEMS).reshape(N_USERS, N_ITEMS) / 100.0
    mask = rng.random((N_USERS, N_ITEMS)) < 0.25
    mask[:, 0] = False  # every user keeps an item
    return y_true.astype(int), y_score, mask


def _frames(y_true, y_score, keep=None, shuffle=0):
    """Long truth (every judged pair, grade 0 too) and predictions of the kept cells."""
    keep = np.ones(y_true.shape, dtype=bool) if keep is None else keep
    u, j = np.nonzero(keep)
    truth = pd.DataFrame(
        {"user": np.take(USER_IDS, u), "item": np.take(ITEM_IDS, j), "grade": y_true[u, j]}
    )
    predictions = pd.DataFrame(
        {"user": np.take(USER_IDS, u), "item": np.take(ITEM_IDS, j), "score": y_score[u, j]}
    )
    order = np.random.default_rng(shuffle).permutation(len(truth))  # row order is no order
    return truth.iloc[order], predictions.iloc[order[::-1]]


def _lists(y_true, y_score):
    """Each user's items by decreasing score (scores without ties) and relevant items."""
    recommended = [[ITEM_IDS[j] for j in np.argsort(-row, kind="stable")] for row in y_score]
    graded = [{ITEM_IDS[j]: int(g) for j, g in enumerate(row) if g > 0} for row in y_true]
    return recommended, graded


def _ranks(y_true, y_score):
    """The 1-based ranks of each user's relevant items (scores without ties)."""
    out = []
    for t, row in zip(y_true, y_score, strict=True):
        position = np.empty(N_ITEMS, dtype=int)
        position[np.argsort(-row, kind="stable")] = np.arange(1, N_ITEMS + 1)
        out.append(position[t > 0])
    return out


def _forms(y_true, y_score, mask, tied):
    """Form name -> (how to call the metric, the expected per-user values' input).

    Each value is ``(args, kwargs, base)``: the metric is called as
    ``fn(*args, per_user=True, **kwargs, **keywords)`` and compared with the
    dense matrices of ``base`` (``'graded'``, ``'binary'`` or ``'masked'``).
    """
    truth, predictions = _frames(y_true, y_score)
    binary = (y_true > 0).astype(int)
    forms = {
        "sparse relevance": ((sp.csr_array(y_true), y_score), {}, "graded"),
        "Ranking from scores": ((rm.from_scores(y_true, y_score),), {}, "graded"),
        "Ranking from frames with grades": (
            (rm.from_frames(truth, predictions, relevance="grade"),),
            {},
            "graded",
        ),
        # without relevance=, every row of truth is relevant: the relevant rows only
        "data frames": ((truth[truth["grade"] > 0], predictions), {}, "binary"),
        "mask": ((y_true, y_score), {"mask": mask}, "masked"),
        "sparse mask": ((sp.csr_array(y_true), y_score), {"mask": sp.csr_array(mask)}, "masked"),
    }
    if not tied:  # ranked lists and ranks hold one order
        recommended, graded = _lists(y_true, y_score)
        sets = [set(g) for g in graded]
        forms["ranked lists with graded dicts"] = ((recommended, graded), {}, "graded")
        forms["ranked lists with sets"] = ((recommended, sets), {}, "binary")
        forms["ranks"] = ((), {"ranks": _ranks(y_true, y_score), "n_items": N_ITEMS}, "binary")
    return forms, {"graded": y_true, "binary": binary}


def _values(got):
    if isinstance(got, pd.Series):
        return got.to_numpy(dtype=float)
    return np.asarray(got, dtype=float)


# --------------------------------------------------------------------------
def test_every_registry_ranking_metric_is_described():
    """REFERENCE (tests/reference.py) says which properties each metric has."""
    missing = [name for name in _registry.ranking_names() if name not in ref.REFERENCE]
    assert not missing, (
        f"add {missing} to REFERENCE in tests/reference.py (the reference function, and "
        "whether the metric is normalised, monotone, defined on graded relevance)"
    )


@pytest.mark.parametrize("tied", [False, True], ids=["no ties", "ties"])
@pytest.mark.parametrize(("name", "kw"), VARIANTS, ids=IDS)
def test_every_form_gives_the_same_per_user_values(name, kw, tied):
    fn = _function(name)
    y_true, y_score, mask = _problem(tied)
    forms, dense = _forms(y_true, y_score, mask, tied)
    expected = {
        base: _values(fn(matrix, y_score, per_user=True, **kw)) for base, matrix in dense.items()
    }
    # masked items are neither ranked nor relevant: the frames without them
    truth, predictions = _frames(y_true, y_score, keep=~mask, shuffle=1)
    expected["masked"] = _values(
        fn(rm.from_frames(truth, predictions, relevance="grade"), per_user=True, **kw)
    )
    reference = ref.REFERENCE[name]
    if reference.needs_relevant:
        assert np.isnan(expected["graded"][0])  # no relevant item: skipped
    for form, (args, kwargs, base) in forms.items():
        if "ranks" in kwargs and "ranks" not in inspect.signature(fn).parameters:
            continue
        if form == "data frames" and reference.reads_judgments:
            continue  # truth without its grade-0 rows leaves items unjudged: other values
        needs_n = "n_items" in _registry.get(name).needs
        extra = {"n_items": N_ITEMS} if form.startswith("ranked lists") and needs_n else {}
        got = fn(*args, per_user=True, **kwargs, **kw, **extra)
        want = expected[base]
        if form == "data frames":  # users without relevant items are not in truth
            want = want[np.flatnonzero(dense["binary"].any(axis=1))]
        np.testing.assert_allclose(
            _values(got), want, rtol=0, atol=TOL, err_msg=f"{name} {kw} {form}"
        )


@pytest.mark.parametrize(("name", "kw"), VARIANTS, ids=IDS)
def test_per_user_has_one_value_per_user_and_its_index(name, kw):
    fn = _function(name)
    y_true, y_score, _ = _problem(True)
    per_user = fn(y_true, y_score, per_user=True, **kw)
    assert isinstance(per_user, np.ndarray) and per_user.shape == (N_USERS,)
    defined = ~np.isnan(per_user)
    aggregate = _registry.get(name).aggregate  # the mean, or trec_eval's sum or geometric mean
    summary = ref.summary(per_user[defined], aggregate)
    assert fn(y_true, y_score, **kw) == pytest.approx(summary, abs=TOL)
    truth, predictions = _frames(y_true, y_score, shuffle=2)
    series = fn(rm.from_frames(truth, predictions, relevance="grade"), per_user=True, **kw)
    assert isinstance(series, pd.Series)
    assert list(series.index) == USER_IDS
    np.testing.assert_allclose(series.to_numpy(), per_user, rtol=0, atol=TOL)
    # one user: a float
    assert isinstance(fn(y_true[1], y_score[1], **kw), float)


@pytest.mark.parametrize("tied", [False, True], ids=["no ties", "ties"])
@pytest.mark.parametrize(("name", "kw"), VARIANTS, ids=IDS)
def test_normalised_metrics_lie_in_0_1(name, kw, tied):
    reference = ref.REFERENCE.get(name)
    if reference is None or not reference.normalised:
        pytest.skip(f"{name} is not normalised (or has no REFERENCE entry)")
    fn = _function(name)
    y_true, y_score, mask = _problem(tied)
    for ties in TIE_POLICIES:
        for m in (None, mask):
            got = fn(y_true, y_score, mask=m, ties=ties, per_user=True, **kw)
            got = got[~np.isnan(got)]
            assert got.size and np.all((got >= 0) & (got <= 1)), (name, kw, ties, got)


# --------------------------------------------------------------------------
# every preset x every metric its provider file declares
PROVIDED = [
    (preset, metric, rule)
    for preset, metrics in cv.SUPPORTED.items()
    for metric, rule in metrics.items()
]


@pytest.mark.parametrize(
    ("preset", "metric", "rule"), PROVIDED, ids=[f"{p}-{m}" for p, m, _ in PROVIDED]
)
def test_every_provided_metric_evaluates_under_its_preset(preset, metric, rule):
    y_true, y_score, _ = _problem(True)
    truth, predictions = _frames(y_true, y_score)
    names = []
    if rule in ("k", "both"):
        names.append(f"{metric}@3")
    if rule in ("none", "both"):
        names.append(metric)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # presets warn about what they leave out
        got = rm.evaluate(truth, predictions, names, relevance="grade", convention=preset)
    assert list(got.index) == names
    assert np.all(np.isfinite(got.to_numpy(dtype=float))), (preset, got)
