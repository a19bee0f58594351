"""LensKit (``lenskit/metrics/ranking/``)."""

from ._provider import Provider

PROVIDER = Provider(
    name="lenskit",
    order=90,
    library="LensKit",
    version="2025.8.1",
    checked="run (tests/test_preset_parity.py)",
    ties="order of its top-n selection (unspecified)",
    notes="discount 1/log2(max(rank, 2)); precision divides by the list length and AP by "
    "min(|R|, list length) when the list is shorter than k (short_lists='list'); only the "
    "users with a list are measured; a list whose user has no test item has precision 0 and "
    "NaN elsewhere, counted 0 in list_summary (here 0 per user too); its AveragePrecision "
    "raises ZeroDivisionError on such a list",
    # LensKit measures the recommendation lists it is given (a user without a
    # list is not evaluated; a list whose user has no test item counts 0 in
    # its summary), and scores a list shorter than k over its own length
    keywords={
        "recall_denominator": "min",
        "gain": "binary",
        "discount": "jarvelin",
        "no_relevant": "zero",
        "short_lists": "list",
        "users": "predictions",
    },
    metrics={
        "precision": "both",
        "recall": "both",
        "hr": "both",
        "mrr": "both",
        "map": "both",
        "ndcg": "both",
    },
    sources={
        "precision": "lenskit/metrics/ranking/_pr.py: Precision",
        "recall": "lenskit/metrics/ranking/_pr.py: Recall",
        "hr": "lenskit/metrics/ranking/_hit.py: Hit",
        "mrr": "lenskit/metrics/ranking/_recip.py: RecipRank",
        "map": "lenskit/metrics/ranking/_map.py: AveragePrecision",
        "ndcg": "lenskit/metrics/ranking/_dcg.py: NDCG; _weighting.py: LogRankWeight",
    },
)
