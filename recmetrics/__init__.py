"""recmetrics: evaluation metrics for recommender systems, every convention explicit.

The package behind the executable textbook *Evaluating Recommender Systems*.
Not to be confused with the unrelated PyPI package ``recmetrics``.

The flow of the package, from input to consumers:

* files are read into long data frames (:mod:`recmetrics.io`: TREC qrels and
  runs, CSV, Parquet);
* inputs are read by type (:mod:`recmetrics.inputs`, the only code that
  decides what an argument is) and turned into one representation,
  :class:`Ranking` (:mod:`recmetrics.ranking`);
* metrics are small functions of it, one module per chapter
  (:mod:`recmetrics.metrics`: ``rating``, ``topn``, ``ndcg``, ``roc_auc``,
  and ``beyond``, which is ``rm.beyond``); their names are registered once
  (``recmetrics/metrics/_registry.py``);
* what each library does lives in one file per library
  (:mod:`recmetrics.providers`); the convention keywords and their defaults
  in ``recmetrics/_keywords.py``;
* consumers: :func:`evaluate` (:mod:`recmetrics.evaluation`: many metrics at
  once), the convention presets (:mod:`recmetrics.conventions`), the sampled
  metrics (:mod:`recmetrics.sampled`), statistics (:mod:`recmetrics.stats`),
  the command line (:mod:`recmetrics.cli`), and the distributed evaluation
  on Spark and Dask (:mod:`recmetrics.distributed`: ``rm.spark``,
  ``rm.dask``; optional extras).
"""

from . import conventions, io, models, split
from .datasets import movielens, synthetic_ratings
from .distributed import dask, spark
from .evaluation import compare_conventions, evaluate
from .inputs.frames import from_frames
from .io import read_table, read_trec_qrels, read_trec_run, write_trec_qrels, write_trec_run
from .metrics import beyond
from .metrics.cascade import err
from .metrics.curves import coverage_error, det_curve, partial_auc
from .metrics.cwl import insq, inst
from .metrics.cwl_nerr import bpm, nerr8, nerr9, nerr10, nerr11, sdcg
from .metrics.infap import infap
from .metrics.interpolated_precision import iprec_at_recall, precision_11pt
from .metrics.judged import bpref, judged, unjudged
from .metrics.judgment_groups import map_avgjg, p_avgjg, rprec_mult_avgjg
from .metrics.ndcg import cg, dcg, discount, idcg, ndcg
from .metrics.rating import mae, rating_errors_by_user, rmse
from .metrics.rbp import rbp, rbp_residual
from .metrics.roc_auc import (
    auc,
    break_even_point,
    precision_recall_curve,
    rank_loss,
    roc_curve,
    trapezoid_area,
)
from .metrics.topn import (
    arhr,
    average_precision,
    confusion,
    f1,
    f_score,
    hit_ratio,
    mrr,
    precision,
    r_precision,
    recall,
    reciprocal_rank,
)
from .metrics.trec_counts import num_nonrel_judged_ret, num_q, num_rel, num_rel_ret, num_ret
from .metrics.trec_gain import bin_g, dcg_burges, ndcg_burges, relstring, rndcg, utility
from .metrics.trec_gain_walks import ndcg_rel, trec_g
from .metrics.trec_sets import (
    relative_precision,
    set_f,
    set_precision,
    set_recall,
    set_relative_precision,
)
from .metrics.trec_summaries import gm_bpref, gm_map, rprec_mult, set_map
from .ranking import Ranking, from_gains, from_lists, from_ranks, from_scores
from .sampled import (
    CORRECTION_METHODS,
    IllConditionedCorrectionWarning,
    RankMetric,
    corrected_metric,
    correction,
    estimator_bias_variance,
    expected_metric,
    metric_function,
    rank_distribution,
    sample_ranks,
)

__version__ = "0.1.0"


