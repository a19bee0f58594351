"""Every ranking metric of the registry, under every tie policy and option, by enumeration.

The tie policies are checked against brute force, with nothing but the
package's own untied computation (itself checked against the plain reference
in test_ranking_reference.py):

* ``ties='expected'`` must equal the mean of the metric over every order of
  the tied items (each order turned into distinct scores that keep it);
* ``'optimistic'``, ``'pessimistic'`` and ``'trec_eval'`` must equal the
  metric of the one order they prescribe (higher gain first, lower gain
  first, higher column first).

The metric names come from the registry and the options from the choices the
package declares, so a metric or an option added later is checked too.
``ap_ties='group_end'`` is scikit-learn's rule for tied groups, not an
expectation over orders: it is compared with scikit-learn in
test_crosslib.py, not here.
"""

from __future__ import annotations

import itertools
import math
import zlib

import numpy as np
import pytest

import recmetrics as rm
from recmetrics.conventions import PRESETS
from recmetrics.metrics import _registry
from recmetrics.metrics.ndcg import DISCOUNTS, GAINS, IDCG_MODES
from recmetrics.metrics.rbp import RBP_GAINS, RESIDUALS
from recmetrics.metrics.topn._common import AP_DENOMINATORS, RECALL_DENOMINATORS, SHORT_LISTS

RANKING_METRICS = _registry.ranking_names()
CHOICES = {
    "ap_denominator": AP_DENOMINATORS,
    "ap_ties": ("policy",),
    "recall_denominator": RECALL_DENOMINATORS,
    "gain": GAINS,
    "idcg": IDCG_MODES,
    "log_base": (2.0, math.e, 10.0),
    "discount": DISCOUNTS,
    "short_lists": SHORT_LISTS,
    "rbp_gain": RBP_GAINS,
    "rbp_residual_definition": RESIDUALS,
    "interpolation": ("expected",),  # 'linear' (sklearn's line) is no expectation
}
CUTOFFS = (None, 1, 2, 3, 5)
TOL = 1e-12


def _variants():
    """(metric, cutoff, keywords): each option of each metric, the others at their default."""
    out = []
    for name in RANKING_METRICS:
        spec = _registry.get(name)
        assert set(spec.keywords) <= set(CHOICES), f"declare the choices of {spec.keywords}"
        options = [{}] + [{key: v} for key in spec.keywords for v in CHOICES[key]]
        # and the combination of each preset (restricted to the metric's keywords)
        for preset in PRESETS.values():
            kw = {key: preset[key] for key in spec.keywords}
            if kw.get("ap_ties") == "group_end":  # not an expectation (see above)
                kw["ap_ties"] = "policy"
            options.append(kw)
        seen = []
        for kw in options:
            if kw not in seen:
                seen.append(kw)
        for k in CUTOFFS if spec.takes_cutoff else (None,):
            # idcg='k' needs a cutoff
            out += [(name, k, kw) for kw in seen if k is not None or kw.get("idcg") != "k"]
    return out


def _variant_id(name, k, kw):
    opts = ",".join(f"{a}={b:.3g}" if isinstance(b, float) else f"{a}={b}" for a, b in kw.items())
    return f"{name}{'' if k is None else f'@{k}'}[{opts}]"


def _rows(seed, n_rows=5, n_items=6):
    """Graded rows with few score levels (many ties), one row without relevant items."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, (n_rows, n_items)) * (rng.random((n_rows, n_items)) < 0.5)
    y_true[0] = 0
    y_true[1, :2] = (1, 2)
    y_score = rng.integers(-1, 3, (n_rows, n_items)).astype(np.float64)
    y_score[2] = 0.0  # all tied, at zero (retrieve_nonpositive=False retrieves none)
    mask = rng.random((n_rows, n_items)) < 0.15
    mask[:, 0] = False
    return y_true, y_score, mask


def _untied(row, order):
    """Distinct scores that keep the scores' order and place tied items as in ``order``.

    Each item is lowered by a fraction of the gap between score levels, so no
    score crosses another level, nor zero from above or below.
    """
    out = row.copy()
    step = 1.0 / (len(row) + 1)
    for level in np.unique(row):
        members = [j for j in order if row[j] == level]
        for place, j in enumerate(members):
            out[j] = level - step * place
    return out


def _orders(row):
    """Every order of the items consistent with the scores (all tie orders)."""
    groups = [np.flatnonzero(row == v).tolist() for v in sorted(set(row.tolist()), reverse=True)]
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [j for part in combo for j in part]


def _policy_order(y_true_row, row, ties):
    idx = range(len(row))
    if ties == "optimistic":
        return sorted(idx, key=lambda j: (-row[j], -y_true_row[j], j))
    if ties == "pessimistic":
        return sorted(idx, key=lambda j: (-row[j], y_true_row[j], j))
    return sorted(idx, key=lambda j: (-row[j], -j))  # trec_eval: higher column first


def _metric(y_true, y_score, mask, name, k, kw, ties, retrieve):
    """Per-user values through rm.evaluate (every user counted: no_relevant='zero')."""
    metric = name if k is None else f"{name}@{k}"
    table = rm.evaluate(
        y_true,
        y_score,
        [metric],
        mask=mask,
        ties=ties,
        no_relevant="zero",
        per_user=True,
        retrieve_nonpositive=retrieve,
        **kw,
    )
    return table[metric].to_numpy()


@pytest.mark.parametrize(
    "with_mask,retrieve", [(False, True), (True, False)], ids=["nomask-all", "mask-positive"]
)
@pytest.mark.parametrize("name,k,kw", _variants(), ids=[_variant_id(*v) for v in _variants()])
def test_every_tie_policy_equals_enumeration(name, k, kw, with_mask, retrieve):
    y_true, y_score, mask = _rows(zlib.crc32(f"{name}@{k}".encode()))
    if kw.get("idcg") == "k":  # defined for binary relevance only
        y_true = (y_true > 0).astype(int)
    if not with_mask:
        mask = None
    n = y_true.shape[0]
    # expected: the mean over every tie order, all users' orders in one call
    orders = [list(_orders(y_score[u])) for u in range(n)]
    owner = np.repeat(np.arange(n), [len(o) for o in orders])
    untied = np.array([_untied(y_score[u], o) for u in range(n) for o in orders[u]])
    each = _metric(
        y_true[owner],
        untied,
        None if mask is None else mask[owner],
        name,
        k,
        kw,
        "optimistic",
        retrieve,
    )
    want = np.bincount(owner, weights=each) / np.bincount(owner)
    got = _metric(y_true, y_score, mask, name, k, kw, "expected", retrieve)
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL, err_msg="expected")
    # the deterministic policies: the metric of the one order each prescribes
    for ties in ("optimistic", "pessimistic", "trec_eval"):
        one = np.array(
            [_untied(y_score[u], _policy_order(y_true[u], y_score[u], ties)) for u in range(n)]
        )
        want = _metric(y_true, one, mask, name, k, kw, "optimistic", retrieve)
        got = _metric(y_true, y_score, mask, name, k, kw, ties, retrieve)
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL, err_msg=ties)


def test_the_variants_cover_every_ranking_metric_and_option():
    variants = _variants()
    assert {name for name, _, _ in variants} == set(RANKING_METRICS)
    for key, values in CHOICES.items():
        seen = {kw[key] for _, _, kw in variants if key in kw}
        assert seen == set(values), key
