"""The hub of :func:`recmetrics.evaluate`: read the call, resolve once, rank, apply the specs.

The flow of one call: the arguments are checked once (:mod:`._call`); the
convention keywords are resolved once against the preset
(:func:`recmetrics.conventions.resolve`); one ranking is built per tie policy
and score option (:mod:`._rankings`), in blocks of users for large score
matrices; each metric is its registry spec's function applied to it; the
beyond-accuracy metrics take the recommended lists instead (:mod:`._lists`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from tqdm import tqdm

from .. import conventions as _conv
from .._docs import fill_doc
from .._kernels import CHUNK_CELLS
from .._keywords import PARAMETERS
from .._validation import check_k
from ..inputs.forms import input_form
from ..metrics import _registry
from ..metrics._aggregate import summarise
from ..ranking.scores import _checked_sparse
from . import _judgment_groups
from ._call import read_call
from ._lists import beyond_values, recommended_lists
from ._rankings import Rankings
from ._trec_options import TREC_OPTIONS

__all__ = ["evaluate", "summarise_table"]


@fill_doc
def evaluate(
    y_true=None,
    y_score=None,
    metrics=("ndcg@10", "map@10", "precision@10", "recall@10", "mrr@10"),
    *,
    ranks=None,
    n_items=None,
    mask=None,
    ties=None,
    no_relevant=None,
    ap_denominator=None,
    gain=None,
    idcg=None,
    log_base=None,
    per_user=False,
    progress=False,
    convention=None,
    ap_ties=None,
    recall_denominator=None,
    discount=None,
    retrieve_nonpositive=None,
    score_dtype=None,
    short_lists=None,
    chunk_users=None,
    user=None,
    item=None,
    score=None,
    rank=None,
    relevance=None,
    users=None,
    popularity=None,
    features=None,
    history=None,
    items=None,
    max_depth=None,
    relevance_level=None,
    judged_only=None,
    rbp_gain=None,
    rbp_residual_definition=None,
    interpolation=None,
):
    """Evaluate several metrics on one ranking computed once.

    Each metric ``m`` with cutoff ``k`` is the function of the same name
    (:func:`~recmetrics.precision`, :func:`~recmetrics.ndcg`, ...) applied to
    one :class:`~recmetrics.Ranking`, so that

    .. math:: \\mathrm{evaluate}(\\ldots)[m@k] = \\frac{1}{|U|}\\sum_{u \\in U} m@k(u)

    over the users ``U`` for whom the metric is defined (with the default
    ``no_relevant='skip'``), to the last bit of the function's own mean.

    Parameters
    ----------
    y_true, y_score : array-like, sequence, set, dict or Ranking, optional
        %(input_forms)s
    metrics : str or sequence of str, optional
        Default ``("ndcg@10", "map@10", "precision@10", "recall@10",
        "mrr@10")``. Names with an optional cutoff: ``precision@k``,
        ``recall@k``, ``f1@k``, ``hr@k``, ``arhr@k``, ``mrr@k``, ``map@k``
        (mean AP), ``ndcg@k``, ``dcg@k``, ``cg@k``, and ``auc`` (no cutoff); also the
        aliases ``p``, ``prec``, ``r``, ``f1_score``, ``hit_ratio``,
        ``hit``, ``hitrate``, ``hit_rate``, ``rr``, ``recip_rank``,
        ``reciprocal_rank``, ``ap``, ``average_precision`` and
        ``roc_auc``. Without ``@k`` a metric covers the whole ranking (the
        whole list, or the whole catalogue for score matrices). Each name at
        most once. Beyond-accuracy metrics of the recommended lists
        (:mod:`recmetrics.beyond`) go beside them: ``novelty@k``,
        ``arp@k``, ``aplt@k``, ``serendipity@k`` (need ``popularity``),
        ``ild@k`` (needs ``features``), ``calibration@k`` (needs
        ``history`` and ``features``), and the catalogue-level
        ``coverage@k``, ``gini@k`` (need the catalogue size: ``n_items``, or
        the columns of a score matrix) and ``entropy@k``, which have no
        per-user values. Their lists are the predictions' top ``k`` (ties
        in item order), or the given ranked lists; score matrices need the
        ``@k``. They are averaged over every user who has a list, including
        users the ranking metrics leave out (no relevant item).
    %(ranks)s
    %(n_items)s
    %(mask)s
    ties : {'expected', 'optimistic', 'pessimistic', 'trec_eval'}, optional
        How items with equal scores are ordered, as in the metric functions.
        ``None`` (not passed) means ``'expected'``, the preset's policy
        under ``convention``, or, for a prebuilt Ranking, the policy it was
        built with.
    no_relevant : {'skip', 'zero', 'one', 'raise'}, optional
        What a user for whom a metric is undefined counts as, as in the
        metric functions; ``None`` means ``'skip'`` (or the preset's value).
        ``auc`` is the mean of the per-user AUCs (see
        :func:`~recmetrics.auc` for the weighted and pooled variants).
    ap_denominator : {'min', 'relevant', 'k', 'hits'}, optional
        The AP denominator of ``map`` (:func:`~recmetrics.average_precision`);
        ``None`` means ``'min'`` (or the preset's value).
    gain : {'linear', 'exponential', 'binary'}, optional
        The gain of ``ndcg``, ``dcg`` and ``cg`` (:func:`~recmetrics.dcg`);
        ``None`` means ``'linear'`` (or the preset's value).
    idcg : {'min', 'k'}, optional
        The ideal list of ``ndcg`` (:func:`~recmetrics.idcg`); ``None``
        means ``'min'`` (or the preset's value).
    log_base : float, optional
        The base of the discount of ``ndcg`` and ``dcg``; ``None`` means 2
        (or the preset's value).
    per_user : bool, default False
        Return one row per user instead of the means.
    progress : bool, default False
        Report progress over users on standard error (score matrices only).
    chunk_users : int, optional
        Score matrices with more users are ranked and evaluated in blocks of
        this many users, so memory beyond the inputs stays bounded by the
        block (a few numbers per relevant and excluded entry of the block's
        users, plus the per-user results), whatever the number of users. By
        default 4096 users, or more when rows are short: a block then holds
        4 million cells, so that a small catalogue is not cut into blocks
        whose fixed cost dominates. The result does not depend on it.
    user, item, score, rank, relevance, users : str, optional
        Long data frames only (``y_true`` = ``truth``, ``y_score`` =
        ``predictions``): the column names (default ``'user'``, ``'item'``,
        and ``'score'`` unless ``rank`` names a column of ranks; graded
        relevance from ``relevance``, by default the column ``'relevance'``
        when ``truth`` has one (as read by :func:`~recmetrics.io.read_trec_qrels`),
        else every row relevant: > 0 relevant, 0 judged non-relevant,
        negative *in the pool but not judged* as in trec_eval's qrels, an
        unjudged item for every metric but ``infap``, which counts it among
        the pooled items) and which users are evaluated
        (``users='truth'`` by default, or the preset's: ``'both'`` for
        trec_eval, as without its ``-c``; ``'predictions'`` for LensKit;
        ``'both'`` for Microsoft Recommenders' precision, recall and MAP; see
        :func:`~recmetrics.from_frames`). A ``users`` passed explicitly holds
        for every metric, whatever the preset.
        Per-user results are then indexed by the user ids. A column
        ``group`` of ``truth`` holds trec_eval's judgment groups (its
        ``qrels_jg`` format, :func:`~recmetrics.io.read_trec_qrels` with
        ``judgment_groups=True``): the ``*_avgjg`` metrics
        (:func:`~recmetrics.map_avgjg`, ``p_avgjg@k``,
        ``rprec_mult_avgjg_0.20`` ...) average over each user's groups, the
        other metrics ignore the column.
    popularity : pandas.DataFrame, pandas.Series or dict, optional
        The training interactions (or counts per item) for ``novelty``,
        ``arp``, ``aplt`` and ``serendipity`` (see
        :func:`recmetrics.beyond.novelty`). For score matrices, items are
        the column positions, or the ids given by ``items=``.
    features : pandas.DataFrame or dict, optional
        Item features for ``ild`` and ``calibration``.
    history : pandas.DataFrame, sparse matrix or sequence, optional
        Each user's training items for ``calibration`` (and to remove them
        from the primitive list of ``serendipity``): a long DataFrame
        ``(user, item)`` (user ids; row positions for matrices and lists), a
        users x items sparse matrix (matrices), or one collection per user.
    items : array-like, optional
        Score matrices only: the item id of each column. The top-``k``
        lists of column positions are then matched by id with
        ``popularity``, ``features`` and ``history`` (and the columns of a
        sparse ``history``). Without it, that item data must be keyed by
        the column positions ``0 .. n_items - 1`` themselves: item data
        keyed by anything else (e.g. MovieLens movie ids) raise
        ``ValueError`` asking for ``items=``, instead of being matched by
        position silently.
    convention : str, optional
        Reproduce one library's variant of every metric: ``'trec_eval'``,
        ``'sklearn'``, ``'ranx'``, ``'torchmetrics'``, ``'recbole'``,
        ``'recommenders'``, ``'spark'``, ``'rectools'`` or ``'lenskit'``
        (see :mod:`recmetrics.conventions` and
        :func:`recmetrics.conventions.describe`). The preset sets every
        convention keyword the caller leaves out; a convention keyword passed
        explicitly with another value raises ``ValueError``, and so does a
        metric the library does not provide (or not with that cutoff).
    ap_ties : {'policy', 'group_end'}, optional
        The tie rule of ``map`` (:func:`~recmetrics.average_precision`);
        ``None`` means ``'policy'`` (or the preset's value).
    recall_denominator : {'relevant', 'min'}, optional
        The denominator of ``recall`` (:func:`~recmetrics.recall`); ``None``
        means ``'relevant'`` (or the preset's value).
    discount : {'log', 'jarvelin'}, optional
        The discount of ``ndcg`` and ``dcg`` (:func:`~recmetrics.discount`);
        ``None`` means ``'log'`` (or the preset's value).
    retrieve_nonpositive : bool, optional
        ``False``: relevant items scored ``<= 0`` are never retrieved (see
        :func:`~recmetrics.ranking.from_scores`; score matrices only).
        Default ``True``.
    score_dtype : {'float32', 'float64'}, optional
        Compare the scores in this precision (trec_eval and torchmetrics
        use single precision, so scores equal as float32 are tied there).
        Integer scores are cast too: integers the precision cannot tell
        apart (beyond 2**24 in float32, 2**53 in float64) are then tied, as
        in a library that reads them in that precision; without
        ``score_dtype`` they are compared exactly. Score matrices only;
        default: as given.
    short_lists : {'k', 'list'}, optional
        How ``precision`` and ``map`` score a list shorter than ``k``
        (:func:`~recmetrics.precision`); ``None`` means ``'k'`` (or the
        preset's value: LensKit's is ``'list'``).
    max_depth : int, optional
        Long data frames only: evaluate each user's first ``max_depth``
        predictions, and drop the rest (trec_eval's ``-M``). They are the
        first in trec_eval's order, whatever ``ties``: by score, higher
        first (ranks: lower first), then by item id in decreasing string
        order (``form_res_rels.c``), so that a tie group cut by the depth
        is cut as trec_eval cuts it; the tie policy then orders what is
        kept. Default: every prediction.
    relevance_level : float, optional
        Long data frames only: the lowest grade that is relevant (trec_eval's
        ``-l``): a grade below it counts as judged non-relevant for the
        binary metrics (precision, recall, map, mrr, bpref, ...), while the
        graded ones (``ndcg``, ``dcg``, ``cg``: those with a ``gain``) keep
        every grade > 0 as its gain, as trec_eval's ``ndcg`` ignores ``-l``.
        A negative grade stays in the pool but not judged. Must be > 0.
        Default: every grade > 0 is relevant (trec_eval's ``-l 1`` for
        integer grades).
    judged_only : bool, optional
        Long data frames only: ``True`` drops the unjudged predictions
        (pairs not in ``truth``, or with a negative grade: trec_eval's
        ``-J`` drops every document whose relevance value is negative)
        before evaluating, after the cut at
        ``max_depth``: this is Sakai's condensed list (Sakai, 2007), and
        trec_eval's ``-J``. Every ranking metric then sees the judged items
        only, at their ranks among them (the ranking's
        :meth:`~recmetrics.Ranking.condensed`, as the metric functions'
        ``judged_only``); a user left without predictions is still
        evaluated (with ``users='truth'`` or ``'both'``; ``'predictions'``
        and ``'all'`` raise). The beyond-accuracy metrics keep the whole
        lists. A prebuilt :class:`~recmetrics.Ranking` is condensed the
        same way. The removed items leave the catalogue too: ``auc``,
        ``pauc`` and ``coverage_error`` with an explicit ``n_items`` see
        ``n_items`` less the removed items. Default ``False``. The other
        input forms judge every item (their lists are condensed already)
        and raise ``TypeError`` for it, as for ``max_depth`` and
        ``relevance_level``.

        These three keywords are the caller's choice, as ``users`` is
        (trec_eval's ``-c`` is ``users='truth'``): a preset does not set
        them, and they hold with every ``convention``.
    rbp_gain : {'binary', 'linear', 'scaled'}, optional
        The gain of ``rbp`` (:func:`~recmetrics.rbp`'s ``gain``): 1 per
        relevant item, its grade (ranx), or its grade over the largest
        (trec_eval 10.0); ``None`` means ``'binary'``. It has its own name
        because ``gain`` (``ndcg``'s, default ``'linear'``) does not apply
        to ``rbp``. The name's parameters win over it: ``"RBP(rel=1)"``,
        ``"rbp(gain='scaled')"``.
    rbp_residual_definition : {'moffat_zobel', 'trec_eval'}, optional
        The residual of ``rbp_residual``
        (:func:`~recmetrics.rbp_residual`'s ``definition``); ``None`` means
        ``'moffat_zobel'``.
    interpolation : {'expected', 'linear'}, optional
        How ``pauc`` (:func:`~recmetrics.partial_auc`) crosses a tie group
        that ``max_fpr`` cuts: the exact expectation over the orders of the
        tied items, or scikit-learn's straight line (``roc_auc_score(...,
        max_fpr=f)``, the ``'sklearn'`` preset's); ``None`` means
        ``'expected'``. A name's parameter wins
        (``"pauc(max_fpr=0.2, interpolation='linear')"``).

    A metric keyword passed explicitly that none of the requested metrics
    reads (``gain='linear'`` with ``['rbp']`` only) warns, naming the
    metrics that read it: it would change nothing.

    Returns
    -------
    pandas.Series or pandas.DataFrame
        The means over users, a Series named ``'mean'`` indexed by the
        metric names as given (NaN for a metric defined for no user), or
        for the few metrics whose registry entry says otherwise
        (``MetricSpec.aggregate``) trec_eval's summary: the sum of its counts
        (``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``,
        ``num_nonrel_judged_ret``) and the geometric mean of ``gm_map`` and
        ``gm_bpref`` (:func:`~recmetrics.gm_map`); or,
        with ``per_user=True``, a DataFrame with one row per user (index
        ``user``) and one column per metric, NaN where ``no_relevant='skip'``
        left the user out.

    Raises
    ------
    ValueError
        For an unknown or repeated metric name, a convention keyword that
        contradicts ``convention``, or a metric the convention's library
        does not provide (or not with that cutoff).
    TypeError
        For ``metrics`` that is not a name or a sequence of names, and for
        keywords that do not apply to the input form.

    See Also
    --------
    compare_conventions : The same metrics under every convention.
    recmetrics.conventions.describe : What each convention preset sets.
    recmetrics.from_scores : The ranking built once.

    Notes
    -----
    From a score matrix the ranking costs one counting pass over each row
    (no sorting; see :func:`~recmetrics.ranking.from_scores`); memory beyond
    the inputs grows with the number of relevant and excluded entries (and,
    for a dense relevance matrix or mask, one byte per 64 of its cells, one
    block of users at a time). C-ordered float32 and float64 scores are not
    copied; scores of another type or memory order are, one block of users
    at a time (as float64, or into C order); under ``score_dtype`` every
    block of scores that are not C-ordered scores of that type is cast to
    it instead, one block at a time (float64 and integers under
    ``'float32'``, float32 under ``'float64'``). Integer scores are then
    compared in that precision: integers beyond 2**24 (float32) or 2**53
    (float64) that differ may tie, as they would in the library the
    preset follows; without ``score_dtype`` they are compared exactly.
    One ranking is built per distinct tie policy and score option among the
    requested metrics (a preset may set them per metric). When every metric
    on a ranking has a cutoff, the ranking is built only as deep as the
    largest one (``from_scores(..., depth=k)``): the relevant items that
    cannot reach it are not counted, with the same results in every bit and
    about one pass over the scores on a large catalogue.

    References
    ----------
    %(ref_tamm2021)s

    %(ref_mcsherry2008)s

    %(ref_trec_eval)s

    %(ref_sakai2007)s

    Examples
    --------
    >>> y_true = [[1, 0, 0, 1], [0, 0, 1, 0]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.4], [0.3, 0.2, 0.9, 0.1]]
    >>> evaluate(y_true, y_score, ["precision@2", "recall@2", "ndcg@2", "mrr", "auc"]).round(4)
    precision@2    0.5000
    recall@2       0.7500
    ndcg@2         0.8066
    mrr            1.0000
    auc            0.8750
    Name: mean, dtype: float64

    Per user, with ties in the second user's scores (``ties='expected'``):

    >>> y_true = [[1, 0, 1, 0], [0, 0, 0, 1]]
    >>> y_score = [[0.9, 0.8, 0.7, 0.1], [0.5, 0.5, 0.5, 0.5]]
    >>> evaluate(y_true, y_score, ["precision@2", "map@2"], per_user=True)
          precision@2  map@2
    user
    0            0.50  0.500
    1            0.25  0.375

    Ranked lists, and leave-one-out ranks in a catalogue of 100 items:

    >>> evaluate(["a", "b", "c"], {"a", "c"}, ["recall@2", "mrr"]).tolist()
    [0.5, 1.0]
    >>> evaluate(ranks=[1, 5, 20], n_items=100, metrics=["hr@10", "auc"]).round(4).tolist()
    [0.6667, 0.9226]

    trec_eval's options on long data frames: only the judged predictions
    (``-J``), only the first two (``-M 2``), grade 2 and above relevant
    (``-l 2``):

    >>> truth = pd.DataFrame({"user": 1, "item": ["a", "b", "c"], "grade": [2, 0, 1]})
    >>> run = pd.DataFrame({"user": 1, "item": ["x", "a", "b", "c"], "score": [4, 3, 2, 1]})
    >>> evaluate(truth, run, ["precision@2", "mrr"], relevance="grade").tolist()
    [0.5, 0.5]
    >>> evaluate(truth, run, ["precision@2", "mrr"], relevance="grade", judged_only=True).tolist()
    [0.5, 1.0]
    >>> evaluate(truth, run, ["recall"], relevance="grade", max_depth=2).tolist()
    [0.5]
    >>> level = evaluate(truth, run, ["recall", "ndcg"], relevance="grade", relevance_level=2)
    >>> level.round(4).tolist()   # ndcg keeps grade 1 as a gain, as trec_eval's does
    [1.0, 0.6433]
    """
    call = read_call(locals())
    if call.has_beyond:
        return _evaluate_with_beyond(call)
    for key, value in call.item_data.items():
        if value is not None:
            raise TypeError(
                f"{key}= applies only to beyond-accuracy metrics (novelty, ild, calibration, ...)"
            )
    return _finish_table(_ranking_metrics(call), call.per_user, _aggregates(call))


def _ranking_metrics(call):
    """The per-user table of the call's ranking metrics (resolved once; blocks of users)."""
    options, overrides, _ = _conv.resolve(
        call.convention, call.keywords, [spec.name for _, spec, _ in call.parsed]
    )
    if call.convention is not None:
        for _name, spec, k in call.parsed:
            _conv.check_supported(call.convention, spec.name, k)
    y_true, y_score = call.y_true, call.y_score
    n_rows = y_score.shape[0] if isinstance(y_score, np.ndarray) and y_score.ndim == 2 else 0
    chunk_users = call.chunk_users
    if chunk_users is None:  # 4096 users, or CHUNK_CELLS cells if that is more
        n_cols = y_score.shape[1] if n_rows else 1
        chunk_users = max(4096, CHUNK_CELLS // max(n_cols, 1))
    chunk_users = check_k(chunk_users, "chunk_users")
    matrix = isinstance(y_true, np.ndarray) or sp.issparse(y_true)
    if not (n_rows > chunk_users and matrix and call.ranks is None):
        return _ranking_table(call, options, overrides, y_true, y_score, call.mask, call.progress)
    # Bounded memory: rank and evaluate blocks of users in turn. Every metric
    # is computed per user, so the blocks' tables simply stack. Sparse inputs
    # are checked once and sliced, not copied whole (the blocks are copies):
    # extra memory stays independent of the users.
    T = _checked_sparse(y_true, "y_true", copy=False) if sp.issparse(y_true) else y_true
    M = call.mask
    if M is not None and sp.issparse(M):
        M = _checked_sparse(M, "mask", copy=False)
    blocks = []
    bar = tqdm(total=n_rows, disable=not call.progress, desc="evaluating users", unit="user")
    with bar:
        for lo in range(0, n_rows, chunk_users):
            hi = min(n_rows, lo + chunk_users)
            block_mask = None if M is None else M[lo:hi]
            blocks.append(
                _ranking_table(
                    call, options, overrides, T[lo:hi], y_score[lo:hi], block_mask, False
                )
            )
            bar.update(hi - lo)
    return pd.concat(blocks, ignore_index=True)


def _ranking_table(call, options, overrides, y_true, y_score, mask, progress):
    """Every ranking metric of the call, per user, on one block of users."""
    form = input_form(y_true, y_score, call.ranks)
    if _judgment_groups.applies(form, y_true, call):  # trec_eval's qrels_jg: a column 'group'
        args = (call, options, overrides, y_true, y_score, _ranking_table)
        return _judgment_groups.group_table(*args)
    frame = dict(call.frame, users=call.keywords["users"])
    frame.update({key: call.keywords[key] for key in TREC_OPTIONS})
    if form == "ranking":  # a prebuilt Ranking (of frames) is condensed as frames are
        frame.pop("judged_only")
    if form != "frames":
        given = [key for key, value in frame.items() if value is not None and value is not False]
        if given:
            raise TypeError(
                f"{given[0]}= applies only to long data frames (truth, predictions); "
                f"these inputs are {form}"
            )
    frame = dict(call.frame, user=call.frame["user"] or "user", item=call.frame["item"] or "item")
    rankings = Rankings(call, form, frame, y_true, y_score, mask, progress)
    per_metric = [dict(options, **overrides.get(spec.name, {})) for _, spec, _ in call.parsed]
    for opts, (_, spec, _) in zip(per_metric, call.parsed, strict=True):
        if spec.graded:  # every grade > 0 is a gain (trec_eval's gain measures ignore -l)
            opts["relevance_level"] = None
    rankings.plan((opts, k) for opts, (_, _, k) in zip(per_metric, call.parsed, strict=True))
    columns = {}
    for opts, (name, spec, k) in zip(per_metric, call.parsed, strict=True):
        kw = {PARAMETERS.get(key, key): opts[key] for key in spec.keywords}
        kw.update(call.metric_keywords.get(name, {}))  # set by the name: 'RBP(p=0.9)'
        if spec.takes_cutoff:
            kw["k"] = k
        columns[name] = spec.function(
            rankings.get(opts), no_relevant=opts["no_relevant"], per_user=True, **kw
        )
    return pd.DataFrame(columns)


def _evaluate_with_beyond(call):
    """Ranking metrics on the ranking, beyond-accuracy metrics on the recommended lists."""
    catalogue = [name for name, spec, _ in call.parsed if spec.kind == "catalogue"]
    if call.per_user and catalogue:
        raise ValueError(
            f"{catalogue[0]} is a property of all the lists together (catalogue-level): it has "
            "no per-user values; ask for it with per_user=False"
        )
    ranking = call.only("ranking")
    table = None
    if ranking.parsed:
        table = _finish_table(_ranking_metrics(ranking), True)
    lists, truth, n_cols = recommended_lists(call)
    n_items = n_cols if call.n_items is None and n_cols is not None else call.n_items
    columns, scalars = beyond_values(call, lists, truth, n_items)
    beyond_table = pd.DataFrame(columns, index=lists.user_ids if not columns else None)
    if table is None:
        table = beyond_table
    elif columns:
        # every user with a list counts for the list metrics, whether or not
        # the ranking metrics evaluate them (users without relevant items)
        table = table.join(beyond_table, how="outer")
    table = table[[name for name, spec, _ in call.parsed if spec.kind != "catalogue"]]
    if call.per_user:
        table.index.name = "user"
        return table
    means = _finish_table(table, False, _aggregates(call))
    return pd.Series(
        {name: scalars[name] if name in scalars else means[name] for name, _, _ in call.parsed},
        name="mean",
        dtype=np.float64,
    )


def summarise_table(table, metrics):
    """The summary row of a per-user table of :func:`evaluate`, each column by its metric's rule.

    ``table`` holds one column per name of ``metrics`` (in order; the
    columns may carry other labels, as the command line's trec_eval names);
    each is summarised as :func:`evaluate` with ``per_user=False`` would
    (the mean over the users not NaN, or the metric's ``aggregate``: the
    sum of trec_eval's counts, the geometric mean of ``gm_map``).

    Examples
    --------
    >>> table = evaluate([[1, 0], [0, 1]], [[0.9, 0.1], [0.9, 0.1]], ["map", "num_ret"],
    ...                  per_user=True)
    >>> summarise_table(table, ["map", "num_ret"]).tolist()
    [0.75, 4.0]
    """
    names = list(metrics)
    if len(names) != table.shape[1]:
        raise ValueError(f"{len(names)} metric names for a table of {table.shape[1]} columns")
    aggregates = {
        col: _registry.parse_with_keywords(name)[0].aggregate
        for col, name in zip(table.columns, names, strict=True)
    }
    return _finish_table(table.copy(deep=False), False, aggregates)


def _aggregates(call):
    """The summary rule of each requested metric, by its name as given (the registry's)."""
    return {name: spec.aggregate for name, spec, _ in call.parsed}


def _finish_table(table, per_user, aggregates=None):
    """Per-user table, or the summaries over users (the mean, or the metric's ``aggregate``).

    A per-user value is NaN only where ``no_relevant='skip'`` left the user
    out, so the summaries skip NaN.
    """
    table.index.name = "user"
    if per_user:
        return table
    # the same summation as the metric functions (numpy's pairwise sum, in
    # summarise), so that evaluate and e.g. ndcg agree to the last bit
    aggregates = aggregates or {}
    values = {}
    for col in table.columns:
        v = table[col].to_numpy(dtype=np.float64)
        values[col] = summarise(v[~np.isnan(v)], aggregates.get(col, "mean"))
    return pd.Series(values, name="mean", dtype=np.float64)
