"""Every public function of recmetrics under bad input, as scikit-learn's test_common.

For every public function there is one valid call (``VALID``); a test checks
that the table covers the whole public API, so a function added later must be
added here. From each valid call the sweep derives bad calls by replacing one
argument at a time with values of the wrong kind or content: ``None``, a
string, a set, a bool, NaN, infinities, empty and ragged arrays, huge
numbers, frames without rows, with a column missing, with a duplicated row,
with NaN, with ids of another type. Each bad call must either return, or
raise ``TypeError``/``ValueError`` (``OSError`` for paths) whose message names
the argument; never another exception from deep inside NumPy, pandas or
numba. Values that cannot be right (NaN or infinity in data, an empty input,
a frame without its columns) must raise. Every metric of the registry goes
through ``evaluate`` the same way.
"""

from __future__ import annotations

import functools
import inspect
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
import recmetrics.io as rio
from recmetrics.metrics import _registry

# --------------------------------------------------------------------------
# small valid inputs
Y_TRUE = [[1, 0, 1, 0], [0, 1, 0, 0], [1, 1, 0, 1]]
Y_SCORE = [[0.9, 0.2, 0.5, 0.1], [0.3, 0.8, 0.1, 0.4], [0.2, 0.6, 0.9, 0.7]]
TRUTH = pd.DataFrame({"user": [1, 1, 2, 3], "item": [10, 12, 11, 10]})
PREDS = pd.DataFrame(
    {
        "user": [1, 1, 1, 2, 2, 3, 3],
        "item": [10, 11, 12, 11, 10, 12, 10],
        "score": [0.9, 0.5, 0.4, 0.8, 0.1, 0.7, 0.6],
    }
)
RATINGS = pd.DataFrame(
    {
        "user": np.repeat([1, 2, 3, 4], 5),
        "item": np.tile([10, 11, 12, 13, 14], 4),
        "rating": [5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 5, 5, 4, 4, 3, 2, 3, 4, 5, 1],
        "timestamp": np.arange(20),
    }
)
LISTS = pd.DataFrame({"user": [1, 1, 2, 2], "item": [10, 11, 11, 12], "rank": [1, 2, 1, 2]})
POP = pd.Series([5, 3, 1, 1], index=[10, 11, 12, 13])
FEATURES = pd.DataFrame({"a": [1, 0, 1, 0], "b": [0, 1, 1, 0]}, index=[10, 11, 12, 13])
TRAIN = rm.split.interaction_matrix(RATINGS, [1, 2, 3, 4], [10, 11, 12, 13, 14])
PER_USER = pd.DataFrame(
    {"ndcg@10": np.linspace(0.1, 0.9, 12), "map@10": np.linspace(0.2, 0.5, 12)[::-1]}
)
PER_USER_B = PER_USER * 0.9
# issue 29: groups of items and of users, sampled rankings of two users
ITEM_GROUPS = pd.Series([1, 1, 2, 2], index=[10, 11, 12, 13])
USER_GROUPS = pd.Series([1] * 6 + [2] * 6)
SAMPLED = [[[10, 11], [11, 10]], [[12, 11], [11, 12]]]


def _qrels(tmp):
    path = tmp / "qrels.txt"
    path.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n")
    return path


def _run(tmp):
    path = tmp / "run.txt"
    path.write_text("1 Q0 d1 1 0.9 t\n1 Q0 d2 2 0.5 t\n2 Q0 d3 1 0.7 t\n")
    return path


def _csv(tmp):
    path = tmp / "table.csv"
    PREDS.to_csv(path, index=False)
    return path


