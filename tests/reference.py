"""A deliberately plain reference implementation of the ranking metrics.

Nothing here is vectorised or clever: every metric is a loop written straight
from its formula, for ONE user at a time, so that each line can be checked by
eye against the definition. The test suite compares ``recmetrics`` (vectorised)
with these functions, and checks these functions against scikit-learn and
pytrec_eval (tests/test_crosslib.py), so the reference itself is proven right.

Conventions (the same as recmetrics' API):

* ranks ("positions") are 1-based;
* a ranked list is a sequence of *gains* in ranked order; an item is relevant
  iff its gain is > 0;
* ``rel_gains`` is the list of the gains of ALL the user's relevant items,
  including relevant items that are missing from the ranked list (they count
  in |R| but are never retrieved). If omitted, it is the positive gains of the
  list itself (the single-list "teaching" form);
* ``k=None`` means no cutoff;
* a user without relevant items scores 0 (the "zero" policy) for every metric.

Tie policies, for a row of scores (the score-matrix form):

* "optimistic": score descending, then higher gain first;
* "pessimistic": score descending, then lower gain first;
* "trec_eval": score descending, then item (column) index descending;
* "expected": the exact mean of the metric over ALL orders of tied items,
  computed literally by enumerating the orders (``itertools.permutations``).
  Only the gains matter to a metric, so we enumerate the *distinct* gain
  arrangements of each tie group: every distinct arrangement stems from the
  same number of item permutations (the product of the factorials of the
  multiplicities of each gain value in the group), so the plain mean over
  distinct arrangements equals the mean over all item permutations.
  Keep rows small (<= 8 items) so enumeration stays cheap.

``REFERENCE`` (at the end) maps every ranking metric of the registry, by its
canonical name, to its reference function and how to call it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

TIE_POLICIES = ("optimistic", "pessimistic", "trec_eval", "expected")
AP_DENOMINATORS = ("relevant", "min", "k", "hits")


# --------------------------------------------------------------- helpers
def _relevant_gains(gains, rel_gains):
    if rel_gains is None:
        return [g for g in gains if g > 0]
    return [g for g in rel_gains if g > 0]


def _cut(k, n):
    """Number of positions looked at: k (or the whole list when k is None)."""
    return n if k is None else k


def hits_at(gains, k):
    """Number of relevant items among the first k positions."""
    h = 0
    for pos in range(1, len(gains) + 1):
        if k is not None and pos > k:
            break
        if gains[pos - 1] > 0:
            h += 1
    return h


# --------------------------------------------------------------- Top-N
def precision(gains, k, rel_gains=None):
    """hits@k / k (k positions, even when the list is shorter).

    k=None: the whole list, hits / len(gains).
    """
    R = _relevant_gains(gains, rel_gains)
    if len(R) == 0:
        return 0.0
    return hits_at(gains, k) / _cut(k, len(gains))


def recall(gains, k, rel_gains=None):
    """hits@k / |R|."""
    R = _relevant_gains(gains, rel_gains)
    if len(R) == 0:
        return 0.0
    return hits_at(gains, k) / len(R)


def r_precision(gains, rel_gains=None):
    """hits@|R| / |R|: precision at rank |R| (trec_eval's Rprec).

    A list shorter than |R| is looked at whole (its missing slots are misses).
    """
    R = _relevant_gains(gains, rel_gains)
    if len(R) == 0:
        return 0.0
    return hits_at(gains, len(R)) / len(R)


def f_score(gains, k, beta=1.0, rel_gains=None):
    """(1 + beta^2) P R / (beta^2 P + R), 0 when P = R = 0."""
    P = precision(gains, k, rel_gains)
    Rc = recall(gains, k, rel_gains)
    if P == 0 and Rc == 0:
        return 0.0
    return (1 + beta**2) * P * Rc / (beta**2 * P + Rc)


def hit_ratio(gains, k, rel_gains=None):
    """1 if at least one relevant item in the top k, else 0."""
    R = _relevant_gains(gains, rel_gains)
    if len(R) == 0:
        return 0.0
    return 1.0 if hits_at(gains, k) > 0 else 0.0


def arhr(gains, k, rel_gains=None):
    """Sum over relevant items at position <= k of 1/position."""
    R = _relevant_gains(gains, rel_gains)
    if len(R) == 0:
        return 0.0
    s = 0.0
    for pos in range(1, len(gains) + 1):
        if k is not None and pos > k:
            break
        if gains[pos - 1] > 0:
            s += 1.0 / pos
    return s


def reciprocal_rank(gains, k=None, rel_gains=None):
    """1/position of the first relevant item (0 if none within k)."""
    R = _relevant_gains(gains, rel_gains)
    if len(R) == 0:
        return 0.0
    for pos in range(1, len(gains) + 1):
        if k is not None and pos > k:
            break
        if gains[pos - 1] > 0:
            return 1.0 / pos
    return 0.0


def average_precision(gains, k=None, ap_denominator="relevant", rel_gains=None):
    """sum_{i <= k, rel_i} P@i / D.

    D = |R| ("relevant"), min(|R|, k) ("min"), k ("k") or the number of hits
    within k ("hits"). With k=None the cutoff is the whole list: D for "min"
    is |R| and D for "k" is the length of the list.
    """
    R = _relevant_gains(gains, rel_gains)
    if len(R) == 0:
        return 0.0
    total = 0.0
    h = 0
    for pos in range(1, len(gains) + 1):
        if k is not None and pos > k:
            break
        if gains[pos - 1] > 0:
            h += 1
            total += h / pos  # precision at this position
    if ap_denominator == "relevant":
        D = len(R)
    elif ap_denominator == "min":
        D = len(R) if k is None else min(len(R), k)
    elif ap_denominator == "k":
        D = len(gains) if k is None else k
    elif ap_denominator == "hits":
        D = h
    else:
        raise ValueError(ap_denominator)
    if D == 0:
        return 0.0
    return total / D


# --------------------------------------------------------------- DCG family
def _g(rel, gain):
    if gain == "linear":
        return float(rel)
    if gain == "exponential":
        return 2.0**rel - 1.0
    raise ValueError(gain)


def cg(gains, k=None, gain="linear"):
    """Sum of the gains g(rel) in the top k."""
    s = 0.0
    for pos in range(1, len(gains) + 1):
        if k is not None and pos > k:
            break
        s += _g(gains[pos - 1], gain)
    return s


def dcg(gains, k=None, gain="linear", log_base=2):
    """sum_{i <= k} g(rel_i) / log_b(i + 1)."""
    s = 0.0
    for pos in range(1, len(gains) + 1):
        if k is not None and pos > k:
            break
        s += _g(gains[pos - 1], gain) / math.log(pos + 1, log_base)
    return s


def idcg(gains, k=None, gain="linear", log_base=2, idcg_form="min", rel_gains=None):
    """DCG of the ideal order.

    "min": the user's relevant gains sorted descending, truncated at k
    (so over min(|R|, k) positions). "k": binary only, as if k relevant items
    filled the list: sum_{i <= k} 1/log_b(i + 1).
    """
    R = _relevant_gains(gains, rel_gains)
    if idcg_form == "min":
        ideal = sorted(R, reverse=True)
        return dcg(ideal, k=k, gain=gain, log_base=log_base)
    if idcg_form == "k":
        if k is None:
            raise ValueError("idcg='k' needs k")
        if len(R) == 0:
            return 0.0
        return sum(1.0 / math.log(pos + 1, log_base) for pos in range(1, k + 1))
    raise ValueError(idcg_form)


def ndcg(gains, k=None, gain="linear", log_base=2, idcg_form="min", rel_gains=None):
    """DCG@k / IDCG@k (0 for a user without relevant items)."""
    i = idcg(gains, k=k, gain=gain, log_base=log_base, idcg_form=idcg_form, rel_gains=rel_gains)
    if i == 0:
        return 0.0
    return dcg(gains, k=k, gain=gain, log_base=log_base) / i


# --------------------------------------------------------------- AUC
def auc(gains, n_items=None):
    """Per-user AUC of a complete, strictly ordered ranking.

    Fraction of (relevant, non-relevant) pairs in which the relevant item is
    ranked above. ``gains`` is the whole ranking; if ``n_items`` is larger than
    ``len(gains)``, the missing items are non-relevant and ranked below the
    list. Users with no relevant or no non-relevant item score 0.
    """
    n = len(gains) if n_items is None else n_items
    n_rel = sum(1 for g in gains if g > 0)
    n_neg = n - n_rel
    if n_rel == 0 or n_neg == 0:
        return 0.0
    good = 0
    for pos in range(1, len(gains) + 1):
        if gains[pos - 1] > 0:
            # non-relevant items below pos: in the list ...
            below = sum(1 for g in gains[pos:] if g <= 0)
            # ... and outside it
            below += n - len(gains)
            good += below
    return good / (n_rel * n_neg)


def auc_from_ranks(ranks, n_items):
    """AUC from the 1-based ranks of the relevant items in a catalogue of n_items."""
    ranks = sorted(int(r) for r in ranks)
    gains = [0] * n_items
    for r in ranks:
        gains[r - 1] = 1
    return auc(gains)


def auc_mann_whitney(y_true_row, y_score_row):
    """AUC from scores with ties counting 1/2 (Mann-Whitney U / (n+ n-))."""
    pos = [s for t, s in zip(y_true_row, y_score_row, strict=False) if t > 0]
    neg = [s for t, s in zip(y_true_row, y_score_row, strict=False) if t <= 0]
    if not pos or not neg:
        return 0.0
    u = 0.0
    for a in pos:
        for b in neg:
            u += 1.0 if a > b else (0.5 if a == b else 0.0)
    return u / (len(pos) * len(neg))


# --------------------------------------------------------------- input forms
def gains_from_list(recommended, relevant):
    """Form (b): ranked item ids + relevant set (binary) or dict (graded).

    Returns (gains of the list in ranked order, gains of all relevant items).
    """
    if isinstance(relevant, dict):
        grade = dict(relevant)
    else:
        grade = {item: 1 for item in relevant}
    gains = [grade.get(item, 0) for item in recommended]
    rel_gains = [g for g in grade.values() if g > 0]
    return gains, rel_gains


def order_from_scores(y_true_row, y_score_row, ties, mask_row=None):
    """Item indices in ranked order under a deterministic tie policy."""
    n = len(y_score_row)
    idx = [j for j in range(n) if mask_row is None or not mask_row[j]]
    if ties == "optimistic":

        def key(j):
            return (-y_score_row[j], -y_true_row[j], j)
    elif ties == "pessimistic":

        def key(j):
            return (-y_score_row[j], y_true_row[j], j)
    elif ties == "trec_eval":

        def key(j):
            return (-y_score_row[j], -j)
    else:
        raise ValueError(ties)
    return sorted(idx, key=key)


def tie_orderings(y_true_row, y_score_row, mask_row=None):
    """All distinct gain sequences consistent with the scores (see module doc)."""
    n = len(y_score_row)
    idx = [j for j in range(n) if mask_row is None or not mask_row[j]]
    values = sorted({y_score_row[j] for j in idx}, reverse=True)
    groups = []
    for v in values:
        group = [y_true_row[j] for j in idx if y_score_row[j] == v]
        groups.append(sorted(set(itertools.permutations(group))))
    for combo in itertools.product(*groups):
        seq = []
        for part in combo:
            seq.extend(part)
        yield seq


def from_scores(metric, y_true_row, y_score_row, ties="expected", mask_row=None, **kwargs):
    """Apply ``metric(gains, rel_gains=..., **kwargs)`` to one score row.

    ``metric`` is one of the list-form functions above. |R| counts the
    relevant items that are not masked.
    """
    n = len(y_score_row)
    rel_gains = [
        y_true_row[j]
        for j in range(n)
        if y_true_row[j] > 0 and (mask_row is None or not mask_row[j])
    ]
    if ties == "expected":
        values = [
            metric(list(seq), rel_gains=rel_gains, **kwargs)
            for seq in tie_orderings(y_true_row, y_score_row, mask_row)
        ]
        return sum(values) / len(values)
    order = order_from_scores(y_true_row, y_score_row, ties, mask_row)
    return metric([y_true_row[j] for j in order], rel_gains=rel_gains, **kwargs)


def dcg_rel(gains, k=None, gain="linear", log_base=2, rel_gains=None):
    """Dcg with the (ignored) rel_gains keyword, for ``from_scores``."""
    return dcg(gains, k=k, gain=gain, log_base=log_base)


def cg_rel(gains, k=None, gain="linear", rel_gains=None):
    """Cg with the (ignored) rel_gains keyword, for ``from_scores``."""
    return cg(gains, k=k, gain=gain)


def auc_rel(gains, rel_gains=None):
    """Auc with the (ignored) rel_gains keyword, for ``from_scores``."""
    return auc(gains)


def list_as_score_row(recommended, relevant, n_items):
    """A ranked list inside a catalogue of n_items, as one (y_true, y_score) row.

    The listed items get decreasing scores; every item of the catalogue that
    is not listed (relevant ones missing from the list, and enough
    non-relevant fillers to reach n_items) gets the same lowest score, so the
    unlisted items are tied below the list.
    """
    gains, rel_gains = gains_from_list(recommended, relevant)
    listed = set(recommended)
    if isinstance(relevant, dict):
        unlisted_rel = [g for item, g in relevant.items() if g > 0 and item not in listed]
    else:
        unlisted_rel = [1 for item in relevant if item not in listed]
    n_fill = n_items - len(gains) - len(unlisted_rel)
    if n_fill < 0:
        raise ValueError("n_items too small")
    y_true = list(gains) + list(unlisted_rel) + [0] * n_fill
    y_score = [float(len(gains) - i) for i in range(len(gains))] + [0.0] * (
        len(unlisted_rel) + n_fill
    )
    return y_true, y_score


def ranks_of_relevant(gains):
    """1-based positions of the relevant items of a ranked list."""
    return [pos for pos in range(1, len(gains) + 1) if gains[pos - 1] > 0]


# --------------------------------------------------------------- by registry name
@dataclass(frozen=True)
class Reference:
    """How to call the reference of one registry metric, at the package's defaults.

    ``fn(gains, k=k, rel_gains=rel_gains, **keywords)``, with ``k=`` only for
    a metric that takes a cutoff (``MetricSpec.takes_cutoff``); ``keywords``
    are the reference's arguments that give the metric function's default
    keywords (the reference's own defaults may differ: AP's denominator).
    The flags say which properties the tests may ask of the metric.
    """

    fn: Callable
    keywords: dict = field(default_factory=dict)
    graded: bool = True  # defined for graded relevance (an item with gain > 0 is relevant)
    normalised: bool = True  # values in [0, 1]
    monotone: bool = True  # moving a relevant item up never lowers the value
    lists: bool = True  # computable from ranked lists without a catalogue size (AUC is not)
    reads_judgments: bool = False  # tells judged non-relevant items from unjudged ones
    needs_relevant: bool = True  # undefined (no_relevant) for a user without relevant items
    aggregate: str = "mean"  # the summary over users: 'mean', 'sum' or 'geometric' (summary)


MIN_GEO_MEAN = 0.00001  # trec_eval's floor before the logarithm of gm_map (trec_eval.h)


def summary(values, aggregate="mean"):
    """The summary over users: the mean, trec_eval's sum, or its geometric mean.

    'geometric' is trec_eval's te_calc_avg_meas_s_gm: exp of the mean of
    log(max(v, MIN_GEO_MEAN)).
    """
    values = [float(v) for v in values]
    if aggregate == "sum":
        return math.fsum(values)
    if aggregate == "geometric":
        logs = [math.log(max(v, MIN_GEO_MEAN)) for v in values]
        return math.exp(math.fsum(logs) / len(logs))
    return math.fsum(values) / len(values)


# Every ranking metric of the registry (recmetrics/metrics/_registry.py, kind
# "ranking"), by canonical name: test_ranking_reference.py compares each at
# its default keywords with this reference, and fails for a registry metric
# missing here.
REFERENCE = {
    "precision": Reference(precision),
    "recall": Reference(recall),
    "f1": Reference(f_score),
    "hr": Reference(hit_ratio),
    "rprec": Reference(r_precision),
    "arhr": Reference(arhr, normalised=False),
    "mrr": Reference(reciprocal_rank),
    "map": Reference(average_precision, {"ap_denominator": "min"}),
    "ndcg": Reference(ndcg),
    "dcg": Reference(dcg_rel, normalised=False),
    "cg": Reference(cg_rel, normalised=False),
    "auc": Reference(auc_rel, lists=False),
}


# --------------------------------------------------------------- incomplete judgments
# A ranked list of *judgments*: gain > 0 is relevant, 0 judged non-relevant,
# None unjudged (only long data frames have unjudged items; every other input
# judges every item).
def _judged_den(n, k, short_lists):
    """The denominator of Judged@k: k slots, or min(k, n) (ir_measures); n without a cutoff."""
    if k is None:
        return n
    return min(k, n) if short_lists == "list" else k


def judged(gains, k=None, short_lists="k", rel_gains=None):
    """Judged@k: the judged items (gain not None) among the first k, over the denominator."""
    top = gains if k is None else gains[:k]
    count = 0
    for g in top:
        if g is not None:
            count += 1
    den = _judged_den(len(gains), k, short_lists)
    return count / den if den > 0 else 0.0


def unjudged(gains, k=None, short_lists="k", rel_gains=None):
    """Unjudged@k: the unjudged items (gain None) among the first k, over the denominator."""
    top = gains if k is None else gains[:k]
    count = 0
    for g in top:
        if g is None:
            count += 1
    den = _judged_den(len(gains), k, short_lists)
    return count / den if den > 0 else 0.0


def bpref(gains, rel_gains=None, n_nonrelevant=None):
    """trec_eval's bpref (m_bpref.c), over the retrieved list ``gains``.

    R = number of relevant items (``rel_gains``, retrieved or not), N = number
    of judged non-relevant items (``n_nonrelevant``, retrieved or not; default:
    the zeros of the list). Walking down the list, unjudged items are skipped,
    judged non-relevant ones are counted, and each relevant one adds
    ``1 - min(nonrel_so_far, R) / min(N, R)`` (1 when none was seen yet).
    The sum is divided by R (0 without relevant items).
    """
    judged_gains = [g for g in gains if g is not None]
    n_rel = len(_relevant_gains(judged_gains, rel_gains))
    if n_nonrelevant is None:
        n_nonrelevant = sum(1 for g in judged_gains if g <= 0)
    nonrel_so_far = 0
    total = 0.0
    for g in gains:
        if g is None:  # unjudged: skipped
            continue
        if g <= 0:
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            total += 1.0 - min(nonrel_so_far, n_rel) / min(n_nonrelevant, n_rel)
        else:
            total += 1.0
    return total / n_rel if n_rel else 0.0


# the measures of incomplete judgments, defined below
REFERENCE.update(
    {
        "judged": Reference(judged, reads_judgments=True, needs_relevant=False),
        "unjudged": Reference(unjudged, reads_judgments=True, needs_relevant=False),
        "bpref": Reference(bpref, reads_judgments=True),
    }
)


# --------------------------------------------------------------- rank-biased precision
def rbp(gains, k=None, p=0.8, gain="binary", rel_gains=None):
    """(1 - p) sum_{i <= k} g_i p^(i-1), g_i = 1 for a relevant item (or its grade)."""
    total = 0.0
    for i, g in enumerate(gains[: _cut(k, len(gains))], start=1):
        if g is not None and g > 0:
            total += (1.0 if gain == "binary" else g) * p ** (i - 1)
    return (1.0 - p) * total


def rbp_residual(gains, k=None, p=0.8, rel_gains=None):
    """Moffat & Zobel's residual: unjudged positions (None) of the top k, and those past the list.

    Position i adds (1 - p) p^(i-1) when its item is unjudged or when it lies
    beyond the list (n < i <= k; every i > n without a cutoff). A user without
    relevant items scores 0, as rbp's (no_relevant='zero').
    """
    if not _relevant_gains([g for g in gains if g is not None], rel_gains):
        return 0.0
    n = len(gains)
    total = 0.0
    for i, g in enumerate(gains[: _cut(k, n)], start=1):
        if g is None:
            total += (1.0 - p) * p ** (i - 1)
    seen = n if k is None else min(k, n)
    return total + p**seen - (0.0 if k is None else p**k)


# --------------------------------------------------------------- trec_eval's set measures
# The whole retrieved list as a set (m_set_P.c, m_set_recall.c, m_set_F.c,
# m_set_rel_P.c) and relative precision at k (m_rel_P.c).
def set_precision(gains, rel_gains=None):
    """num_rel_ret / num_ret (trec_eval's set_P); 0 for an empty list."""
    R = _relevant_gains(gains, rel_gains)
    if len(R) == 0 or len(gains) == 0:
        return 0.0
    return hits_at(gains, None) / len(gains)


def set_recall(gains, rel_gains=None):
    """num_rel_ret / num_rel (trec_eval's set_recall)."""
    R = _relevant_gains(gains, rel_gains)
    if len(R) == 0:
        return 0.0
    return hits_at(gains, None) / len(R)


def set_f(gains, beta=1.0, rel_gains=None):
    """(1 + beta^2) P R / (beta^2 P + R) of set_P and set_recall; 0 without a hit.

    trec_eval's set_F.x computes (x + 1) P R / (x P + R): x = beta^2.
    """
    P = set_precision(gains, rel_gains)
    Rc = set_recall(gains, rel_gains)
    if P == 0 and Rc == 0:
        return 0.0
    x = beta**2
    return (x + 1) * P * Rc / (x * P + Rc)


def set_relative_precision(gains, rel_gains=None):
    """num_rel_ret / min(num_ret, num_rel) (trec_eval's set_relative_P)."""
    R = _relevant_gains(gains, rel_gains)
    if len(R) == 0 or len(gains) == 0:
        return 0.0
    return hits_at(gains, None) / min(len(gains), len(R))


def relative_precision(gains, k, rel_gains=None):
    """hits@k / min(k, |R|) (trec_eval's relative_P_k); k=None: the whole list."""
    R = _relevant_gains(gains, rel_gains)
    den = min(_cut(k, len(gains)), len(R))
    if den == 0:
        return 0.0
    return hits_at(gains, k) / den


REFERENCE.update(
    {
        "rbp": Reference(rbp),
        "rbp_residual": Reference(rbp_residual, reads_judgments=True),
        "set_precision": Reference(set_precision),
        "set_recall": Reference(set_recall),
        "set_f": Reference(set_f),
        "set_relative_precision": Reference(set_relative_precision),
        "relative_precision": Reference(relative_precision),
    }
)


# --------------------------------------------------------------- interpolated precision
def iprec_at_recall(gains, recall_level=0.0, rel_gains=None):
    """trec_eval's iprec_at_recall (m_iprec_at_recall.c, 9.0.8), written from its loop.

    cut = (long) (level * num_rel + 0.9); walk the list from the bottom keeping
    the best precision seen so far; at the cut-th relevant item read it.
    """
    R = _relevant_gains(gains, rel_gains)
    if len(R) == 0 or len(gains) == 0:
        return 0.0
    cut = int(recall_level * len(R) + 0.9)
    num_rel_ret = hits_at(gains, None)
    if cut > num_rel_ret:
        return 0.0
    best = num_rel_ret / len(gains)
    rel_so_far = num_rel_ret
    for i in range(len(gains), 0, -1):
        if rel_so_far == 0:
            break
        best = max(best, rel_so_far / i)
        if gains[i - 1] > 0:
            if rel_so_far == cut:
                return best
            rel_so_far -= 1
    return best  # cut 0: the best precision of the list


def precision_11pt(gains, rel_gains=None):
    """trec_eval's 11pt_avg: the mean of iprec_at_recall at 0.0, 0.1, ..., 1.0."""
    levels = [x / 10 for x in range(11)]
    return sum(iprec_at_recall(gains, x, rel_gains) for x in levels) / len(levels)


def _iprec_at(level):
    def fn(gains, rel_gains=None):
        return iprec_at_recall(gains, level, rel_gains)

    return fn


REFERENCE.update(
    {
        **{f"iprec_at_recall_{x / 10:.2f}": Reference(_iprec_at(x / 10)) for x in range(11)},
        "precision_11pt": Reference(precision_11pt),
    }
)


# --------------------------------------------------------------- trec_eval's summaries
# Issue 26: measures whose summary over users is not the plain mean
# (Reference.aggregate: trec_eval's sum of its counts, the geometric mean of
# gm_map and gm_bpref), set_map, Rprec_mult_x and infAP. A list holds gains
# (> 0 relevant, 0 judged non-relevant) and None for an unjudged item.
def _judged_relevant(gains, rel_gains):
    return _relevant_gains([g for g in gains if g is not None], rel_gains)


def num_ret(gains, rel_gains=None):
    """trec_eval's num_ret (m_num_ret.c): the length of the list."""
    return float(len(gains))


def num_rel(gains, rel_gains=None):
    """trec_eval's num_rel (m_num_rel.c): the relevant items, retrieved or not."""
    return float(len(_judged_relevant(gains, rel_gains)))


def num_rel_ret(gains, rel_gains=None):
    """trec_eval's num_rel_ret (m_num_rel_ret.c): the relevant items of the list."""
    return float(sum(1 for g in gains if g is not None and g > 0))


def num_nonrel_judged_ret(gains, rel_gains=None):
    """trec_eval's num_nonrel_judged_ret: the judged non-relevant items of the list."""
    return float(sum(1 for g in gains if g is not None and g <= 0))


def num_q(gains, rel_gains=None):
    """trec_eval's num_q (m_num_q.c): 1 per evaluated query."""
    return 1.0


def set_map(gains, rel_gains=None):
    """trec_eval's set_map (m_set_map.c): num_rel_ret^2 / (num_ret * num_rel)."""
    R = _judged_relevant(gains, rel_gains)
    if len(R) == 0 or len(gains) == 0:
        return 0.0
    h = num_rel_ret(gains)
    return h * h / (len(gains) * len(R))


def rprec_mult(gains, multiple=1.0, rel_gains=None):
    """trec_eval's Rprec_mult (m_Rprec_mult.c): hits@c / c, c = (long) (x * num_rel + 0.9)."""
    R = _judged_relevant(gains, rel_gains)
    cut = int(multiple * len(R) + 0.9)
    if len(R) == 0 or cut == 0:
        return 0.0
    return num_rel_ret(gains[:cut]) / cut


INFAP_EPSILON = 0.00001


def infap(gains, rel_gains=None):
    """trec_eval's infAP (m_infap.c), with its four kinds of retrieved items.

    Walking down the list: an item not in the pool (None) is skipped; an
    item in the pool but not judged (a negative gain, trec_eval's grade -1)
    is counted among the pooled ones; a judged non-relevant one (0) is
    counted; a relevant one at 0-based position j adds 1 at j = 0, else
    1/(j+1) + (j/(j+1)) * (X/j) * ((rel + eps) / (rel + nonrel + 2 eps)),
    X = rel + nonrel + pooled the pooled items above it. The sum is divided
    by |R| (every other reference reads a negative gain as None).
    """
    R = _judged_relevant(gains, rel_gains)
    if len(R) == 0:
        return 0.0
    rel = nonrel = pooled = 0
    total = 0.0
    for j, g in enumerate(gains):
        if g is None:
            continue
        if g < 0:
            pooled += 1
            continue
        if g == 0:
            nonrel += 1
            continue
        if j == 0:
            total += 1.0
        else:
            total += 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel + nonrel + pooled) / j) * (
                (rel + INFAP_EPSILON) / (rel + nonrel + 2 * INFAP_EPSILON)
            )
        rel += 1
    return total / len(R)


