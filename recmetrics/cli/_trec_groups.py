"""trec_eval's measure groups (``-m all_trec``), its printed lines, and its z-scores (``-Z``).

Read from trec_eval 10.0: ``measures.c`` (the groups, and the order in which
trec_eval prints the measures), ``meas_print_single.c`` and
``meas_print_final.c`` (the lines ``measure  query  value``: the name padded
to 22 characters, a tab, the query or ``all``, a tab, the value as
``%6.4f``, or as an integer for the counts), ``get_zscores.c`` and
``convert_zscores.c`` (``-Z``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["TREC_ORDER", "TREC_GROUPS", "read_zscores", "to_zscores", "trec_order", "write_trec"]

# te_trec_measures[] of measures.c: the order of trec_eval's printed lines
# (the preference and judgment-group measures, which need other inputs, left out)
TREC_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
    "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP",
    "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg",
    "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P",
    "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "yaap",
    "rbp", "rbp_resid", "unj",
)  # fmt: skip
# the judgment-group measures (-R qrels_jg), printed after the preference measures
# and before yaap: te_trec_measures[] of measures.c
TREC_ORDER = TREC_ORDER[: TREC_ORDER.index("yaap")] + (
    "map_avgjg", "P_avgjg", "Rprec_mult_avgjg",
) + TREC_ORDER[TREC_ORDER.index("yaap") :]  # fmt: skip

# the nicknames of measures.c (off_names, set_names, trec_names)
TREC_GROUPS = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
        "bpref", "recip_rank", "iprec_at_recall", "P",
    ),
    "set": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_recall", "set_relative_P", "set_map", "set_F",
    ),
    "all_trec": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
        "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp",
        "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P",
        "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
        "set_P", "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret",
    ),
}  # fmt: skip
# measures.c's qrels_jg_names: trec_eval -R qrels_jg -m qrels_jg
TREC_GROUPS["qrels_jg"] = ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")

# the counts, printed as integers (te_print_single_meas_s_long); their 'all'
# line is the sum over the queries (te_calc_avg_meas_empty), num_q's the count
COUNTS = ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret")
INTEGERS = ("num_q", *COUNTS)

# printed in the summary only, never per query (te_print_single_meas_empty in
# m_gm_map.c, m_gm_bpref.c): a per-query geometric mean is the measure itself
SUMMARY_ONLY = ("gm_map", "gm_bpref")

# not a measure: the run's tag, printed once, on the 'all' line (m_runid.c)
RUNID = "runid"

# convert_zscores.c: the z-score of a query or measure missing from the file
MISSING_ZSCORE = -1000000.0


def group_members(name):
    """The measure families of a trec_eval group, in trec_eval's printing order; else None."""
    members = TREC_GROUPS.get(name)
    if members is None:
        return None
    return sorted(members, key=TREC_ORDER.index)


def read_zscores(path):
    """``{(query, measure): (mean, std)}`` from a z-score file (``query measure mean std``).

    As trec_eval's ``get_zscores.c``: whitespace-separated lines, blank
    lines skipped; a line with another number of fields, or a mean or
    standard deviation that is not a number, raises ``ValueError`` naming
    the file and the line.
    """
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"-Z/--zscores: no such file: {str(path)!r}")
    table = {}
    with p.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 4:
                raise ValueError(
                    f"{path}: line {number}: a z-score line is 'query measure mean std', got "
                    f"{len(fields)} fields"
                )
            try:
                mean, std = float(fields[2]), float(fields[3])
            except ValueError:
                raise ValueError(
                    f"{path}: line {number}: the mean and standard deviation must be numbers, "
                    f"got {fields[2]!r} and {fields[3]!r}"
                ) from None
            table[(fields[0], fields[1])] = (mean, std)
    if not table:
        raise ValueError(f"{path}: no z-score line (an empty file)")
    return table


