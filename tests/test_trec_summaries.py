"""trec_eval's summaries that are not means, its counts, set_map, Rprec_mult and infAP.

* every measure against trec_eval itself (pytrec_eval) on random qrels and
  runs with ties, judged non-relevant rows and unjudged retrieved documents,
  per query and in the summary (pytrec_eval's ``compute_aggregated_measure``:
  the sum of ``num_*``, the geometric mean of ``gm_*``);
* against the plain reference (tests/reference.py) by brute-force enumeration
  of every order of tied items, on long frames (explicit judgments), under
  every tie policy (score matrices and ranked lists: the registry-driven
  tests of test_ranking_reference.py);
* the summary rule (``MetricSpec.aggregate``) in every consumer: the metric
  function, ``rm.evaluate``, trec_eval's ``-c`` patch of the geometric mean,
  and the distributed evaluate (Dask, and Spark where Java is installed).
"""

from __future__ import annotations

import math
import os
import shutil
import warnings

import numpy as np
import pandas as pd
import pytest
import reference as ref
from test_judged_measures import _frames, _orders, _trec_inputs, _unjudged_if_pooled

import recmetrics as rm
from recmetrics.metrics import _aggregate, _registry
from recmetrics.ranking import TIE_POLICIES

TOL = 1e-12
MULTIPLES = tuple(x / 10 for x in range(2, 21, 2))
# our name -> trec_eval's (pytrec_eval's) name
TREC = {
    "gm_map": "gm_map",
    "gm_bpref": "gm_bpref",
    "num_q": "num_q",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
    "set_map": "set_map",
    **{f"rprec_mult_{x:.2f}": f"Rprec_mult_{x:.2f}" for x in MULTIPLES},
    "infap": "infAP",
}
# trec_eval's gm_* hold log(max(v, MIN_GEO_MEAN)) per query; the per-user value here is
# the measure they summarise
PER_TOPIC = {"gm_map": "map", "gm_bpref": "bpref"}


def _pytrec(truth, run, measures):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, results = {}, {}
    for q, d, g in truth.itertuples(index=False):
        qrels.setdefault(q, {})[d] = int(g)
    for q, d, s in run.itertuples(index=False):
        results.setdefault(q, {})[d] = float(s)
    out = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(results)
    return pd.DataFrame(out).T.sort_index()


# --------------------------------------------------------------------------
# trec_eval
@pytest.mark.parametrize("seed", range(5))
def test_per_query_and_summary_equal_trec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    truth, run = _trec_inputs(seed)
    theirs = _pytrec(truth, run, {*TREC.values(), "map", "bpref", "Rprec_mult"})
    # the functions, at trec_eval's conventions
    r = rm.from_frames(truth, run, relevance="rel", ties="trec_eval", users="both")
    assert list(r.user_ids) == list(theirs.index)
    kw = {"no_relevant": "zero"}
    for name, trec in TREC.items():
        fn = _registry.get(name).function
        extra = {"ap_denominator": "relevant"} if name == "gm_map" else {}
        got = fn(r, per_user=True, **kw, **extra).to_numpy()
        want = theirs[PER_TOPIC.get(name, trec)].to_numpy(float)
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL, err_msg=name)
        if name in PER_TOPIC:  # pytrec_eval's own per-query value: the logarithm
            np.testing.assert_allclose(
                np.log(np.maximum(got, _aggregate.MIN_GEO_MEAN)),
                theirs[trec].to_numpy(float),
                rtol=0,
                atol=TOL,
            )
        summary = pytrec_eval.compute_aggregated_measure(trec, list(theirs[trec].astype(float)))
        assert fn(r, **kw, **extra) == pytest.approx(summary, rel=1e-12, abs=TOL), name
    # rm.evaluate under the preset: per user and the summaries
    names = list(TREC)
    per = rm.evaluate(truth, run, names, relevance="rel", convention="trec_eval", per_user=True)
    means = rm.evaluate(truth, run, names, relevance="rel", convention="trec_eval")
    for name, trec in TREC.items():
        want = theirs[PER_TOPIC.get(name, trec)].to_numpy(float)
        np.testing.assert_allclose(per[name].to_numpy(), want, rtol=0, atol=TOL, err_msg=name)
        summary = pytrec_eval.compute_aggregated_measure(trec, list(theirs[trec].astype(float)))
        assert means[name] == pytest.approx(summary, rel=1e-12, abs=TOL), name