def _rprec_at(multiple):
    def fn(gains, rel_gains=None):
        return rprec_mult(gains, multiple, rel_gains)

    return fn


# --------------------------------------------------------------- trec_eval's gain measures
# trec_eval's m_Rndcg.c, m_binG.c and m_utility.c as plain loops over a list of
# grades (gain = grade, trec_eval's default; 0 is judged non-relevant), and
# ranx's Burges DCG (ranx/metrics/ndcg.py).
def rndcg(gains, rel_gains=None):
    """m_Rndcg.c: NDCG where the ideal gain changes (and at the list's end), averaged.

    The three loops of the C file: the list and the ideal (the relevant
    gains sorted decreasingly) walked together while the ideal gain is
    positive; the rest of the list, then one more point; the rest of the
    ideal. A point is DCG / IDCG before the position where the ideal gain
    changes.
    """
    ideal = sorted(_relevant_gains(gains, rel_gains), reverse=True)
    if not ideal:
        return 0.0

    def ideal_gain_at(i):  # 0-based; 0 beyond the ideal
        return ideal[i] if i < len(ideal) else 0.0

    total, points, results_dcg, ideal_dcg = 0.0, 0, 0.0, 0.0
    ideal_gain = old = ideal_gain_at(0)
    i = 0
    while i < len(gains) and ideal_gain > 0:
        ideal_gain = ideal_gain_at(i)
        if ideal_gain != old:
            if ideal_dcg > 0:
                total, points = total + results_dcg / ideal_dcg, points + 1
            old = ideal_gain
        results_dcg += gains[i] / math.log2(i + 2)
        if ideal_gain > 0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    if i < len(gains):
        while i < len(gains):
            results_dcg += gains[i] / math.log2(i + 2)
            i += 1
        if ideal_dcg > 0:
            total, points = total + results_dcg / ideal_dcg, points + 1
    while ideal_gain > 0:
        ideal_gain = ideal_gain_at(i)
        if ideal_gain != old:
            if ideal_dcg > 0:
                total, points = total + results_dcg / ideal_dcg, points + 1
            old = ideal_gain
        if ideal_gain > 0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    return total / points if points else 0.0


