"""recmetrics' ranking metrics against the plain reference (tests/reference.py).

Every public ranking metric is compared, per user and to 1e-9, with a loop
written straight from its formula, on many random inputs (seeded NumPy and
Hypothesis), binary and graded, with and without tied scores, under every tie
policy and in every input form of the API: one list of gains, a ranked list
with a set or graded dict of relevant items (single and batch), score
matrices (dense and sparse, with a mask) and ranks of held-out items.
``ties="expected"`` is checked against a literal enumeration of all orders of
the tied items. Then come the properties every metric must have (bounds,
ideal ranking, relabelling and input-order invariance, monotonicity,
optimistic >= expected >= pessimistic, determinism).

AP with ``ap_denominator="hits"`` under ``ties="expected"`` is the exact
E[AP] over the tie orders too (not the ratio of the expectations).

The variants are the hand-written keyword variants of ``build_specs`` plus,
from the registry (``recmetrics/metrics/_registry.py``), every ranking metric
at its default keywords, at the cutoffs None, 1, 3 and 10 where it takes one,
against ``REFERENCE[name]`` of tests/reference.py: a metric added to the
registry is compared here as soon as its reference is added (a test fails
until it is). AUC cannot be called on ranked lists without the catalogue
size; its list form is checked by ``test_list_form_auc_with_catalogue``.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
import reference as ref
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import recmetrics as rm
from recmetrics.metrics import _registry

TOL = 1e-9
HSET = settings(max_examples=30, deadline=None)


def api(name):
    """recmetrics.<name> (an AttributeError, i.e. a failure, if it is missing).

    The reference counts a user without relevant items (or, for AUC, without
    a pair) as 0, so the package is called with ``no_relevant="zero"`` unless
    a test says otherwise (the package's default is ``"skip"``).
    """
    fn = getattr(rm, name)
    if "no_relevant" not in inspect.signature(fn).parameters:
        return fn

    def call(*args, **kw):
        kw.setdefault("no_relevant", "zero")
        return fn(*args, **kw)

    return call


# --------------------------------------------------------------------------
# The metric variants under test: (recmetrics name, recmetrics keywords,
# reference function, reference keywords, defined for graded relevance)
class Spec:
    def __init__(
        self,
        name,
        ref_fn,
        graded=True,
        normalised=True,
        monotone=True,
        *,
        fn=None,
        ref_kw=None,
        lists=True,
        **kw,
    ):
        self.name, self.ref_fn, self.kw = name, ref_fn, kw
        self.graded, self.normalised, self.monotone = graded, normalised, monotone
        # fn: the registry's function (None: recmetrics.<name>); lists: whether
        # it can be called on ranked lists without a catalogue size
        self.fn, self.lists = fn, lists
        self.aggregate = "mean"  # the summary over users (a registry spec: its reference's)
        if ref_kw is None:
            ref_kw = {("idcg_form" if key == "idcg" else key): v for key, v in kw.items()}
        self.ref_kw = ref_kw

    def __repr__(self):
        if self.fn is not None:  # a registry name at its default keywords
            k = self.kw.get("k")
            return f"{self.name}{'' if k is None else f'@{k}'}[registry]"
        args = ",".join(f"{key}={v}" for key, v in self.kw.items())
        return f"{self.name}({args})"

    def rm(self, *args, **kw):
        # the reference counts a user without relevant items as 0
        kw.setdefault("no_relevant", "zero")
        fn = api(self.name) if self.fn is None else self.fn
        return fn(*args, **self.kw, **kw)

    def ref(self, gains, rel_gains=None):
        return self.ref_fn(list(gains), rel_gains=rel_gains, **self.ref_kw)


def build_specs():
    specs = []
    for k in (1, 3, 10):
        specs += [
            Spec("precision", ref.precision, k=k),
            Spec("recall", ref.recall, k=k),
            Spec("f_score", ref.f_score, k=k, beta=1.0),
            Spec("hit_ratio", ref.hit_ratio, k=k),
            Spec("arhr", ref.arhr, k=k, normalised=False),
        ]
    specs += [
        Spec("precision", ref.precision, k=None),
        Spec("f_score", ref.f_score, k=3, beta=0.5),
        Spec("f_score", ref.f_score, k=2, beta=2.0),
        Spec("f1", ref.f_score, k=3),
        Spec("mrr", ref.reciprocal_rank, k=3),
    ]
    for k in (None, 1, 3):
        specs.append(Spec("reciprocal_rank", ref.reciprocal_rank, k=k))
        for den in ref.AP_DENOMINATORS:
            # AP over the hits is not monotone: a new hit with a low precision
            # lowers the mean (e.g. [1, 0, 0, 1] -> [1, 0, 1, 0] at k=3).
            specs.append(
                Spec(
                    "average_precision",
                    ref.average_precision,
                    k=k,
                    ap_denominator=den,
                    monotone=(den != "hits"),
                )
            )
        for gain in ("linear", "exponential"):
            specs.append(Spec("ndcg", ref.ndcg, k=k, gain=gain))
            specs.append(Spec("dcg", ref.dcg_rel, k=k, gain=gain, normalised=False))
            specs.append(Spec("idcg", ref.idcg, k=k, gain=gain, normalised=False))
    specs += [
        Spec("average_precision", ref.average_precision, k=5, ap_denominator="min"),
        Spec("average_precision", ref.average_precision, k=5, ap_denominator="k"),
        Spec("cg", ref.cg_rel, k=None, normalised=False),
        Spec("cg", ref.cg_rel, k=3, gain="exponential", normalised=False),
        Spec("dcg", ref.dcg_rel, k=3, log_base=10, normalised=False),
        Spec("dcg", ref.dcg_rel, k=None, gain="exponential", log_base=math.e, normalised=False),
        Spec("ndcg", ref.ndcg, k=5, log_base=3),
        Spec("ndcg", ref.ndcg, k=1, idcg="k", graded=False),
        Spec("ndcg", ref.ndcg, k=3, idcg="k", graded=False),
        Spec("idcg", ref.idcg, k=3, idcg="k", graded=False, normalised=False),
    ]
    return specs


# every ranking metric of the registry at its default keywords, at these
# cutoffs where it takes one, against tests/reference.py's REFERENCE[name]
REGISTRY_CUTOFFS = (None, 1, 3, 10)


def registry_specs():
    specs = []
    for name in _registry.ranking_names():
        metric, reference = _registry.get(name), ref.REFERENCE.get(name)
        if reference is None:  # test_every_registry_ranking_metric_has_a_reference fails
            continue
        for k in REGISTRY_CUTOFFS if metric.takes_cutoff else (None,):
            kw = {"k": k} if metric.takes_cutoff else {}
            spec = Spec(
                name,
                reference.fn,
                graded=reference.graded,
                normalised=reference.normalised,
                monotone=reference.monotone,
                fn=metric.function,
                ref_kw={**reference.keywords, **kw},
                lists=reference.lists,
                **kw,
            )
            spec.needs_relevant = reference.needs_relevant
            spec.aggregate = reference.aggregate
            specs.append(spec)
    return specs


SPECS = build_specs() + registry_specs()
GRADED_SPECS = [s for s in SPECS if s.graded]


def specs_for(graded):
    return GRADED_SPECS if graded else SPECS


def list_specs(graded):
    """The specs callable on ranked lists without a catalogue size (not AUC: see below)."""
    return [s for s in specs_for(graded) if s.lists]


# --------------------------------------------------------------------------
# reference values for score rows, with the tie orders enumerated once per row
_ORDERS = {}


def _orders(y_true_row, y_score_row, mask_row):
    key = (tuple(y_true_row), tuple(y_score_row), None if mask_row is None else tuple(mask_row))
    if key not in _ORDERS:
        _ORDERS[key] = list(ref.tie_orderings(list(y_true_row), list(y_score_row), mask_row))
    return _ORDERS[key]


def ref_row(spec, y_true_row, y_score_row, ties, mask_row=None):
    """Reference value of one score row; equals ref.from_scores(...)."""
    n = len(y_true_row)
    rel = [
        y_true_row[j]
        for j in range(n)
        if y_true_row[j] > 0 and (mask_row is None or not mask_row[j])
    ]
    if ties == "expected":
        orders = _orders(y_true_row, y_score_row, mask_row)
        return sum(spec.ref(seq, rel) for seq in orders) / len(orders)
    order = ref.order_from_scores(list(y_true_row), list(y_score_row), ties, mask_row)
    return spec.ref([y_true_row[j] for j in order], rel)


def ref_matrix(spec, y_true, y_score, ties, mask=None):
    return np.array(
        [
            ref_row(
                spec,
                list(y_true[u]),
                list(y_score[u]),
                ties,
                None if mask is None else list(mask[u]),
            )
            for u in range(len(y_true))
        ]
    )


def ref_auc_matrix(y_true, y_score, ties, mask=None):
    """Per-user AUC of the reference; 0 where undefined (one class only)."""
    out = []
    for u in range(len(y_true)):
        m = None if mask is None else list(mask[u])
        out.append(ref.from_scores(ref.auc_rel, list(y_true[u]), list(y_score[u]), ties, m))
    return np.array(out)


def random_rows(rng, n_users, n_items, *, graded):
    """Rows mixing the cases: no ties, few distinct scores, all tied; sparse and dense relevance."""
    top = 4 if graded else 2
    density = rng.choice(
        [0.0, 0.15, 0.4, 0.7, 1.0], size=(n_users, 1), p=[0.1, 0.25, 0.3, 0.25, 0.1]
    )
    y_true = rng.integers(1, top, (n_users, n_items)) * (rng.random((n_users, n_items)) < density)
    n_values = rng.choice([0, 1, 2, 3], size=(n_users, 1))  # 0 = continuous scores
    tied = rng.integers(0, 3, (n_users, n_items)) % np.maximum(n_values, 1) / 2.0
    y_score = np.where(n_values == 0, rng.random((n_users, n_items)), tied)
    return y_true.astype(int), y_score


def assert_close(got, expected, what):
    np.testing.assert_allclose(
        np.asarray(got, dtype=float),
        np.asarray(expected, dtype=float),
        rtol=0,
        atol=TOL,
        err_msg=what,
    )


def first_bad(spec, y_true, y_score, ties, got, expected, mask=None):
    """A readable message naming the first disagreeing user ('' if none)."""
    got, expected = np.asarray(got, float), np.asarray(expected, float)
    bad = np.flatnonzero(~np.isclose(got, expected, rtol=0, atol=TOL))
    if bad.size == 0:
        return ""
    u = bad[0]
    extra = "" if mask is None else f" mask={np.asarray(mask[u]).astype(int).tolist()}"
    return (
        f"{spec} ties={ties}: {bad.size} users differ; user {u}: "
        f"y_true={np.asarray(y_true[u]).tolist()} "
        f"y_score={np.asarray(y_score[u]).tolist()}{extra}: expected {expected[u]!r}, "
        f"got {got[u]!r}"
    )


# ==========================================================================
# the registry and the reference
def test_every_registry_ranking_metric_has_a_reference():
    ranking = _registry.ranking_names()
    missing = [name for name in ranking if name not in ref.REFERENCE]
    assert not missing, (
        f"the registry's ranking metric(s) {missing} have no reference: write the metric as a "
        "plain loop from its formula in tests/reference.py and add it to REFERENCE (how to "
        "call it at the package's default keywords)"
    )
    stray = sorted(set(ref.REFERENCE) - set(ranking))
    assert not stray, f"REFERENCE names {stray}, which are no ranking metrics of the registry"
    assert {s.name for s in SPECS if s.fn is not None} == set(ranking)


@pytest.mark.parametrize("name", _registry.ranking_names())
def test_reference_keywords_are_the_function_defaults(name):
    """REFERENCE[name].keywords reproduce the metric function's own defaults."""
    params = inspect.signature(_registry.get(name).function).parameters
    for key, value in ref.REFERENCE.get(name, ref.Reference(None)).keywords.items():
        key = {"idcg_form": "idcg"}.get(key, key)
        assert params[key].default == value, (name, key)


# ==========================================================================
# the reference itself: hand-computed values
def test_reference_hand_values():
    g = [3, 2, 3, 0, 1, 2]
    assert ref.dcg(g) == pytest.approx(6.861, abs=1e-3)  # Wikipedia's example
    assert ref.idcg(g) == pytest.approx(7.141, abs=1e-3)
    assert ref.ndcg(g) == pytest.approx(0.961, abs=1e-3)
    assert ref.average_precision([1, 1, 0, 1], rel_gains=[1, 1, 1]) == pytest.approx(
        (1 + 1 + 3 / 4) / 3
    )
    assert ref.average_precision([1, 0, 0, 1], k=3, ap_denominator="hits") == 1.0
    assert ref.average_precision([0, 1, 0, 1], k=3, ap_denominator="k") == pytest.approx(0.5 / 3)
    assert ref.average_precision(
        [1, 0, 0], k=3, ap_denominator="min", rel_gains=[1, 1, 1, 1]
    ) == pytest.approx(1 / 3)
    assert ref.reciprocal_rank([0, 0, 1]) == pytest.approx(1 / 3)
    assert ref.reciprocal_rank([0, 0, 1], k=2) == 0.0
    assert ref.precision([1, 0], k=5) == pytest.approx(1 / 5)
    assert ref.f_score([1, 0, 1, 0, 0, 1], k=2, beta=2) == pytest.approx(
        5 * 0.5 / 3 / (4 * 0.5 + 1 / 3)
    )
    assert ref.arhr([1, 0, 1, 0], k=4) == pytest.approx(1 + 1 / 3)
    assert ref.idcg([1, 0], k=3, idcg_form="k") == pytest.approx(1 + 1 / math.log2(3) + 0.5)
    assert ref.auc([1, 0, 1, 0]) == pytest.approx(0.75)
    # expected over ties: relevant item tied with 3 others at the top -> mean(1, 1/2, 1/3, 1/4)
    assert ref.from_scores(
        ref.reciprocal_rank, [1, 0, 0, 0], [1.0] * 4, "expected"
    ) == pytest.approx((1 + 1 / 2 + 1 / 3 + 1 / 4) / 4)
    assert ref.from_scores(
        ref.reciprocal_rank, [0, 1, 0, 0], [1.0] * 4, "trec_eval"
    ) == pytest.approx(1 / 3)  # column order 3, 2, 1, 0
    assert ref.from_scores(ref.precision, [1, 1, 0], [1.0] * 3, "expected", k=1) == pytest.approx(
        2 / 3
    )


def test_reference_expected_enumerates_every_item_permutation():
    """Mean over distinct gain arrangements == mean over all item permutations."""
    import itertools

    rng = np.random.default_rng(0)
    for _ in range(30):
        n = int(rng.integers(1, 7))
        yt = list(rng.integers(0, 3, n))
        ys = list(rng.integers(0, 2, n) / 1.0)
        groups = [[j for j in range(n) if ys[j] == v] for v in sorted(set(ys), reverse=True)]
        vals = []
        for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
            seq = [yt[j] for part in combo for j in part]
            vals.append(ref.average_precision(seq, k=3, rel_gains=[g for g in yt if g > 0]))
        assert ref.from_scores(ref.average_precision, yt, ys, "expected", k=3) == pytest.approx(
            np.mean(vals), abs=1e-12
        )


# ==========================================================================
# form (a): one ranked list of gains
@pytest.mark.parametrize("graded", [False, True])
def test_gains_form(graded):
    rng = np.random.default_rng(1 + graded)
    lists = [
        (rng.integers(1, 4 if graded else 2, n) * (rng.random(n) < p)).tolist()
        for n, p in zip(rng.integers(1, 12, 25), rng.choice([0.2, 0.5, 0.9], 25), strict=False)
    ]
    lists += [[0], [1], [0, 0, 0], [2, 2, 2, 2] if graded else [1, 1, 1, 1]]
    for gains in lists:
        for spec in specs_for(graded):
            got = spec.rm(gains)
            assert isinstance(got, float), spec
            assert got == pytest.approx(spec.ref(gains), abs=TOL), f"{spec} gains={gains}"
        # AUC: the list is the whole catalogue
        got = api("auc")(gains)
        has_both = 0 < sum(g > 0 for g in gains) < len(gains)
        assert got == pytest.approx(ref.auc(gains) if has_both else 0.0, abs=TOL), gains


def test_teaching_example():
    g = [3, 2, 3, 0, 1, 2]
    assert api("ndcg")(g) == pytest.approx(ref.ndcg(g), abs=TOL)
    assert api("ndcg")(g) == pytest.approx(0.961, abs=1e-3)
    assert api("dcg")(g, k=3) == pytest.approx(3 + 2 / math.log2(3) + 3 / 2, abs=TOL)
    assert api("precision")([1, 0, 1, 0], k=2) == 0.5


# ==========================================================================
# form (b): ranked lists of ids with relevant sets / graded dicts
CATALOGUE = [f"i{j}" for j in range(12)]


def random_list_user(rng, graded):
    n_list = int(rng.integers(1, 9))
    rec = [str(x) for x in rng.choice(CATALOGUE, size=n_list, replace=False)]
    n_rel = int(rng.integers(0, 6))
    rel_items = [str(x) for x in rng.choice(CATALOGUE, size=n_rel, replace=False)]
    if graded:
        relevant = {item: int(rng.integers(0, 4)) for item in rel_items}  # grade 0 allowed
    else:
        relevant = set(rel_items)
    return rec, relevant


@pytest.mark.parametrize("graded", [False, True])
def test_list_form_single_user(graded):
    rng = np.random.default_rng(3 + graded)
    for _ in range(15):
        rec, relevant = random_list_user(rng, graded)
        gains, rel_gains = ref.gains_from_list(rec, relevant)
        for spec in list_specs(graded):
            got = spec.rm(rec, relevant)
            assert isinstance(got, float), spec
            assert got == pytest.approx(spec.ref(gains, rel_gains), abs=TOL), (
                f"{spec} recommended={rec} relevant={relevant}"
            )


@pytest.mark.parametrize("graded", [False, True])
def test_list_form_batch(graded):
    rng = np.random.default_rng(5 + graded)
    users = [random_list_user(rng, graded) for _ in range(30)]
    users.append((["i0", "i1"], {"i0": 0} if graded else set()))  # no relevant item
    users.append((["i0"], {"i5": 2} if graded else {"i5"}))  # relevant but unlisted
    recs = [u[0] for u in users]
    rels = [u[1] for u in users]
    for spec in list_specs(graded):
        expected = [spec.ref(*ref.gains_from_list(r, s)) for r, s in users]
        got = spec.rm(recs, rels, per_user=True)
        assert_close(got, expected, f"{spec} recs={recs} rels={rels}")
        assert spec.rm(recs, rels) == pytest.approx(ref.summary(expected, spec.aggregate), abs=TOL)


def test_list_form_auc_with_catalogue():
    """Unlisted items of the catalogue are tied below the list (ties count 1/2)."""
    rng = np.random.default_rng(7)
    users, n_items, expected = [], [], []
    for _ in range(40):
        rec, relevant = random_list_user(rng, graded=False)
        n = len(set(rec) | set(relevant)) + int(rng.integers(0, 4))
        yt, ys = ref.list_as_score_row(rec, relevant, n)
        e = ref.auc_mann_whitney(yt, ys)
        if n <= 8:  # the enumeration of the tied unlisted items agrees with the 1/2 rule
            assert ref.from_scores(ref.auc_rel, yt, ys, "expected") == pytest.approx(e)
        users.append((rec, relevant))
        n_items.append(n)
        expected.append(e)
    got = api("auc")([u[0] for u in users], [u[1] for u in users], n_items=n_items, per_user=True)
    msg = first_bad(
        "auc", [u[0] for u in users], [sorted(u[1]) for u in users], "lists", got, expected
    )
    assert not msg, msg


def test_list_form_relevant_order_does_not_matter():
    """The order of a dict, or of a set of relevant ids, is irrelevant."""
    rng = np.random.default_rng(8)
    for _ in range(10):
        rec, relevant = random_list_user(rng, graded=True)
        items = list(relevant.items())
        shuffled = dict(items[i] for i in rng.permutation(len(items)))
        ids = [i for i, g in items if g > 0]
        for spec in [s for s in SPECS if s.lists][::4]:
            if spec.graded:
                assert spec.rm(rec, shuffled) == pytest.approx(spec.rm(rec, relevant), abs=TOL)
            as_set = spec.rm(rec, set(ids))
            assert spec.rm(rec, frozenset(ids[::-1])) == pytest.approx(as_set, abs=TOL), spec
            assert spec.rm(rec, dict.fromkeys(ids[::-1], 1)) == pytest.approx(as_set, abs=TOL), spec


# ==========================================================================
# form (c): score matrices, every tie policy
@pytest.mark.parametrize("graded", [False, True])
def test_score_form_every_policy(graded):
    """Dense y_true, 7-8 items, rows with and without ties, vs the reference."""
    rng = np.random.default_rng(10 + graded)
    # (graded rows of 8 tied items have up to 2520 distinct orders: keep 7)
    y_true, y_score = random_rows(rng, 50, 7 if graded else 8, graded=graded)
    for ties in ref.TIE_POLICIES:
        for spec in specs_for(graded):
            expected = ref_matrix(spec, y_true, y_score, ties)
            got = spec.rm(y_true, y_score, ties=ties, per_user=True)
            assert got.shape == (len(y_true),)
            msg = first_bad(spec, y_true, y_score, ties, got, expected)
            assert not msg, msg
        # the mean over users: users without relevant items count as 0
        spec = Spec("ndcg", ref.ndcg, k=3)
        assert spec.rm(y_true, y_score, ties=ties) == pytest.approx(
            ref_matrix(spec, y_true, y_score, ties).mean(), abs=TOL
        )


@pytest.mark.parametrize("graded", [False, True])
def test_score_form_sparse_and_mask(graded):
    """Sparse y_true and a sparse mask; the mask gives every user another catalogue size.

    Only non-relevant items are masked here (see the next test for a masked
    relevant item).
    """
    rng = np.random.default_rng(20 + graded)
    y_true, y_score = random_rows(rng, 40, 8, graded=graded)
    n_keep = rng.integers(1, 9, size=(40, 1))
    mask = (np.arange(8)[None, :] >= n_keep) | (rng.random((40, 8)) < 0.2)
    mask &= y_true == 0
    mask[:, 0] = False  # at least one item stays
    yt_sparse, mask_sparse = sp.csr_array(y_true), sp.csr_array(mask)
    for ties in ref.TIE_POLICIES:
        for i, spec in enumerate(specs_for(graded)):
            expected = ref_matrix(spec, y_true, y_score, ties, mask)
            if i % 2:  # alternate dense and sparse inputs
                got = spec.rm(yt_sparse, y_score, mask=mask_sparse, ties=ties, per_user=True)
            else:
                got = spec.rm(y_true, y_score, mask=mask, ties=ties, per_user=True)
            msg = first_bad(spec, y_true, y_score, ties, got, expected, mask)
            assert not msg, msg
        expected = ref_auc_matrix(y_true, y_score, ties, mask)
        got = api("auc")(yt_sparse, y_score, mask=mask_sparse, ties=ties, per_user=True)
        msg = first_bad("auc", y_true, y_score, ties, got, expected, mask)
        assert not msg, msg


def test_score_form_masked_relevant_item_is_neither_ranked_nor_relevant():
    y_true = np.array([[1, 1, 0, 0]])
    y_score = np.array([[0.9, 0.1, 0.5, 0.2]])
    mask = np.array([[True, False, False, False]])
    # remaining ranking: item 2 (0.5), item 3 (0.2), item 1 (0.1, relevant); |R| = 1
    assert api("recall")(y_true, y_score, k=2, mask=mask) == 0.0
    assert api("recall")(y_true, y_score, k=3, mask=mask) == 1.0
    assert api("reciprocal_rank")(y_true, y_score, mask=mask) == pytest.approx(1 / 3)
    assert api("auc")(y_true, y_score, mask=mask) == 0.0  # 1 relevant below 2 others
    assert api("ndcg")(y_true, y_score, mask=mask) == pytest.approx(
        ref.from_scores(
            ref.ndcg,
            [1, 1, 0, 0],
            [0.9, 0.1, 0.5, 0.2],
            "expected",
            mask_row=[True, False, False, False],
        ),
        abs=TOL,
    )


@pytest.mark.parametrize("graded", [False, True])
def test_score_form_auc(graded):
    rng = np.random.default_rng(30 + graded)
    y_true, y_score = random_rows(rng, 60, 6, graded=graded)
    # ties="expected": tied pairs count 1/2 (Mann-Whitney) ...
    mw = np.array([ref.auc_mann_whitney(y_true[u], y_score[u]) for u in range(len(y_true))])
    assert_close(ref_auc_matrix(y_true, y_score, "expected"), mw, "reference")
    for ties in ref.TIE_POLICIES:
        # ... deterministic policies: the AUC of the strict order they produce
        expected = ref_auc_matrix(y_true, y_score, ties)
        got = api("auc")(y_true, y_score, ties=ties, per_user=True)
        msg = first_bad("auc", y_true, y_score, ties, got, expected)
        assert not msg, msg


def test_ranking_object_accepted():
    rng = np.random.default_rng(31)
    y_true, y_score = random_rows(rng, 10, 6, graded=True)
    for ties in ref.TIE_POLICIES:
        r = api("from_scores")(y_true, y_score, ties=ties)
        for spec in GRADED_SPECS[::6]:
            assert_close(
                spec.rm(r, per_user=True),
                spec.rm(y_true, y_score, ties=ties, per_user=True),
                repr(spec),
            )


def test_ap_hits_expected_by_enumeration():
    """AP over the hits under ties="expected" is E[AP], by literal enumeration.

    y_true=[1, 0, 0, 1, 0, 0, 1, 1], all scores tied, k=1: AP@1 over the hits
    is 1 when the top item is relevant, else 0 (no hit), so E[AP] = 4/8 = 0.5
    (the ratio E[sum of P@i] / E[hits] would give 0.5 / 0.5 = 1).
    """
    y_true = np.array([[1, 0, 0, 1, 0, 0, 1, 1]])
    y_score = np.zeros((1, 8))
    assert ref.from_scores(
        ref.average_precision,
        list(y_true[0]),
        list(y_score[0]),
        "expected",
        k=1,
        ap_denominator="hits",
    ) == pytest.approx(0.5)
    got = api("average_precision")(y_true, y_score, k=1, ap_denominator="hits", ties="expected")
    assert got == pytest.approx(0.5, abs=TOL)
    # the example: the torchmetrics preset, two tied items, one relevant
    got = rm.evaluate([[1, 0]], [[0.5, 0.5]], ["map@1"], convention="torchmetrics")
    assert got["map@1"] == pytest.approx(0.5, abs=TOL)


def test_ap_hits_expected_cut_groups_against_enumeration():
    """Tie groups cut by k, with relevant items above, inside and below, by enumeration."""
    rng = np.random.default_rng(7)
    for _ in range(60):
        n = int(rng.integers(3, 9))
        y_true = rng.integers(0, 2, (1, n)) * rng.integers(1, 3, (1, n))
        y_score = rng.integers(0, 3, (1, n)).astype(float)
        for k in (1, 2, 3, 5):
            expected = ref.from_scores(
                ref.average_precision,
                list(y_true[0]),
                list(y_score[0]),
                "expected",
                k=k,
                ap_denominator="hits",
            )
            got = api("average_precision")(y_true, y_score, k=k, ap_denominator="hits")
            assert got == pytest.approx(expected, abs=TOL), (y_true, y_score, k)


# ==========================================================================
# form (d): ranks of held-out items
def test_ranks_form_one_item_per_user():
    rng = np.random.default_rng(40)
    for n_items in (2, 3, 7, 25):
        ranks = rng.integers(1, n_items + 1, 30)
        for spec in SPECS:
            expected = [
                spec.ref([1 if p == r else 0 for p in range(1, n_items + 1)]) for r in ranks
            ]
            got = spec.rm(ranks=ranks, n_items=n_items, per_user=True)
            assert_close(got, expected, f"{spec} ranks={ranks.tolist()} n_items={n_items}")
        got = api("auc")(ranks=ranks, n_items=n_items, per_user=True)
        assert_close(got, (n_items - ranks) / (n_items - 1), f"auc ranks={ranks.tolist()}")
        assert_close(got, [ref.auc_from_ranks([r], n_items) for r in ranks], "auc ref")


def test_ranks_form_several_items_per_user():
    rng = np.random.default_rng(41)
    for n_items in (2, 5, 14):
        ranks = [
            rng.choice(np.arange(1, n_items + 1), int(rng.integers(1, n_items)), replace=False)
            for _ in range(25)
        ]  # in no particular order
        for spec in SPECS:
            expected = [
                spec.ref([1 if p in set(r.tolist()) else 0 for p in range(1, n_items + 1)])
                for r in ranks
            ]
            got = spec.rm(ranks=ranks, n_items=n_items, per_user=True)
            assert_close(got, expected, f"{spec} ranks={[r.tolist() for r in ranks]} n={n_items}")
        got = api("auc")(ranks=ranks, n_items=n_items, per_user=True)
        assert_close(got, [ref.auc_from_ranks(r, n_items) for r in ranks], "auc")


@given(n=st.integers(2, 10_000), data=st.data())
@settings(max_examples=50, deadline=None)
def test_auc_one_relevant_item(n, data):
    r = data.draw(st.integers(1, n))
    assert api("auc")(ranks=[r], n_items=n) == pytest.approx((n - r) / (n - 1), abs=TOL)
    if n <= 50:
        assert ref.auc_from_ranks([r], n) == pytest.approx((n - r) / (n - 1), abs=TOL)
        gains = [0] * n
        gains[r - 1] = 1
        assert api("auc")(gains) == pytest.approx((n - r) / (n - 1), abs=TOL)


# ==========================================================================
# users without relevant items
def test_no_relevant_policies():
    y_true = np.array([[0, 0, 0], [1, 0, 1], [0, 2, 0]])
    y_score = np.array([[0.3, 0.2, 0.1], [0.1, 0.5, 0.5], [0.3, 0.2, 0.2]])
    for spec in GRADED_SPECS[::4]:
        if not getattr(spec, "needs_relevant", True):  # judged@k: defined for every user
            continue
        zero = spec.rm(y_true, y_score, per_user=True)
        expected = ref_matrix(spec, y_true, y_score, "expected")
        assert_close(zero, expected, repr(spec))
        assert zero[0] == 0.0
        skip = spec.rm(y_true, y_score, per_user=True, no_relevant="skip")
        assert np.isnan(skip[0])
        assert_close(skip[1:], expected[1:], repr(spec))
        assert spec.rm(y_true, y_score, no_relevant="skip") == pytest.approx(
            ref.summary(expected[1:], spec.aggregate), abs=TOL
        )
        assert spec.rm(y_true, y_score) == pytest.approx(
            ref.summary(expected, spec.aggregate), abs=TOL
        )
        with pytest.raises(ValueError):
            spec.rm(y_true, y_score, no_relevant="raise")
        assert spec.rm([0, 0, 0]) == 0.0


# ==========================================================================
# rm.evaluate
def test_evaluate_matches_reference():
    rng = np.random.default_rng(50)
    evaluate = api("evaluate")
    names = {
        "ndcg@3": ref.ndcg,
        "map@3": ref.average_precision,
        "precision@3": ref.precision,
        "recall@3": ref.recall,
        "mrr@3": ref.reciprocal_rank,
        "hr@3": ref.hit_ratio,
        "arhr@3": ref.arhr,
        "f1@3": ref.f_score,
        "cg@3": ref.cg_rel,
        "dcg@3": ref.dcg_rel,
        "ndcg": ref.ndcg,
        "map": ref.average_precision,
        "mrr": ref.reciprocal_rank,
    }
    y_true, y_score = random_rows(rng, 30, 6, graded=True)
    for ties in ref.TIE_POLICIES:
        # the reference's conventions: |R| for AP, 0 for users without relevant items
        conv = dict(ties=ties, ap_denominator="relevant", no_relevant="zero")
        df = evaluate(y_true, y_score, list(names) + ["auc"], per_user=True, **conv)
        means = evaluate(y_true, y_score, list(names) + ["auc"], **conv)
        for name, fn in names.items():
            k = int(name.split("@")[1]) if "@" in name else None
            spec = Spec(name, fn, k=k)
            expected = ref_matrix(spec, y_true, y_score, ties)
            assert_close(np.asarray(df[name]), expected, f"{name} {ties}")
            assert means[name] == pytest.approx(expected.mean(), abs=TOL)
        assert_close(np.asarray(df["auc"]), ref_auc_matrix(y_true, y_score, ties), "auc")
        assert means["auc"] == pytest.approx(ref_auc_matrix(y_true, y_score, ties).mean(), abs=TOL)


# ==========================================================================
# properties (Hypothesis). Each example draws one metric variant.
@st.composite
def problems(draw, max_users=3, max_items=7, graded=None, ties=None):
    n_users = draw(st.integers(1, max_users))
    n_items = draw(st.integers(1, max_items))
    graded = draw(st.booleans()) if graded is None else graded
    top = 3 if graded else 1
    cells = n_users * n_items
    flat_true = draw(st.lists(st.integers(0, top), min_size=cells, max_size=cells))
    ties = draw(st.booleans()) if ties is None else ties
    if ties:
        n_vals = draw(st.integers(1, 3))
        flat_score = draw(st.lists(st.integers(0, n_vals - 1), min_size=cells, max_size=cells))
        flat_score = [v / 2.0 for v in flat_score]
    else:
        flat_score = draw(
            st.lists(
                st.floats(-10, 10, allow_nan=False, width=32),
                min_size=cells,
                max_size=cells,
                unique=True,
            )
        )
    y_true = np.array(flat_true, dtype=int).reshape(n_users, n_items)
    y_score = np.array(flat_score, dtype=float).reshape(n_users, n_items)
    return y_true, y_score, graded


def draw_spec(data, graded, **filters):
    pool = [s for s in specs_for(graded) if all(getattr(s, key) == v for key, v in filters.items())]
    return data.draw(st.sampled_from(pool), label="spec")


@given(problems(), st.data())
@HSET
def test_property_matches_reference_every_policy(p, data):
    y_true, y_score, graded = p
    spec = draw_spec(data, graded)
    for ties in ref.TIE_POLICIES:
        got = spec.rm(y_true, y_score, ties=ties, per_user=True)
        expected = ref_matrix(spec, y_true, y_score, ties)
        msg = first_bad(spec, y_true, y_score, ties, got, expected)
        assert not msg, msg


@given(problems(), st.data())
@HSET
def test_property_bounds(p, data):
    y_true, y_score, graded = p
    spec = draw_spec(data, graded, normalised=True)
    for ties in ref.TIE_POLICIES:
        got = spec.rm(y_true, y_score, ties=ties, per_user=True)
        assert np.all((got >= -TOL) & (got <= 1 + TOL)), (spec, ties, got)
        got = api("auc")(y_true, y_score, ties=ties, per_user=True)
        assert np.all((got >= -TOL) & (got <= 1 + TOL))


@given(problems(ties=False), st.sampled_from(ref.TIE_POLICIES), st.sampled_from([None, 1, 3, 5]))
@HSET
def test_property_ideal_ranking_scores_one(p, ties, k):
    y_true, _, graded = p
    y_score = y_true.astype(float)  # the ideal order (ties only among equal gains)
    n_rel = (y_true > 0).sum(1)
    has = n_rel > 0
    kw = dict(k=k, ties=ties, per_user=True)
    one = {
        "ndcg": api("ndcg")(y_true, y_score, **kw),
        "ndcg exponential": api("ndcg")(y_true, y_score, gain="exponential", **kw),
        "AP min": api("average_precision")(y_true, y_score, ap_denominator="min", **kw),
        "AP hits": api("average_precision")(y_true, y_score, ap_denominator="hits", **kw),
        "RR": api("reciprocal_rank")(y_true, y_score, **kw),
        "HR": api("hit_ratio")(y_true, y_score, **kw),
    }
    for name, v in one.items():
        assert_close(v[has], 1.0, f"{name} k={k} {ties}")
    if k is None:
        assert_close(api("average_precision")(y_true, y_score, **kw)[has], 1.0, "AP")
    else:
        ok = has & (n_rel <= k)
        assert_close(api("recall")(y_true, y_score, **kw)[ok], 1.0, "recall")
        assert_close(api("average_precision")(y_true, y_score, **kw)[ok], 1.0, "AP")
        ok = n_rel >= k
        assert_close(api("precision")(y_true, y_score, **kw)[ok], 1.0, "precision")
    both = has & (n_rel < y_true.shape[1])
    assert_close(api("auc")(y_true, y_score, ties=ties, per_user=True)[both], 1.0, "auc")


@given(problems(), st.data(), st.sampled_from(["expected", "optimistic", "pessimistic"]))
@HSET
def test_property_relabelling_items_changes_nothing(p, data, ties):
    y_true, y_score, graded = p
    perm = data.draw(st.permutations(range(y_true.shape[1])), label="perm")
    spec = draw_spec(data, graded)
    a = spec.rm(y_true, y_score, ties=ties, per_user=True)
    b = spec.rm(y_true[:, perm], y_score[:, perm], ties=ties, per_user=True)
    assert_close(b, a, f"{spec} {ties} perm={perm}")
    a = api("auc")(y_true, y_score, ties=ties, per_user=True)
    b = api("auc")(y_true[:, perm], y_score[:, perm], ties=ties, per_user=True)
    assert_close(b, a, "auc")


@given(problems(max_users=5), st.data(), st.sampled_from(ref.TIE_POLICIES))
@HSET
def test_property_user_order_changes_nothing(p, data, ties):
    y_true, y_score, graded = p
    perm = data.draw(st.permutations(range(y_true.shape[0])), label="perm")
    spec = draw_spec(data, graded)
    a = spec.rm(y_true, y_score, ties=ties, per_user=True)
    b = spec.rm(y_true[perm], y_score[perm], ties=ties, per_user=True)
    assert_close(b, a[perm], f"{spec} {ties}")
    assert spec.rm(y_true[perm], y_score[perm], ties=ties) == pytest.approx(
        spec.rm(y_true, y_score, ties=ties), abs=TOL
    )


@st.composite
def gain_lists(draw):
    graded = draw(st.booleans())
    gains = draw(st.lists(st.integers(0, 3 if graded else 1), min_size=2, max_size=12))
    return gains, graded


@given(gain_lists(), st.data())
@settings(max_examples=60, deadline=None)
def test_property_moving_a_relevant_item_up_never_hurts(p, data):
    gains, graded = p
    # a relevant item with a non-relevant item ranked just above it
    spots = [i for i in range(1, len(gains)) if gains[i] > 0 and gains[i - 1] == 0]
    assume(spots)
    i = data.draw(st.sampled_from(spots))
    better = list(gains)
    better[i - 1], better[i] = better[i], better[i - 1]
    for spec in specs_for(graded):
        if spec.monotone:
            assert spec.ref(better) >= spec.ref(gains) - TOL, f"{spec}: {gains} -> {better}"
    spec = draw_spec(data, graded, monotone=True)
    assert spec.rm(better) >= spec.rm(gains) - TOL, f"{spec}: {gains} -> {better}"
    assert api("auc")(better) >= api("auc")(gains) - TOL


def test_ap_over_hits_is_not_monotone():
    """Why AP with ap_denominator="hits" is left out of the monotonicity checks."""
    assert ref.average_precision([1, 0, 1, 0], k=3, ap_denominator="hits") < ref.average_precision(
        [1, 0, 0, 1], k=3, ap_denominator="hits"
    )
    ap = api("average_precision")
    assert ap([1, 0, 1, 0], k=3, ap_denominator="hits") < ap(
        [1, 0, 0, 1], k=3, ap_denominator="hits"
    )


@given(problems(graded=False), st.data(), st.sampled_from(ref.TIE_POLICIES))
@HSET
def test_property_raising_a_relevant_score_never_hurts(p, data, ties):
    y_true, y_score, _ = p
    rel = np.argwhere(y_true > 0)
    assume(len(rel))
    u, j = rel[data.draw(st.integers(0, len(rel) - 1))]
    better = y_score.copy()
    better[u, j] = y_score[u].max() + 1.0
    spec = draw_spec(data, False, monotone=True)
    a = spec.rm(y_true, y_score, ties=ties, per_user=True)
    b = spec.rm(y_true, better, ties=ties, per_user=True)
    assert b[u] >= a[u] - TOL, f"{spec} {ties} {y_true[u]} {y_score[u]} -> {better[u]}"


@given(problems(ties=True), st.data())
@HSET
def test_property_optimistic_expected_pessimistic_order(p, data):
    y_true, y_score, graded = p
    spec = draw_spec(data, graded, monotone=True)
    vals = {
        t: spec.rm(y_true, y_score, ties=t, per_user=True)
        for t in ("optimistic", "expected", "pessimistic")
    }
    assert np.all(vals["optimistic"] >= vals["expected"] - TOL), (spec, vals)
    assert np.all(vals["expected"] >= vals["pessimistic"] - TOL), (spec, vals)
    vals = {
        t: api("auc")(y_true, y_score, ties=t, per_user=True)
        for t in ("optimistic", "expected", "pessimistic")
    }
    assert np.all(vals["optimistic"] >= vals["expected"] - TOL)
    assert np.all(vals["expected"] >= vals["pessimistic"] - TOL)


@given(problems(ties=True), st.data())
@settings(max_examples=20, deadline=None)
def test_property_expected_is_deterministic(p, data):
    y_true, y_score, graded = p
    spec = draw_spec(data, graded)
    a = spec.rm(y_true, y_score, per_user=True)  # default ties="expected"
    b = spec.rm(y_true.copy(), y_score.copy(), ties="expected", per_user=True)
    np.testing.assert_array_equal(a, b)
    # reversing the item order (which changes trec_eval's order) changes nothing
    c = spec.rm(y_true[:, ::-1], y_score[:, ::-1], ties="expected", per_user=True)
    assert_close(c, a, repr(spec))