def test_rprec_mult_equals_trec_eval_at_other_multiples():
    """rm.rprec_mult(multiple=x) at multiples that are not trec_eval's defaults."""
    truth, run = _trec_inputs(11)
    multiples = (0.05, 0.33, 0.5, 0.75, 1.5, 3.0)
    label = "Rprec_mult." + ",".join(str(x) for x in multiples)
    theirs = _pytrec(truth, run, {label})
    r = rm.from_frames(truth, run, relevance="rel", ties="trec_eval", users="both")
    for x in multiples:
        got = rm.rprec_mult(r, multiple=x, no_relevant="zero", per_user=True)
        np.testing.assert_allclose(
            got.to_numpy(), theirs[f"Rprec_mult_{x:.2f}"].to_numpy(float), rtol=0, atol=TOL
        )


@pytest.mark.parametrize("seed", range(4))
def test_infap_reads_grade_minus_one_as_in_the_pool(seed):
    """trec_eval's 'pooled but unjudged' grade -1: counted in X by infAP, unjudged elsewhere.

    Sampled qrels (30% of the lines at -1) and runs with ties, per query,
    through the function and ``rm.evaluate(convention='trec_eval')``; the
    -1 lines matter (dropping them gives other values).
    """
    truth, run = _trec_inputs(seed)
    rng = np.random.default_rng(seed)
    sampled = truth.assign(rel=np.where(rng.random(len(truth)) < 0.3, -1, truth.rel))
    theirs = _pytrec(sampled, run, {*TREC.values(), "map", "bpref"})
    r = rm.from_frames(sampled, run, relevance="rel", ties="trec_eval", users="both")
    got = rm.infap(r, no_relevant="zero", per_user=True)
    np.testing.assert_allclose(got, theirs.infAP.astype(float), rtol=0, atol=TOL)
    names = list(TREC)
    per = rm.evaluate(sampled, run, names, relevance="rel", convention="trec_eval", per_user=True)
    for name, trec in TREC.items():
        want = theirs[PER_TOPIC.get(name, trec)].to_numpy(float)
        np.testing.assert_allclose(per[name].to_numpy(), want, rtol=0, atol=TOL, err_msg=name)
    without = _pytrec(sampled[sampled.rel >= 0], run, {"infAP"})["infAP"]
    both = got.index.intersection(without.index)
    assert not np.allclose(got[both], without[both].astype(float), atol=1e-6)


# --------------------------------------------------------------------------
# brute force over the orders of tied items, long frames
def _brute(truth, run, uid, ties, fn):
    grade = dict(truth.loc[truth.user == uid, ["item", "rel"]].itertuples(index=False))
    rows = [
        (i, s, _unjudged_if_pooled(grade.get(i), fn))  # None: unjudged
        for i, s in run.loc[run.user == uid, ["item", "score"]].itertuples(index=False)
    ]
    rel_gains = [g for g in grade.values() if g > 0]
    values = [fn([g for (_, _, g) in order], rel_gains=rel_gains) for order in _orders(rows, ties)]
    return float(np.mean(values)) if values else fn([], rel_gains=rel_gains)


