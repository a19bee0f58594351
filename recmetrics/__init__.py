"""recmetrics: evaluation metrics for recommender systems, every convention explicit.

The package behind the executable textbook *Evaluating Recommender Systems*.
Not to be confused with the unrelated PyPI package ``recmetrics``.
"""
from . import conventions
from . import sampled as _sampled
from .roc_auc import auc, break_even_point, precision_recall_curve, rank_loss, roc_curve, trapezoid_area
from .ndcg import cg, dcg, discount, idcg, ndcg
from .evaluate import evaluate
from .rating import mae, rating_errors_by_user, rmse
from .datasets import synthetic_ratings
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
from .topn import (
    arhr,
    average_precision,
    confusion,
    f1,
    f_score,
    hit_ratio,
    mrr,
    precision,
    recall,
    reciprocal_rank,
)

__version__ = "0.1.0"

__all__ = [
    "conventions",
    "Ranking",
    "arhr",
    "auc",
    "break_even_point",
    "precision_recall_curve",
    "rank_loss",
    "roc_curve",
    "trapezoid_area",
    "average_precision",
    "cg",
    "confusion",
    "dcg",
    "discount",
    "evaluate",
    "f1",
    "f_score",
    "from_gains",
    "from_lists",
    "from_ranks",
    "from_scores",
    "hit_ratio",
    "idcg",
    "mrr",
    "ndcg",
    "precision",
    "recall",
    "reciprocal_rank",
    "mae",
    "rating_errors_by_user",
    "rmse",
    "synthetic_ratings",
    *_sampled.__all__,
]