def bin_g(gains, rel_gains=None):
    """m_binG.c: sum of 1 / log2(2 + non-relevant items above) over relevant items, / |R|."""
    n_rel = len(_relevant_gains(gains, rel_gains))
    total, nonrel = 0.0, 0
    for g in gains:
        if g > 0:
            total += 1.0 / math.log2(2 + nonrel)
        else:
            nonrel += 1
    return total / n_rel if n_rel else 0.0


def utility(gains, rel_gains=None):
    """m_utility.c with its default parameters 1, -1, 0, 0: relevant retrieved minus the others."""
    hit = sum(1 for g in gains if g > 0)
    return hit - (len(gains) - hit)


def ndcg_burges(gains, k=None, rel_gains=None):
    """NDCG with the gain 2^rel - 1 (ranx's ndcg_burges)."""
    return ndcg(gains, k, gain="exponential", rel_gains=rel_gains)


def dcg_burges(gains, k=None, rel_gains=None):
    """DCG with the gain 2^rel - 1 (ranx's dcg_burges)."""
    return dcg(gains, k, gain="exponential")


def ndcg_rel(gains, rel_gains=None):
    """m_ndcg_rel.c: NDCG at each retrieved relevant item, and the whole list's per missed one.

    Sum DCG(i) / IDCG(i) over the ranks i of relevant items (the ideal stops
    growing after its |R| items); each relevant item not retrieved adds
    DCG / IDCG of the whole list; divide by |R|.
    """
    ideal = sorted(_relevant_gains(gains, rel_gains), reverse=True)
    if not ideal:
        return 0.0
    total, results_dcg, found = 0.0, 0.0, 0
    for i, g in enumerate(gains):
        results_dcg += g / math.log2(i + 2)
        if g > 0:
            found += 1
            total += results_dcg / sum(x / math.log2(j + 2) for j, x in enumerate(ideal[: i + 1]))
    whole = sum(x / math.log2(j + 2) for j, x in enumerate(ideal))
    total += (len(ideal) - found) * results_dcg / whole
    return total / len(ideal)


