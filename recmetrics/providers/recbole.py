"""RecBole's evaluator (``recbole/evaluator/metrics.py``)."""

import numpy as np

from ._provider import Provider

PROVIDER = Provider(
    name="recbole",
    order=50,
    library="RecBole",
    version="1.2.1",
    checked="run (tests/test_preset_parity.py)",
    ties="order of torch.topk (unspecified)",
    notes="binary relevance only; users without test items are not evaluated; "
    "results rounded to 4 decimals (metric_decimal_place)",
    keywords={"gain": "binary"},
    metrics={
        "precision": "k",
        "recall": "k",
        "hr": "k",
        "mrr": "k",
        "map": "k",
        "ndcg": "k",
    },
    sources={
        "precision": "recbole/evaluator/metrics.py: Precision.metric_info",
        "recall": "recbole/evaluator/metrics.py: Recall.metric_info",
        "map": "recbole/evaluator/metrics.py: MAP.metric_info",
        "ndcg": "recbole/evaluator/metrics.py: NDCG.metric_info",
        "mrr": "recbole/evaluator/metrics.py: MRR.metric_info",
        "hr": "recbole/evaluator/metrics.py: Hit.metric_info",
        "ties": "recbole/evaluator/collector.py: Collector.eval_batch_collect (torch.topk)",
    },
    beyond={
        "entropy": {"base": float(np.e), "normalize": "distinct"},
        "arp": {"count": "interactions", "normalize": False},
    },
    beyond_sources={
        "entropy": "RecBole 1.2.1, recbole/evaluator/metrics.py, ShannonEntropy",
        "arp": "recbole/evaluator/metrics.py, AveragePopularity (full lists of length k)",
    },
)
