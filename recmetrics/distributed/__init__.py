"""Evaluation on Spark and Dask DataFrames: the package's evaluate per group of users.

* :mod:`~recmetrics.distributed.spark` (``rm.spark``): one ``cogroup`` of
  truth and predictions by user, then :func:`recmetrics.evaluate` per group;
* :mod:`~recmetrics.distributed.dask` (``rm.dask``): each frame shuffled by
  user into the same partitions (or, with ``presorted=True``, ranges of users
  cut out of frames already sorted by user), then the same per partition;
* ``_common``: what both share (the names, the per-group evaluation).

Both are optional extras (``pip install ".[spark]"``, ``".[dask]"``).
"""
