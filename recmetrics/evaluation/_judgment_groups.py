"""trec_eval's judgment groups (``-R qrels_jg``) in :func:`recmetrics.evaluate`.

A ``truth`` frame with a column ``group`` holds one set of judgments per
(user, judgment group). The judgment-group metrics
(:mod:`recmetrics.metrics.judgment_groups`: ``map_avgjg``, ``p_avgjg``,
``rprec_mult_avgjg_x``) are computed on frames with one pseudo-user per
(user, group), with every option of the call applied to them as to users
(trec_eval applies ``-M``, ``-J`` and ``-l`` per group:
``form_res_rels_jg.c``), and averaged over each user's groups. The other
metrics of the call read the frame as it is (the column ``group`` is then
one more column, ignored).
"""

from __future__ import annotations

import pandas as pd

from ..metrics.judgment_groups import (
    GROUP,
    JUDGMENT_GROUP_METRICS,
    average_over_groups,
    expand_groups,
)

__all__ = ["applies", "group_table"]


def applies(form, y_true, call):
    """Whether the call asks a judgment-group metric of a truth frame with groups."""
    return (
        form == "frames"
        and isinstance(y_true, pd.DataFrame)
        and GROUP in y_true.columns
        and any(spec.name in JUDGMENT_GROUP_METRICS for _, spec, _ in call.parsed)
    )


def _n_relevant(truth, user, relevance, level):
    """The relevant judgments per (pseudo-)user, as the rankings count them."""
    if relevance is None or relevance not in truth:
        relevant = pd.Series(True, index=truth.index)
    else:
        grades = pd.to_numeric(truth[relevance], errors="coerce")
        relevant = grades >= level if level is not None else grades > 0
    return relevant.groupby(truth[user].to_numpy()).sum()


def group_table(call, options, overrides, y_true, y_score, table):
    """The per-user table of the call: ``table`` (core's ``_ranking_table``) per part.

    The judgment-group metrics are computed per pseudo-user with
    ``no_relevant='zero'`` (a group without a relevant item counts 0 in
    trec_eval), then averaged per user, where the call's ``no_relevant``
    applies to a user without a relevant item in any group.
    """
    from dataclasses import replace

    groups = [p for p in call.parsed if p[1].name in JUDGMENT_GROUP_METRICS]
    rest = [p for p in call.parsed if p not in groups]
    parts = []
    if rest:
        plain = replace(call, parsed=rest, names=[name for name, _, _ in rest])
        parts.append(table(plain, options, overrides, y_true, y_score, None, False))
    user, item = call.frame["user"] or "user", call.frame["item"] or "item"
    truth, predictions, owners = expand_groups(y_true, y_score, user=user, item=item)
    zero = dict(options, no_relevant="zero")
    kept = {
        name: {key: value for key, value in opts.items() if key != "no_relevant"}
        for name, opts in overrides.items()
    }
    pseudo = replace(call, parsed=groups, names=[name for name, _, _ in groups])
    values = table(pseudo, zero, kept, truth, predictions, None, False)
    n_rel = _n_relevant(truth, user, call.frame["relevance"], call.keywords["relevance_level"])
    columns = {}
    for name, spec, _ in groups:
        policy = dict(options, **overrides.get(spec.name, {}))["no_relevant"]
        columns[name] = average_over_groups(
            values[name], n_rel, owners, no_relevant=policy, per_user=True
        )
    parts.append(pd.DataFrame(columns))
    out = pd.concat(parts, axis=1) if len(parts) > 1 else parts[0]
    return out[[name for name, _, _ in call.parsed]]
