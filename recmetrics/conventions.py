"""Convention presets: each library's variant of the ranking metrics, on request.

Libraries that all report "MAP@10" or "NDCG@10" compute different numbers
from the same recommendations, because they make different choices: the
denominator of AP@k, the positions the ideal DCG sums over, the gain and the
discount, how tied scores are ordered, whether MRR is cut at ``k``, what a
user without relevant items counts as. In ``recmetrics`` every one of these
choices is an explicit keyword of the metric functions. A *convention preset*
is a named set of values of those keywords that reproduces one library:

>>> import recmetrics as rm
>>> rm.conventions.PRESETS["recbole"]["ap_denominator"]
'min'
>>> y_true = [[1, 0, 1, 1, 0, 0]]
>>> y_score = [[0.9, 0.8, 0.7, 0.1, 0.2, 0.3]]
>>> # trec_eval: (1/1) / |R|
>>> rm.evaluate(y_true, y_score, ["map@2"], convention="trec_eval").round(4).tolist()
[0.3333]
>>> # RecBole: (1/1) / min(|R|, 2)
>>> rm.evaluate(y_true, y_score, ["map@2"], convention="recbole").round(4).tolist()
[0.5]

How a preset combines with explicit keywords (see :func:`resolve`): the
preset fills every convention keyword of :func:`recmetrics.evaluate` that the
caller did not pass; a keyword that the caller *did* pass must agree with the
preset, otherwise :func:`~recmetrics.evaluate` raises ``ValueError`` (to mix
conventions, pass ``convention=None`` and set every keyword yourself). A
metric that the library does not provide, or not with that cutoff, also
raises ``ValueError``.

The table of conventions, with the source file and function behind each one
and the version read, is :func:`describe`. Every preset is checked against
its library itself, on randomised inputs (binary and graded relevance, ties,
lists shorter than k, users in one frame only, users judged without a
relevant item), in ``tests/test_preset_parity.py``: scikit-learn, trec_eval
(pytrec_eval), ranx and Spark in the package's environment, the others in a
second environment that the tests build (they need pandas < 3). What a
preset cannot reproduce is listed there with the library's source line.
Where a library leaves the order of tied items unspecified (an unstable
sort, ``torch.topk``, or the order of its input), no preset can reproduce
it on tied scores: the preset then uses
``ties='expected'``, and it reproduces the library exactly on scores without
ties.
"""

from __future__ import annotations

import math
import numbers

import pandas as pd

from . import _registry
from ._docs import fill_doc
from ._validation import check_choice, check_k

__all__ = [
    "PRESETS",
    "METRIC_OVERRIDES",
    "SUPPORTED",
    "LIBRARIES",
    "SOURCES",
    "CONVENTION_KEYWORDS",
    "describe",
    "resolve",
    "check_supported",
]

# Every convention keyword of recmetrics.evaluate, with its default.
CONVENTION_KEYWORDS = {
    "ties": "expected",
    "no_relevant": "skip",
    "ap_denominator": "min",
    "ap_ties": "policy",
    "recall_denominator": "relevant",
    "gain": "linear",
    "idcg": "min",
    "log_base": 2.0,
    "discount": "log",
    "retrieve_nonpositive": None,  # None: True, every item is ranked
    "score_dtype": None,  # None: the scores as given
    "short_lists": "k",
    "users": None,  # None: 'truth' (long data frames only)
}

# what the keywords left at None mean
_EFFECTIVE = dict(CONVENTION_KEYWORDS, retrieve_nonpositive=True, users="truth")

# Keywords for which a value passed explicitly wins over the preset instead of
# contradicting it: which users are evaluated is the caller's choice (trec_eval
# itself has -c for it); the preset only supplies its library's default.
CALLER_CHOOSES = ("users",)

