"""Run the peer libraries on exactly the inputs that recmetrics takes.

One adapter per library: each takes the package's score-matrix form
``(y_true, y_score)`` (rows are users, columns are items; ``y_true`` holds
integer grades, an item is relevant iff its grade is > 0) and returns one value
per user, so that a library's numbers can be set beside recmetrics' own
(``recmetrics.evaluate(..., per_user=True)``, whose index is also the row
number, named ``user``).

* :func:`to_trec_dicts`: the nested dicts that pytrec_eval and ranx read.
* :func:`trec_eval`: trec_eval's measures through pytrec_eval.
* :func:`ranx_evaluate`, :func:`ranx_evaluate_many`: ranx's metrics, by
  default in a subprocess without numba's JIT compiler.
* :func:`sklearn_per_user`: a scikit-learn metric applied to each user's row.

The peers are optional dependencies: each is imported when an adapter needs
it, and a missing one raises ImportError naming the package to install
(``pytrec-eval-terrier``, ``ranx``, ``scikit-learn``). This module is not
imported by ``import recmetrics``; write ``from recmetrics import peers``.

The conventions each library follows (tie order, AP denominator, IDCG, users
without relevant items) are set out in the book's chapter on conventions and
reproduced by the presets of :mod:`recmetrics.conventions`; the facts that
matter to these adapters are stated in each function's Notes.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd

__all__ = [
    "ranx_evaluate",
    "ranx_evaluate_many",
    "sklearn_per_user",
    "to_trec_dicts",
    "trec_eval",
]

# pip names of the peers, for the ImportError messages
_INSTALL = {
    "pytrec_eval": '"pytrec-eval-terrier>=0.5.6"',
    "ranx": '"ranx>=0.3.20"',
    "sklearn": '"scikit-learn>=1.3"',
}

# scikit-learn metrics that take a 2-D (n_samples, n_labels) input: a user's row is
# passed as a 1 x n_items matrix; every other metric gets the 1-D row
_SKLEARN_2D = {
    "ndcg_score",
    "dcg_score",
    "coverage_error",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
}


def _require(module, what, *, load=True):
    """Import a peer library (or, load=False, check it is installed), else raise ImportError."""
    top = module.split(".")[0]
    message = (
        f"recmetrics.peers.{what} needs the optional package {top!r}: pip install {_INSTALL[top]}"
    )
    if not load:
        if importlib.util.find_spec(module) is None:
            raise ImportError(message)
        return None
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(message) from exc


def _matrices(y_true, y_score):
    """(y_true as int64, y_score as float64), both 2-D of one shape, or raise."""
    if hasattr(y_true, "toarray"):  # scipy.sparse
        y_true = y_true.toarray()
    if hasattr(y_score, "toarray"):
        y_score = y_score.toarray()
    t = np.asarray(y_true, dtype=float)
    s = np.asarray(y_score, dtype=float)
    if t.ndim != 2 or s.ndim != 2:
        raise ValueError(
            "y_true and y_score must be 2-D (rows are users, columns are items), "
            f"got {t.ndim}-D and {s.ndim}-D"
        )
    if t.shape != s.shape:
        raise ValueError(f"y_true and y_score differ in shape: {t.shape} and {s.shape}")
    if t.size == 0:
        raise ValueError(f"y_true and y_score must hold at least one user and item, got {t.shape}")
    if not np.array_equal(t, np.round(t)):
        raise ValueError("y_true must hold integer grades (TREC qrels are integers)")
    return t.astype(np.int64), s


def _ids(prefix, n):
    """Ids prefix0, prefix1, ..., zero-padded so that string order = numeric order."""
    width = len(str(n - 1))
    return [f"{prefix}{i:0{width}d}" for i in range(n)]


def _item_order(items, n_items):
    if items is None:
        return np.arange(n_items)
    order = np.asarray(items)
    if (
        order.ndim != 1
        or order.dtype.kind not in "iu"
        or sorted(order.tolist()) != list(range(n_items))
    ):
        raise ValueError(
            f"items must be an order of the {n_items} columns, i.e. a permutation of "
            f"0..{n_items - 1}, got {items!r}"
        )
    return order


def to_trec_dicts(y_true, y_score, *, users=None, items=None, relevant_only=False):
    """The qrels and the run of a score matrix, as pytrec_eval and ranx read them.

    Parameters
    ----------
    y_true : array-like of shape (n_users, n_items)
        Integer grades; an item is relevant iff its grade is > 0.
    y_score : array-like of shape (n_users, n_items)
        Scores, higher is better.
    users : sequence of str, optional
        Query ids, one per row. Default ``u0, u1, ...``, zero-padded to one
        width, so that their string order is the row order.
    items : sequence of int, optional
        The order in which the columns are entered into each user's dicts
        (a permutation of ``0..n_items-1``; default the column order). The
        document ids always name the column, not the position in this order.
        trec_eval does not depend on it; ranx does when scores are tied.
    relevant_only : bool, default False
        If False, qrels judge every item of every user (grade 0 included), so
        that trec_eval returns a value for a user without relevant items. If
        True, qrels hold only the items with grade > 0, as TREC qrels files
        usually do, and a user without any is absent from qrels (ranx reads
        qrels so; trec_eval then leaves that user out).

    Returns
    -------
    qrels : dict of str to dict of str to int
        ``{query: {document: grade}}``.
    run : dict of str to dict of str to float
        ``{query: {document: score}}``, every item of every user.

    Notes
    -----
    Document ids are ``d`` and the column index, zero-padded to one width
    (``d0 .. d9``, ``d00 .. d11``, ...), so that their string order is the
    column order. This matters: trec_eval breaks ties by document id in
    decreasing string (``strcmp``) order, so with these ids a tie is ordered by
    decreasing column index, which is ``ties="trec_eval"`` of recmetrics. With
    unpadded ids (``d2 > d10`` as strings) it would not be.

    Examples
    --------
    >>> qrels, run = to_trec_dicts([[0, 2, 1]], [[0.5, 0.25, 0.125]])
    >>> qrels
    {'u0': {'d0': 0, 'd1': 2, 'd2': 1}}
    >>> run
    {'u0': {'d0': 0.5, 'd1': 0.25, 'd2': 0.125}}
    >>> y_true = [[0, 0, 1], [0, 0, 0]] + [[0, 0, 0]] * 9  # 11 users
    >>> qrels, run = to_trec_dicts(y_true, [[1.0, 2.0, 3.0]] * 11, relevant_only=True)
    >>> qrels
    {'u00': {'d2': 1}}
    >>> run["u10"]
    {'d0': 1.0, 'd1': 2.0, 'd2': 3.0}
    >>> to_trec_dicts([[0, 1, 0]], [[0.5, 0.5, 0.5]], items=[2, 0, 1])[1]
    {'u0': {'d2': 0.5, 'd0': 0.5, 'd1': 0.5}}
    """
    t, s = _matrices(y_true, y_score)
    n_users, n_items = t.shape
    if users is None:
        users = _ids("u", n_users)
    else:
        users = [str(u) for u in users]
        if len(users) != n_users or len(set(users)) != n_users:
            raise ValueError(f"users must be {n_users} distinct ids, one per row of y_true")
    order = _item_order(items, n_items)
    docs = _ids("d", n_items)
    docs = [docs[j] for j in order]
    t, s = t[:, order].tolist(), s[:, order].tolist()
    run = {q: dict(zip(docs, row, strict=True)) for q, row in zip(users, s, strict=True)}
    if relevant_only:
        qrels = {}
        for q, row in zip(users, t, strict=True):
            judged = {d: g for d, g in zip(docs, row, strict=True) if g > 0}
            if judged:
                qrels[q] = judged
    else:
        qrels = {q: dict(zip(docs, row, strict=True)) for q, row in zip(users, t, strict=True)}
    return qrels, run


def trec_eval(y_true, y_score, measures, *, relevant_only=False):
    """trec_eval's measures, per user, through pytrec_eval.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n_users, n_items)
        Integer grades and scores (see :func:`to_trec_dicts`).
    measures : str or iterable of str
        trec_eval measures in pytrec_eval's spelling, e.g. ``"P_10"`` or
        ``"P.10"``, ``"recall_10"``, ``"map"``, ``"map_cut_10"``, ``"ndcg"``,
        ``"ndcg_cut_10"``, ``"recip_rank"``; a family name (``"P"``) gives
        every cutoff trec_eval computes for it.
    relevant_only : bool, default False
        Passed to :func:`to_trec_dicts`. If True, a user without relevant
        items is not in the qrels and gets NaN here (trec_eval leaves the
        query out); if False (default) the user is judged and gets trec_eval's
        value for it, 0 for every measure.

    Returns
    -------
    pandas.DataFrame
        One row per user (index: the row number of ``y_true``, named
        ``user``), one column per measure as pytrec_eval names it
        (``"P.10"`` becomes ``P_10``): the requested measures in the order
        given, then any further ones trec_eval returned.

    Raises
    ------
    ImportError
        If pytrec_eval (package ``pytrec-eval-terrier``) is not installed.

    Notes
    -----
    trec_eval ranks by score, then by document id in decreasing string order,
    which with the ids of :func:`to_trec_dicts` is ``ties="trec_eval"``. It
    stores scores in single precision: scores distinct as float64 but equal as
    float32 are tied for it. Measures that count hits count a grade >= 1.

    Examples
    --------
    >>> y_true = [[0, 1, 0, 1], [0, 0, 0, 0]]
    >>> y_score = [[0.4, 0.3, 0.2, 0.1], [0.4, 0.3, 0.2, 0.1]]
    >>> trec_eval(y_true, y_score, ["P.2", "recip_rank", "map"])
          P_2  recip_rank  map
    user
    0     0.5         0.5  0.5
    1     0.0         0.0  0.0
    >>> trec_eval(y_true, y_score, "recip_rank", relevant_only=True)
          recip_rank
    user
    0            0.5
    1            NaN
    """
    pytrec_eval = _require("pytrec_eval", "trec_eval")
    measures = [measures] if isinstance(measures, str) else list(measures)
    qrels, run = to_trec_dicts(y_true, y_score, relevant_only=relevant_only)
    res = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    returned = list(next(iter(res.values()))) if res else []
    columns = [m.replace(".", "_") for m in measures]
    columns = list(dict.fromkeys(c for c in columns if c in returned or not returned))
    columns += [c for c in returned if c not in columns]
    nan = dict.fromkeys(columns, np.nan)
    rows = [res.get(q, nan) for q in run]
    return pd.DataFrame(
        {c: np.array([r[c] for r in rows], dtype=float) for c in columns},
        index=pd.RangeIndex(len(rows), name="user"),
    )


def _ranx_scores(jobs):
    """Run ranx on ``[{"qrels", "run", "metrics"}]``: ``[{metric: {query: value}}]``.

    Users absent from qrels are dropped from the run (``make_comparable``). This
    function also runs in the subprocess of :func:`ranx_evaluate_many`, which
    loads this file with ``runpy``: it must need nothing but ranx.
    """
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from ranx import Qrels, Run, evaluate

        out = []
        for job in jobs:
            run = Run(job["run"])
            evaluate(
                Qrels(job["qrels"]),
                run,
                job["metrics"],
                return_mean=False,
                make_comparable=True,
            )
            out.append({m: {q: float(v) for q, v in run.scores[m].items()} for m in job["metrics"]})
    return out


_RANX_CHILD = (
    "import json, runpy, sys\n"
    "scores = runpy.run_path(sys.argv[1])['_ranx_scores']\n"
    "print(json.dumps(scores(json.load(sys.stdin))))\n"
)


def ranx_evaluate_many(jobs, *, in_process=False, timeout=600):
    """Run ranx on several inputs at once (in one subprocess), per user.

    Parameters
    ----------
    jobs : iterable of tuple
        Each ``(y_true, y_score, metrics)`` or ``(y_true, y_score, metrics,
        items)``, the arguments of :func:`ranx_evaluate`.
    in_process : bool, default False
        If False, ranx runs in a subprocess of the same Python with
        ``NUMBA_DISABLE_JIT=1``: ranx's metrics are numba functions, whose
        compilation costs tens of seconds on a cold cache (37-44 s measured for
        seven metrics on 2 cores), while interpreted they
        take a few seconds on small data. If True, ranx runs in this process,
        compiled as this process's numba is configured (faster on large data
        once compiled; for timing).
    timeout : float, default 600
        Seconds the subprocess may take.

    Returns
    -------
    list of pandas.DataFrame
        One per job, as :func:`ranx_evaluate` returns it.

    Raises
    ------
    ImportError
        If ranx is not installed.
    RuntimeError
        If the subprocess fails (its error output is in the message).

    Examples
    --------
    >>> a, b = ranx_evaluate_many([
    ...     ([[0, 1, 1]], [[0.3, 0.2, 0.1]], ["precision@2", "mrr"]),
    ...     ([[1, 0], [0, 0]], [[0.1, 0.2], [0.1, 0.2]], ["ndcg@2"]),
    ... ])
    >>> a
          precision@2  mrr
    user
    0             0.5  0.5
    >>> b
            ndcg@2
    user
    0     0.63093
    1     0.00000
    """
    jobs = [tuple(job) for job in jobs]
    for job in jobs:
        if len(job) not in (3, 4):
            raise ValueError(
                "each job must be (y_true, y_score, metrics) or (y_true, y_score, metrics, items)"
            )
    _require("ranx", "ranx_evaluate", load=in_process)  # the subprocess imports it
    payload, frames = [], []
    for y_true, y_score, metrics, *items in jobs:
        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        # every item judged (grade 0 included), so that a user without relevant
        # items is a query judged without a relevant document: ranx scores it 0
        qrels, run = to_trec_dicts(y_true, y_score, items=items[0] if items else None)
        # ranx needs a query with a relevant item somewhere: else all NaN
        sent = any(g > 0 for docs in qrels.values() for g in docs.values())
        frames.append((list(run), metrics, sent))
        if sent:
            payload.append({"qrels": qrels, "run": run, "metrics": metrics})
    if not payload:
        results = []
    elif in_process:
        results = _ranx_scores(payload)
    else:
        done = subprocess.run(
            [sys.executable, "-c", _RANX_CHILD, os.path.abspath(__file__)],
            input=json.dumps(payload),
            env=dict(os.environ, NUMBA_DISABLE_JIT="1"),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"ranx failed in its subprocess:\n{done.stderr[-4000:]}")
        results = json.loads(done.stdout)
    results = iter(results)
    out = []
    for queries, metrics, sent in frames:
        got = next(results) if sent else {}
        out.append(
            pd.DataFrame(
                {m: [got.get(m, {}).get(q, np.nan) for q in queries] for m in metrics},
                index=pd.RangeIndex(len(queries), name="user"),
                dtype=float,
            )
        )
    return out


def ranx_evaluate(y_true, y_score, metrics, *, items=None, in_process=False):
    """Per-user values of ranx's metrics, by default in a subprocess without numba's JIT.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n_users, n_items)
        Integer grades and scores (see :func:`to_trec_dicts`).
    metrics : str or iterable of str
        ranx metric names, e.g. ``"precision@10"``, ``"recall@10"``,
        ``"f1@10"``, ``"hit_rate@10"``, ``"mrr@10"``, ``"map@10"``,
        ``"ndcg@10"``, ``"ndcg_burges@10"``; no ``@k`` means no cutoff.
    items : sequence of int, optional
        The order in which the items are given to ranx (a permutation of the
        columns; default the column order). It decides ranx's order inside a
        tie; see Notes.
    in_process : bool, default False
        Run ranx in this process rather than in a subprocess with
        ``NUMBA_DISABLE_JIT=1`` (see :func:`ranx_evaluate_many`, which runs
        several inputs in one subprocess).

    Returns
    -------
    pandas.DataFrame
        One row per user (index: the row number of ``y_true``, named
        ``user``), one column per metric. Every item of a user is judged in
        ranx's qrels (grade 0 included), so a user without relevant items is
        a query judged without a relevant document, which ranx scores 0 (if
        no user has a relevant item at all, ranx is not run and every value
        is NaN).

    Raises
    ------
    ImportError
        If ranx is not installed.
    RuntimeError
        If the subprocess fails.

    Notes
    -----
    ranx sorts each user's items by score with an unstable sort, so the order
    inside a tie follows the order the items were given in (``items``) in a
    way ranx does not specify; compare with ranx on tie-free scores only.

    Examples
    --------
    >>> y_true = [[0, 2, 0, 1], [0, 0, 0, 0]]
    >>> y_score = [[0.4, 0.3, 0.2, 0.1], [0.4, 0.3, 0.2, 0.1]]
    >>> ranx_evaluate(y_true, y_score, ["recall@2", "mrr", "map"])
          recall@2  mrr  map
    user
    0          0.5  0.5  0.5
    1          0.0  0.0  0.0
    """
    jobs = [(y_true, y_score, metrics, items)]
    return ranx_evaluate_many(jobs, in_process=in_process)[0]


def sklearn_per_user(fn, y_true, y_score, *, two_d=None, **kw):
    """A scikit-learn metric applied to each user's row on its own.

    Parameters
    ----------
    fn : callable or str
        A metric of :mod:`sklearn.metrics`, or its name (``"ndcg_score"``).
    y_true, y_score : array-like of shape (n_users, n_items)
        Relevance (labels or grades, as ``fn`` takes them) and scores.
    two_d : bool, optional
        Pass each row as a 1 x n_items matrix (True) or as a 1-D array
        (False). Default: 2-D for scikit-learn's multilabel ranking metrics
        (``ndcg_score``, ``dcg_score``, ``coverage_error``,
        ``label_ranking_average_precision_score``, ``label_ranking_loss``),
        1-D otherwise (``roc_auc_score``, ``average_precision_score``, ...).
    **kw
        Passed to ``fn`` (``k=``, ``log_base=``, ...).

    Returns
    -------
    numpy.ndarray of shape (n_users,)
        ``fn`` of each row.

    Raises
    ------
    ImportError
        If ``fn`` is a name and scikit-learn is not installed.

    Notes
    -----
    scikit-learn's own averages differ: ``ndcg_score(y_true, y_score)`` is the
    mean of these values, but ``average_precision_score`` and
    ``roc_auc_score`` average over columns (items) by default, not rows. A row
    without a relevant item gives 0 for ``ndcg_score`` and, with a warning,
    for ``average_precision_score``; ``roc_auc_score`` raises on it.

    Examples
    --------
    >>> y_true = [[1, 0, 1], [0, 1, 0]]
    >>> y_score = [[0.9, 0.5, 0.1], [0.9, 0.5, 0.1]]
    >>> sklearn_per_user("average_precision_score", y_true, y_score)
    array([0.83333333, 0.5       ])
    >>> sklearn_per_user("ndcg_score", y_true, y_score, k=2)
    array([0.61314719, 0.63092975])
    """
    if isinstance(fn, str):
        fn = getattr(_require("sklearn.metrics", "sklearn_per_user"), fn)
    if two_d is None:
        two_d = getattr(fn, "__name__", "") in _SKLEARN_2D
    t, s = np.asarray(y_true), np.asarray(y_score)
    if t.ndim != 2 or t.shape != s.shape:
        raise ValueError(
            "y_true and y_score must be 2-D of one shape (rows are users), "
            f"got {t.shape} and {s.shape}"
        )
    if two_d:
        return np.array([fn(t[[u]], s[[u]], **kw) for u in range(len(t))], dtype=float)
    return np.array([fn(t[u], s[u], **kw) for u in range(len(t))], dtype=float)