def trec_g(gains, rel_gains=None):
    """m_G.c: sum of g_i / log2(2 + C_i - S_i) over the list, over the sum of the ideal gains.

    S_i: the gains down to rank i; C_i: the ideal gains down to rank i, each
    at least 1 (1 past the ideal).
    """
    ideal = sorted(_relevant_gains(gains, rel_gains), reverse=True)
    if not ideal:
        return 0.0
    total, s, c = 0.0, 0.0, 0.0
    for i, g in enumerate(gains):
        s += g
        c += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        if g != 0:
            total += g / math.log2(2 + c - s)
    return total / sum(ideal)


REFERENCE.update(
    {
        "gm_map": Reference(average_precision, {"ap_denominator": "min"}, aggregate="geometric"),
        "gm_bpref": Reference(bpref, reads_judgments=True, aggregate="geometric"),
        "num_q": Reference(num_q, normalised=False, needs_relevant=False, aggregate="sum"),
        "num_ret": Reference(num_ret, normalised=False, needs_relevant=False, aggregate="sum"),
        "num_rel": Reference(num_rel, normalised=False, needs_relevant=False, aggregate="sum"),
        "num_rel_ret": Reference(
            num_rel_ret, normalised=False, needs_relevant=False, aggregate="sum"
        ),
        "num_nonrel_judged_ret": Reference(
            num_nonrel_judged_ret,
            normalised=False,
            needs_relevant=False,
            reads_judgments=True,
            aggregate="sum",
        ),
        "set_map": Reference(set_map),
        **{f"rprec_mult_{x / 10:.2f}": Reference(_rprec_at(x / 10)) for x in range(2, 21, 2)},
        "infap": Reference(infap, reads_judgments=True),
    }
)


