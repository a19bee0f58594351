"""Online evaluation: simulated users (click models) and interleaving.

* :mod:`.click_models`: :func:`simulate_clicks` and
  :func:`click_probabilities` under the position-based, cascade and
  dependent-click models;
* :mod:`.interleaving`: :func:`interleave` (team-draft, balanced,
  probabilistic), :class:`Interleaving` with ``.outcome(clicks)``, and
  :func:`interleaving_test` over many impressions.
"""

from .click_models import CLICK_MODELS, click_probabilities, simulate_clicks
from .interleaving import (
    INTERLEAVING_METHODS,
    Interleaving,
    InterleavingTestResult,
    interleave,
    interleaving_test,
)

__all__ = [
    "CLICK_MODELS",
    "simulate_clicks",
    "click_probabilities",
    "INTERLEAVING_METHODS",
    "Interleaving",
    "InterleavingTestResult",
    "interleave",
    "interleaving_test",
]
