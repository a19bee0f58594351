"""trec_eval's measure names, which the command line speaks beside the package's own.

A trec_eval name (``P_10`` or ``P.10``, ``ndcg_cut_5``, ``recip_rank``; a
family name such as ``P`` for trec_eval's default cutoffs) stands for a
metric of :func:`recmetrics.evaluate`; the results keep the name as written.
"""

from __future__ import annotations

import re
import sys

__all__ = ["trec_measures"]

# trec_eval measure family -> our metric name, and its default cutoffs
# (trec_eval 9.0: P, recall, map_cut, ndcg_cut at 5 ... 1000; success at 1, 5, 10)
_TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_TREC_FAMILIES = {
    "P": ("precision", _TREC_CUTOFFS),
    "recall": ("recall", _TREC_CUTOFFS),
    "map_cut": ("map", _TREC_CUTOFFS),
    "ndcg_cut": ("ndcg", _TREC_CUTOFFS),
    "success": ("hr", (1, 5, 10)),
    "relative_P": ("relative_precision", _TREC_CUTOFFS),
}
_TREC_PLAIN = {"map": "map", "ndcg": "ndcg", "recip_rank": "mrr", "Rprec": "rprec"}
_TREC_NAME = re.compile(r"^(P|recall|map_cut|ndcg_cut|success|relative_P)(?:[._](\d+(?:,\d+)*))?$")
# trec_eval's set measures; set_F's parameter x is our beta squared, and only
# its default (x = 1, beta = 1: the registry's set_f) has a registry name
_TREC_PLAIN.update(
    {
        "set_P": "set_precision",
        "set_recall": "set_recall",
        "set_relative_P": "set_relative_precision",
        "set_F": "set_f",
    }
)
_SET_F = re.compile(r"^set_F[._](\d*\.?\d+)$")
# interpolated precision: the registry has trec_eval's 11 default recall levels
# (iprec_at_recall_0.00 .. iprec_at_recall_1.00) and their mean (11pt_avg)
_LEVELS = tuple(x / 10 for x in range(11))
_IPREC = re.compile(r"^(iprec_at_recall|11pt_avg)(?:[._](\d*\.?\d+(?:,\d*\.?\d+)*))?$")


def _iprec_measures(name, family, params):
    levels = _LEVELS if params is None else [float(x) for x in params.split(",")]
    if family == "11pt_avg":
        if sorted(levels) != list(_LEVELS):
            raise ValueError(
                f"measure {name!r}: only 11pt_avg over the 11 levels 0.0, 0.1, ..., 1.0 is "
                "a measure name here"
            )
        return [("11pt_avg", "precision_11pt")]
    if any(x not in _LEVELS for x in levels):
        raise ValueError(
            f"measure {name!r}: the recall levels here are 0.0, 0.1, ..., 1.0; for another "
            "level call recmetrics.iprec_at_recall(..., recall_level=x) from Python"
        )
    return [(f"iprec_at_recall_{x:.2f}",) * 2 for x in levels]


# trec_eval's gain-based measures: Rndcg, binG, utility; the gain maps of ndcg,
# dcg and Rndcg (ndcg.1=0.5,2=3: gain_values) and utility's four parameters
# (utility.1,-1,0,0), labelled as trec_eval prints them (name_params)
_TREC_PLAIN.update(
    {"Rndcg": "rndcg", "binG": "bin_g", "utility": "utility", "ndcg_rel": "ndcg_rel", "G": "trec_g"}
)
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_GAIN_MAP = re.compile(
    rf"^(ndcg_rel|ndcg|dcg|Rndcg|G)[._]((?:[-+]?\d+={_NUM})(?:,[-+]?\d+={_NUM})*)$"
)
_UTILITY = re.compile(rf"^utility[._]({_NUM}),({_NUM}),({_NUM}),({_NUM})$")
_GAIN_METRIC = {
    "ndcg": "ndcg",
    "dcg": "dcg",
    "Rndcg": "rndcg",
    "ndcg_rel": "ndcg_rel",
    "G": "trec_g",
}


def _gain_measures(name):
    """trec_eval's ndcg.l=g,... and utility.p1,p2,p3,p4, or None for another name."""
    m = _GAIN_MAP.match(name)
    if m:
        pairs = [part.split("=") for part in m.group(2).split(",")]
        gains = {int(level): float(gain) for level, gain in pairs}
        if len(gains) != len(pairs):
            raise ValueError(f"measure {name!r} names a relevance level twice")
        return [(f"{m.group(1)}_{m.group(2)}", f"{_GAIN_METRIC[m.group(1)]}(gain_values={gains})")]
    m = _UTILITY.match(name)
    if m:
        keys = ("rel_ret", "nonrel_ret", "rel_not_ret", "nonrel_not_ret")
        args = ", ".join(f"{key}={float(x)}" for key, x in zip(keys, m.groups(), strict=True))
        return [(f"utility_{name[8:]}", f"utility({args})")]
    return None


