"""The metric functions, one module per chapter, and the registry of their names.

Every metric is a small function of one representation: the ranking metrics
of a :class:`~recmetrics.Ranking` (where each relevant item sits, with its
tie group), the beyond-accuracy metrics of the recommended lists.

* :mod:`~recmetrics.metrics.rating`: RMSE, MAE (``book/rating``);
* :mod:`~recmetrics.metrics.topn`: precision, recall, F, HR, ARHR, MRR, AP
  (``book/topn``);
* :mod:`~recmetrics.metrics.ndcg`: CG, DCG, IDCG, NDCG (``book/ndcg``);
* :mod:`~recmetrics.metrics.roc_auc`: ROC, AUC, precision-recall curve
  (``book/roc_auc``);
* :mod:`~recmetrics.metrics.judged`: measures of incomplete judgments,
  judged@k, unjudged@k and bpref (long data frames tell judged
  non-relevant items from unjudged ones);
* :mod:`~recmetrics.metrics.rbp`: rank-biased precision and its residual;
* :mod:`~recmetrics.metrics.trec_sets`: trec_eval's set measures (set
  precision, recall, F, relative precision) and relative precision at k;
* :mod:`~recmetrics.metrics.interpolated_precision`: trec_eval's
  interpolated precision at recall levels and its 11-point average;
* :mod:`~recmetrics.metrics.trec_counts` and
  :mod:`~recmetrics.metrics.trec_summaries`: trec_eval's counts (``num_*``,
  summed over users), ``gm_map`` and ``gm_bpref`` (geometric means),
  ``set_map`` and ``Rprec_mult``; :mod:`~recmetrics.metrics.infap`:
  inferred AP; ``_aggregate``: how a metric's per-user values are
  summarised (the mean, a sum, a geometric mean), read by every consumer;
* :mod:`~recmetrics.metrics.trec_gain` and
  :mod:`~recmetrics.metrics.trec_gain_walks`: trec_eval's gain-based
  measures (``Rndcg``, ``binG``, ``ndcg_rel``, ``G``; gain maps are the
  keyword ``gain_values`` of these and of DCG/NDCG), ``utility`` and
  ``relstring``, and ranx's Burges DCG;
* :mod:`~recmetrics.metrics.beyond`: coverage, concentration, novelty,
  popularity, diversity, serendipity, calibration (``book/beyond``);
* ``_core``: cutoff windows, expectations over tie groups, the policies for
  users without relevant items, shared by the ranking metrics;
* ``_registry``: one spec per metric name, what each metric needs declared
  as data; every consumer that turns a name into a metric reads it.

The public functions are re-exported by :mod:`recmetrics` (``rm.ndcg``,
``rm.precision``, ...); ``rm.beyond`` is :mod:`recmetrics.metrics.beyond`.
"""
