"""Spark MLlib's ``RankingMetrics`` (``mllib/.../evaluation/RankingMetrics.scala``)."""

import math

from ._provider import Provider

PROVIDER = Provider(
    name="spark",
    order=70,
    library="Spark MLlib RankingMetrics",
    version="pyspark 4.3.0 (run); Scala source read in apache/spark (>= 3.4)",
    checked="run (tests/test_preset_parity.py)",
    ties="none: takes ranked lists",
    notes="binary relevance from (prediction, labels) pairs; graded NDCG only from "
    "3-tuples (since "
    "3.4.0, gain 2^rel - 1, ideal order = the labels as given); empty ground truth -> 0; no "
    "MRR",
    keywords={"no_relevant": "zero", "gain": "binary", "log_base": math.e},
    metrics={"precision": "k", "recall": "k", "map": "both", "ndcg": "k"},
    sources={
        "precision": "mllib/.../evaluation/RankingMetrics.scala: precisionAt",
        "recall": "mllib/.../evaluation/RankingMetrics.scala: recallAt",
        "map": "mllib/.../evaluation/RankingMetrics.scala: meanAveragePrecisionAt, "
        "meanAveragePrecision",
        "ndcg": "mllib/.../evaluation/RankingMetrics.scala: ndcgAt",
    },
)
