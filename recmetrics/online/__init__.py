"""Online evaluation: A/B tests, simulated users (click models) and interleaving.

* :mod:`.ab`: :func:`sample_size`, :func:`detectable_lift`,
  :func:`sample_size_mean`, :func:`compare_arms`, :func:`stratified`,
  :func:`cuped`, :func:`ratio_metric`, :func:`srm_test` and :func:`msprt`;
* :mod:`.click_models`: :func:`simulate_clicks` and
  :func:`click_probabilities` under the position-based, cascade and
  dependent-click models;
* :mod:`.interleaving`: :func:`interleave` (team-draft, balanced,
  probabilistic), :class:`Interleaving` with ``.outcome(clicks)``, and
  :func:`interleaving_test` over many impressions.
"""

from .ab import (
    ArmComparison,
    SequentialResult,
    compare_arms,
    cuped,
    detectable_lift,
    msprt,
    ratio_metric,
    sample_size,
    sample_size_mean,
    srm_test,
    stratified,
)
from .click_models import CLICK_MODELS, click_probabilities, simulate_clicks
from .interleaving import (
    INTERLEAVING_METHODS,
    Interleaving,
    InterleavingTestResult,
    interleave,
    interleaving_test,
)

__all__ = [
    "sample_size",
    "detectable_lift",
    "sample_size_mean",
    "ArmComparison",
    "compare_arms",
    "stratified",
    "cuped",
    "ratio_metric",
    "srm_test",
    "SequentialResult",
    "msprt",
    "CLICK_MODELS",
    "simulate_clicks",
    "click_probabilities",
    "INTERLEAVING_METHODS",
    "Interleaving",
    "InterleavingTestResult",
    "interleave",
    "interleaving_test",
]
