"""RecTools (``rectools/metrics/``)."""

from ._provider import Provider

PROVIDER = Provider(
    name="rectools",
    order=80,
    library="RecTools",
    version="0.19.0",
    checked="run (tests/test_preset_parity.py)",
    ties="none: takes ranks (Columns.Rank) as given",
    notes="binary relevance; NDCG's IDCG over k positions unless divide_by_achievable=True; "
    "MAP divides by |R| unless divide_by_k=True; only users in the test interactions count",
    keywords={"ap_denominator": "relevant", "gain": "binary", "idcg": "k"},
    metrics={
        "precision": "k",
        "recall": "k",
        "f1": "k",
        "hr": "k",
        "mrr": "k",
        "map": "k",
        "ndcg": "k",
    },
    sources={
        "precision": "rectools/metrics/classification.py: Precision",
        "recall": "rectools/metrics/classification.py: Recall",
        "f1": "rectools/metrics/classification.py: F1Beta",
        "hr": "rectools/metrics/classification.py: HitRate",
        "mrr": "rectools/metrics/ranking.py: MRR",
        "map": "rectools/metrics/ranking.py: MAP",
        "ndcg": "rectools/metrics/ranking.py: NDCG",
    },
    beyond={
        "novelty": {"denominator": "users", "unseen": "one", "base": 2.0, "average": "user"},
        "arp": {"count": "interactions", "normalize": False},
        "ild": {"distance": "hamming", "short": "zero"},
        "serendipity": {"expectedness": "rank"},
    },
    beyond_sources={
        "novelty": "RecTools 0.19.0, rectools/metrics/novelty.py, MeanInvUserFreq",
        "arp": "rectools/metrics/popularity.py, AvgRecPopularity (normalize=False)",
        "ild": "rectools/metrics/diversity.py, IntraListDiversity with "
        "PairwiseHammingDistanceCalculator",
        "serendipity": "rectools/metrics/serendipity.py, Serendipity (n_items = len(catalog))",
    },
)
