"""Microsoft Recommenders (``recommenders/evaluation/python_evaluation.py``)."""

import math

from ._provider import Provider

PROVIDER = Provider(
    name="recommenders",
    order=60,
    library="Microsoft Recommenders (python_evaluation)",
    version="1.2.1",
    checked="run (tests/test_preset_parity.py)",
    ties="stable sort: input row order",
    notes="every row of rating_true is relevant; precision_at_k, recall_at_k and "
    "map_at_k average over the users in both frames, ndcg_at_k over every user of "
    "rating_true; ndcg_at_k binary by default (score_type='raw' for linear gains), natural "
    "log; map() divides by |R|, map_at_k() by min(|R|, k); no MRR",
    keywords={"gain": "binary", "log_base": math.e},
    # precision_at_k, recall_at_k and map_at_k divide by the users present in
    # both frames; ndcg_at_k by every user of rating_true
    metric_keywords={
        "precision": {"users": "both"},
        "recall": {"users": "both"},
        "map": {"users": "both"},
    },
    metrics={"precision": "k", "recall": "k", "map": "k", "ndcg": "k"},
    sources={
        "precision": "recommenders/evaluation/python_evaluation.py: precision_at_k",
        "recall": "recommenders/evaluation/python_evaluation.py: recall_at_k",
        "map": "recommenders/evaluation/python_evaluation.py: map_at_k (map: denominator |R|)",
        "ndcg": "recommenders/evaluation/python_evaluation.py: ndcg_at_k",
        "ties": "recommenders/evaluation/python_evaluation.py: get_top_k_items",
    },
    beyond={
        "novelty": {
            "denominator": "interactions",
            "unseen": "zero",
            "base": 2.0,
            "average": "row",
        },
        "entropy": {"base": 2.0, "normalize": "none"},
        "ild": {"distance": "cosine", "short": "skip"},
        "serendipity": {"expectedness": "history", "distance": "cosine"},
    },
    beyond_sources={
        "novelty": "Microsoft Recommenders 1.2.1, recommenders/evaluation/python_evaluation.py, "
        "novelty",
        "entropy": "python_evaluation.py, distributional_coverage",
        "ild": "python_evaluation.py, diversity (features: item_feature_vector, or the "
        "items' training user-incidence vectors for item_cooccurrence_count)",
        "serendipity": "python_evaluation.py, serendipity (relevance from truth; its default "
        "counts every item as relevant)",
    },
)