def _warn_if_name_clash():
    """Warn when the unrelated PyPI distribution ``recmetrics`` shares this environment.

    Both install the import package ``recmetrics``: whichever comes second
    overwrites the other's files, and uninstalling one deletes files the other
    needs. One lookup of the installed distributions (well under 1 ms).
    """
    from importlib import metadata

    try:
        other = metadata.distribution("recmetrics")
    except metadata.PackageNotFoundError:
        return
    import warnings

    warnings.warn(
        f"the unrelated PyPI package 'recmetrics' ({other.version}) is installed in this "
        "environment under the same import name as this package, 'recmetrics-book': "
        "installing either overwrites files of the other, and 'pip uninstall recmetrics' "
        "deletes files this package needs. Keep them in separate virtual environments; "
        "here, uninstall both and reinstall recmetrics-book (see its README).",
        UserWarning,
        stacklevel=3,  # the line that imports recmetrics (importlib's frames are skipped)
    )


_warn_if_name_clash()

# Imported on first use: recmetrics.stats, recmetrics.offpolicy and recmetrics.online
# need scipy.stats (about 0.6 s to import), which evaluating metrics does not.
_LAZY_MODULES = ("stats", "offpolicy", "online")


def __getattr__(name):
    if name in _LAZY_MODULES:
        import importlib

        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES))


__all__ = [
    # representation
    "Ranking",
    "from_frames",
    "from_gains",
    "from_lists",
    "from_ranks",
    "from_scores",
    # files (recmetrics.io)
    "io",
    "read_table",
    "read_trec_qrels",
    "read_trec_run",
    "write_trec_qrels",
    "write_trec_run",
    # rating metrics
    "mae",
    "rating_errors_by_user",
    "rmse",
    # Top-N metrics
    "arhr",
    "average_precision",
    "confusion",
    "f1",
    "f_score",
    "hit_ratio",
    "mrr",
    "precision",
    "r_precision",
    "recall",
    "reciprocal_rank",
    # NDCG family
    "cg",
    "dcg",
    "discount",
    "idcg",
    "ndcg",
    # ROC and AUC
    "auc",
    "break_even_point",
    "precision_recall_curve",
    "rank_loss",
    "roc_curve",
    "trapezoid_area",
    # incomplete judgments
    "bpref",
    "judged",
    "unjudged",
    # rank-biased precision
    "rbp",
    "rbp_residual",
    # trec_eval's set measures and relative precision
    "set_precision",
    "set_recall",
    "set_f",
    "set_relative_precision",
    "relative_precision",
    "iprec_at_recall",
    "precision_11pt",
    # beyond accuracy (the module recmetrics.beyond)
    "beyond",
    # consumers
    "dask",
    "spark",
    "compare_conventions",
    "conventions",
    "evaluate",
    # sampled metrics
    "CORRECTION_METHODS",
    "IllConditionedCorrectionWarning",
    "RankMetric",
    "corrected_metric",
    "correction",
    "estimator_bias_variance",
    "expected_metric",
    "metric_function",
    "rank_distribution",
    "sample_ranks",
    # data, protocols and baselines
    "movielens",
    "synthetic_ratings",
    "split",
    "models",
    # statistics
    "stats",
    # off-policy and online evaluation, and the data sets
    "offpolicy",
    "online",
    "datasets",
    # issue 26: trec_eval's geometric means, counts, set_map, Rprec_mult and infAP
    "gm_map",
    "gm_bpref",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "set_map",
    "rprec_mult",
    "infap",
    # issue 26: cascade measures (ERR) and the C/W/L framework (cwl_eval)
    "err",
    "inst",
    "insq",
    "nerr8",
    "nerr9",
    "nerr10",
    "nerr11",
    "bpm",
    "sdcg",
    # trec_eval's gain-based and utility measures, relstring; ranx's Burges DCG
    "rndcg",
    "bin_g",
    "utility",
    "relstring",
    "ndcg_burges",
    "dcg_burges",
    "ndcg_rel",
    "trec_g",
    # issue 26: scikit-learn's DET curve, partial AUC and coverage error
    "det_curve",
    "partial_auc",
    "coverage_error",
    # issue 26: trec_eval's judgment-group measures (qrels_jg)
    "map_avgjg",
    "p_avgjg",
    "rprec_mult_avgjg",
]
