"""Evaluation on Spark and Dask DataFrames: the package's evaluate per group of users.

* :mod:`~recmetrics.distributed.spark` (``rm.spark``): one ``cogroup`` of
  truth and predictions by user, then :func:`recmetrics.evaluate` per group;
* :mod:`~recmetrics.distributed.dask` (``rm.dask``): one shuffle by user,
  then the same per partition;
* ``_common``: what both share (the names, the per-group evaluation).

Both are optional extras (``pip install ".[spark]"``, ``".[dask]"``).
"""
