"""The one registry of metric names: one spec per ranking metric.

Every consumer that turns a *name* into a metric reads this module:
:func:`recmetrics.evaluate` (``"ndcg@10"``), the sampled metrics
(:func:`recmetrics.metric_function`), the convention presets (which library
provides which metric, with or without a cutoff) and
:func:`recmetrics.conventions.describe`. Adding a metric is one function in
its chapter's module plus one :class:`MetricSpec` here.
"""

from __future__ import annotations

import ast
import re

from .._validation import check_k, check_probability
from ..providers import CUTOFF_RULES, PROVIDERS
from . import beyond
from ._spec import MetricSpec
from .cascade import err
from .curves import coverage_error, partial_auc
from .cwl import insq, inst
from .cwl_nerr import bpm, nerr8, nerr9, nerr10, nerr11, sdcg
from .infap import infap
from .interpolated_precision import IPREC_AT_LEVEL, precision_11pt
from .judged import bpref, judged, unjudged
from .judgment_groups import RPREC_MULT_AVGJG_AT, map_avgjg, p_avgjg
from .ndcg import cg, dcg, ndcg
from .rbp import rbp, rbp_residual
from .roc_auc import auc
from .topn import (
    arhr,
    average_precision,
    f1,
    hit_ratio,
    precision,
    r_precision,
    recall,
    reciprocal_rank,
)
from .trec_counts import num_nonrel_judged_ret, num_q, num_rel, num_rel_ret, num_ret
from .trec_gain import bin_g, dcg_burges, ndcg_burges, rndcg, utility
from .trec_gain_walks import ndcg_rel, trec_g
from .trec_sets import (
    relative_precision,
    set_f,
    set_precision,
    set_recall,
    set_relative_precision,
)
from .trec_summaries import RPREC_MULT_AT, gm_bpref, gm_map, set_map

__all__ = [
    "MetricSpec",
    "REGISTRY",
    "CUTOFF_RULES",
    "get",
    "parse",
    "parse_with_keywords",
    "names",
    "supported_by",
]

