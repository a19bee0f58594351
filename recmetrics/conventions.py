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
and the version read, is :func:`describe`; each library's entries live in
one provider file, ``recmetrics/providers/<library>.py``
(:mod:`recmetrics.providers`). Every preset is checked against its library
itself, on randomised inputs (binary and graded relevance, ties,
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

from ._docs import fill_doc
from ._keywords import CALLER_CHOOSES, CONVENTION_KEYWORDS
from ._keywords import EFFECTIVE as _EFFECTIVE
from ._validation import check_choice, check_k
from .metrics import _registry
from .providers import LIBRARIES, METRIC_OVERRIDES, PRESETS, SOURCES

__all__ = [
    "PRESETS",
    "METRIC_OVERRIDES",
    "SUPPORTED",
    "LIBRARIES",
    "SOURCES",
    "CONVENTION_KEYWORDS",
    "CALLER_CHOOSES",
    "describe",
    "resolve",
    "check_supported",
]

# The tables below are read from one provider file per library
# (recmetrics/providers/<library>.py); the keywords and their defaults from
# recmetrics._keywords.

# Metrics each library provides: "k" (only with a cutoff), "none" (only
# without), "both"; in the registry's order.
SUPPORTED = {name: _registry.supported_by(name) for name in PRESETS}


def _same(a, b) -> bool:
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real) and not isinstance(a, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-12)
    return a == b


@fill_doc
def resolve(convention, passed, metrics=None):
    """Combine a preset with the keywords passed to :func:`recmetrics.evaluate`.

    Each keyword takes the value passed, else the preset's, else the
    package's default (:data:`CONVENTION_KEYWORDS`); a value passed that
    contradicts the preset raises, except for the keywords of
    :data:`CALLER_CHOOSES` (``users``: which users are evaluated), where the
    value passed wins, for every metric. So does a value passed that one of
    ``metrics`` sets differently in the preset (:data:`METRIC_OVERRIDES`,
    e.g. scikit-learn's ``auc`` skips one-class users): the library's
    per-metric choice never silently replaces an explicit keyword.

    Parameters
    ----------
    convention : str or None
        A key of :data:`PRESETS`, or ``None`` (no preset).
    passed : dict
        The convention keywords as received, ``None`` for a keyword the
        caller did not pass.
    metrics : iterable of str, optional
        The canonical names of the metrics asked for, whose per-metric
        settings are checked against ``passed``; ``None`` checks those of
        every metric of the preset.

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
        If a keyword passed explicitly contradicts the preset, or the
        setting the preset gives it for one of ``metrics``
        (:data:`METRIC_OVERRIDES`).
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
    asked = overrides if metrics is None else {m: overrides[m] for m in metrics if m in overrides}
    for metric, kw in asked.items():
        for key, wanted in kw.items():
            value = passed.get(key)
            if key not in CALLER_CHOOSES and value is not None and not _same(value, wanted):
                raise ValueError(
                    f"convention={convention!r} ({lib['library']} {lib['version']}) sets "
                    f"{key}={wanted!r} for {metric}, but {key}={value!r} was passed; leave "
                    f"{key} out, or pass convention=None and set every convention keyword "
                    "yourself"
                )
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


def __dir__():
    """The public API only (``__all__``), not the module's own imports (``np``, ``math``)."""
    return sorted(__all__)