BRUTE = {
    "infap": ref.infap,
    "set_map": ref.set_map,
    "num_ret": ref.num_ret,
    "num_rel": ref.num_rel,
    "num_rel_ret": ref.num_rel_ret,
    "num_nonrel_judged_ret": ref.num_nonrel_judged_ret,
    **{f"rprec_mult_{x:.2f}": ref._rprec_at(x) for x in (0.2, 0.6, 1.0, 1.4, 2.0)},
}


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("pooled", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_frames_equal_brute_force(ties, seed, pooled):
    truth, run = _frames(seed, n_items=7, n_values=2, pooled=pooled)
    r = rm.from_frames(truth, run, relevance="rel", ties=ties)
    for name, fn in BRUTE.items():
        got = _registry.get(name).function(r, per_user=True, no_relevant="zero")
        for uid in r.user_ids:
            want = _brute(truth, run, uid, ties, fn)
            assert got[uid] == pytest.approx(want, abs=TOL), (name, uid, ties)


@pytest.mark.parametrize("cells", [1 << 22, 1])
def test_infap_large_mixed_tie_group(cells, monkeypatch):
    """One tie group of the four kinds of items, with items above.

    ``cells=1``: the sum over the group's orders one relevant and one pooled
    count at a time.
    """
    import recmetrics.metrics.infap as infap_module

    monkeypatch.setattr(infap_module, "_GRID_CELLS", cells)
    items = [f"d{i:02d}" for i in range(10)]
    truth = pd.DataFrame(  # d01, d07, d08 pooled but unjudged; d09 not in the pool
        {"user": 1, "item": items[:9], "rel": [1, -1, 2, 0, 1, 0, 1, -1, -1]}
    )
    scores = [3.0, 2.0] + [1.0] * 8
    run = pd.DataFrame({"user": 1, "item": items, "score": scores})
    r = rm.from_frames(truth, run, relevance="rel")
    want = _brute(truth, run, 1, "expected", ref.infap)
    assert rm.infap(r) == pytest.approx(want, abs=TOL)


def test_infap_with_complete_judgments_is_ap_up_to_the_smoothing():
    rng = np.random.default_rng(5)
    y_true = (rng.random((30, 20)) < 0.3).astype(int)
    y_score = rng.integers(0, 4, (30, 20)).astype(float)
    ap = rm.average_precision(y_true, y_score, ap_denominator="relevant", per_user=True)
    inf = rm.infap(y_true, y_score, per_user=True)
    np.testing.assert_allclose(inf, ap, rtol=0, atol=1e-4)


def test_rprec_mult_one_is_r_precision_and_checks_its_multiple():
    y_true, y_score = [[1, 0, 1, 0, 1]], [[0.5, 0.5, 0.4, 0.3, 0.3]]
    assert rm.rprec_mult(y_true, y_score) == pytest.approx(rm.r_precision(y_true, y_score))
    assert (
        rm.rprec_mult(y_true, y_score, multiple=1.0)
        == rm.evaluate(y_true, y_score, ["Rprec_mult_1.00"]).iloc[0]
    )
    with pytest.raises(ValueError, match="multiple"):
        rm.rprec_mult(y_true, y_score, multiple=0)
    with pytest.raises(TypeError, match="multiple"):
        rm.rprec_mult(y_true, y_score, multiple=True)


# --------------------------------------------------------------------------
# the summary rule in every consumer
def test_aggregates_of_the_registry():
    rules = {name: spec.aggregate for name, spec in _registry.REGISTRY.items()}
    assert rules["gm_map"] == rules["gm_bpref"] == "geometric"
    assert {n for n, a in rules.items() if a == "sum"} == {
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "num_nonrel_judged_ret",
    }
    assert all(a == "mean" for n, a in rules.items() if not n.startswith(("gm_", "num_")))
    with pytest.raises(ValueError, match="aggregate"):
        _registry.MetricSpec("x", rm.precision, aggregate="median")


def test_summaries_of_the_functions_and_of_evaluate():
    rng = np.random.default_rng(2)
    y_true = rng.integers(0, 3, (25, 12)) * (rng.random((25, 12)) < 0.3)
    y_true[:3] = 0  # no relevant item
    y_score = rng.integers(0, 5, (25, 12)).astype(float)
    names = ["gm_map", "gm_bpref", "num_q", "num_ret", "num_rel_ret", "map", "infap"]
    for no_relevant in ("skip", "zero"):
        per = rm.evaluate(y_true, y_score, names, per_user=True, no_relevant=no_relevant)
        means = rm.evaluate(y_true, y_score, names, no_relevant=no_relevant)
        for name in names:
            spec = _registry.get(name)
            values = per[name].dropna().to_numpy()
            want = ref.summary(values, spec.aggregate)
            assert means[name] == pytest.approx(want, rel=1e-13), (name, no_relevant)
            got = spec.function(y_true, y_score, no_relevant=no_relevant)
            assert got == means[name], (name, no_relevant)  # the same summation
    # num_q counts the users the means run over
    assert rm.num_q(y_true, y_score) == float((y_true > 0).any(axis=1).sum()) < 25
    assert rm.num_q(y_true, y_score, no_relevant="zero") == 25.0
    # the mean is numpy's mean, bit for bit
    ap = rm.average_precision(y_true, y_score, per_user=True)
    assert rm.evaluate(y_true, y_score, ["map"])["map"] == float(np.mean(ap[~np.isnan(ap)]))


def test_geometric_mean_under_trec_eval_minus_c():
    """-c: a query of the qrels missing from the run adds log(MIN_GEO_MEAN) (meas_avg.c)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    truth, run = _trec_inputs(4)
    theirs = _pytrec(truth, run, {"gm_map", "num_rel", "num_q"})
    n_qrels = truth.user.nunique()
    missing = n_qrels - len(theirs)
    assert missing > 0
    logs = theirs["gm_map"].astype(float).sum() + missing * math.log(_aggregate.MIN_GEO_MEAN)
    want = math.exp(logs / n_qrels)  # te_calc_avg_meas_s_gm with average_complete_flag
    got = rm.evaluate(truth, run, ["gm_map", "num_q", "num_rel"], relevance="rel",
                      convention="trec_eval", users="truth")  # fmt: skip
    assert got["gm_map"] == pytest.approx(want, rel=1e-12)
    assert got["num_q"] == n_qrels  # te_calc_avg_num_q: num_q_rels
    assert got["num_rel"] == (truth.rel > 0).sum()  # te_calc_avg_num_rel
    assert pytrec_eval is not None


def test_summarise_table_reads_each_metric_rule():
    y_true, y_score = [[1, 0, 0], [0, 0, 1]], [[0.3, 0.2, 0.1], [0.3, 0.2, 0.1]]
    per = rm.evaluate(y_true, y_score, ["gm_map", "num_ret", "map"], per_user=True)
    per.columns = ["a", "b", "c"]  # labels, as the command line's
    got = rm.evaluation.summarise_table(per, ["gm_map", "num_ret", "map"])
    want = rm.evaluate(y_true, y_score, ["gm_map", "num_ret", "map"])
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    assert list(got.index) == ["a", "b", "c"]


# --------------------------------------------------------------------------
# the distributed evaluate: logarithms and sums combined by the engine
DISTRIBUTED = ["gm_map", "gm_bpref", "num_q", "num_ret", "num_rel", "map", "infap", "set_map"]
DISTRIBUTED_CASES = [dict(relevance="grade"), dict(relevance="grade", convention="trec_eval")]


def _dist_frames():
    from test_distributed import make_frames

    return make_frames(n_users=400, n_items=60, seed=3)


@pytest.mark.slow
@pytest.mark.parametrize("case", DISTRIBUTED_CASES)
def test_dask_summaries(case):
    dd = pytest.importorskip("dask.dataframe")
    truth, pred = _dist_frames()
    dt, dp = dd.from_pandas(truth, npartitions=3), dd.from_pandas(pred, npartitions=4)
    means = rm.dask.evaluate(dt, dp, DISTRIBUTED, **case)
    want = rm.evaluate(truth, pred, DISTRIBUTED, **case)
    pd.testing.assert_index_equal(means.index, want.index)
    np.testing.assert_allclose(means, want, rtol=1e-12, atol=0)
    per = rm.dask.evaluate(dt, dp, DISTRIBUTED, per_user=True, **case).compute()
    per = per.set_index("user").sort_index()
    single = rm.evaluate(truth, pred, DISTRIBUTED, per_user=True, **case)
    np.testing.assert_array_equal(per[DISTRIBUTED].to_numpy(float), single.to_numpy(float))


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java (OpenJDK 17)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = rm.spark.local_session(2, config={"spark.sql.shuffle.partitions": "4"})
    yield session
    session.stop()


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
@pytest.mark.filterwarnings("ignore:The copy keyword is deprecated")
@pytest.mark.parametrize("case", DISTRIBUTED_CASES)
def test_spark_summaries(spark, case):
    truth, pred = _dist_frames()
    st, sp = spark.createDataFrame(truth), spark.createDataFrame(pred)
    means = rm.spark.evaluate(st, sp, DISTRIBUTED, **case)
    want = rm.evaluate(truth, pred, DISTRIBUTED, **case)
    pd.testing.assert_index_equal(means.index, want.index)
    np.testing.assert_allclose(means, want, rtol=1e-12, atol=0)


def test_sampled_metrics_refuse_sums_and_geometric_means():
    """The sampled metrics estimate means over users: a metric summarised otherwise is refused."""
    for name in ("gm_map", "gm_bpref", "num_q", "num_rel_ret"):
        with pytest.raises(ValueError, match="aggregate"):
            rm.metric_function(name)
    assert rm.metric_function("infap")([1]).tolist() == [1.0]  # a mean: accepted
