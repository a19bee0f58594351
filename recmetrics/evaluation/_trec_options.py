"""trec_eval's options on the long frames: depth (``-M``), relevance level (``-l``), ``-J``.

Each option of :func:`recmetrics.evaluate` named here changes what is
evaluated, not how a metric is computed, so it is applied once, to the
``(truth, predictions)`` frames, before the ranking is built
(:mod:`._rankings`), in trec_eval's order (``form_res_rels.c``): the
predictions are cut at ``max_depth`` first, then the unjudged ones are
dropped (``judged_only``: those without a row in ``truth`` and those with
a negative grade, in the pool but not judged); ``relevance_level`` sets
which grades count as relevant for the binary metrics, and leaves the
negative grades negative. :func:`recmetrics.evaluate` drops the unjudged
items from the ranking built of the cut frames
(:meth:`recmetrics.Ranking.condensed`, the same list: ``condense=False``
here), the command line's ``relstring`` from the frames.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._validation import check_bool, check_k, check_positive_number

__all__ = ["check_trec_options", "trec_frames", "TREC_OPTIONS"]

# the keywords of recmetrics.evaluate applied here (long data frames only)
TREC_OPTIONS = ("max_depth", "relevance_level", "judged_only")


def check_trec_options(keywords):
    """Check the values passed for :data:`TREC_OPTIONS` (``None``: not passed), in place."""
    if keywords["max_depth"] is not None:
        keywords["max_depth"] = check_k(keywords["max_depth"], "max_depth")
    level = keywords["relevance_level"]
    if level is not None:
        if isinstance(level, bool | np.bool_) or not isinstance(level, numbers.Real):
            raise TypeError(
                f"relevance_level must be a number > 0 (the lowest relevant grade), got "
                f"{level!r} of type {type(level).__name__}"
            )
        keywords["relevance_level"] = check_positive_number(level, "relevance_level")
    if keywords["judged_only"] is not None:
        keywords["judged_only"] = check_bool(keywords["judged_only"], "judged_only")


def _fresh_name(frame, base):
    name = base
    while name in frame.columns:
        name += "_"
    return name


def _cut(predictions, user, item, score, rank, max_depth, score_dtype):
    """Each user's first ``max_depth`` predictions, in trec_eval's order.

    trec_eval (``form_res_rels.c``, ``comp_sim_docno``) sorts by score,
    higher first, breaking ties by document id in decreasing string order,
    and keeps the first ``-M`` documents. Ranks (1 = first) are read as
    scores of the opposite sign.
    """
    if rank is not None:
        key = -predictions[rank].to_numpy(dtype=np.float64)
    else:
        key = predictions[score].to_numpy(dtype=score_dtype or np.float64)
    order = pd.DataFrame(
        {"u": predictions[user].to_numpy(), "key": key, "id": predictions[item].astype(str)}
    )
    order = order.sort_values(["key", "id"], ascending=False, kind="mergesort")
    place = order.groupby("u", sort=False).cumcount()
    keep = np.zeros(len(predictions), dtype=bool)
    keep[place.index.to_numpy()[place.to_numpy() < max_depth]] = True
    return predictions[keep]


def _judged(truth, predictions, user, item, relevance):
    """The predictions judged in ``truth``: Sakai's condensed lists.

    A row with a negative grade (in the pool but not judged) does not make
    its item judged: trec_eval's ``-J`` drops every document whose
    relevance value is negative (``form_res_rels.c``).
    """
    if relevance is not None and relevance in truth:
        grades = truth[relevance]
        if grades.dtype.kind in "iuf":
            truth = truth[~(grades < 0).to_numpy()]
    pairs = pd.MultiIndex.from_frame(truth[[user, item]])
    mine = pd.MultiIndex.from_frame(predictions[[user, item]])
    return predictions[mine.isin(pairs)]


def trec_frames(truth, predictions, frame, opts, condense=True):
    """The frames that trec_eval's options leave, and the ``users`` and ``relevance`` to use.

    Parameters
    ----------
    truth, predictions : pandas.DataFrame
        The long frames of :func:`recmetrics.evaluate`.
    frame : dict
        Their columns: ``user``, ``item``, ``score``, ``rank``, ``relevance``.
    opts : dict
        The resolved keywords: ``max_depth``, ``relevance_level``,
        ``judged_only``, ``users`` and ``score_dtype``.
    condense : bool, default True
        Whether ``judged_only`` drops the unjudged predictions here;
        ``False`` leaves them to :meth:`recmetrics.Ranking.condensed` (the
        users are chosen as with ``True``).

    Returns
    -------
    truth, predictions : pandas.DataFrame
    users : str
        The ``users`` policy that evaluates the users of the frames as given:
        condensing may leave a user without predictions, who stays evaluated
        (as in trec_eval, whose ``-J`` keeps the query).
    relevance : str or None
        The relevance column.
    """
    user, item, relevance = frame["user"], frame["item"], frame["relevance"]
    users = opts["users"] or "truth"
    depth, level, judged = opts["max_depth"], opts["relevance_level"], opts["judged_only"]
    if not isinstance(truth, pd.DataFrame) or not isinstance(predictions, pd.DataFrame):
        return truth, predictions, users, relevance  # from_frames says what is wrong
    missing = [c for c in (user, item) if c not in truth or c not in predictions]
    if missing:
        return truth, predictions, users, relevance  # from_frames names the column
    if judged and users in ("predictions", "all"):
        raise ValueError(
            f"judged_only=True with users={users!r}: a user with predictions but no judgment "
            "would lose every prediction and leave the evaluation; use users='truth' or "
            "'both'"
        )
    if judged and users == "both":
        # the users of both frames as given, kept when condensing empties a list
        truth = truth[truth[user].isin(predictions[user])]
        users = "truth"
    if depth is not None:
        score = None if frame["rank"] is not None else frame["score"] or "score"
        if (score or frame["rank"]) in predictions:
            predictions = _cut(
                predictions, user, item, score, frame["rank"], depth, opts["score_dtype"]
            )
    if judged and condense:
        predictions = _judged(truth, predictions, user, item, relevance)
    if level is not None:
        if relevance is None:  # every row of truth has grade 1
            relevance = _fresh_name(truth, "relevance")
            truth = truth.assign(**{relevance: 1})
        if relevance in truth:
            grades = truth[relevance]
            if grades.dtype.kind in "iufb":
                # below the level: judged non-relevant; a negative grade stays one
                keep = (grades >= level) | (grades < 0)
                truth = truth.assign(**{relevance: grades.where(keep, 0)})
    return truth, predictions, users, relevance