# function -> (args, kwargs); a callable builds arguments that need a folder
VALID = {
    # representation
    rm.from_scores: ((Y_TRUE, Y_SCORE), {}),
    rm.from_lists: (([["a", "b", "c"]], [{"a", "c"}]), {}),
    rm.from_ranks: (([1, 3, 2],), {"n_items": 10}),
    rm.from_gains: (([3, 0, 2, 1],), {}),
    rm.from_frames: ((TRUTH, PREDS), {}),
    # rating
    rm.rmse: (([4.0, 3.0, 5.0], [3.5, 3.0, 4.0]), {}),
    rm.mae: (([4.0, 3.0, 5.0], [3.5, 3.0, 4.0]), {}),
    rm.rating_errors_by_user: (([4.0, 3.0, 5.0], [3.5, 3.0, 4.0], ["u", "u", "v"]), {}),
    # Top-N, NDCG, ROC
    rm.precision: ((Y_TRUE, Y_SCORE), {"k": 2}),
    rm.recall: ((Y_TRUE, Y_SCORE), {"k": 2}),
    rm.f_score: ((Y_TRUE, Y_SCORE), {"k": 2, "beta": 0.5}),
    rm.f1: ((Y_TRUE, Y_SCORE), {"k": 2}),
    rm.hit_ratio: ((Y_TRUE, Y_SCORE), {"k": 2}),
    rm.arhr: ((Y_TRUE, Y_SCORE), {"k": 2}),
    rm.mrr: ((Y_TRUE, Y_SCORE), {}),
    rm.reciprocal_rank: ((Y_TRUE, Y_SCORE), {"k": 3}),
    rm.average_precision: ((Y_TRUE, Y_SCORE), {"k": 3}),
    rm.confusion: ((Y_TRUE, Y_SCORE), {"k": 2}),
    rm.cg: ((Y_TRUE, Y_SCORE), {"k": 2}),
    rm.dcg: ((Y_TRUE, Y_SCORE), {"k": 2}),
    rm.idcg: ((Y_TRUE, Y_SCORE), {"k": 2}),
    rm.ndcg: ((Y_TRUE, Y_SCORE), {"k": 2}),
    rm.discount: (([1, 2, 3],), {}),
    rm.auc: ((Y_TRUE, Y_SCORE), {}),
    rm.rank_loss: ((Y_TRUE, Y_SCORE), {}),
    rm.break_even_point: ((Y_TRUE, Y_SCORE), {}),
    rm.roc_curve: (([1, 0, 1, 0], [0.9, 0.2, 0.5, 0.1]), {}),
    rm.precision_recall_curve: (([1, 0, 1, 0], [0.9, 0.2, 0.5, 0.1]), {}),
    rm.trapezoid_area: (([0.0, 0.5, 1.0], [0.0, 0.7, 1.0]), {}),
    # incomplete judgments
    rm.judged: ((TRUTH, PREDS), {"k": 2}),
    rm.unjudged: ((TRUTH, PREDS), {"k": 2}),
    rm.bpref: ((Y_TRUE, Y_SCORE), {}),
    # consumers
    rm.evaluate: ((Y_TRUE, Y_SCORE, ["ndcg@2", "map@2", "auc"]), {}),
    rm.compare_conventions: ((Y_TRUE, Y_SCORE), {"k": 2}),
    rm.conventions.describe: ((), {"convention": "ranx"}),
    rm.conventions.resolve: (("ranx", {"ties": None}), {}),
    rm.conventions.check_supported: (("ranx", "ndcg", 10), {}),
    # sampled metrics
    rm.metric_function: (("ndcg@10",), {}),
    rm.expected_metric: (([1, 5, 20], 100, 10, "ndcg@10"), {}),
    rm.rank_distribution: ((5, 100, 10), {}),
    rm.sample_ranks: (([1, 5, 20], 100, 10), {"seed": 0}),
    rm.correction: ((100, 10, "ndcg@10"), {}),
    rm.corrected_metric: (([1, 2, 5], 100, 10, "ndcg@10"), {}),
    rm.estimator_bias_variance: (([1.0, 0.5] + [0.0] * 98, [1, 5, 20], 100, "ndcg@10"), {}),
    # files
    rio.read_trec_qrels: (lambda tmp: ((_qrels(tmp),), {})),
    rio.read_trec_run: (lambda tmp: ((_run(tmp),), {})),
    rio.write_trec_qrels: (lambda tmp: ((TRUTH.assign(grade=1), tmp / "q.txt"), {})),
    rio.write_trec_run: (lambda tmp: ((PREDS, tmp / "r.txt"), {})),
    rio.read_table: (lambda tmp: ((_csv(tmp),), {})),
    rio.file_format: (("run.txt",), {}),
    # statistics
    rm.stats.paired_test: ((PER_USER, PER_USER_B), {}),
    rm.stats.bootstrap_ci: ((PER_USER,), {"n_resamples": 200}),
    rm.stats.adjust_pvalues: (([0.01, 0.04, 0.2],), {}),
    rm.stats.detectable_difference: ((500, 0.2), {}),
    rm.stats.users_needed: ((0.02, 0.2), {}),
    rm.stats.two_sample_users_needed: ((0.02, 0.2), {}),
    rm.stats.two_sample_detectable_difference: ((500, 0.2), {}),
    rm.stats.proportion_users_needed: ((0.10, 0.11), {}),
    rm.stats.proportion_detectable_rate: ((0.10, 5000), {}),
    rm.stats.compare: (({"a": PER_USER, "b": PER_USER_B},), {"n_resamples": 200}),
    rm.stats.corrected_resampled_ttest: (([0.012, 0.004, 0.019, -0.002], 0.8, 0.2), {}),
    # beyond accuracy
    rm.beyond.top_k: ((Y_SCORE, 2), {}),
    rm.beyond.coverage: ((LISTS,), {"n_items": 4}),
    rm.beyond.user_coverage: ((LISTS,), {"n_users": 3}),
    rm.beyond.gini: ((LISTS,), {"n_items": 4}),
    rm.beyond.entropy: ((LISTS,), {}),
    rm.beyond.novelty: ((LISTS, POP), {"n_users": 10}),
    rm.beyond.average_popularity: ((LISTS, POP), {"n_users": 10}),
    rm.beyond.long_tail_share: ((LISTS, POP), {"n_users": 10}),
    rm.beyond.intra_list_diversity: ((LISTS, FEATURES), {}),
    rm.beyond.serendipity: ((LISTS, TRUTH), {"popularity": POP}),
    rm.beyond.calibration: ((LISTS, TRUTH, FEATURES), {}),
    # protocols, data, models
    rm.split.random_holdout: ((RATINGS,), {}),
    rm.split.temporal: ((RATINGS,), {"test_fraction": 0.2}),
    rm.split.leave_last_out: ((RATINGS,), {}),
    rm.split.kfold: ((RATINGS,), {"n_splits": 2}),
    rm.split.split_summary: ((RATINGS.iloc[:15], RATINGS.iloc[15:]), {}),
    rm.split.relevant_from_ratings: ((RATINGS,), {}),
    rm.split.interaction_matrix: ((RATINGS, [1, 2, 3, 4], [10, 11, 12, 13, 14]), {}),
    rm.split.sample_candidates: (
        (RATINGS.iloc[:12], RATINGS.iloc[12:], [10, 11, 12, 13, 14, 15, 16, 17]),
        {"n_samples": 2},
    ),
    rm.synthetic_ratings: ((), {"n_users": 20, "n_items": 10}),
    rm.models.popularity: ((TRAIN,), {}),
    rm.models.item_knn: ((TRAIN,), {"neighbours": 2}),
    rm.models.ease: ((TRAIN,), {"l2": 500.0}),
    # factors and iterations at their defaults (a few ms on TRAIN): the sweep's
    # 2**70 would allocate 2**70 factors or run 2**70 sweeps (tests/test_models.py
    # checks both arguments)
    rm.models.als: ((TRAIN,), {"regularization": 0.05, "alpha": 1.0, "seed": 0}),
    rm.models.user_knn: ((TRAIN,), {"neighbours": 2}),
    rm.models.bpr: ((TRAIN,), {"learning_rate": 0.05, "regularization": 0.01, "seed": 0}),
    rm.models.last_item: ((RATINGS, [1, 2, 3, 4], [10, 11, 12, 13, 14]), {}),
    rm.models.tune: (
        (RATINGS,),
        {
            "fit": rm.models.ease,
            "space": {"l2": [1.0, 10.0]},
            "split": functools.partial(rm.split.leave_last_out, n=1),
            "metric": "ndcg@10",
            "budget": 5,
            "seed": 0,
        },
    ),
    # the function behind the registry's iprec_at_recall_x names, one per level
    rm.iprec_at_recall: ((Y_TRUE, Y_SCORE), {"recall_level": 0.5}),
    # the function behind the registry's rprec_mult_x names, one per multiple
    rm.rprec_mult: ((Y_TRUE, Y_SCORE), {"multiple": 1.2}),
    # trec_eval's relstring: one string per user, not a registry metric
    rm.relstring: ((Y_TRUE, Y_SCORE), {"k": 3}),
    # issue 26: scikit-learn's DET curve
    rm.det_curve: (([1, 0, 1, 0], [0.9, 0.2, 0.5, 0.1]), {}),
    # issue 29: fairness of exposure
    rm.beyond.attention_weights: ((4,), {"attention": "rbp", "patience": 0.8}),
    rm.beyond.item_exposure: ((LISTS,), {}),
    rm.beyond.group_exposure: ((LISTS, ITEM_GROUPS), {}),
    rm.beyond.tail_exposure: ((LISTS, POP), {"n_users": 10}),
    rm.beyond.disparate_treatment_ratio: ((LISTS, TRUTH, ITEM_GROUPS), {"groups": (1, 2)}),
    rm.beyond.plackett_luce_rankings: ((Y_SCORE, 3), {"seed": 0}),
    rm.beyond.expected_exposure: ((SAMPLED,), {}),
    rm.beyond.expected_exposure_loss: ((SAMPLED, [{10, 11}, {11}]), {}),
    rm.stats.group_disparity: ((PER_USER, USER_GROUPS), {"n_resamples": 200}),
    # the function behind the registry's rprec_mult_avgjg_x names (judgment groups)
    rm.rprec_mult_avgjg: ((Y_TRUE, Y_SCORE), {"multiple": 1.2}),
}