def trec_measures(name: str) -> list[tuple[str, str]]:
    """``(label, metric)`` pairs for a measure name, ours or trec_eval's.

    Examples
    --------
    >>> trec_measures("P.10"), trec_measures("ndcg_cut_5"), trec_measures("recip_rank")
    ([('P_10', 'precision@10')], [('ndcg_cut_5', 'ndcg@5')], [('recip_rank', 'mrr')])
    >>> trec_measures("set_P"), trec_measures("set_F.1.0"), trec_measures("relative_P_5")
    ([('set_P', 'set_precision')], [('set_F', 'set_f')], [('relative_P_5', 'relative_precision@5')])
    >>> [label for label, _ in trec_measures("success")]
    ['success_1', 'success_5', 'success_10']
    >>> trec_measures("ndcg@10")
    [('ndcg@10', 'ndcg@10')]
    """
    if not isinstance(name, str):
        raise TypeError(f"a measure name must be a str, got {type(name).__name__}")
    if name in _TREC_PLAIN:
        return [(name, _TREC_PLAIN[name])]
    gain = _gain_measures(name)
    if gain is not None:
        return gain
    m = _IPREC.match(name)
    if m:
        return _iprec_measures(name, m.group(1), m.group(2))
    m = _SET_F.match(name)
    if m:
        if float(m.group(1)) != 1.0:
            raise ValueError(
                f"measure {name!r}: trec_eval's set_F.x is F with beta = sqrt(x); only "
                "set_F (x = 1, beta = 1) is a measure name here: for another beta call "
                "recmetrics.set_f(..., beta=...) from Python"
            )
        return [("set_F", "set_f")]
    m = _TREC_NAME.match(name)
    if m:
        family, cuts = m.group(1), m.group(2)
        metric, default = _TREC_FAMILIES[family]
        ks = default if cuts is None else [int(c) for c in cuts.split(",")]
        if any(k < 1 for k in ks):
            raise ValueError(f"measure {name!r}: cutoffs must be >= 1")
        return [(f"{family}_{k}", f"{metric}@{k}") for k in ks]
    return [(name, name)]


def _note_conventions(args, labelled):
    """Say on standard error when trec_eval's names meet the package's conventions."""
    trec_named = [label for label, metric in labelled if label != metric or label in _TREC_PLAIN]
    if trec_named and args.convention is None:
        print(
            f"recmetrics: note: {', '.join(trec_named)} computed with recmetrics' defaults "
            "(expected value over tied scores, AP@k divided by min(|R|, k), users without "
            "a relevant item left out); add --convention trec_eval for trec_eval's numbers",
            file=sys.stderr,
        )


# issue 26: trec_eval's measures whose summary is not a mean (num_*, gm_*), set_map,
# infAP and the Rprec_mult family (Rprec_mult, Rprec_mult_0.20, Rprec_mult.0.2,2.0);
# the registry has trec_eval's ten default multiples 0.2, 0.4, ..., 2.0
_TREC_PLAIN.update(
    {
        "gm_map": "gm_map",
        "gm_bpref": "gm_bpref",
        "num_q": "num_q",
        "num_ret": "num_ret",
        "num_rel": "num_rel",
        "num_rel_ret": "num_rel_ret",
        "num_nonrel_judged_ret": "num_nonrel_judged_ret",
        "set_map": "set_map",
        "infAP": "infap",
    }
)
_MULTIPLES = tuple(x / 10 for x in range(2, 21, 2))
_RPREC_MULT = re.compile(r"^Rprec_mult(?:[._](\d*\.?\d+(?:,\d*\.?\d+)*))?$")
_trec_measures_without_rprec_mult = trec_measures


def trec_measures(name: str) -> list[tuple[str, str]]:  # noqa: F811 - extends the one above
    """``(label, metric)`` pairs for a measure name, ours or trec_eval's (with Rprec_mult).

    Examples
    --------
    >>> trec_measures("Rprec_mult.0.2,2.0"), trec_measures("Rprec_mult_1.20")
    ([('Rprec_mult_0.20', 'rprec_mult_0.20'), ('Rprec_mult_2.00', 'rprec_mult_2.00')], [('Rprec_mult_1.20', 'rprec_mult_1.20')])
    >>> len(trec_measures("Rprec_mult")), trec_measures("infAP"), trec_measures("num_ret")
    (10, [('infAP', 'infap')], [('num_ret', 'num_ret')])
    """  # noqa: E501
    m = _RPREC_MULT.match(name) if isinstance(name, str) else None
    if m is None:
        return _trec_measures_without_rprec_mult(name)
    params = m.group(1)
    multiples = _MULTIPLES if params is None else [float(x) for x in params.split(",")]
    if any(x not in _MULTIPLES for x in multiples):
        raise ValueError(
            f"measure {name!r}: the multiples of R here are trec_eval's 0.2, 0.4, ..., 2.0; "
            "for another multiple call recmetrics.rprec_mult(..., multiple=x) from Python"
        )
    return [(f"Rprec_mult_{x:.2f}", f"rprec_mult_{x:.2f}") for x in multiples]


