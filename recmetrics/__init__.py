"""recmetrics: evaluation metrics for recommender systems, every convention explicit.

The package behind the executable textbook *Evaluating Recommender Systems*.
Not to be confused with the unrelated PyPI package ``recmetrics``.
"""
from .rating import mae, rating_errors_by_user, rmse
from .datasets import synthetic_ratings

__version__ = "0.1.0"

__all__ = [
    "mae",
    "rating_errors_by_user",
    "rmse",
    "synthetic_ratings",
]