# --------------------------------------------------------------- cascade measures
def err(gains, k=None, max_grade=4, rel_gains=None):
    """ERR@k (Chapelle et al. 2009; gdeval.pl's sub err): sum_i R_i / i prod_{j<i} (1 - R_j).

    R = (2^g - 1) / 2^max_grade for the grade g at a position (0 when not relevant).
    """
    total, reach = 0.0, 1.0
    for i, g in enumerate(gains[: _cut(k, len(gains))], start=1):
        sat = (2.0**g - 1.0) / 2.0**max_grade if g is not None and g > 0 else 0.0
        total += reach * sat / i
        reach *= 1.0 - sat
    return total


REFERENCE.update(
    {
        "err": Reference(err),
    }
)


# --------------------------------------------------------------- C/W/L measures
# cwl_eval (cwl/ruler/measures/cwl_metrics.py): W_i = prod_{j<i} C_j / sum_l prod_{j<l} C_j
# over max_depth positions (the gains padded with 0), EU = sum_i W_i g_i, with the gain
# (clip(g, min_grade, max_grade) - min_grade) / (max_grade - min_grade).
def _cwl_gains(gains, min_grade, max_grade, depth):
    out = []
    for g in list(gains)[:depth]:
        g = 0.0 if g is None else min(max(g, min_grade), max_grade)
        out.append((g - min_grade) / (max_grade - min_grade))
    return out + [0.0] * (depth - len(out))