_RBP_RESID, _PAUC = ("rbp_residual_definition",), ("interpolation",)  # see _keywords.py
REGISTRY: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec(
            "precision",
            precision,
            aliases=("p", "prec"),
            keywords=("short_lists",),
            rank_cutoff_required=True,
        ),
        MetricSpec(
            "recall",
            recall,
            aliases=("r",),
            keywords=("recall_denominator",),
            rank_cutoff_required=True,
        ),
        MetricSpec("f1", f1, aliases=("f1_score",), rank_cutoff_required=True),
        MetricSpec(
            "hr",
            hit_ratio,
            aliases=("hit_ratio", "hit", "hitrate", "hit_rate"),
            rank_cutoff_required=True,
        ),
        MetricSpec("rprec", r_precision, aliases=("r_precision",), takes_cutoff=False),
        MetricSpec("arhr", arhr),
        MetricSpec("mrr", reciprocal_rank, aliases=("rr", "recip_rank", "reciprocal_rank")),
        MetricSpec(
            "map",
            average_precision,
            aliases=("ap", "average_precision"),
            keywords=("ap_denominator", "ap_ties", "short_lists"),
        ),
        MetricSpec("ndcg", ndcg, keywords=("gain", "idcg", "log_base", "discount")),
        MetricSpec("dcg", dcg, keywords=("gain", "log_base", "discount")),
        MetricSpec("cg", cg, keywords=("gain",)),
        MetricSpec("auc", auc, aliases=("roc_auc",), takes_cutoff=False, needs=("n_items",)),
        # incomplete judgments: ir_measures' Judged@k, trec_eval's bpref (no cutoff)
        MetricSpec("judged", judged, aliases=("judged_at",), keywords=("short_lists",)),
        MetricSpec("unjudged", unjudged, aliases=("unj",), keywords=("short_lists",)),
        MetricSpec("bpref", bpref, aliases=("binary_preference",), takes_cutoff=False),
        # rank-biased precision (Moffat & Zobel 2008): p from the name, RBP(p=0.9)
        MetricSpec("rbp", rbp, aliases=("rank_biased_precision",), keywords=("rbp_gain",)),
        MetricSpec("rbp_residual", rbp_residual, aliases=("rbp_res",), keywords=_RBP_RESID),
        # trec_eval's set measures (the whole list as a set) and relative_P_k
        MetricSpec("set_precision", set_precision, aliases=("set_p",), takes_cutoff=False),
        MetricSpec("set_recall", set_recall, takes_cutoff=False),
        # beta = 1 (trec_eval's set_F, set_F.1.0); other betas: rm.set_f(beta=...)
        MetricSpec("set_f", set_f, aliases=("set_f1",), takes_cutoff=False),
        MetricSpec(
            "set_relative_precision",
            set_relative_precision,
            aliases=("set_relative_p",),
            takes_cutoff=False,
        ),
        MetricSpec(
            "relative_precision",
            relative_precision,
            aliases=("relative_p",),
            rank_cutoff_required=True,
        ),
        # interpolated precision: one name per trec_eval recall level (0.00 .. 1.00;
        # rm.iprec_at_recall(recall_level=x) for another level), and their mean
        *(MetricSpec(name, fn, takes_cutoff=False) for name, fn in IPREC_AT_LEVEL.items()),
        MetricSpec("precision_11pt", precision_11pt, aliases=("11pt_avg",), takes_cutoff=False),
        # beyond accuracy: functions of the recommended lists and item data
        MetricSpec(
            "coverage",
            beyond.coverage,
            aliases=("item_coverage", "catalog_coverage", "catalogue_coverage"),
            kind="catalogue",
            needs=("n_items",),
        ),
        MetricSpec(
            "gini", beyond.gini, aliases=("gini_index",), kind="catalogue", needs=("n_items",)
        ),
        MetricSpec(
            "entropy", beyond.entropy, aliases=("shannon_entropy",), kind="catalogue", needs=()
        ),
        MetricSpec(
            "novelty",
            beyond.novelty,
            aliases=("self_information", "surprisal"),
            kind="list",
            needs=("popularity",),
        ),
        MetricSpec(
            "arp",
            beyond.average_popularity,
            aliases=("average_popularity",),
            kind="list",
            needs=("popularity",),
        ),
        MetricSpec(
            "aplt",
            beyond.long_tail_share,
            aliases=("long_tail_share", "long_tail"),
            kind="list",
            needs=("popularity",),
        ),
        MetricSpec(
            "ild",
            beyond.intra_list_diversity,
            aliases=("intra_list_diversity", "diversity"),
            kind="list",
            needs=("features",),
        ),
        MetricSpec(
            "serendipity",
            beyond.serendipity,
            kind="list",
            needs=("truth", "popularity"),
        ),
        MetricSpec(
            "calibration",
            beyond.calibration,
            aliases=("miscalibration", "calibration_kl"),
            kind="list",
            needs=("history", "features"),
        ),
        # issue 26: trec_eval's summaries that are not plain means (aggregate), its
        # counts, set_map, Rprec_mult_x and infAP (ir_measures' NumQ, NumRet, ...)
        MetricSpec(
            "gm_map",
            gm_map,
            aliases=("gmap",),
            keywords=("ap_denominator", "ap_ties", "short_lists"),
            aggregate="geometric",
        ),
        MetricSpec("gm_bpref", gm_bpref, takes_cutoff=False, aggregate="geometric"),
        MetricSpec("num_q", num_q, aliases=("numq",), takes_cutoff=False, aggregate="sum"),
        MetricSpec("num_ret", num_ret, aliases=("numret",), takes_cutoff=False, aggregate="sum"),
        MetricSpec("num_rel", num_rel, aliases=("numrel",), takes_cutoff=False, aggregate="sum"),
        MetricSpec(
            "num_rel_ret",
            num_rel_ret,
            aliases=("numrelret",),
            takes_cutoff=False,
            aggregate="sum",
        ),
        MetricSpec(
            "num_nonrel_judged_ret", num_nonrel_judged_ret, takes_cutoff=False, aggregate="sum"
        ),
        MetricSpec("set_map", set_map, aliases=("setap", "set_ap"), takes_cutoff=False),
        # precision at trec_eval's default multiples of |R| (rm.rprec_mult(multiple=x))
        *(MetricSpec(name, fn, takes_cutoff=False) for name, fn in RPREC_MULT_AT.items()),
        MetricSpec("infap", infap, aliases=("inferred_ap",), takes_cutoff=False),
        # cascade measures: ERR (ir_measures' ERR@k, gdeval's err@k)
        MetricSpec("err", err, aliases=("expected_reciprocal_rank",)),
        # the C/W/L framework (cwl_eval; ir_measures' INST(T=1, max_rel=1), ...)
        MetricSpec("inst", inst, takes_cutoff=False),
        MetricSpec("insq", insq, takes_cutoff=False),
        MetricSpec("nerr8", nerr8),
        MetricSpec("nerr9", nerr9),
        MetricSpec("nerr10", nerr10, takes_cutoff=False),
        MetricSpec("nerr11", nerr11, takes_cutoff=False),
        MetricSpec("bpm", bpm),
        MetricSpec("sdcg", sdcg, aliases=("scaled_dcg",)),
        # trec_eval's gain-based and utility measures (trec_eval's names as aliases;
        # their gain maps, ndcg.1=0.5,2=3, are the keyword gain_values)
        MetricSpec("rndcg", rndcg, aliases=("r_ndcg",), takes_cutoff=False, reads_grades=True),
        MetricSpec("bin_g", bin_g, aliases=("bing", "binary_g"), takes_cutoff=False),
        MetricSpec("utility", utility, aliases=("set_utility",), takes_cutoff=False),
        # ranx's Burges DCG: ndcg / dcg with gain='exponential'
        MetricSpec("ndcg_burges", ndcg_burges),
        MetricSpec("dcg_burges", dcg_burges),
        # trec_eval's ndcg_rel and G (gain maps: gain_values)
        MetricSpec("ndcg_rel", ndcg_rel, takes_cutoff=False, reads_grades=True),
        MetricSpec(
            "trec_g",
            trec_g,
            aliases=("g", "normalized_gain"),
            takes_cutoff=False,
            reads_grades=True,
        ),
        # scikit-learn's roc_auc_score(max_fpr=...) as pauc(max_fpr=0.2), and coverage_error
        MetricSpec("pauc", partial_auc, takes_cutoff=False, needs=("n_items",), keywords=_PAUC),
        MetricSpec("coverage_error", coverage_error, takes_cutoff=False, needs=("n_items",)),
        # issue 29: the share of exposure (attention='log') outside the short head
        MetricSpec(
            "tail_exposure",
            beyond.tail_exposure,
            aliases=("long_tail_exposure",),
            kind="catalogue",
            needs=("popularity",),
        ),
        # trec_eval's judgment-group measures: a truth frame's column 'group' (qrels_jg)
        MetricSpec("map_avgjg", map_avgjg, takes_cutoff=False),
        MetricSpec("p_avgjg", p_avgjg, keywords=("short_lists",), rank_cutoff_required=True),
        *(MetricSpec(n, fn, takes_cutoff=False) for n, fn in RPREC_MULT_AVGJG_AT.items()),
    )
}