# every ranking metric of the registry is swept, even one added after this table:
# a new metric needs no line here (its keywords are swept from its signature)
for _spec in _registry.REGISTRY.values():
    if _spec.kind == "ranking":
        VALID.setdefault(
            _spec.function, ((Y_TRUE, Y_SCORE), {"k": 2} if _spec.takes_cutoff else {})
        )
# Functions left out of the sweep, with the reason.
NOT_SWEPT = {
    "movielens": "no arguments",
    "significance_table": "takes compare()'s output; swept through compare",
    "local_session": "starts a JVM; tests/test_distributed.py",
    "spark.evaluate": "needs a Spark session; tests/test_distributed.py",
    "dask.evaluate": "same checks as evaluate, per partition; tests/test_distributed.py",
    "beyond.describe": "a table of conventions, no data",
}


def _public_functions():
    out = {}
    modules = {
        "": rm,
        "io.": rio,
        "stats.": rm.stats,
        "beyond.": rm.beyond,
        "split.": rm.split,
        "models.": rm.models,
        "conventions.": rm.conventions,
        "spark.": rm.spark,
        "dask.": rm.dask,
    }
    for prefix, mod in modules.items():
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isfunction(obj):
                out.setdefault(obj, f"{prefix}{name}")
    return out


def test_every_public_function_is_swept_or_excused():
    missing = [
        name
        for fn, name in _public_functions().items()
        if fn not in VALID and name not in NOT_SWEPT and name.split(".")[-1] not in NOT_SWEPT
    ]
    assert not missing, f"add a valid call to VALID (or a reason to NOT_SWEPT): {missing}"