def _cwl_eu(gains, cont):
    """cont(i, g_i, gain_so_far) -> C_i (i 1-based); EU = sum W_i g_i."""
    reach, total_reach, total, so_far = 1.0, 0.0, 0.0, 0.0
    for i, g in enumerate(gains, start=1):
        so_far += g
        total += reach * g
        total_reach += reach
        reach *= cont(i, g, so_far)
    return total / total_reach


def inst(gains, T=1.0, min_grade=0.0, max_grade=1.0, max_depth=1000, rel_gains=None):
    """cwl_inst.py: C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - gain so far."""
    g = _cwl_gains(gains, min_grade, max_grade, max_depth)
    return _cwl_eu(g, lambda i, gi, c: ((i + 2 * T - c - 1) / (i + 2 * T - c)) ** 2)


def insq(gains, T=1.0, min_grade=0.0, max_grade=1.0, max_depth=1000, rel_gains=None):
    """cwl_insq.py: C_i = ((i + 2T - 1) / (i + 2T))^2."""
    g = _cwl_gains(gains, min_grade, max_grade, max_depth)
    return _cwl_eu(g, lambda i, gi, c: ((i + 2 * T - 1) / (i + 2 * T)) ** 2)


REFERENCE.update(
    {
        "inst": Reference(inst, monotone=False),
        "insq": Reference(insq),
    }
)