_BY_NAME = {alias: spec for spec in REGISTRY.values() for alias in (spec.name, *spec.aliases)}
# a base name of letters, digits and underscores, with a decimal point in a
# parameter (trec_eval's iprec_at_recall_0.10)
_NAME = re.compile(r"^\s*([a-z_0-9.]+?)\s*(?:@\s*(\d+))?\s*$")


def names() -> list[str]:
    """Every accepted name (canonical names and aliases), sorted."""
    return sorted(_BY_NAME)


def get(name: str) -> MetricSpec:
    """The spec of a metric name or alias (case-insensitive, without ``@k``)."""
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings like 'ndcg@10', got {name!r}")
    spec = _BY_NAME.get(name.strip().lower())
    if spec is None:
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(f"unknown metric {name!r}; known metrics: {known} (aliases: {_aliases()})")
    return spec


def _aliases() -> str:
    return ", ".join(sorted(a for s in REGISTRY.values() for a in s.aliases))


def parse(name: str) -> tuple[MetricSpec, int | None]:
    """Read ``'name'`` or ``'name@k'`` into ``(spec, k)``; ``k`` is None without a cutoff.

    ir_measures' spellings are read too (:func:`parse_with_keywords`), but a
    name that sets a keyword of the metric (``'RBP(p=0.9)'``) raises: only
    :func:`recmetrics.evaluate` and the command line pass such keywords on.

    Examples
    --------
    >>> spec, k = parse("average_precision@2")
    >>> spec.name, k
    ('map', 2)
    >>> parse("recip_rank")[0].name
    'mrr'
    """
    spec, k, keywords = parse_with_keywords(name)
    if keywords:
        raise ValueError(
            f"{name!r} sets keywords of {spec.name} ({_show(keywords)}), which only "
            "recmetrics.evaluate and the command line read from a name; call "
            f"recmetrics.{spec.function.__name__} with them instead"
        )
    return spec, k


