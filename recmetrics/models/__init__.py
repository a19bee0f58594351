"""Small, seeded baseline recommenders for the book's case studies (not metrics), and tuning.

The chapters on real data need recommenders to evaluate; these are the usual
baselines, each a few lines around a well-kept library, returning a dense
score matrix ``(n_users, n_items)`` that every metric of the package takes:

* :func:`popularity`: the number of training interactions of each item, the
  same list for every user;
* :func:`item_knn`: item-based neighbourhood model (cosine similarity, ``K``
  nearest items), through ``implicit``'s ``CosineRecommender``;
* :func:`user_knn`: user-based neighbourhood model (cosine similarity, ``K``
  nearest other users), a few lines of ``scipy.sparse``;
* :func:`als`: implicit-feedback matrix factorisation by alternating least
  squares (Hu, Koren and Volinsky 2008), through ``implicit``, in double
  precision and one thread so that its scores are the same on every run;
* :func:`bpr`: Bayesian personalised ranking (Rendle et al. 2009), through
  ``implicit``, seeded, in double precision and one thread;
* :func:`ease`: EASE's closed form (Steck 2019), ``B = I - P diag(1/diag P)``
  with ``P = (X^T X + lambda I)^{-1}``, for catalogues of a few thousand items;
* :func:`last_item`: a sequential baseline, the items that followed the
  user's last training item in the training sequences (a first-order Markov
  chain of counts).

Every function but :func:`last_item` takes the training interactions as a
user x item matrix (:func:`recmetrics.split.interaction_matrix`);
:func:`last_item` needs their order, so it takes the long training frame
and the ids of the matrix's rows and columns. None sees test data.

:func:`tune` chooses a model's hyperparameters on a validation split carved
out of the training data by the test protocol, with a fixed budget, and
refits the choice on all the training data; the test set is no argument.

A stored zero is no interaction, in every model: ``train`` is copied and its
explicit zeros are dropped (``eliminate_zeros``) before anything is computed,
so a matrix with stored zeros gives the same scores as the same matrix
without them (``popularity`` counts only values > 0, as before). An item
whose stored entries are all zero is thus an item nobody interacted with: it
has no neighbours in :func:`item_knn` and scores 0 there (never NaN). A
``train`` with stored zeros only has no interaction and raises.

``implicit`` is an optional dependency of :func:`item_knn`, :func:`als` and
:func:`bpr` (``pip install "implicit>=0.7.2" "threadpoolctl>=3"``, or
``pip install ".[data]"`` in a checkout of this repository).

References
----------
.. [1] Y. Hu, Y. Koren and C. Volinsky. Collaborative Filtering for Implicit
   Feedback Datasets. ICDM 2008.
.. [2] B. Sarwar, G. Karypis, J. Konstan and J. Riedl. Item-based
   collaborative filtering recommendation algorithms. WWW 2001.
.. [3] H. Steck. Embarrassingly Shallow Autoencoders for Sparse Data. WWW 2019.
.. [4] B. Frederickson. implicit: fast collaborative filtering for implicit
   datasets. https://github.com/benfred/implicit
.. [5] S. Rendle, C. Freudenthaler, Z. Gantner and L. Schmidt-Thieme. BPR:
   Bayesian Personalized Ranking from Implicit Feedback. UAI 2009.
.. [6] M. Ferrari Dacrema, P. Cremonesi and D. Jannach. Are We Really Making
   Much Progress? A Worrying Analysis of Recent Neural Recommendation
   Approaches. RecSys 2019.
.. [7] J. Bergstra and Y. Bengio. Random Search for Hyper-Parameter
   Optimization. JMLR 13, 281-305, 2012.
"""

from __future__ import annotations

# the modules' own imports, reachable as before (rm.models.np), not listed by dir()
import math  # noqa: F401
import warnings  # noqa: F401

import numpy as np  # noqa: F401
import scipy.sparse as sp  # noqa: F401

from .baselines import als, ease, item_knn, popularity
from .neighbours import user_knn
from .pairwise import bpr
from .sequential import last_item
from .tuning import TuneResult, tune

__all__ = [
    "popularity",
    "item_knn",
    "als",
    "ease",
    "user_knn",
    "bpr",
    "last_item",
    "tune",
    "TuneResult",
]


def __dir__():
    """The public API only (``__all__``), not the package's own imports (``np``, ``math``)."""
    return sorted(__all__)