def _nerr(gains, cont, min_grade, max_grade, max_depth):
    g = _cwl_gains(gains, min_grade, max_grade, max_depth)
    return _cwl_eu(g, cont)


def nerr8(gains, k=None, min_grade=0.0, max_grade=1.0, max_depth=1000, rel_gains=None):
    """cwl_nerr.py NERReq8: C_i = 1 - g_i for i < k, 0 from position k on."""
    k = math.inf if k is None else k
    return _nerr(gains, lambda i, g, c: (1 - g) if i < k else 0.0, min_grade, max_grade, max_depth)


def nerr9(gains, k=None, min_grade=0.0, max_grade=1.0, max_depth=1000, rel_gains=None):
    """cwl_nerr.py NERReq9: C_i = i / (i + 1) (1 - g_i) for i < k, 0 from position k on."""
    k = math.inf if k is None else k

    def cont(i, g, c):
        return i / (i + 1) * (1 - g) if i < k else 0.0

    return _nerr(gains, cont, min_grade, max_grade, max_depth)


def nerr10(gains, p=0.9, min_grade=0.0, max_grade=1.0, max_depth=1000, rel_gains=None):
    """cwl_nerr.py NERReq10: C_i = p (1 - g_i)."""
    return _nerr(gains, lambda i, g, c: p * (1 - g), min_grade, max_grade, max_depth)