def parse_with_keywords(name: str) -> tuple[MetricSpec, int | None, dict]:
    """Read a metric name into ``(spec, k, keywords)``: ours, ir_measures' or ranx's spelling.

    Our names: ``'name'`` or ``'name@k'`` (case-insensitive, aliases
    included). ir_measures' measure strings (``ir_measures/util.py``:
    ``parse_measure``), ``Name(param=value, ...)@cutoff``: its names map to
    ours (``nDCG@10``, ``P@5``, ``R@10``, ``AP``, ``AP@10``, ``RR@10``,
    ``Rprec``, ``Bpref``, ``Judged@10``, ``Success@10`` -> ``hr@10``,
    ``RBP``), and of its parameters those in :data:`IR_MEASURES_PARAMS` are
    read into the metric's keywords (``RBP(p=0.9)`` -> ``{'p': 0.9}``); any
    other parameter (``P(rel=2)@5``, ``AP(judged_only=True)``) raises
    ``ValueError`` naming it. ranx's ``rbp.95`` is ``RBP(p=0.95)``.
    ``keywords`` is empty for a plain name.

    Examples
    --------
    >>> spec, k, kw = parse_with_keywords("RBP(p=0.9)@10")
    >>> spec.name, k, kw
    ('rbp', 10, {'p': 0.9})
    >>> parse_with_keywords("Success@10")[:2][0].name, parse_with_keywords("rbp.95")[2]
    ('hr', {'p': 0.95})
    """
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings like 'ndcg@10', got {name!r}")
    ranx = _RANX_RBP.match(name.lower())
    if ranx:  # ranx: rbp.80 is p = 0.80
        return REGISTRY["rbp"], None, {"p": float(f"0.{ranx.group(1)}")}
    call = _CALL.match(name)
    params = {}
    if call:
        base, args, k = call.group(1).lower(), call.group(2), call.group(3)
        params = _read_params(name, args)
    else:
        m = _NAME.match(name.lower())
        if not m:
            raise ValueError(
                f"cannot read the metric name {name!r}; use forms like 'ndcg@10', 'map', 'auc' "
                "(or ir_measures' 'nDCG@10', 'RBP(p=0.8)')"
            )
        base, k = m.group(1), m.group(2)
    base = IR_MEASURES_NAMES.get(base, base)
    try:
        spec = get(base)
    except ValueError:
        known = ", ".join(sorted(REGISTRY))
        raise ValueError(
            f"unknown metric {name!r}; known metrics: {known} (with @k where it applies; "
            f"aliases: {_aliases()})"
        ) from None
    if k is not None:
        if not spec.takes_cutoff:
            raise ValueError(f"{spec.name} has no cutoff; ask for {spec.name!r}")
        k = check_k(int(k), f"the cutoff of {name!r}")
    return spec, k, _keywords_of(name, spec, params)


# ir_measures' measure strings: Name(param=value, ...)@cutoff (ir_measures/util.py)
_CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*\((.*)\)\s*(?:@\s*(\d+))?\s*$")
_PARAM = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*=\s*(.+?)\s*$")
# ranx's rbp.80 (ranx/meta/evaluate.py: extract_metric_and_params)
_RANX_RBP = re.compile(r"^\s*rbp\.(\d+)\s*$")

#: ir_measures' names (lower-cased) that are not a name or alias of ours.
IR_MEASURES_NAMES = {"success": "hr"}


def _rbp_rel(value):
    """ir_measures' RBP(rel=1): binary relevance at grade 1, our binary gain."""
    if value != 1:
        raise ValueError("only rel=1, binary relevance, is implemented")
    return {"gain": "binary"}


#: ir_measures' parameters of the C/W/L measures (ir_measures/measures/inst.py, ...).
_CWL_PARAMS = {
    "T": lambda v: {"T": v},
    "min_rel": lambda v: {"min_grade": v},
    "max_rel": lambda v: {"max_grade": v},
}


def _sdcg_dcg(value):
    """ir_measures' SDCG(dcg='log2'), its only choice."""
    if value != "log2":
        raise ValueError("only dcg='log2' is defined")
    return {}


def _gains_reader(value):
    """ir_measures' ``nDCG(gains={...})``: its int-to-int gain map, our ``gain_values``.

    ir_measures maps the qrels' grades before trec_eval reads them, which is
    trec_eval's gain map for gains >= 0; a negative mapped grade would make
    the document unjudged there, so negative gains are refused.
    """
    from ._gain_values import check_gain_values

    gains = check_gain_values(value)
    if any(g < 0 for g in gains.values()):
        raise ValueError(
            "ir_measures' gains make a document with a negative gain unjudged; "
            "give trec_eval's negative gains as gain_values"
        )
    return {"gain_values": gains}


def _keyword_reader(key):
    """A parameter read as the metric's keyword of the same name (checked by the metric)."""
    return lambda value: {key: value}


def _gain_values_reader(value):
    from ._gain_values import check_gain_values

    return {"gain_values": check_gain_values(value)}


_CWL_RELS = {key: _CWL_PARAMS[key] for key in ("min_rel", "max_rel")}

