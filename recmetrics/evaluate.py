"""Several metrics at once, from one ranking.

:func:`evaluate` builds the ranking representation once (one pass over the
scores, one tie policy) and evaluates every requested metric on it, so asking
for ten metrics costs little more than asking for one. With
``convention=...`` it reproduces one library's variant of every metric (see
:mod:`recmetrics.conventions`).
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import scipy.sparse as sp
from tqdm import tqdm

from . import _registry
from . import beyond as _beyond
from . import conventions as _conv
from ._docs import fill_doc
from ._frames import from_frames
from ._inputs import _is_relevant_collection, as_ranking, input_form
from ._kernels import CHUNK_CELLS
from ._validation import check_bool, check_choice, check_k
from .beyond import _read_lists, top_k
from .ranking import Ranking, from_scores
from .ranking.scores import _checked_sparse

__all__ = ["evaluate", "compare_conventions"]


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
        relevance from ``relevance``) and which users are evaluated
        (``users='truth'`` by default, or the preset's: ``'both'`` for
        trec_eval, as without its ``-c``; ``'predictions'`` for LensKit;
        ``'both'`` for Microsoft Recommenders' precision, recall and MAP; see
        :func:`~recmetrics.from_frames`). A ``users`` passed explicitly holds
        for every metric, whatever the preset.
        Per-user results are then indexed by the user ids.
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
        Score matrices only; default: as given.
    short_lists : {'k', 'list'}, optional
        How ``precision`` and ``map`` score a list shorter than ``k``
        (:func:`~recmetrics.precision`); ``None`` means ``'k'`` (or the
        preset's value: LensKit's is ``'list'``).

    Returns
    -------
    pandas.Series or pandas.DataFrame
        The means over users, a Series named ``'mean'`` indexed by the
        metric names as given (NaN for a metric defined for no user); or,
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
    the inputs grows with the number of relevant and excluded entries only.
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
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    if metrics is None or not isinstance(metrics, (list, tuple, np.ndarray, pd.Index)):
        raise TypeError(
            "metrics must be a metric name or a list of names like ['ndcg@10', 'map@10'], "
            f"got {type(metrics).__name__}"
        )
    metrics = list(metrics)
    per_user = check_bool(per_user, "per_user")
    progress = check_bool(progress, "progress")
    if retrieve_nonpositive is not None:
        check_bool(retrieve_nonpositive, "retrieve_nonpositive")
    if score_dtype is not None:
        score_dtype = _check_score_dtype(score_dtype)
    parsed = [(name, *_registry.parse(name)) for name in metrics]
    if not parsed:
        raise ValueError("metrics is empty; ask for at least one metric")
    if len(set(metrics)) != len(metrics):
        raise ValueError("metrics contains a name twice")
    item_data = {
        "popularity": popularity,
        "features": features,
        "history": history,
        "items": items,
    }
    if any(spec.kind != "ranking" for _, spec, _ in parsed):
        same = dict(
            ranks=ranks,
            n_items=n_items,
            mask=mask,
            ties=ties,
            no_relevant=no_relevant,
            ap_denominator=ap_denominator,
            gain=gain,
            idcg=idcg,
            log_base=log_base,
            progress=progress,
            convention=convention,
            ap_ties=ap_ties,
            recall_denominator=recall_denominator,
            discount=discount,
            retrieve_nonpositive=retrieve_nonpositive,
            score_dtype=score_dtype,
            short_lists=short_lists,
            chunk_users=chunk_users,
            user=user,
            item=item,
            score=score,
            rank=rank,
            relevance=relevance,
            users=users,
        )
        return _evaluate_with_beyond(y_true, y_score, parsed, per_user, same, item_data)
    for key, value in item_data.items():
        if value is not None:
            raise TypeError(
                f"{key}= applies only to beyond-accuracy metrics (novelty, ild, calibration, ...)"
            )
    options, overrides, _ = _conv.resolve(
        convention,
        {
            "ties": ties,
            "no_relevant": no_relevant,
            "ap_denominator": ap_denominator,
            "ap_ties": ap_ties,
            "recall_denominator": recall_denominator,
            "gain": gain,
            "idcg": idcg,
            "log_base": log_base,
            "discount": discount,
            "retrieve_nonpositive": retrieve_nonpositive,
            "score_dtype": score_dtype,
            "short_lists": short_lists,
            "users": users,
        },
    )
    if convention is not None:
        for _name, spec, k in parsed:
            _conv.check_supported(convention, spec.name, k)
    n_rows = y_score.shape[0] if isinstance(y_score, np.ndarray) and y_score.ndim == 2 else 0
    if chunk_users is None:  # 4096 users, or CHUNK_CELLS cells if that is more
        n_cols = y_score.shape[1] if n_rows else 1
        chunk_users = max(4096, CHUNK_CELLS // max(n_cols, 1))
    chunk_users = check_k(chunk_users, "chunk_users")
    if (
        n_rows > chunk_users
        and (isinstance(y_true, np.ndarray) or sp.issparse(y_true))
        and ranks is None
    ):
        # Bounded memory: rank and evaluate blocks of users in turn. Every
        # metric is computed per user, so the blocks' tables simply stack.
        same = dict(
            n_items=n_items,
            ties=ties,
            no_relevant=no_relevant,
            ap_denominator=ap_denominator,
            gain=gain,
            idcg=idcg,
            log_base=log_base,
            convention=convention,
            ap_ties=ap_ties,
            recall_denominator=recall_denominator,
            discount=discount,
            retrieve_nonpositive=retrieve_nonpositive,
            score_dtype=score_dtype,
            short_lists=short_lists,
        )
        # sparse inputs are checked once and sliced, not copied whole (the
        # blocks are copies): extra memory stays independent of the users
        T = _checked_sparse(y_true, "y_true", copy=False) if sp.issparse(y_true) else y_true
        M = mask
        if mask is not None and sp.issparse(mask):
            M = _checked_sparse(mask, "mask", copy=False)
        blocks = []
        with tqdm(total=n_rows, disable=not progress, desc="evaluating users", unit="user") as bar:
            for lo in range(0, n_rows, chunk_users):
                hi = min(n_rows, lo + chunk_users)
                blocks.append(
                    evaluate(
                        T[lo:hi],
                        y_score[lo:hi],
                        metrics,
                        mask=None if M is None else M[lo:hi],
                        per_user=True,
                        chunk_users=chunk_users,
                        **same,
                    )
                )
                bar.update(hi - lo)
        return _finish_table(pd.concat(blocks, ignore_index=True), per_user)
    rankings = {}
    form = input_form(y_true, y_score, ranks)
    frame_kw = dict(user=user, item=item, score=score, rank=rank, relevance=relevance, users=users)
    if form != "frames":
        given = [key for key, value in frame_kw.items() if value is not None]
        if given:
            raise TypeError(
                f"{given[0]}= applies only to long data frames (truth, predictions); "
                f"these inputs are {form}"
            )
    else:
        frame_kw = {
            "user": user or "user",
            "item": item or "item",
            "score": score,
            "rank": rank,
            "relevance": relevance,
        }

    def key_of(opts):
        users_of = opts["users"] or "truth" if form == "frames" else None
        return opts["ties"], opts["retrieve_nonpositive"], opts["score_dtype"], users_of

    # When every metric on a ranking has a cutoff, the relevant items below
    # the largest one need not be placed (``from_scores(depth=...)``): the
    # metrics are the same, and full-catalogue scores are read about once.
    depths = {}
    for _name, spec, k in parsed:
        key = key_of(dict(options, **overrides.get(spec.name, {})))
        known = depths.get(key, 0)
        depths[key] = None if k is None or known is None else max(known, k)

    def ranking(opts):
        """The ranking under the tie policy and scores options of one metric (built once)."""
        key = key_of(opts)
        depth = depths[key]
        if key in rankings:
            return rankings[key]
        if isinstance(y_true, Ranking):
            if (
                convention is not None
                or opts["retrieve_nonpositive"] is False
                or opts["score_dtype"]
            ):
                raise ValueError(
                    "a prebuilt Ranking has its tie policy and scores fixed; pass y_true and "
                    "y_score instead to use a convention, retrieve_nonpositive or score_dtype"
                )
            r, _ = as_ranking(y_true, y_score, ranks=ranks, n_items=n_items, mask=mask, ties=ties)
            rankings[key] = r
            return r
        if form == "frames":
            if mask is not None:
                raise TypeError("mask does not apply to data frames: leave excluded items out")
            r = from_frames(
                y_true,
                y_score,
                n_items=n_items,
                ties=opts["ties"],
                retrieve_nonpositive=opts["retrieve_nonpositive"] is not False,
                score_dtype=opts["score_dtype"],
                users=opts["users"] or "truth",
                **frame_kw,
            )
            rankings[key] = r
            return r
        scores = y_score
        matrix = form == "scores"
        if opts["score_dtype"] is not None and matrix:
            scores = _cast_scores(y_score, opts["score_dtype"], convention)
        if opts["retrieve_nonpositive"] is False:
            if not matrix:
                raise TypeError(
                    "retrieve_nonpositive=False applies only to scores (y_true, y_score)"
                )
            if n_items is not None:
                raise TypeError(
                    "n_items does not apply to (y_true, y_score): the catalogue is the columns"
                )
            if np.ndim(scores) == 1:
                r = from_scores(
                    np.asarray(y_true)[None, :],
                    np.asarray(scores)[None, :],
                    mask=None if mask is None else np.asarray(mask)[None, :],
                    ties=opts["ties"],
                    retrieve_nonpositive=False,
                    depth=depth,
                )
            else:
                r = from_scores(
                    y_true,
                    scores,
                    mask=mask,
                    ties=opts["ties"],
                    progress=progress,
                    retrieve_nonpositive=False,
                    depth=depth,
                )
        else:
            r, _ = as_ranking(
                y_true,
                scores,
                ranks=ranks,
                n_items=n_items,
                mask=mask,
                ties=opts["ties"],
                progress=progress,
                depth=depth,
            )
        rankings[key] = r
        return r

    columns = {}
    for name, spec, k in parsed:
        opts = dict(options, **overrides.get(spec.name, {}))
        kw = {key: opts[key] for key in spec.keywords}
        if spec.takes_cutoff:
            kw["k"] = k
        columns[name] = spec.function(
            ranking(opts), no_relevant=opts["no_relevant"], per_user=True, **kw
        )
    return _finish_table(pd.DataFrame(columns), per_user)


def _evaluate_with_beyond(y_true, y_score, parsed, per_user, same, item_data):
    """Ranking metrics through :func:`evaluate`, beyond-accuracy metrics on the lists."""
    ranking = [name for name, spec, _ in parsed if spec.kind == "ranking"]
    catalogue = [name for name, spec, _ in parsed if spec.kind == "catalogue"]
    if per_user and catalogue:
        raise ValueError(
            f"{catalogue[0]} is a property of all the lists together (catalogue-level): it has "
            "no per-user values; ask for it with per_user=False"
        )
    table = evaluate(y_true, y_score, ranking, per_user=True, **same) if ranking else None
    lists, truth, n_cols = _recommended_lists(y_true, y_score, parsed, same, item_data["items"])
    if same["n_items"] is None and n_cols is not None:
        same = dict(same, n_items=n_cols)
    columns, scalars = {}, {}
    for name, spec, k in parsed:
        if spec.kind == "ranking":
            continue
        params = inspect.signature(spec.function).parameters
        kw = {"k": k}
        needs = spec.needs
        if spec.name == "serendipity":
            # the data of the expectedness model in force (the default or the preset's)
            model = _beyond._resolve(
                "serendipity", same["convention"], {}, {"expectedness": "popularity"}
            )["expectedness"]
            needs = {
                "popularity": ("truth", "popularity"),
                "rank": ("truth", "popularity", "n_items"),
                "history": ("truth", "history", "features"),
            }[model]
        for need in ("popularity", "features", "history"):
            optional = need == "history" and item_data[need] is not None
            if need in params and (need in needs or optional):
                if item_data[need] is None:
                    raise TypeError(
                        f"{name} needs {need}= (see recmetrics.beyond.{spec.function.__name__})"
                    )
                kw[need] = item_data[need]
        if "n_items" in params and (spec.name != "serendipity" or "n_items" in needs):
            kw["n_items"] = same["n_items"]
        if "truth" in params:
            kw["truth"] = truth
        if same["convention"] is not None and "convention" in params:
            kw["convention"] = same["convention"]
        if spec.kind == "catalogue":
            scalars[name] = spec.function(lists, **kw)
        else:
            columns[name] = spec.function(lists, per_user=True, **kw)
    beyond_table = pd.DataFrame(columns, index=lists.user_ids if not columns else None)
    if table is None:
        table = beyond_table
    elif columns:
        # every user with a list counts for the list metrics, whether or not
        # the ranking metrics evaluate them (users without relevant items)
        table = table.join(beyond_table, how="outer")
    table = table[[name for name, spec, _ in parsed if spec.kind != "catalogue"]]
    if per_user:
        table.index.name = "user"
        return table
    means = _finish_table(table, False)
    return pd.Series(
        {name: scalars[name] if name in scalars else means[name] for name, _, _ in parsed},
        name="mean",
        dtype=np.float64,
    )


def _recommended_lists(y_true, y_score, parsed, same, items=None):
    """The recommended lists (read once), the relevant items, and the catalogue size if known.

    For a score matrix the lists hold column positions: with ``items`` (the
    id of each column) they are read as those ids; without, item data must
    be keyed by the positions themselves (checked by recmetrics.beyond).
    """
    form = input_form(y_true, y_score, same["ranks"])
    ks = [k for _, spec, k in parsed if spec.kind != "ranking"]
    if items is not None and form != "scores":
        raise TypeError(
            "items= applies only to score matrices (it names the item of each column); "
            f"these inputs are {form}, which hold item ids already"
        )
    if form == "frames":
        _beyond._check_eval_frames(
            y_true, y_score, same["user"] or "user", same["item"] or "item", same["relevance"]
        )
        lists = _read_lists(
            y_score,
            None,
            user=same["user"] or "user",
            item=same["item"] or "item",
            rank=same["rank"],
            score=same["score"],
            name="predictions",
        )
        truth = y_true
        if same["relevance"] is not None:
            truth = y_true[y_true[same["relevance"]] > 0]
        return (
            lists,
            truth.rename(
                columns={(same["user"] or "user"): "user", (same["item"] or "item"): "item"}
            ),
            None,
        )
    if form == "lists":
        single = _is_relevant_collection(y_score)
        recs = [y_true] if single else y_true
        rel = [y_score] if single else y_score
        truth = [
            [i for i, g in r.items() if g > 0] if isinstance(r, dict) else list(r) for r in rel
        ]
        return _read_lists(recs, name="y_true"), truth, None
    if form == "scores":
        if any(k is None for k in ks):
            raise ValueError(
                "beyond-accuracy metrics of a score matrix need a list length: ask for e.g. "
                "'novelty@10'"
            )
        if not isinstance(y_score, list) and np.ndim(y_score) != 2:
            raise TypeError("beyond-accuracy metrics need one row of scores per user (2-D)")
        S = _beyond._check_eval_matrix(y_true, y_score)
        columns = None if items is None else _beyond._columns(items, S.shape[1], "y_score")
        lists = _read_lists(
            top_k(S, max(ks), mask=same["mask"]), items=columns, n_positions=S.shape[1]
        )
        T = sp.coo_matrix(y_true) if not sp.issparse(y_true) else y_true.tocoo()
        pos = T.data > 0
        col = T.col[pos] if columns is None else columns.to_numpy()[T.col[pos]]
        truth = pd.DataFrame({"user": T.row[pos], "item": col})
        return lists, truth, S.shape[1]
    raise TypeError(
        f"beyond-accuracy metrics need recommended lists (data frames, ranked lists or a score "
        f"matrix); these inputs are {form}"
    )


def _finish_table(table, per_user):
    """Per-user table, or the means over users.

    A per-user value is NaN only where ``no_relevant='skip'`` left the user
    out, so the means skip NaN.
    """
    table.index.name = "user"
    if per_user:
        return table
    # the same summation as the metric functions (numpy's pairwise sum), so
    # that evaluate and e.g. ndcg agree to the last bit
    values = {}
    for col in table.columns:
        v = table[col].to_numpy(dtype=np.float64)
        v = v[~np.isnan(v)]
        values[col] = float(np.mean(v)) if v.size else np.nan
    return pd.Series(values, name="mean", dtype=np.float64)


_SCORE_DTYPES = ("float32", "float64")


def _check_score_dtype(score_dtype):
    name = (
        np.dtype(score_dtype).name
        if isinstance(score_dtype, type) and issubclass(score_dtype, np.floating)
        else score_dtype
    )
    if not isinstance(name, str) or name not in _SCORE_DTYPES:
        raise ValueError(
            f"score_dtype must be 'float32' or 'float64' (or None: as given), got {score_dtype!r}"
        )
    return name


def _cast_scores(y_score, dtype, convention):
    """Scores cast to ``dtype``, with a clear error where the cast overflows."""
    try:
        arr = y_score if isinstance(y_score, np.ndarray) else np.asarray(y_score)
    except ValueError:  # ragged: the ranking builder reports it
        return y_score
    if arr.dtype.kind not in "iuf":
        return y_score  # the ranking builder reports what is wrong with it
    if dtype == "float32" and arr.size:
        with np.errstate(invalid="ignore"):
            big = (
                np.abs(arr[np.isfinite(arr)] if arr.dtype.kind == "f" else arr).max()
                > np.finfo(np.float32).max
            )
        if big:
            who = (
                f" (convention={convention!r} compares scores in single precision)"
                if convention
                else ""
            )
            raise ValueError(
                "y_score has values beyond the float32 range (about 3.4e38), which "
                "score_dtype='float32' "
                f"would turn into infinity{who}; rescale the scores first"
            )
    return np.asarray(arr, dtype=dtype)


@fill_doc
def compare_conventions(
    y_true=None, y_score=None, *, k=10, conventions=None, ranks=None, n_items=None, mask=None
) -> pd.DataFrame:
    """P@k, R@k, AP@k, NDCG@k, MRR and AP (no cutoff) under every convention.

    Each number is :func:`recmetrics.evaluate` with ``convention=name``; a
    metric the library does not provide is NaN. The MRR column uses the
    library's own cutoff rule (``mrr@k`` where the library cuts, ``mrr``
    where it does not, as trec_eval's ``recip_rank``).

    Parameters
    ----------
    y_true, y_score : array-like, sequence, set or dict, optional
        Any input form of :func:`recmetrics.evaluate` except a prebuilt
        ``Ranking`` (the presets set the tie policy).
    k : int, default 10
        The cutoff of the ``@k`` columns.
    conventions : sequence of str, optional
        Keys of :data:`recmetrics.conventions.PRESETS` (default: all, in
        their order there).
    %(ranks)s
    %(n_items)s
    %(mask)s

    Returns
    -------
    pandas.DataFrame
        One row per convention, columns ``P@k``, ``R@k``, ``AP@k``,
        ``NDCG@k``, ``MRR`` and ``AP`` (means over users).

    See Also
    --------
    evaluate : One convention at a time.
    recmetrics.conventions.describe : The conventions behind each column.

    References
    ----------
    %(ref_tamm2021)s

    %(ref_trec_eval)s

    %(ref_pedregosa2011)s

    %(ref_bassani2022)s

    Examples
    --------
    >>> y_true = [[1, 0, 1, 1, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.7, 0.1, 0.2, 0.3]]
    >>> compare_conventions(y_true, y_score, k=2, conventions=["trec_eval", "recbole"]).round(4)
               P@2     R@2    AP@2  NDCG@2  MRR      AP
    trec_eval  0.5  0.3333  0.3333  0.6131  1.0  0.7222
    recbole    0.5  0.3333  0.5000  0.6131  1.0     NaN
    """
    k = check_k(k, "k")
    if conventions is not None and (
        isinstance(conventions, str) or not isinstance(conventions, (list, tuple))
    ):
        raise TypeError(
            f"conventions must be a list of preset names, got {type(conventions).__name__}"
        )
    names = list(_conv.PRESETS) if conventions is None else list(conventions)
    cols = {
        f"P@{k}": ("precision", k),
        f"R@{k}": ("recall", k),
        f"AP@{k}": ("map", k),
        f"NDCG@{k}": ("ndcg", k),
        "MRR": ("mrr", None),
        "AP": ("map", None),
    }
    out = {}
    for name in names:
        check_choice(name, "convention", tuple(_conv.PRESETS))
        sup = _conv.SUPPORTED[name]
        asked = {}
        for col, (base, kk) in cols.items():
            if base == "mrr" and base in sup:
                kk = None if sup[base] == "none" else k
            if (
                base not in sup
                or (sup[base] == "k" and kk is None)
                or (sup[base] == "none" and kk is not None)
            ):
                continue
            asked[col] = base if kk is None else f"{base}@{kk}"
        row = dict.fromkeys(cols, np.nan)
        if asked:
            res = evaluate(
                y_true,
                y_score,
                list(asked.values()),
                convention=name,
                ranks=ranks,
                n_items=n_items,
                mask=mask,
            )
            row.update({col: float(res[m]) for col, m in asked.items()})
        out[name] = row
    table = pd.DataFrame(out).T
    table.index.name = None
    return table
