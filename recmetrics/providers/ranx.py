"""ranx, Numba-compiled IR metrics (``ranx/metrics/``: one file per metric)."""

from ._provider import Provider

PROVIDER = Provider(
    name="ranx",
    order=30,
    library="ranx",
    version="0.3.21",
    checked="run without ties (tests)",
    ties="input order and an unstable argsort (not reproducible)",
    notes="queries without qrels are dropped with make_comparable=True; a query judged "
    "without a relevant document scores 0; 'ndcg' is linear (Jarvelin), 'ndcg_burges' "
    "exponential",
    # a query judged without a relevant document scores 0 in ranx
    keywords={"no_relevant": "zero", "ap_denominator": "relevant"},
    metrics={
        "precision": "both",
        "recall": "both",
        "f1": "both",
        "hr": "both",
        "mrr": "both",
        "map": "both",
        "ndcg": "both",
        "ndcg_burges": "both",
        "dcg_burges": "both",
    },
    sources={
        "precision": "ranx/metrics/precision.py: _precision",
        "recall": "ranx/metrics/recall.py: _recall",
        "f1": "ranx/metrics/f1.py: _f1",
        "hr": "ranx/metrics/hit_rate.py: _hit_rate",
        "mrr": "ranx/metrics/reciprocal_rank.py: _reciprocal_rank",
        "map": "ranx/metrics/average_precision.py: _average_precision",
        "ndcg": "ranx/metrics/ndcg.py: _dcg, _idcg, _ndcg",
        "ties": "ranx/data_structures/common.py: sort_dict_by_value (np.argsort of -scores)",
        "ndcg_burges": "ranx/metrics/ndcg.py: _ndcg with jarvelin=False (gain 2^rel - 1)",
        "dcg_burges": "ranx/metrics/ndcg.py: _dcg with jarvelin=False (gain 2^rel - 1)",
    },
)