# issue 26: trec_eval 10.0's rbp, rbp_resid (p = 0.9; m_rbp.c, m_rbp_resid.c) and
# unj (unj_5, unj_10, unj_20; m_unjudged.c). pytrec_eval's trec_eval 9.0.8 has
# none of them, so they are not in the trec_eval preset (whose numbers are
# pytrec_eval's): under --convention trec_eval the command line computes them
# with the preset's keywords but apart (TREC_EVAL_10, _files.py)
TREC_EVAL_10 = ("rbp", "rbp_resid", "unj")
_TREC_PLAIN.update(
    {
        "rbp": "rbp(p=0.9, gain='scaled')",
        "rbp_resid": "rbp_residual(p=0.9, definition='trec_eval')",
    }
)
_UNJ = re.compile(r"^unj(?:[._](\d+(?:,\d+)*))?$")
# trec_eval's rbp.p=0.95, rbp_resid.p=0.95 (its gain maps, rbp.1=0.5, are not read)
_RBP = re.compile(r"^(rbp|rbp_resid)[._]p=(0?\.\d+)$")
_trec_measures_without_unj = trec_measures


def trec_measures(name: str) -> list[tuple[str, str]]:  # noqa: F811 - extends the one above
    """``(label, metric)`` pairs for a measure name, ours or trec_eval's (with unj).

    Examples
    --------
    >>> trec_measures("unj"), trec_measures("unj.7")
    ([('unj_5', 'unjudged@5'), ('unj_10', 'unjudged@10'), ('unj_20', 'unjudged@20')], [('unj_7', 'unjudged@7')])
    >>> trec_measures("rbp"), trec_measures("rbp_resid.p=0.95")
    ([('rbp', "rbp(p=0.9, gain='scaled')")], [('rbp_resid_p=0.95', "rbp_residual(p=0.95, definition='trec_eval')")])
    """  # noqa: E501
    m = _RBP.match(name) if isinstance(name, str) else None
    if m is not None:  # rbp.p=0.95: labelled with the parameters as written (meas_init.c)
        metric = _TREC_PLAIN[m.group(1)].replace("p=0.9", f"p={float(m.group(2))!r}")
        return [(f"{m.group(1)}_p={m.group(2)}", metric)]
    m = _UNJ.match(name) if isinstance(name, str) else None
    if m is None:
        return _trec_measures_without_unj(name)
    ks = (5, 10, 20) if m.group(1) is None else [int(c) for c in m.group(1).split(",")]
    if any(k < 1 for k in ks):
        raise ValueError(f"measure {name!r}: cutoffs must be >= 1")
    return [(f"unj_{k}", f"unjudged@{k}") for k in sorted(set(ks))]


def trec_eval_10(label):
    """Whether a label is one of trec_eval 10.0's measures not in 9.0.8 (:data:`TREC_EVAL_10`)."""
    return re.fullmatch(r"unj_\d+|(rbp|rbp_resid)(_p=0?\.\d+)?", label) is not None


# trec_eval's judgment-group measures (-R qrels_jg; measures.c's group qrels_jg):
# map_avgjg, P_avgjg (P's default cutoffs) and Rprec_mult_avgjg (its ten multiples)
_TREC_PLAIN["map_avgjg"] = "map_avgjg"
_AVGJG = re.compile(r"^(P_avgjg|Rprec_mult_avgjg)(?:[._](\d*\.?\d+(?:,\d*\.?\d+)*))?$")
_trec_measures_without_avgjg = trec_measures


def trec_measures(name: str) -> list[tuple[str, str]]:  # noqa: F811 - extends the one above
    """``(label, metric)`` pairs for a measure name, ours or trec_eval's (with ``*_avgjg``).

    Examples
    --------
    >>> trec_measures("P_avgjg.5,10"), trec_measures("Rprec_mult_avgjg_0.20")
    ([('P_avgjg_5', 'p_avgjg@5'), ('P_avgjg_10', 'p_avgjg@10')], [('Rprec_mult_avgjg_0.20', 'rprec_mult_avgjg_0.20')])
    >>> len(trec_measures("P_avgjg")), len(trec_measures("Rprec_mult_avgjg"))
    (9, 10)
    """  # noqa: E501
    m = _AVGJG.match(name) if isinstance(name, str) else None
    if m is None:
        return _trec_measures_without_avgjg(name)
    family, params = m.groups()
    if family == "P_avgjg":
        cuts = [] if params is None else params.split(",")
        if any(not c.isdigit() or int(c) < 1 for c in cuts):
            raise ValueError(f"measure {name!r}: cutoffs must be integers >= 1")
        ks = [int(c) for c in cuts] or _TREC_CUTOFFS
        return [(f"P_avgjg_{k}", f"p_avgjg@{k}") for k in ks]
    multiples = _MULTIPLES if params is None else [float(x) for x in params.split(",")]
    if any(x not in _MULTIPLES for x in multiples):
        raise ValueError(
            f"measure {name!r}: the multiples of R here are trec_eval's 0.2, 0.4, ..., 2.0; for "
            "another multiple call recmetrics.rprec_mult_avgjg(..., multiple=x) from Python"
        )
    return [(f"Rprec_mult_avgjg_{x:.2f}", f"rprec_mult_avgjg_{x:.2f}") for x in multiples]
