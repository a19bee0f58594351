"""One call of :func:`recmetrics.evaluate`, read and checked once.

Every argument is read here, in one place, before anything is computed:
the metric names (parsed by the registry), the flags, the convention
keywords (their list comes from :mod:`recmetrics._keywords`), the frame
columns and the item data of the beyond-accuracy metrics.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .._keywords import CONVENTION_KEYWORDS
from .._validation import check_bool, check_choice, truth_relevance
from ..metrics import _registry
from ..metrics.curves import PAUC_INTERPOLATIONS
from ..metrics.rbp import RBP_GAINS, RESIDUALS
from ._trec_options import check_trec_options

__all__ = ["Call", "read_call", "check_score_dtype", "SCORE_DTYPES"]

SCORE_DTYPES = ("float32", "float64")

# the columns of long data frames (with ``users``, a convention keyword)
FRAME_COLUMNS = ("user", "item", "score", "rank", "relevance")

# the item data of the beyond-accuracy metrics
ITEM_DATA = ("popularity", "features", "history", "items")


@dataclass(frozen=True)
class Call:
    """The arguments of one :func:`recmetrics.evaluate` call, checked."""

    y_true: object
    y_score: object
    names: list  # the metric names as given
    parsed: list  # (name, spec, k) per metric
    metric_keywords: dict  # name -> the metric's keywords set by the name ('RBP(p=0.9)')
    per_user: bool
    progress: bool
    convention: str | None
    keywords: dict  # convention keyword -> value passed (None: not passed)
    ranks: object
    n_items: object
    mask: object
    chunk_users: object
    frame: dict  # column keyword -> value passed
    item_data: dict  # item data keyword -> value passed

    def only(self, kind):
        """The same call restricted to the metrics of one kind (``'ranking'``)."""
        parsed = [p for p in self.parsed if p[1].kind == kind]
        return replace(self, parsed=parsed, names=[name for name, _, _ in parsed])

    @property
    def has_beyond(self) -> bool:
        return any(spec.kind != "ranking" for _, spec, _ in self.parsed)


def read_call(args: dict) -> Call:
    """Check the arguments of :func:`recmetrics.evaluate` (by name) into a :class:`Call`."""
    metrics = args["metrics"]
    if isinstance(metrics, str):
        metrics = [metrics]
    if metrics is None or not isinstance(metrics, (list, tuple, np.ndarray, pd.Index)):
        raise TypeError(
            "metrics must be a metric name or a list of names like ['ndcg@10', 'map@10'], "
            f"got {type(metrics).__name__}"
        )
    metrics = list(metrics)
    per_user = check_bool(args["per_user"], "per_user")
    progress = check_bool(args["progress"], "progress")
    keywords = {key: args[key] for key in CONVENTION_KEYWORDS}
    if keywords["retrieve_nonpositive"] is not None:
        check_bool(keywords["retrieve_nonpositive"], "retrieve_nonpositive")
    if keywords["score_dtype"] is not None:
        keywords["score_dtype"] = check_score_dtype(keywords["score_dtype"])
    check_trec_options(keywords)
    named = (("rbp_gain", RBP_GAINS), ("rbp_residual_definition", RESIDUALS))
    for key, choices in named + (("interpolation", PAUC_INTERPOLATIONS),):
        if keywords[key] is not None:  # named as passed (the functions say gain=, definition=)
            check_choice(keywords[key], key, choices)
    parsed, metric_keywords = [], {}
    for name in metrics:
        spec, k, kw = _registry.parse_with_keywords(name)
        parsed.append((name, spec, k))
        if kw:
            metric_keywords[name] = kw
    if not parsed:
        raise ValueError("metrics is empty; ask for at least one metric")
    if len(set(metrics)) != len(metrics):
        raise ValueError("metrics contains a name twice")
    _warn_unread(keywords, parsed)
    return Call(
        y_true=args["y_true"],
        y_score=args["y_score"],
        names=metrics,
        parsed=parsed,
        metric_keywords=metric_keywords,
        per_user=per_user,
        progress=progress,
        convention=args["convention"],
        keywords=keywords,
        ranks=args["ranks"],
        n_items=args["n_items"],
        mask=args["mask"],
        chunk_users=args["chunk_users"],
        frame=_frame_columns(args),
        item_data={key: args[key] for key in ITEM_DATA},
    )


def _warn_unread(keywords, parsed):
    """Warn for a metric keyword passed that none of the requested metrics reads.

    ``gain='linear'`` with ``['rbp']`` changes nothing (rbp's gain is
    ``rbp_gain``): a silent no-op would look like a choice that was made.
    """
    metric_keywords = {key for spec in _registry.REGISTRY.values() for key in spec.keywords}
    read = {key for _, spec, _ in parsed for key in spec.keywords}
    for key, value in keywords.items():
        if value is None or key not in metric_keywords or key in read:
            continue
        readers = [name for name, spec in _registry.REGISTRY.items() if key in spec.keywords]
        asked = list(dict.fromkeys(spec.name for _, spec, _ in parsed))
        hint = " (rbp's gain is rbp_gain=)" if key == "gain" and "rbp" in asked else ""
        asked = ", ".join(asked)
        warnings.warn(
            f"{key}={value!r} is read by none of the requested metrics ({asked}){hint}; it "
            f"applies to {', '.join(readers)}",
            UserWarning,
            stacklevel=4,
        )


def _frame_columns(args):
    """The column keywords, with a truth frame's ``relevance`` column read by default."""
    frame = {key: args[key] for key in FRAME_COLUMNS}
    if isinstance(args["y_true"], pd.DataFrame):
        frame["relevance"] = truth_relevance(args["y_true"], frame["relevance"])
    return frame


def check_score_dtype(score_dtype):
    """``'float32'`` or ``'float64'`` (a numpy float type is read as its name)."""
    name = (
        np.dtype(score_dtype).name
        if isinstance(score_dtype, type) and issubclass(score_dtype, np.floating)
        else score_dtype
    )
    if not isinstance(name, str) or name not in SCORE_DTYPES:
        raise ValueError(
            f"score_dtype must be 'float32' or 'float64' (or None: as given), got {score_dtype!r}"
        )
    return name