# --------------------------------------------------------------------------
# the presets: how each library differs from the package's defaults
# (CONVENTION_KEYWORDS); every other keyword is the default
_DIFFERENCES = {
    "trec_eval": {
        "ties": "trec_eval",
        "no_relevant": "zero",
        "ap_denominator": "relevant",
        "score_dtype": "float32",
        # queries in both qrels and run (trec_eval without -c)
        "users": "both",
    },
    "sklearn": {"no_relevant": "zero", "ap_denominator": "relevant", "ap_ties": "group_end"},
    # a query judged without a relevant document scores 0 in ranx
    "ranx": {"no_relevant": "zero", "ap_denominator": "relevant"},
    "torchmetrics": {
        "no_relevant": "zero",
        "ap_denominator": "hits",
        "retrieve_nonpositive": False,
        "score_dtype": "float32",
    },
    "recbole": {"gain": "binary"},
    "recommenders": {"gain": "binary", "log_base": math.e},
    "spark": {"no_relevant": "zero", "gain": "binary", "log_base": math.e},
    "rectools": {"ap_denominator": "relevant", "gain": "binary", "idcg": "k"},
    # LensKit measures the recommendation lists it is given (a user without a
    # list is not evaluated; a list whose user has no test item counts 0 in
    # its summary), and scores a list shorter than k over its own length
    "lenskit": {
        "recall_denominator": "min",
        "gain": "binary",
        "discount": "jarvelin",
        "no_relevant": "zero",
        "short_lists": "list",
        "users": "predictions",
    },
}

# Every keyword of every preset (the defaults filled in).
PRESETS = {name: {**CONVENTION_KEYWORDS, **diff} for name, diff in _DIFFERENCES.items()}

# Keywords that one metric of a library sets differently from the rest.
METRIC_OVERRIDES = {
    # torchmetrics' retrieval_normalized_dcg has no `preds > 0` filter
    "torchmetrics": {"ndcg": {"retrieve_nonpositive": True}},
    # roc_auc_score is undefined (it raises) for a user with one class only;
    # ndcg_score counts a user without relevant items as 0
    "sklearn": {"auc": {"no_relevant": "skip"}},
    # precision_at_k, recall_at_k and map_at_k divide by the users present in
    # both frames; ndcg_at_k by every user of rating_true
    "recommenders": {
        "precision": {"users": "both"},
        "recall": {"users": "both"},
        "map": {"users": "both"},
    },
}

# Metrics each library provides: "k" (only with a cutoff), "none" (only
# without), "both". Read from the metric registry (one place for names).
SUPPORTED = {name: _registry.supported_by(name) for name in PRESETS}

# Library, version read, how it was checked, and what it does with ties.
LIBRARIES = {
    "trec_eval": {
        "library": "trec_eval (through pytrec_eval)",
        "version": "pytrec-eval-terrier 0.5.11",
        "checked": "run (tests)",
        "ties": "document id in decreasing string order (our 'trec_eval' = higher column first "
        "with zero-padded ids)",
        "notes": "scores compared in single precision; binary measures count grade >= 1 as "
        "relevant; only the queries in both qrels and run are evaluated (without -c; "
        "users='truth' is trec_eval -c); one judged with no relevant item scores 0",
    },
    "sklearn": {
        "library": "scikit-learn",
        "version": "1.9.1",
        "checked": "run (tests)",
        "ties": "NDCG: mean over the tied group (= 'expected'); AP: every relevant item of a tied "
        "group "
        "gets the precision at the end of the group",
        "notes": "no P@k, R@k, MRR or AP@k; average_precision_score needs average='samples' for a "
        "mean "
        "over users (its default averages over items); LRAP counts a user without relevant "
        "items as 1",
    },
    "ranx": {
        "library": "ranx",
        "version": "0.3.21",
        "checked": "run without ties (tests)",
        "ties": "input order and an unstable argsort (not reproducible)",
        "notes": "queries without qrels are dropped with make_comparable=True; a query judged "
        "without a relevant document scores 0; 'ndcg' is linear (Jarvelin), 'ndcg_burges' "
        "exponential",
    },
    "torchmetrics": {
        "library": "torchmetrics",
        "version": "1.9.0",
        "checked": "run (tests/test_preset_parity.py)",
        "ties": "NDCG: mean over the tied group; P/R/AP/RR: order of torch.topk/argsort "
        "(unspecified)",
        "notes": "P/R/AP/RR ignore relevant items scored <= 0 (since 1.7.4) and need binary "
        "targets; "
        "scores are cast to float32; empty_target_action='neg' (0) by default",
    },
    "recbole": {
        "library": "RecBole",
        "version": "1.2.1",
        "checked": "run (tests/test_preset_parity.py)",
        "ties": "order of torch.topk (unspecified)",
        "notes": "binary relevance only; users without test items are not evaluated; "
        "results rounded to 4 decimals (metric_decimal_place)",
    },
    "recommenders": {
        "library": "Microsoft Recommenders (python_evaluation)",
        "version": "1.2.1",
        "checked": "run (tests/test_preset_parity.py)",
        "ties": "stable sort: input row order",
        "notes": "every row of rating_true is relevant; precision_at_k, recall_at_k and "
        "map_at_k average over the users in both frames, ndcg_at_k over every user of "
        "rating_true; ndcg_at_k binary by default (score_type='raw' for linear gains), natural "
        "log; map() divides by |R|, map_at_k() by min(|R|, k); no MRR",
    },
    "spark": {
        "library": "Spark MLlib RankingMetrics",
        "version": "pyspark 4.3.0 (run); Scala source read in apache/spark (>= 3.4)",
        "checked": "run (tests/test_preset_parity.py)",
        "ties": "none: takes ranked lists",
        "notes": "binary relevance from (prediction, labels) pairs; graded NDCG only from "
        "3-tuples (since "
        "3.4.0, gain 2^rel - 1, ideal order = the labels as given); empty ground truth -> 0; no "
        "MRR",
    },
    "rectools": {
        "library": "RecTools",
        "version": "0.19.0",
        "checked": "run (tests/test_preset_parity.py)",
        "ties": "none: takes ranks (Columns.Rank) as given",
        "notes": "binary relevance; NDCG's IDCG over k positions unless divide_by_achievable=True; "
        "MAP divides by |R| unless divide_by_k=True; only users in the test interactions count",
    },
    "lenskit": {
        "library": "LensKit",
        "version": "2025.8.1",
        "checked": "run (tests/test_preset_parity.py)",
        "ties": "order of its top-n selection (unspecified)",
        "notes": "discount 1/log2(max(rank, 2)); precision divides by the list length and AP by "
        "min(|R|, list length) when the list is shorter than k (short_lists='list'); only the "
        "users with a list are measured; a list whose user has no test item has precision 0 and "
        "NaN elsewhere, counted 0 in list_summary (here 0 per user too); its AveragePrecision "
        "raises ZeroDivisionError on such a list",
    },
}

