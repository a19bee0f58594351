"""Elliot's beyond-accuracy metrics (``elliot/evaluation/metrics/``)."""

from ._provider import Provider

PROVIDER = Provider(
    name="elliot",
    order=100,
    library="Elliot",
    version="0.3.1",
    beyond={
        "entropy": {"base": 2.0, "normalize": "none"},
        "arp": {"count": "users", "normalize": False},
        "aplt": {"head": 0.8, "head_by": "interactions", "count": "users"},
    },
    beyond_sources={
        "entropy": "Elliot 0.3.1, elliot/evaluation/metrics/diversity/shannon_entropy, "
        "ShannonEntropy (equal list lengths)",
        "arp": "elliot/evaluation/metrics/bias/arp/arp.py, ARP",
        "aplt": "elliot/evaluation/metrics/bias/aplt/aplt.py, APLT, with the short head of "
        "elliot/evaluation/popularity_utils/popularity.py (pop_ratio 0.8 of the training "
        "(user, item) pairs, popularity in distinct users; ties at the border in Elliot's "
        "item order there, by item id here)",
    },
)