def nerr11(gains, T=1.0, min_grade=0.0, max_grade=1.0, max_depth=1000, rel_gains=None):
    """cwl_nerr.py NERReq11: C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i)."""

    def cont(i, g, c):
        return ((i + 2 * T - 1) / (i + 2 * T)) ** 2 * (1 - g)

    return _nerr(gains, cont, min_grade, max_grade, max_depth)


def bpm(
    gains,
    T=1.0,
    k=None,
    hb=None,
    gain_med=0.5,
    min_grade=0.0,
    max_grade=1.0,
    max_depth=1000,
    rel_gains=None,
):
    """cwl_bpm.py BPMCWLMetric(T, K): C_i = 1 while the gain so far < T and i < K (cost 1).

    With hb (BPMDCWLMetric): T grows by hb (g_i - gain_med) after each item read.
    """
    k = math.inf if k is None else k
    target = [T]

    def cont(i, g, c):
        go = c < target[0] and i < k
        if hb is not None:
            target[0] += hb * (g - gain_med)
        return 1.0 if go else 0.0

    return _nerr(gains, cont, min_grade, max_grade, max_depth)


REFERENCE.update(
    {
        "nerr8": Reference(nerr8, monotone=False),
        "nerr9": Reference(nerr9, monotone=False),
        "nerr10": Reference(nerr10, monotone=False),
        "nerr11": Reference(nerr11, monotone=False),
        "bpm": Reference(bpm, monotone=False),
    }
)


def sdcg(gains, k=None, min_grade=0.0, max_grade=1.0, max_depth=1000, rel_gains=None):
    """cwl_dcg.py NDCGCWLMetric(k): C_i = log2(i + 1) / log2(i + 2) for i < k, 0 from k on."""
    k = math.inf if k is None else k

    def cont(i, g, c):
        return math.log2(i + 1) / math.log2(i + 2) if i < k else 0.0

    return _nerr(gains, cont, min_grade, max_grade, max_depth)


REFERENCE.update(
    {
        "sdcg": Reference(sdcg),
        "ndcg_rel": Reference(ndcg_rel),
        "trec_g": Reference(trec_g),
        "rndcg": Reference(rndcg),
        "bin_g": Reference(bin_g),
        "utility": Reference(utility, normalised=False, monotone=False, needs_relevant=False),
        "ndcg_burges": Reference(ndcg_burges),
        "dcg_burges": Reference(dcg_burges, normalised=False),
    }
)


# --------------------------------------------------------------- scikit-learn: pAUC, coverage
def partial_auc(gains, max_fpr=0.1, mcclish=True, rel_gains=None):
    """Area under the ROC staircase of a strict order up to FPR = max_fpr, McClish-standardised.

    Walk down the list: the j-th non-relevant item moves the curve right by
    1/n- at height TP/n+, of which only the part left of max_fpr counts.
    No relevant or no non-relevant item: 0.
    """
    n_pos = sum(1 for g in gains if g > 0)
    n_neg = len(gains) - n_pos
    if n_pos == 0 or n_neg == 0:
        return 0.0
    budget = max_fpr * n_neg
    tp, j, area = 0, 0, 0.0
    for g in gains:
        if g > 0:
            tp += 1
        else:
            width = min(max(budget - j, 0.0), 1.0)
            area += tp * width
            j += 1
    area /= n_pos * n_neg
    if not mcclish:
        return area
    low, high = max_fpr**2 / 2, max_fpr
    return 0.5 * (1 + (area - low) / (high - low))


def coverage_error(gains, rel_gains=None):
    """The 1-based position of the last relevant item (0 without relevant items)."""
    last = 0
    for pos, g in enumerate(gains, start=1):
        if g > 0:
            last = pos
    return float(last)


REFERENCE.update(
    {
        "pauc": Reference(partial_auc, lists=False),
        "coverage_error": Reference(coverage_error, lists=False, normalised=False, monotone=False),
    }
)


# --------------------------------------------------------------- judgment groups
# trec_eval's map_avgjg, P_avgjg, Rprec_mult_avgjg: the inputs here have one judgment
# group per user (no column 'group'), where they are map, P and Rprec_mult; the groups
# are checked against trec_eval 10.0 and by brute force in tests/test_judgment_groups.py
REFERENCE.update(
    {
        "map_avgjg": Reference(average_precision),
        "p_avgjg": Reference(precision),
        **{f"rprec_mult_avgjg_{x / 10:.2f}": Reference(_rprec_at(x / 10)) for x in range(2, 21, 2)},
    }
)