# Source file and function behind each metric of each library.
SOURCES = {
    "trec_eval": {
        "precision": "m_P.c (P_k)",
        "recall": "m_recall.c (recall_k)",
        "map": "m_map.c (map), m_map_cut.c (map_cut_k)",
        "ndcg": "m_ndcg.c (ndcg), m_ndcg_cut.c (ndcg_cut_k)",
        "mrr": "m_recip_rank.c (recip_rank)",
        "hr": "m_success.c (success_k)",
        "ties": "form_res_rels.c: comp_sim_docno",
    },
    "sklearn": {
        "ndcg": "sklearn/metrics/_ranking.py: ndcg_score, _tie_averaged_dcg",
        "dcg": "sklearn/metrics/_ranking.py: dcg_score",
        "map": "sklearn/metrics/_ranking.py: average_precision_score (average='samples')",
        "auc": "sklearn/metrics/_ranking.py: roc_auc_score",
    },
    "ranx": {
        "precision": "ranx/metrics/precision.py: _precision",
        "recall": "ranx/metrics/recall.py: _recall",
        "f1": "ranx/metrics/f1.py: _f1",
        "hr": "ranx/metrics/hit_rate.py: _hit_rate",
        "mrr": "ranx/metrics/reciprocal_rank.py: _reciprocal_rank",
        "map": "ranx/metrics/average_precision.py: _average_precision",
        "ndcg": "ranx/metrics/ndcg.py: _dcg, _idcg, _ndcg",
        "ties": "ranx/data_structures/common.py: sort_dict_by_value (np.argsort of -scores)",
    },
    "torchmetrics": {
        "precision": "torchmetrics/functional/retrieval/precision.py: retrieval_precision",
        "recall": "torchmetrics/functional/retrieval/recall.py: retrieval_recall",
        "map": "torchmetrics/functional/retrieval/average_precision.py: "
        "retrieval_average_precision",
        "ndcg": "torchmetrics/functional/retrieval/ndcg.py: retrieval_normalized_dcg, "
        "_tie_average_dcg",
        "mrr": "torchmetrics/functional/retrieval/reciprocal_rank.py: retrieval_reciprocal_rank",
        "no_relevant": "torchmetrics/retrieval/base.py: RetrievalMetric.compute "
        "(empty_target_action)",
    },
    "recbole": {
        "precision": "recbole/evaluator/metrics.py: Precision.metric_info",
        "recall": "recbole/evaluator/metrics.py: Recall.metric_info",
        "map": "recbole/evaluator/metrics.py: MAP.metric_info",
        "ndcg": "recbole/evaluator/metrics.py: NDCG.metric_info",
        "mrr": "recbole/evaluator/metrics.py: MRR.metric_info",
        "hr": "recbole/evaluator/metrics.py: Hit.metric_info",
        "ties": "recbole/evaluator/collector.py: Collector.eval_batch_collect (torch.topk)",
    },
    "recommenders": {
        "precision": "recommenders/evaluation/python_evaluation.py: precision_at_k",
        "recall": "recommenders/evaluation/python_evaluation.py: recall_at_k",
        "map": "recommenders/evaluation/python_evaluation.py: map_at_k (map: denominator |R|)",
        "ndcg": "recommenders/evaluation/python_evaluation.py: ndcg_at_k",
        "ties": "recommenders/evaluation/python_evaluation.py: get_top_k_items",
    },
    "spark": {
        "precision": "mllib/.../evaluation/RankingMetrics.scala: precisionAt",
        "recall": "mllib/.../evaluation/RankingMetrics.scala: recallAt",
        "map": "mllib/.../evaluation/RankingMetrics.scala: meanAveragePrecisionAt, "
        "meanAveragePrecision",
        "ndcg": "mllib/.../evaluation/RankingMetrics.scala: ndcgAt",
    },
    "rectools": {
        "precision": "rectools/metrics/classification.py: Precision",
        "recall": "rectools/metrics/classification.py: Recall",
        "f1": "rectools/metrics/classification.py: F1Beta",
        "hr": "rectools/metrics/classification.py: HitRate",
        "mrr": "rectools/metrics/ranking.py: MRR",
        "map": "rectools/metrics/ranking.py: MAP",
        "ndcg": "rectools/metrics/ranking.py: NDCG",
    },
    "lenskit": {
        "precision": "lenskit/metrics/ranking/_pr.py: Precision",
        "recall": "lenskit/metrics/ranking/_pr.py: Recall",
        "hr": "lenskit/metrics/ranking/_hit.py: Hit",
        "mrr": "lenskit/metrics/ranking/_recip.py: RecipRank",
        "map": "lenskit/metrics/ranking/_map.py: AveragePrecision",
        "ndcg": "lenskit/metrics/ranking/_dcg.py: NDCG; _weighting.py: LogRankWeight",
    },
}


