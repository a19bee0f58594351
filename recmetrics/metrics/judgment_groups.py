"""trec_eval's judgment-group measures: ``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``.

A qrels file in trec_eval's ``qrels_jg`` format (``trec_eval -R qrels_jg``;
read by :func:`recmetrics.io.read_trec_qrels` with ``judgment_groups=True``)
holds, per query, several sets of judgments, one per *judgment group* (a
user, an assessor): its second field names the group. A judgment-group
measure is the plain measure computed with each group's judgments alone,
averaged over the query's groups, then over the queries
(``m_map_avgjg.c``, ``m_P_avgjg.c``, ``m_Rprec_mult_avgjg.c``, on the
per-group lists of ``form_res_rels_jg.c``).

Here the groups are the column ``group`` of a long ``truth`` frame: the
frames are expanded to one pseudo-user per (user, group) pair, each with
the user's predictions and the group's judgments (:func:`expand_groups`);
the plain metric is computed for each pseudo-user, and the values are
averaged per user (:func:`average_over_groups`). Without that column (and
for every other input form) each user has one group and the measures are
:func:`~recmetrics.average_precision`, :func:`~recmetrics.precision` and
:func:`~recmetrics.rprec_mult` themselves (trec_eval refuses them on plain
``qrels``: ``form_res_rels_jg.c`` asks for the ``qrels_jg`` format).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._docs import fill_doc
from .._validation import check_choice, check_positive_number
from ..inputs.forms import as_ranking
from ..inputs.frames import is_frame_input
from ._aggregate import summarise
from ._core import NO_RELEVANT_POLICIES, at_value
from .topn import average_precision, precision
from .trec_summaries import RPREC_MULTIPLES, rprec_mult

__all__ = [
    "GROUP",
    "map_avgjg",
    "p_avgjg",
    "rprec_mult_avgjg",
    "RPREC_MULT_AVGJG_AT",
    "JUDGMENT_GROUP_METRICS",
    "expand_groups",
    "average_over_groups",
]

#: The column of ``truth`` that names the judgment group of each judgment.
GROUP = "group"


def _check_groups(truth, group):
    """The judgment-group column: strings or integers, no missing value."""
    column = truth[group]
    kind = column.dtype.kind
    text = pd.api.types.is_string_dtype(column.dtype)
    if kind not in "iu" and not text and kind != "O":
        raise TypeError(
            f"the judgment-group column {group!r} of truth must hold strings or integers "
            f"(trec_eval's qrels_jg field 2), got dtype {column.dtype}"
        )
    values = column.to_numpy(dtype=object)
    bad = pd.isna(column).to_numpy()
    if kind == "O" and not text:
        bad = bad | np.array([not isinstance(v, (str, int, np.integer)) for v in values])
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"the judgment-group column {group!r} of truth must hold strings or integers, "
            f"got {values[i]!r} in row {column.index[i]!r}"
        )


def expand_groups(truth, predictions, *, user="user", item="item", group=GROUP):
    """Frames with one pseudo-user per (user, judgment group): ``(truth, predictions, owners)``.

    Each pair ``(u, g)`` of ``truth`` becomes the pseudo-user numbered by its
    position in the sorted pairs; its judgments are ``truth``'s rows of
    group ``g`` (without the column ``group``) and its predictions are all
    of ``u``'s. A user with predictions but no judgment keeps one
    pseudo-user, without judgments (evaluated or not as ``users`` says).
    ``owners[c]`` is the user of pseudo-user ``c``.

    Examples
    --------
    >>> truth = pd.DataFrame({"user": ["q", "q"], "group": ["a", "b"], "item": ["x", "y"]})
    >>> run = pd.DataFrame({"user": ["q", "q"], "item": ["x", "y"], "score": [2.0, 1.0]})
    >>> t, p, owners = expand_groups(truth, run)
    >>> t["user"].tolist(), p["user"].tolist(), owners.tolist()
    ([0, 1], [0, 1, 0, 1], ['q', 'q'])
    """
    for name, frame in (("truth", truth), ("predictions", predictions)):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
        for column in (user, item) + ((group,) if name == "truth" else ()):
            if column not in frame.columns:
                raise ValueError(f"{name} has no column {column!r}")
    _check_groups(truth, group)
    code = "__pseudo_user__"
    while code in truth.columns or code in predictions.columns:
        code += "_"
    pairs = truth[[user, group]].drop_duplicates()
    extra = predictions[[user]].drop_duplicates()
    extra = extra[~extra[user].isin(pairs[user])]
    pairs = pairs.sort_values([user, group], kind="mergesort").reset_index(drop=True)
    pairs = pd.concat([pairs, extra.reset_index(drop=True)], ignore_index=True)
    pairs[code] = np.arange(len(pairs), dtype=np.int64)
    t = truth.merge(pairs, on=[user, group], how="left", sort=False)
    t = t.drop(columns=[user, group]).rename(columns={code: user})
    p = predictions.merge(pairs[[user, code]], on=user, how="inner", sort=False)
    p = p.drop(columns=[user]).rename(columns={code: user})
    return t, p, pairs[user].to_numpy()


def average_over_groups(values, n_relevant, owners, *, no_relevant="skip", per_user=False):
    """The mean over each user's judgment groups of the per-group values.

    ``values`` and ``n_relevant`` are Series indexed by the pseudo-users of
    :func:`expand_groups` (missing pseudo-users are not evaluated), ``owners``
    their users. A group without a relevant item counts 0, as in trec_eval
    (``m_map_avgjg.c`` adds nothing for it and divides by every group); a
    user without a relevant item in any group follows ``no_relevant``.
    """
    check_choice(no_relevant, "no_relevant", NO_RELEVANT_POLICIES)
    values = pd.Series(values, dtype=np.float64)
    rel = pd.Series(n_relevant, dtype=np.float64).reindex(values.index).fillna(0.0) > 0
    frame = pd.DataFrame(
        {
            "owner": owners[values.index.to_numpy(dtype=np.int64)],
            "v": values.where(rel, 0.0).to_numpy(),
            "rel": rel.to_numpy(),
        }
    )
    by = frame.groupby("owner", sort=False)
    mean, defined = by["v"].mean(), by["rel"].any()
    if not defined.all():
        if no_relevant == "raise":
            raise ValueError(
                f"user {defined.index[int(np.argmin(defined.to_numpy()))]!r} has no relevant "
                "item in any judgment group; pass no_relevant='zero' or 'skip' to allow this"
            )
        mean[~defined] = {"zero": 0.0, "one": 1.0}.get(no_relevant, np.nan)
    mean.index.name, mean.name = None, None
    if per_user:
        return mean.astype(np.float64)
    v = mean.to_numpy(dtype=np.float64)
    return summarise(v[~np.isnan(v)], "mean")


def _measure(base, a, b, n_items, ties, no_relevant, per_user, kw):
    """``base`` per judgment group of a ``truth`` frame with the column ``group``, averaged.

    Any other input has one group per user: ``base`` itself.
    """
    if not (is_frame_input(a, b) and isinstance(a, pd.DataFrame) and GROUP in a.columns):
        return base(
            a, b, n_items=n_items, ties=ties, no_relevant=no_relevant, per_user=per_user, **kw
        )
    check_choice(no_relevant, "no_relevant", NO_RELEVANT_POLICIES)
    truth, predictions, owners = expand_groups(a, b)
    r, _ = as_ranking(truth, predictions, n_items=n_items, ties=ties)
    values = base(r, no_relevant="zero", per_user=True, **kw)
    n_rel = pd.Series(r.n_relevant, index=values.index)
    return average_over_groups(values, n_rel, owners, no_relevant=no_relevant, per_user=per_user)


@fill_doc
def map_avgjg(
    a=None,
    b=None,
    *,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
):
    """Average precision averaged over judgment groups (trec_eval's ``map_avgjg``).

    .. math:: \\mathrm{AP}_{\\mathrm{avgjg}}(u) = \\frac{1}{|G_u|}\\sum_{g \\in G_u}
              \\frac{1}{|R_{u,g}|}\\sum_{i:\\, d_i \\in R_{u,g}} \\mathrm{P@}i

    where ``G_u`` are the judgment groups of user (query) ``u`` and
    ``R_{u,g}`` the items relevant to group ``g``; a group without a relevant
    item adds 0 and still counts in ``|G_u|`` (``m_map_avgjg.c``). The
    groups are the column ``group`` of a long ``truth`` frame (trec_eval's
    ``qrels_jg`` format, :func:`recmetrics.io.read_trec_qrels` with
    ``judgment_groups=True``); without it every user has one group and this
    is :func:`~recmetrics.average_precision` over the whole ranking (trec_eval
    itself refuses ``map_avgjg`` on plain qrels). Under ``ties='expected'``
    each group's value is the exact expectation over the orders of tied
    items, and so is their mean (the mean of expectations); ``'optimistic'``
    and ``'pessimistic'`` bound each group separately.

    Parameters
    ----------
    %(a_b)s
        A ``truth`` frame with a column ``group`` gives the judgment groups.
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    no_relevant : {'skip', 'zero', 'one', 'raise'}, default 'skip'
        What a user without a relevant item in any of its groups counts as
        (a group without one, beside groups with some, counts 0).
    %(per_user)s
    %(judged_only)s
        With groups, each group's list is condensed by its own judgments
        (trec_eval's ``-J`` with ``qrels_jg``).

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    recmetrics.average_precision : One group.
    p_avgjg, rprec_mult_avgjg : The other judgment-group measures.

    References
    ----------
    %(ref_trec_eval)s

    trec_eval 10.0's sources: ``m_map_avgjg.c``, ``form_res_rels_jg.c``,
    ``get_qrels_jg.c``.

    Examples
    --------
    Query ``q`` judged by two groups: ``a`` finds ``x`` relevant (AP 1), ``b``
    finds ``y`` relevant (AP 1/2):

    >>> truth = pd.DataFrame({"user": "q", "group": ["a", "b"], "item": ["x", "y"]})
    >>> run = pd.DataFrame({"user": "q", "item": ["x", "y"], "score": [2.0, 1.0]})
    >>> map_avgjg(truth, run)
    0.75
    >>> map_avgjg([0, 1, 1])  # one group: average precision
    0.5833333333333333
    """
    kw = dict(ranks=ranks, mask=mask, judged_only=judged_only)
    return _measure(average_precision, a, b, n_items, ties, no_relevant, per_user, kw)


@fill_doc
def p_avgjg(
    a=None,
    b=None,
    *,
    k=None,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
    short_lists="k",
):
    """Precision at k averaged over judgment groups (trec_eval's ``P_avgjg_k``).

    .. math:: \\mathrm{P}_{\\mathrm{avgjg}}@k(u) = \\frac{1}{|G_u|}\\sum_{g \\in G_u}
              \\frac{|\\{i \\le k : d_i \\in R_{u,g}\\}|}{k}

    (``m_P_avgjg.c``: a list shorter than ``k`` is filled with misses, as
    :func:`~recmetrics.precision` with ``short_lists='k'``; a group without
    a relevant item adds 0 and counts). The groups are the column ``group``
    of a long ``truth`` frame; without it this is
    :func:`~recmetrics.precision`. trec_eval's default cutoffs are 5, 10,
    15, 20, 30, 100, 200, 500, 1000 (``P_avgjg`` on its command line).

    Parameters
    ----------
    %(a_b)s
        A ``truth`` frame with a column ``group`` gives the judgment groups.
    %(k)s
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    no_relevant : {'skip', 'zero', 'one', 'raise'}, default 'skip'
        What a user without a relevant item in any of its groups counts as.
    %(per_user)s
    %(judged_only)s
    short_lists : {'k', 'list'}, default 'k'
        As in :func:`~recmetrics.precision` (trec_eval: ``'k'``).

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    recmetrics.precision : One group.
    map_avgjg : Its definition of the groups.

    References
    ----------
    %(ref_trec_eval)s

    trec_eval 10.0's source: ``m_P_avgjg.c``.

    Examples
    --------
    >>> truth = pd.DataFrame({"user": "q", "group": ["a", "b", "b"], "item": ["x", "x", "y"]})
    >>> run = pd.DataFrame({"user": "q", "item": ["x", "y"], "score": [2.0, 1.0]})
    >>> p_avgjg(truth, run, k=2)  # (1/2 + 2/2) / 2
    0.75
    """
    kw = dict(k=k, ranks=ranks, mask=mask, judged_only=judged_only, short_lists=short_lists)
    return _measure(precision, a, b, n_items, ties, no_relevant, per_user, kw)


@fill_doc
def rprec_mult_avgjg(
    a=None,
    b=None,
    *,
    multiple=1.0,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant="skip",
    per_user=False,
    judged_only=False,
):
    """Precision at a multiple of ``|R|``, averaged over judgment groups (``Rprec_mult_avgjg``).

    .. math:: \\frac{1}{|G_u|}\\sum_{g \\in G_u}\\frac{\\mathrm{hits}_g@c_g}{c_g}, \\qquad
              c_g = \\lfloor x |R_{u,g}| + 0.9 \\rfloor

    each group with its own ``|R_{u,g}|`` (``m_Rprec_mult_avgjg.c``; per
    group as :func:`~recmetrics.rprec_mult`: a cutoff beyond the list
    divides by ``c_g``, a group without a relevant item adds 0 and counts).
    The groups are the column ``group`` of a long ``truth`` frame; without
    it this is :func:`~recmetrics.rprec_mult`. The registry has trec_eval's
    ten default multiples as ``rprec_mult_avgjg_0.20`` ...
    ``rprec_mult_avgjg_2.00``.

    Parameters
    ----------
    %(a_b)s
        A ``truth`` frame with a column ``group`` gives the judgment groups.
    multiple : float, default 1.0
        The multiple ``x`` of ``|R|`` (> 0).
    %(ranks)s
    %(n_items)s
    %(mask)s
    %(ties)s
    no_relevant : {'skip', 'zero', 'one', 'raise'}, default 'skip'
        What a user without a relevant item in any of its groups counts as.
    %(per_user)s
    %(judged_only)s

    Returns
    -------
    %(returns_metric)s

    See Also
    --------
    recmetrics.rprec_mult : One group.

    References
    ----------
    %(ref_buckley2005)s

    %(ref_trec_eval)s

    trec_eval 10.0's source: ``m_Rprec_mult_avgjg.c``.

    Examples
    --------
    Group ``a``: ``|R| = 1``, cutoff 1, precision 1; group ``b``: ``|R| = 2``,
    cutoff 2, precision 1/2:

    >>> truth = pd.DataFrame({"user": "q", "group": ["a", "b", "b"], "item": ["x", "y", "z"]})
    >>> run = pd.DataFrame({"user": "q", "item": ["x", "y", "w"], "score": [3.0, 2.0, 1.0]})
    >>> rprec_mult_avgjg(truth, run)
    0.75
    """
    multiple = check_positive_number(multiple, "multiple")
    kw = dict(multiple=multiple, ranks=ranks, mask=mask, judged_only=judged_only)
    return _measure(rprec_mult, a, b, n_items, ties, no_relevant, per_user, kw)


def _at_multiple(x):
    """:func:`rprec_mult_avgjg` at ``multiple=x``: the registry's ``rprec_mult_avgjg_x.xx``."""
    doc = f"Rprec_mult_avgjg at {x:.2f} |R|: rprec_mult_avgjg(multiple={x})."
    return at_value(rprec_mult_avgjg, "multiple", x, f"rprec_mult_avgjg_{x:.2f}", doc)


#: The registry's metric per trec_eval default multiple (trec_eval's name, lower case).
RPREC_MULT_AVGJG_AT = {f"rprec_mult_avgjg_{x:.2f}": _at_multiple(x) for x in RPREC_MULTIPLES}

#: The registry names that read the judgment groups of a truth frame.
JUDGMENT_GROUP_METRICS = frozenset({"map_avgjg", "p_avgjg", *RPREC_MULT_AVGJG_AT})
