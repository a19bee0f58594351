"""Is B really better? Paired tests, bootstrap intervals, corrections and power.

Everything here works on *per-user* metric values, the ``per_user=True``
output of :func:`recmetrics.evaluate` (a DataFrame, one column per metric,
indexed by user) or of any metric function (an array or a Series). Two
models are compared *paired*: both were evaluated on the same users, and
the user-to-user spread, much larger than the difference between models,
cancels in the per-user differences (Smucker, Allan & Carterette, 2007).

* :func:`paired_test`: paired t, Wilcoxon signed-rank, sign and Fisher's
  randomization test (exact enumeration of the sign flips for few users,
  seeded Monte Carlo otherwise; the result says which);
* :func:`bootstrap_ci`: percentile or BCa interval of a mean, or of a mean
  paired difference, resampling users (the same resamples for every metric);
* :func:`adjust_pvalues`: Holm and Bonferroni (checked against statsmodels),
  Benjamini-Hochberg and Benjamini-Yekutieli (scipy);
* :func:`detectable_difference` and :func:`users_needed`: the power of a
  paired t-test (statsmodels' power function); for two independent groups
  of users (an A/B test), :func:`two_sample_users_needed`,
  :func:`two_sample_detectable_difference`, :func:`proportion_users_needed`
  and :func:`proportion_detectable_rate`;
* :func:`corrected_resampled_ttest`: the corrected resampled t-test of
  Nadeau & Bengio (2003) for differences measured on repeated random splits
  (or folds), whose ordinary t-test is anti-conservative;
* :func:`group_disparity`: a metric's mean per group of users (bootstrap
  intervals) and the corrected tests of the differences between groups
  (Ekstrand et al. 2018);
* :func:`compare`: several models against a baseline on several metrics, as
  a tidy table, and :func:`significance_table` to print it with marks.

**Per-user values only.** A Series or DataFrame whose index holds metric
names (the means ``evaluate(..., per_user=False)`` returns) or convention
names (:func:`recmetrics.compare_conventions`) is a summary, not one value
per user, and raises: pass ``evaluate(..., per_user=True)``. So do users
repeated in an index, booleans, strings, infinite values and values beyond
``1e100`` in absolute value.

**Pairing and missing values.** Inputs with an index (Series, DataFrames)
are aligned on it; users in only one of them raise unless
``missing='drop'``. Arrays without an index must have equal lengths (row ``i``
is the same user in both). A NaN per-user value (a user left out by
``no_relevant='skip'``) drops that user from that metric's comparison
(``nan='drop'``, default) or raises (``nan='raise'``).

**Seeds.** Every function that resamples takes ``seed``: an integer (the
default, 0) gives the same resamples on every call, a
:class:`numpy.random.Generator` is drawn from (and advanced), and ``None``
draws fresh entropy from the operating system (other resamples on every
call).

**Result tables.** With several metrics the functions return a DataFrame
indexed by metric name (``metric``), with ``float64`` numbers, ``int64``
counts and ``bool`` flags, so that ``.round(3)`` and number formats apply.

References
----------
.. [1] M. D. Smucker, J. Allan and B. Carterette. A Comparison of Statistical
   Significance Tests for Information Retrieval Evaluation. CIKM 2007.
.. [2] T. Sakai. Statistical reform in information retrieval? SIGIR Forum
   48(1), 2014.
.. [3] B. Carterette. Multiple testing in statistical analysis of
   systems-based information retrieval experiments. ACM TOIS 30(1), 2012.
.. [4] R. Dror, G. Baumer, S. Shlomov and R. Reichart. The Hitchhiker's Guide
   to Testing Statistical Significance in Natural Language Processing.
   ACL 2018.
.. [5] B. Efron and R. J. Tibshirani. An Introduction to the Bootstrap.
   Chapman & Hall, 1993 (BCa intervals: chapter 14).
.. [6] C. Nadeau and Y. Bengio. Inference for the Generalization Error.
   Machine Learning 52(3), 2003.
.. [7] B. Phipson and G. K. Smyth. Permutation P-values Should Never Be
   Zero. Statistical Applications in Genetics and Molecular Biology 9(1),
   2010.
"""

from __future__ import annotations

# _min_bootstrap_users, _BYTE_TABLE_USERS and _power: private names that
# tests/test_stats.py reads here (it patches _BYTE_TABLE_USERS too, but
# paired_test reads the one of recmetrics.stats.paired).
from .bootstrap import BootstrapResult, bootstrap_ci
from .bootstrap import _min_bootstrap_users as _min_bootstrap_users
from .comparison import compare, significance_table
from .corrections import adjust_pvalues
from .groups import GROUP_TESTS, GroupDisparityResult, group_disparity
from .paired import _BYTE_TABLE_USERS as _BYTE_TABLE_USERS
from .paired import PAIRED_TESTS, PairedTestResult, paired_test
from .power import _power as _power
from .power import (
    detectable_difference,
    proportion_detectable_rate,
    proportion_users_needed,
    two_sample_detectable_difference,
    two_sample_users_needed,
    users_needed,
)
from .repeated_splits import ResampledTTestResult, corrected_resampled_ttest

__all__ = [
    "PAIRED_TESTS",
    "PairedTestResult",
    "BootstrapResult",
    "ResampledTTestResult",
    "paired_test",
    "bootstrap_ci",
    "adjust_pvalues",
    "detectable_difference",
    "users_needed",
    "two_sample_users_needed",
    "two_sample_detectable_difference",
    "proportion_users_needed",
    "proportion_detectable_rate",
    "corrected_resampled_ttest",
    "compare",
    "significance_table",
    # issue 29: per-user-group disparities
    "GROUP_TESTS",
    "GroupDisparityResult",
    "group_disparity",
]


def __dir__():
    """The public API only (``__all__``), not the module's own imports (``np``, ``math``)."""
    return sorted(__all__)