def _same(a, b) -> bool:
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real) and not isinstance(a, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-12)
    return a == b


@fill_doc
def resolve(convention, passed):
    """Combine a preset with the keywords passed to :func:`recmetrics.evaluate`.

    Each keyword takes the value passed, else the preset's, else the
    package's default (:data:`CONVENTION_KEYWORDS`); a value passed that
    contradicts the preset raises, except for the keywords of
    :data:`CALLER_CHOOSES` (``users``: which users are evaluated), where the
    value passed wins, for every metric.

    Parameters
    ----------
    convention : str or None
        A key of :data:`PRESETS`, or ``None`` (no preset).
    passed : dict
        The convention keywords as received, ``None`` for a keyword the
        caller did not pass.

    Returns
    -------
    options : dict
        The value of every keyword.
    overrides : dict
        Per metric, the keywords whose value differs for that metric.
    supported : dict or None
        The metrics the library provides (see :data:`SUPPORTED`), or ``None``.

    Raises
    ------
    ValueError
        If a keyword passed explicitly contradicts the preset. A preset
        that sets one metric differently (:data:`METRIC_OVERRIDES`) is
        compared on its general value: the override belongs to the library.
    TypeError
        If ``passed`` holds a key that is not a convention keyword.

    See Also
    --------
    describe : The table of what each preset sets.
    check_supported : Whether a library provides a metric.
    recmetrics.evaluate : Where the presets are used.

    References
    ----------
    %(ref_libraries)s

    Examples
    --------
    >>> resolve("trec_eval", {"ap_denominator": None})[0]
    {'ap_denominator': 'relevant'}
    >>> resolve("recbole", {"ap_denominator": "relevant"})
    Traceback (most recent call last):
    ...
    ValueError: convention='recbole' (RecBole 1.2.1) sets ap_denominator='min', but ...
    """
    if not isinstance(passed, dict):
        raise TypeError(
            f"passed must be a dict of convention keywords, got {type(passed).__name__}"
        )
    unknown = set(passed) - set(CONVENTION_KEYWORDS)
    if unknown:
        raise TypeError(
            f"passed holds keys that are not convention keywords: {sorted(map(repr, unknown))}; "
            f"the keywords are {list(CONVENTION_KEYWORDS)}"
        )
    if convention is None:
        options = {}
        for key, value in passed.items():
            options[key] = CONVENTION_KEYWORDS[key] if value is None else value
        return options, {}, None
    check_choice(convention, "convention", tuple(PRESETS))
    preset = PRESETS[convention]
    overrides = METRIC_OVERRIDES.get(convention, {})
    lib = LIBRARIES[convention]
    options = {}
    for key, value in passed.items():
        wanted = preset[key]
        if key in CALLER_CHOOSES and value is not None:
            options[key] = value
            continue
        if value is not None:
            effective = _EFFECTIVE[key] if wanted is None else wanted
            if not _same(value, effective):
                raise ValueError(
                    f"convention={convention!r} ({lib['library']} {lib['version']}) sets "
                    f"{key}={wanted!r}, "
                    f"but {key}={value!r} was passed; leave {key} out, or pass convention=None "
                    "and set "
                    "every convention keyword yourself"
                )
        options[key] = CONVENTION_KEYWORDS[key] if wanted is None else wanted
    chosen = {key for key in CALLER_CHOOSES if passed.get(key) is not None}
    if chosen:  # the caller's choice holds for every metric
        overrides = {
            metric: {key: v for key, v in kw.items() if key not in chosen}
            for metric, kw in overrides.items()
        }
    return options, overrides, SUPPORTED[convention]


