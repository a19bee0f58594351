"""scikit-learn's ranking metrics (``sklearn/metrics/_ranking.py``)."""

from ._provider import Provider

PROVIDER = Provider(
    name="sklearn",
    order=20,
    library="scikit-learn",
    version="1.9.1",
    checked="run (tests)",
    ties="NDCG: mean over the tied group (= 'expected'); AP: every relevant item of a tied "
    "group "
    "gets the precision at the end of the group",
    notes="no P@k, R@k, MRR or AP@k; average_precision_score needs average='samples' for a "
    "mean "
    "over users (its default averages over items); LRAP counts a user without relevant "
    "items as 1",
    keywords={"no_relevant": "zero", "ap_denominator": "relevant", "ap_ties": "group_end"},
    # roc_auc_score is undefined (it raises) for a user with one class only;
    # ndcg_score counts a user without relevant items as 0
    metric_keywords={
        "auc": {"no_relevant": "skip"},
        # coverage_error gives tied items the worst rank of their group
        "coverage_error": {"ties": "pessimistic"},
        # roc_auc_score(max_fpr=f): its ROC line cut at f, McClish's correction
        # (a row with one class only: a warning and no value)
        "pauc": {"interpolation": "linear", "no_relevant": "skip"},
    },
    metrics={
        "map": "none",
        "ndcg": "both",
        "dcg": "both",
        "auc": "none",
        "coverage_error": "none",
        "pauc": "none",
    },
    sources={
        "ndcg": "sklearn/metrics/_ranking.py: ndcg_score, _tie_averaged_dcg",
        "dcg": "sklearn/metrics/_ranking.py: dcg_score",
        "map": "sklearn/metrics/_ranking.py: average_precision_score (average='samples')",
        "auc": "sklearn/metrics/_ranking.py: roc_auc_score",
        "coverage_error": "sklearn/metrics/_ranking.py: coverage_error",
        "pauc": "sklearn/metrics/_ranking.py: roc_auc_score(max_fpr=...), _binary_roc_auc_score",
    },
)