#: The ir_measures parameters read, per metric: parameter -> function of its
#: value giving the metric's keywords (it raises ValueError for a value it
#: cannot read). RBP's ``rel=1`` is binary relevance (cwl_eval's RBP).
IR_MEASURES_PARAMS = {
    "rbp": {"p": lambda v: {"p": check_probability(v, "p")}, "rel": _rbp_rel},
    "rbp_residual": {"p": lambda v: {"p": check_probability(v, "p")}},
    # the C/W/L measures of ir_measures' cwl_eval provider
    **{name: dict(_CWL_PARAMS) for name in ("inst", "insq", "nerr11", "bpm")},
    **{name: _CWL_RELS for name in ("nerr8", "nerr9")},
    "sdcg": {
        "dcg": _sdcg_dcg,
        **_CWL_RELS,
    },
    "nerr10": {"p": lambda v: {"p": check_probability(v, "p")}, **_CWL_RELS},
    # trec_eval's gain maps (ndcg.1=0.5,2=3): ir_measures' gains, or gain_values
    "ndcg": {"gains": _gains_reader, "gain_values": _gain_values_reader},
    "dcg": {"gain_values": _gain_values_reader},
    "rndcg": {"gain_values": _gain_values_reader},
    "ndcg_rel": {"gain_values": _gain_values_reader},
    "trec_g": {"gain_values": _gain_values_reader},
    # trec_eval's utility.p1,p2,p3,p4 (the CLI reads it into these names)
    "utility": {
        key: _keyword_reader(key)
        for key in ("rel_ret", "nonrel_ret", "rel_not_ret", "nonrel_not_ret", "n_docs")
    },
    "pauc": {key: _keyword_reader(key) for key in ("max_fpr", "mcclish", "interpolation")},
}


def _show(params):
    return ", ".join(f"{key}={value!r}" for key, value in params.items())


def _read_params(name, args):
    """``'p=0.8, rel=1'`` -> ``{'p': 0.8, 'rel': 1}`` (Python literals, as ir_measures)."""
    params = {}
    for part in filter(None, (x.strip() for x in _top_level_split(args))):
        m = _PARAM.match(part)
        if not m:
            raise ValueError(
                f"cannot read the parameter {part!r} of {name!r}; ir_measures' parameters are "
                "named: 'RBP(p=0.8)'"
            )
        try:
            value = ast.literal_eval(m.group(2))
        except (ValueError, SyntaxError):
            raise ValueError(f"cannot read the value of {part!r} in {name!r}") from None
        if m.group(1) in params:
            raise ValueError(f"{name!r} sets {m.group(1)} twice")
        params[m.group(1)] = value
    return params


def _top_level_split(args):
    """Split ``'gains={1: 0.5, 2: 3}, x=1'`` at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(args):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            parts.append(args[start:i])
            start = i + 1
    parts.append(args[start:])
    return parts


def _keywords_of(name, spec, params):
    """The metric's keywords from ir_measures' parameters; ValueError naming the others."""
    readers = IR_MEASURES_PARAMS.get(spec.name, {})
    unknown = {key: value for key, value in params.items() if key not in readers}
    if unknown:
        supported = ", ".join(readers) or "none"
        raise ValueError(
            f"{name!r}: the parameter(s) {_show(unknown)} are not supported yet for "
            f"{spec.name} (the ir_measures parameters read for it: {supported})"
        )
    keywords = {}
    for key, value in params.items():
        try:
            keywords.update(readers[key](value))
        except (ValueError, TypeError) as err:
            raise ValueError(
                f"{name!r}: the parameter {key}={value!r} is not supported for {spec.name} ({err})"
            ) from None
    return keywords


def supported_by(preset: str) -> dict[str, str]:
    """Metric name -> cutoff rule, for every ranking metric the library of ``preset`` provides.

    Read from the library's provider file (:mod:`recmetrics.providers`), in
    the registry's order.
    """
    metrics = PROVIDERS[preset].metrics
    unknown = set(metrics) - set(REGISTRY)
    if unknown:
        raise ValueError(f"provider {preset!r} names metrics not in the registry: {unknown}")
    return {name: metrics[name] for name in REGISTRY if name in metrics}


def ranking_names() -> list[str]:
    """Canonical names of the metrics that are functions of the ranking."""
    return [name for name, spec in REGISTRY.items() if spec.kind == "ranking"]


# trec_eval 10.0's rbp (scaled grades, m_rbp.c) and rbp_resid (m_rbp_resid.c)
IR_MEASURES_PARAMS["rbp"]["gain"] = _keyword_reader("gain")
IR_MEASURES_PARAMS["rbp_residual"]["definition"] = _keyword_reader("definition")
