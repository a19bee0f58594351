"""torchmetrics' retrieval metrics (``torchmetrics/functional/retrieval/``)."""

from ._provider import Provider

PROVIDER = Provider(
    name="torchmetrics",
    order=40,
    library="torchmetrics",
    version="1.9.0",
    checked="run (tests/test_preset_parity.py)",
    ties="NDCG: mean over the tied group; P/R/AP/RR: order of torch.topk/argsort (unspecified)",
    notes="P/R/AP/RR ignore relevant items scored <= 0 (since 1.7.4) and need binary "
    "targets; "
    "scores are cast to float32; empty_target_action='neg' (0) by default",
    keywords={
        "no_relevant": "zero",
        "ap_denominator": "hits",
        "retrieve_nonpositive": False,
        "score_dtype": "float32",
    },
    # retrieval_normalized_dcg has no `preds > 0` filter
    metric_keywords={"ndcg": {"retrieve_nonpositive": True}},
    metrics={"precision": "both", "recall": "both", "mrr": "both", "map": "both", "ndcg": "both"},
    sources={
        "precision": "torchmetrics/functional/retrieval/precision.py: retrieval_precision",
        "recall": "torchmetrics/functional/retrieval/recall.py: retrieval_recall",
        "map": "torchmetrics/functional/retrieval/average_precision.py: "
        "retrieval_average_precision",
        "ndcg": "torchmetrics/functional/retrieval/ndcg.py: retrieval_normalized_dcg, "
        "_tie_average_dcg",
        "mrr": "torchmetrics/functional/retrieval/reciprocal_rank.py: retrieval_reciprocal_rank",
        "no_relevant": "torchmetrics/retrieval/base.py: RetrievalMetric.compute "
        "(empty_target_action)",
    },
)