def to_zscores(table, zscores):
    """Per-query values as z-scores, ``(value - mean) / std``, as ``convert_zscores.c``.

    A (query, measure) missing from the file gives ``MISSING_ZSCORE``
    (-1000000), as does a standard deviation of 0 unless the value equals
    the mean (z = 0). A value left out (NaN) stays NaN.
    """
    out = table.astype(np.float64).copy()
    for uid in table.index:
        for label in table.columns:
            value = table.at[uid, label]
            if pd.isna(value):
                continue
            found = zscores.get((str(uid), label))
            if found is None:
                z = MISSING_ZSCORE
            else:
                mean, std = found
                if std:
                    z = (value - mean) / std
                else:
                    z = 0.0 if value == mean else MISSING_ZSCORE
            out.at[uid, label] = z
    return out


def _family_of(label):
    """trec_eval's measure of a label (``P_5`` -> ``P``), or None for the package's names."""
    names = [n for n in TREC_ORDER if label == n or label.startswith(n + "_")]
    return max(names, key=len) if names else None


def trec_order(labels):
    """The labels in trec_eval's printing order: by measure (``measures.c``), then parameter.

    trec_eval sorts a measure's parameters (``-m P.10,5`` prints ``P_5``
    first); the package's own names keep their place after trec_eval's.

    Examples
    --------
    >>> trec_order(["ndcg@10", "P_10", "map", "P_5", "recip_rank", "iprec_at_recall_0.50"])
    ['map', 'recip_rank', 'iprec_at_recall_0.50', 'P_5', 'P_10', 'ndcg@10']
    """

    def key(item):
        position, label = item
        family = _family_of(label)
        if family is None:
            return (len(TREC_ORDER), position, 0.0)
        param = label[len(family) + 1 :]
        try:
            number = float(param) if param else 0.0
        except ValueError:
            number = 0.0
        return (TREC_ORDER.index(family), number, position)

    return [label for _, label in sorted(enumerate(labels), key=key)]


def _number(label, value, digits, z):
    if label in INTEGERS and not z:
        return str(int(round(value)))
    return f"{value:6.{digits}f}"


def trec_all(table, metrics):
    """The 'all' value of each measure from per-query values, by its metric's rule.

    ``metrics`` names the registry's metric of each column, in order: the
    counts are summed, ``gm_*`` geometric, the others the mean, as
    :func:`recmetrics.evaluate` summarises them.
    """
    from ..evaluation.core import summarise_table

    return summarise_table(table, metrics)


def write_trec(table, means, per_user, digits, out, *, runid=None, z=False, strings=None):
    """trec_eval's lines: per query (``per_user``), then ``all``, as trec_eval prints them.

    ``table`` holds the per-query values (``None`` without ``per_user``),
    ``means`` the 'all' values; ``runid`` (the run's tag) is printed first
    among the 'all' lines when asked for; ``z`` prefixes each measure with
    ``Z`` and prints every value as a number (trec_eval's ``-Z``).
    ``strings`` (per query, with ``per_user``) holds relstring's strings,
    printed quoted, without ``Z`` and without an 'all' line
    (``m_relstring.c``: ``te_print_q_relstring``).
    """
    prefix = "Z" if z else ""
    texts = [] if strings is None else list(strings.columns)
    order = trec_order(list(means.index) + texts)
    means = means[[label for label in order if label not in texts]]
    if per_user:
        if texts:
            table = pd.concat([table, strings], axis=1)
        shown = [label for label in order if label in table.columns]
        table = table[[label for label in shown if label not in SUMMARY_ONLY]]
        for uid, row in table.iterrows():
            for label, value in row.items():
                if isinstance(value, str):
                    out.write(f"{label:<22}\t{uid}\t'{value}'\n")
                elif not pd.isna(value):
                    number = _number(label, value, digits, z)
                    out.write(f"{prefix}{label:<22}\t{uid}\t{number}\n")
    if runid is not None:
        out.write(f"{RUNID:<22}\tall\t{runid}\n")
    for label, value in means.items():
        number = "NaN" if isinstance(value, float) and math.isnan(value) else None
        number = number or _number(label, value, digits, z)
        out.write(f"{prefix}{label:<22}\tall\t{number}\n")
