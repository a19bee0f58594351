"""Off-policy (counterfactual) evaluation: a policy's value from another policy's logs.

* single actions (:mod:`.estimators`): :func:`dm`, :func:`ips` (clipped
  with ``lambda_``), :func:`snips`, :func:`dr`, :func:`sndr`,
  :func:`switch_dr`, :func:`dros`;
* rankings (:mod:`.slate`, :mod:`.slate_dr`): :func:`sips`, :func:`iips`,
  :func:`rips`, :func:`cascade_dr`;
* :func:`weight_diagnostics` (mean and largest weight, effective sample
  size, rounds the target cannot take);
* :func:`fit_reward_model` for DM and DR; target policies as
  ``action_dist`` (:func:`thompson_sampling_action_dist`,
  :func:`ranking_action_dist`, :func:`softmax_policy`);
* :func:`synthetic_bandit` and :func:`policy_value`: logs with a known truth;
* test sets missing not at random (:mod:`.mnar`): :func:`weighted_recall`
  and :func:`weighted_dcg` with propensities, e.g. from
  :func:`popularity_propensity`.

Arguments take the names of the Open Bandit Pipeline (obp): ``reward``,
``action``, ``position``, ``pscore``, ``action_dist``,
``estimated_rewards_by_reg_model``; every estimate is a :class:`PolicyValue`
with a confidence interval. Real logs: :func:`recmetrics.datasets.open_bandit`.
"""

from ._result import INTERVALS, PolicyValue
from .diagnostics import weight_diagnostics
from .estimators import dm, dr, dros, ips, sndr, snips, switch_dr
from .mnar import popularity_propensity, weighted_dcg, weighted_recall
from .policies import ranking_action_dist, thompson_sampling_action_dist
from .reward_model import fit_reward_model
from .slate import iips, rips, sips
from .slate_dr import cascade_dr
from .synthetic import SyntheticBandit, policy_value, softmax_policy, synthetic_bandit

__all__ = [
    "PolicyValue",
    "INTERVALS",
    "dm",
    "ips",
    "snips",
    "dr",
    "sndr",
    "switch_dr",
    "dros",
    "sips",
    "iips",
    "rips",
    "cascade_dr",
    "weight_diagnostics",
    "fit_reward_model",
    "thompson_sampling_action_dist",
    "ranking_action_dist",
    "softmax_policy",
    "SyntheticBandit",
    "synthetic_bandit",
    "policy_value",
    "popularity_propensity",
    "weighted_recall",
    "weighted_dcg",
]