def _call(fn, tmp_path):
    spec = VALID[fn]
    args, kwargs = spec(tmp_path) if callable(spec) else spec
    return list(args), dict(kwargs)


@pytest.mark.parametrize("fn", list(VALID), ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_the_valid_call_works(fn, tmp_path):
    args, kwargs = _call(fn, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn(*args, **kwargs)


# --------------------------------------------------------------------------
# bad values, derived from the type of the valid one
# columns a long frame cannot do without (a per-user table or a feature table can)
ID_COLUMNS = ("user", "item", "score", "rank", "rating", "timestamp")


def _bad_values(value):
    """(bad value, what it is, must_raise) for one valid argument."""
    out = [(None, "None", False), (object(), "an object", True), ({1, 2}, "a set", False)]
    if isinstance(value, bool):
        return out + [("yes", "a string", True), (2, "an int", True)]
    if isinstance(value, (int, np.integer)):
        return out + [
            (-1, "negative", False),
            (0, "zero", False),
            (2**70, "huge", False),
            (1.5, "a fraction", True),
            (True, "a bool", True),
            ("3", "a string", True),
            (math.nan, "NaN", True),
        ]
    if isinstance(value, float):
        return out + [
            (math.nan, "NaN", True),
            (math.inf, "infinity", True),
            (-1.0, "negative", False),
            (1e308, "huge", False),
            ("0.5", "a string", True),
            (True, "a bool", True),
        ]
    if isinstance(value, str):
        return out + [("no such thing", "an unknown string", False), (3, "an int", True)]
    if isinstance(value, pd.DataFrame):
        first = value.columns[0]
        num = [c for c in value.columns if value[c].dtype.kind == "f"]
        bad = [
            (value.iloc[:0], "no rows", False),
            (value.drop(columns=[first]), f"no column {first!r}", first in ID_COLUMNS),
            (pd.concat([value, value.iloc[:1]]), "a duplicated row", False),
            (value.assign(**{first: value[first].astype(str)}), "ids as strings", False),
            (value.assign(**{first: [f"é{x}✓" for x in value[first]]}), "unicode ids", False),
            (value.to_numpy().tolist(), "a list of rows", False),
        ]
        if num:
            nan = value.copy()
            nan.iloc[0, value.columns.get_loc(num[0])] = np.nan
            inf = value.copy()
            inf.iloc[0, value.columns.get_loc(num[0])] = np.inf
            bad += [(nan, "NaN in a column", True), (inf, "infinity in a column", True)]
        return out + bad
    if isinstance(value, pd.Series):
        return out + [
            (value.iloc[:0], "empty", True),
            (value.astype(float).where(value.index != value.index[0]), "NaN", True),
            (value * -1, "negative", False),
        ]
    if isinstance(value, dict):
        return out + [({}, "empty", False), ([1, 2], "a list", False)]
    if isinstance(value, (list, tuple, np.ndarray)):
        arr = np.asarray(value, dtype=object)
        if arr.size and all(isinstance(v, (int, float, np.number)) for v in arr.ravel()):
            a = np.asarray(value, dtype=float)
            nan, inf = a.copy(), a.copy()
            nan.flat[0], inf.flat[0] = np.nan, np.inf
            bad = [
                (nan.tolist(), "NaN", True),
                (inf.tolist(), "infinity", True),
                ([], "empty", True),
                ((a * 1e300).tolist(), "huge", False),
                ("abc", "a string", True),
            ]
            if a.ndim == 2:
                bad.append(([list(r) for r in a[:-1]] + [list(a[-1][:-1])], "ragged", True))
            return out + bad
        return out + [([], "empty", False), ("abc", "a string", False)]
    return out


def _names_for(fn, position, key):
    """The argument's name, and the names its messages may use for it."""
    params = list(inspect.signature(fn).parameters)
    name = key if key is not None else params[position]
    aliases = {
        "a": ["y_true", "gains", "recommended", "relevant", "ranks", "truth", "list"],
        "b": ["y_score", "relevant", "predictions", "gains", "y_true"],
        "truth": ["truth", "recommended", "history"],
        "data": ["data", "ratings"],
        "train": ["train"],
        "test": ["test"],
        "per_user_by_model": ["model", "per_user"],
        "path": ["path", "file", "No such file", "directory"],
        "predictions": ["predictions"],
        "recommended": ["recommended"],
        "metric": ["metric"],
        "base": ["base", "metric"],
        "pvalues": ["pvalues", "p-values"],
    }
    return name, [name] + aliases.get(name, [])


def _cases():
    out = []
    for fn, spec in VALID.items():
        if callable(spec):
            continue  # file functions: tests/test_io_cli.py sweeps files and the CLI
        args, kwargs = spec
        for i, value in enumerate(args):
            for bad, what, must in _bad_values(value):
                out.append(
                    pytest.param(fn, i, None, bad, what, must, id=f"{fn.__name__}-{i}-{what}")
                )
        for key, value in kwargs.items():
            for bad, what, must in _bad_values(value):
                out.append(
                    pytest.param(fn, None, key, bad, what, must, id=f"{fn.__name__}-{key}-{what}")
                )
    return out


# (function, argument, bad value) that are valid after all
MAY_ACCEPT = {
    (rm.discount, 0, "empty"),  # no positions: no discounts
}
# per-user tables of the statistics may hold NaN: nan='drop' (the default) drops them
for _fn in (rm.stats.paired_test, rm.stats.bootstrap_ci):
    MAY_ACCEPT |= {(_fn, 0, "NaN in a column"), (_fn, 1, "NaN in a column")}
MAY_ACCEPT |= {(rm.stats.group_disparity, 0, "NaN in a column")}


@pytest.mark.parametrize("fn,position,key,bad,what,must_raise", _cases())
def test_bad_input_gives_a_clear_error(fn, position, key, bad, what, must_raise, tmp_path):
    args, kwargs = _call(fn, tmp_path)
    if key is None:
        args[position] = bad
    else:
        kwargs[key] = bad
    name, names = _names_for(fn, position, key)
    if (fn, position if key is None else key, what) in MAY_ACCEPT:
        must_raise = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(*args, **kwargs)
        except (TypeError, ValueError) as exc:
            msg = str(exc)
            assert any(n in msg for n in names), (
                f"{fn.__name__}({name}=<{type(bad).__name__}>) raised {type(exc).__name__} "
                f"without naming {name!r}: {msg}"
            )
            return
    assert not must_raise, f"{fn.__name__} accepted {name}={bad!r:.80} without an error"


# --------------------------------------------------------------------------
# every metric of the registry, through evaluate, on bad data
RANKING = _registry.ranking_names()


def _metric_names():
    out = []
    for name, spec in _registry.REGISTRY.items():
        out.append(f"{name}@2" if spec.takes_cutoff else name)
    return out


BAD_MATRICES = {
    "NaN score": (Y_TRUE, [[np.nan, 0.2, 0.5, 0.1]] + Y_SCORE[1:]),
    "infinite score": (Y_TRUE, [[np.inf, 0.2, 0.5, 0.1]] + Y_SCORE[1:]),
    "negative relevance": ([[-1, 0, 1, 0]] + Y_TRUE[1:], Y_SCORE),
    "NaN relevance": ([[np.nan, 0, 1, 0]] + Y_TRUE[1:], Y_SCORE),
    "shapes differ": (Y_TRUE, [r[:3] for r in Y_SCORE]),
    "ragged scores": (Y_TRUE, Y_SCORE[:-1] + [Y_SCORE[-1][:3]]),
    "string scores": (Y_TRUE, [["a", "b", "c", "d"]] * 3),
    "empty": ([], []),
    "3-D": ([Y_TRUE], [Y_SCORE]),
}


@pytest.mark.parametrize("case", list(BAD_MATRICES))
@pytest.mark.parametrize("metric", _metric_names())
def test_every_metric_refuses_bad_matrices(metric, case):
    y_true, y_score = BAD_MATRICES[case]
    kw = {}
    spec = _registry.parse(metric)[0]
    if "popularity" in spec.needs:
        kw["popularity"] = pd.Series([5, 3, 1, 1])
    if "features" in spec.needs:
        kw["features"] = pd.DataFrame({"a": [1, 0, 1, 0]})
    if "history" in spec.needs:
        kw["history"] = [[0], [1], [2]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((TypeError, ValueError)) as info:
            rm.evaluate(np.asarray(y_true, dtype=object).tolist(), y_score, [metric], **kw)
    assert any(n in str(info.value) for n in ("y_true", "y_score", "relevance", "scores")), str(
        info.value
    )


BAD_FRAMES = {
    "NaN score": (TRUTH, PREDS.assign(score=[np.nan] + PREDS["score"].tolist()[1:])),
    "duplicated prediction": (TRUTH, pd.concat([PREDS, PREDS.iloc[:1]])),
    "duplicated truth": (pd.concat([TRUTH, TRUTH.iloc[:1]]), PREDS),
    "no score column": (TRUTH, PREDS.drop(columns="score")),
    "item ids of another type": (TRUTH, PREDS.assign(item=PREDS["item"].astype(str))),
    "user ids of another type": (TRUTH, PREDS.assign(user=PREDS["user"].astype(str))),
    "missing user id": (TRUTH.assign(user=[None, 1, 2, 3]), PREDS),
    "string scores": (TRUTH, PREDS.assign(score=PREDS["score"].astype(str))),
}


@pytest.mark.parametrize("case", list(BAD_FRAMES))
@pytest.mark.parametrize("metric", _metric_names())
def test_every_metric_refuses_bad_frames(metric, case):
    truth, preds = BAD_FRAMES[case]
    spec = _registry.parse(metric)[0]
    kw = {}
    if "popularity" in spec.needs:
        kw["popularity"] = POP
    if "features" in spec.needs:
        kw["features"] = FEATURES
    if "history" in spec.needs:
        kw["history"] = TRUTH
    if "n_items" in spec.needs:
        kw["n_items"] = 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((TypeError, ValueError)) as info:
            rm.evaluate(truth, preds, [metric], **kw)
    assert any(n in str(info.value) for n in ("truth", "predictions", "score", "ids")), str(
        info.value
    )


@pytest.mark.parametrize("metric", _metric_names())
def test_every_metric_on_frames_with_unicode_ids_equals_integer_ids(metric):
    spec = _registry.parse(metric)[0]

    def relabel(frame):
        return frame.assign(
            user=[f"usér-{u}✓" for u in frame["user"]], item=[f"ïtem {i}" for i in frame["item"]]
        )

    kw, kw_text = {}, {}
    if "popularity" in spec.needs:  # training interactions
        kw["popularity"] = TRUTH
        kw_text["popularity"] = relabel(TRUTH)
    if "features" in spec.needs:
        kw["features"] = FEATURES
        kw_text["features"] = FEATURES.rename(index=lambda i: f"ïtem {i}")
    if "history" in spec.needs:
        kw["history"] = TRUTH
        kw_text["history"] = relabel(TRUTH)
    if "n_items" in spec.needs:
        kw["n_items"] = kw_text["n_items"] = 4
    want = rm.evaluate(TRUTH, PREDS, [metric], **kw)
    got = rm.evaluate(relabel(TRUTH), relabel(PREDS), [metric], **kw_text)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)
