"""The rankings of one :func:`recmetrics.evaluate` call: one per tie policy and score option.

A preset may set the tie policy or the score options per metric, so a call
builds one :class:`~recmetrics.Ranking` per distinct set of them, each once,
from whichever input form was given (:func:`recmetrics.inputs.forms.as_ranking`,
:func:`recmetrics.from_frames`, :func:`recmetrics.ranking.from_scores`).
"""

from __future__ import annotations

import numpy as np

from ..inputs.forms import as_ranking
from ..inputs.frames import from_frames
from ..ranking import Ranking, from_scores
from ..ranking._representation import condense
from ._trec_options import TREC_OPTIONS, trec_frames

__all__ = ["Rankings", "cast_scores"]


class Rankings:
    """Build, once each, the rankings the metrics of a call ask for.

    Parameters
    ----------
    call : Call
        The checked call (its inputs, ``ranks``, ``n_items``, ``convention``).
    form : str
        The input form (:func:`recmetrics.inputs.forms.input_form`).
    frame : dict
        The frame columns (long data frames only).
    y_true, y_score, mask :
        The inputs of this block of users.
    progress : bool
        Report progress over users (score matrices).
    """

    def __init__(self, call, form, frame, y_true, y_score, mask, progress):
        self.call, self.form, self.frame = call, form, frame
        self.y_true, self.y_score, self.mask, self.progress = y_true, y_score, mask, progress
        self.depths = {}
        self.built = {}

    def key(self, opts):
        """What distinguishes two rankings: ties, score options, the users and options of frames."""
        frames = self.form == "frames"
        users_of = opts["users"] or "truth" if frames else None
        trec = tuple(opts[key] for key in TREC_OPTIONS) if frames else None
        return opts["ties"], opts["retrieve_nonpositive"], opts["score_dtype"], users_of, trec

    def plan(self, options_and_cutoffs):
        """Record the cutoffs asked of each ranking, before any is built.

        When every metric on a ranking has a cutoff, the relevant items below
        the largest one need not be placed (``from_scores(depth=...)``): the
        metrics are the same, and full-catalogue scores are read about once.
        """
        for opts, k in options_and_cutoffs:
            key = self.key(opts)
            known = self.depths.get(key, 0)
            self.depths[key] = None if k is None or known is None else max(known, k)

    def get(self, opts):
        """The ranking under the tie policy and score options of one metric (built once)."""
        key = self.key(opts)
        if key not in self.built:
            self.built[key] = self._build(opts, self.depths[key])
        return self.built[key]

    def _build(self, opts, depth):
        """The ranking of one key, condensed (Sakai's lists) under ``judged_only``."""
        r = self._ranking(opts, None if opts["judged_only"] else depth)
        return condense(r, bool(opts["judged_only"]))

    def _ranking(self, opts, depth):
        call, y_true, mask = self.call, self.y_true, self.mask
        if isinstance(y_true, Ranking):
            if (
                call.convention is not None
                or opts["retrieve_nonpositive"] is False
                or opts["score_dtype"]
            ):
                raise ValueError(
                    "a prebuilt Ranking has its tie policy and scores fixed; pass y_true and "
                    "y_score instead to use a convention, retrieve_nonpositive or score_dtype"
                )
            r, _ = as_ranking(
                y_true,
                self.y_score,
                ranks=call.ranks,
                n_items=call.n_items,
                mask=mask,
                ties=call.keywords["ties"],
            )
            return r
        if self.form == "frames":
            if mask is not None:
                raise TypeError("mask does not apply to data frames: leave excluded items out")
            truth, predictions, users, relevance = trec_frames(
                y_true, self.y_score, self.frame, opts, condense=False
            )
            return from_frames(
                truth,
                predictions,
                n_items=call.n_items,
                ties=opts["ties"],
                retrieve_nonpositive=opts["retrieve_nonpositive"] is not False,
                score_dtype=opts["score_dtype"],
                users=users,
                **dict(self.frame, relevance=relevance),
            )
        scores = self.y_score
        matrix = self.form == "scores"
        if opts["score_dtype"] is not None and matrix:
            scores = cast_scores(scores, opts["score_dtype"], call.convention)
        if opts["retrieve_nonpositive"] is False:
            return self._only_positive(scores, opts, depth, matrix)
        r, _ = as_ranking(
            y_true,
            scores,
            ranks=call.ranks,
            n_items=call.n_items,
            mask=mask,
            ties=opts["ties"],
            progress=self.progress,
            depth=depth,
        )
        return r

    def _only_positive(self, scores, opts, depth, matrix):
        """The ranking where relevant items scored <= 0 are never retrieved."""
        y_true, mask = self.y_true, self.mask
        if not matrix:
            raise TypeError("retrieve_nonpositive=False applies only to scores (y_true, y_score)")
        if self.call.n_items is not None:
            raise TypeError(
                "n_items does not apply to (y_true, y_score): the catalogue is the columns"
            )
        if np.ndim(scores) == 1:
            return from_scores(
                np.asarray(y_true)[None, :],
                np.asarray(scores)[None, :],
                mask=None if mask is None else np.asarray(mask)[None, :],
                ties=opts["ties"],
                retrieve_nonpositive=False,
                depth=depth,
            )
        return from_scores(
            y_true,
            scores,
            mask=mask,
            ties=opts["ties"],
            progress=self.progress,
            retrieve_nonpositive=False,
            depth=depth,
        )


def _beyond_float32(arr):
    """Whether a finite value of ``arr`` lies beyond the float32 range (no full-size temporary).

    Integers never do (int64 stops at about 9.2e18). For floats the extremes
    are read first; only when they are not finite (an infinity or NaN among
    the scores) are the finite values picked out, which copies them.
    """
    if arr.dtype.kind != "f":
        return False
    limit = np.finfo(np.float32).max
    hi, lo = arr.max(), arr.min()
    if np.isfinite(hi) and np.isfinite(lo):
        return bool(max(hi, -lo) > limit)
    finite = arr[np.isfinite(arr)]
    return bool(finite.size and np.abs(finite).max() > limit)


def cast_scores(y_score, dtype, convention):
    """Scores cast to ``dtype``, with a clear error where the cast overflows."""
    try:
        arr = y_score if isinstance(y_score, np.ndarray) else np.asarray(y_score)
    except ValueError:  # ragged: the ranking builder reports it
        return y_score
    if arr.dtype.kind not in "iuf":
        return y_score  # the ranking builder reports what is wrong with it
    if dtype == "float32" and arr.size:
        if arr.dtype == np.float32:
            return arr  # nothing to check, nothing to copy
        if _beyond_float32(arr):
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
    return np.asarray(arr, dtype=dtype, order="C")  # one copy, in the order the kernels read