@fill_doc
def check_supported(convention, base, k):
    """Raise ``ValueError`` unless the library of ``convention`` has ``base`` with cutoff ``k``.

    Parameters
    ----------
    convention : str
        A key of :data:`PRESETS`.
    base : str
        A canonical metric name of the registry (``"precision"``,
        ``"ndcg"``, ``"map"``, ``"mrr"``, ...).
    k : int or None
        The cutoff asked for (``None``: no cutoff).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        If the library does not provide the metric, provides it only with a
        cutoff and ``k`` is None, or only without one and ``k`` is given.

    See Also
    --------
    describe : Which metrics each library provides, with which cutoff.

    References
    ----------
    %(ref_libraries)s

    Examples
    --------
    >>> check_supported("trec_eval", "map", 10)   # map_cut_10
    >>> check_supported("trec_eval", "mrr", 10)
    Traceback (most recent call last):
    ...
    ValueError: trec_eval (through pytrec_eval)'s mrr has no cutoff; ask for 'mrr' without @10
    >>> check_supported("sklearn", "precision", 10)
    Traceback (most recent call last):
    ...
    ValueError: scikit-learn provides no 'precision' (convention='sklearn' has: ...)
    """
    check_choice(convention, "convention", tuple(PRESETS))
    if not isinstance(base, str):
        raise TypeError(f"base must be a metric name (str), got {base!r}")
    base = _registry.get(base).name  # an unknown name raises, naming the known ones
    k = check_k(k, "k", allow_none=True)
    sup = SUPPORTED[convention]
    lib = LIBRARIES[convention]["library"]
    if base not in sup:
        have = ", ".join(
            f"{m}@k" if c == "k" else (m if c == "none" else f"{m}[@k]") for m, c in sup.items()
        )
        raise ValueError(f"{lib} provides no {base!r} (convention={convention!r} has: {have})")
    if sup[base] == "k" and k is None:
        raise ValueError(f"{lib}'s {base} needs a cutoff; ask for '{base}@k'")
    if sup[base] == "none" and k is not None:
        raise ValueError(f"{lib}'s {base} has no cutoff; ask for '{base}' without @{k}")


# --------------------------------------------------------------------------
# the table of conventions
_DEN = {"relevant": "|R|", "min": "min(|R|, k)", "k": "k", "hits": "hits in the top k"}
_NOREL = {"zero": "count as 0", "skip": "left out", "raise": "error", "one": "count as 1"}
_CUT = {"k": "cut at k", "none": "no cutoff", "both": "cut at k if asked"}
_USERS = {
    "truth": "every user of the truth",
    "predictions": "every user with a list",
    "both": "users in both frames",
    "all": "users in either frame",
}


def _users_cell(name):
    """Which users a preset evaluates in long frames, with its per-metric exceptions."""
    text = _USERS[PRESETS[name]["users"] or "truth"]
    by_policy = {}
    for metric, kw in METRIC_OVERRIDES.get(name, {}).items():
        if "users" in kw:
            by_policy.setdefault(kw["users"], []).append(metric)
    for policy, metrics in by_policy.items():
        text += f" ({', '.join(metrics)}: {_USERS[policy]})"
    return text


def _row(name):
    p, sup, lib = PRESETS[name], SUPPORTED[name], LIBRARIES[name]
    ap = _DEN[p["ap_denominator"]] if "map" in sup else "not provided"
    if "map" in sup and p["short_lists"] == "list" and p["ap_denominator"] in ("min", "k"):
        ap = ap.replace("k", "k, list length")
    if "map" in sup and p["ap_ties"] == "group_end":
        ap += " (no cutoff; tied group: precision at its end)"
    if "ndcg" in sup:
        disc = "1/log(i+1)" if p["discount"] == "log" else "1/log2(max(i, 2))"
        ideal = "min(|R|, k)" if p["idcg"] == "min" else "k"
        ndcg = f"{p['gain']} gain, IDCG over {ideal} positions, {disc}"
    else:
        ndcg = "not provided"
    return {
        "library": lib["library"],
        "version": lib["version"],
        "checked": lib["checked"],
        "P@k": ("hits / min(k, list length)" if p["short_lists"] == "list" else "hits / k")
        if "precision" in sup
        else "not provided",
        "R@k": f"hits / {_DEN[p['recall_denominator']]}" if "recall" in sup else "not provided",
        "AP@k denominator": ap,
        "NDCG@k": ndcg,
        "MRR": _CUT[sup["mrr"]] if "mrr" in sup else "not provided",
        "ties": lib["ties"],
        "scores <= 0": "not retrieved (P, R, AP, RR)"
        if p["retrieve_nonpositive"] is False
        else "ranked",
        "no relevant item": _NOREL[p["no_relevant"]],
        "users (frames)": _users_cell(name),
        "notes": lib["notes"],
    }


@fill_doc
def describe(convention=None) -> pd.DataFrame:
    """The conventions of every library (or, per metric, of one library).

    Parameters
    ----------
    convention : str, optional
        ``None``: one row per library, one column per convention. A key of
        :data:`PRESETS`: one row per metric that library provides, with its
        cutoff rule, the source file and function behind it, and the
        keyword values of the preset for that metric.

    Returns
    -------
    pandas.DataFrame
        Without ``convention``: indexed by ``convention``, with the columns
        ``library``, ``version``, ``checked``, ``P@k``, ``R@k``,
        ``AP@k denominator``, ``NDCG@k``, ``MRR``, ``ties``,
        ``scores <= 0``, ``no relevant item``, ``users (frames)`` and
        ``notes``. With one:
        indexed by ``metric``, with the columns ``cutoff``, ``source`` and
        ``keywords`` (the keywords that differ from the package's defaults).

    See Also
    --------
    recmetrics.compare_conventions : The numbers under every convention.
    resolve : How a preset combines with explicit keywords.

    References
    ----------
    %(ref_libraries)s

    Examples
    --------
    >>> describe().loc["recbole", "AP@k denominator"]
    'min(|R|, k)'
    >>> describe("trec_eval").loc["mrr", "source"]
    'm_recip_rank.c (recip_rank)'
    >>> describe("recbole").loc["ndcg", "keywords"]
    "gain='binary'"
    """
    if convention is None:
        table = pd.DataFrame({name: _row(name) for name in PRESETS}).T
        table.index.name = "convention"
        return table
    check_choice(convention, "convention", tuple(PRESETS))
    p = PRESETS[convention]
    rows = {}
    for base, cut in SUPPORTED[convention].items():
        kw = dict(p)
        kw.update(METRIC_OVERRIDES.get(convention, {}).get(base, {}))
        used = (
            ("ties", "no_relevant")
            + _registry.get(base).keywords
            + ("retrieve_nonpositive", "score_dtype", "users")
        )
        rows[base] = {
            "cutoff": _CUT[cut],
            "source": SOURCES[convention].get(base, ""),
            "keywords": ", ".join(
                f"{key}={kw[key]!r}"
                for key in used
                if kw[key] is not None and kw[key] != _EFFECTIVE[key]
            ),
        }
    table = pd.DataFrame(rows).T
    table.index.name = "metric"
    return table
