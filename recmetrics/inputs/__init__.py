"""The inputs layer: the only code that decides by type what an argument is.

* :mod:`~recmetrics.inputs.forms`: what the arguments of a metric mean,
  read from their types (score matrices, ranked lists, gains, ranks, long
  data frames, a prebuilt Ranking), and the Ranking built from them;
* :mod:`~recmetrics.inputs.frames`: long data frames ``(truth,
  predictions)`` -> Ranking (:func:`~recmetrics.from_frames`), with the
  judged non-relevant rows of ``truth`` kept apart from unjudged items;
* :mod:`~recmetrics.inputs.frame_rows`: the rows of those frames as integer
  codes, ordered by user and score, with their tie groups;
* :mod:`~recmetrics.inputs.lists`: recommended lists in every form (lists
  of ids, arrays, long frames, the top ``k`` of a score matrix) -> the
  lists the beyond-accuracy metrics read
  (``recmetrics.ranking.recommended``);
* :mod:`~recmetrics.inputs.ids`: ids and frames of interactions, read and
  checked once (id kinds, alignment across frames, labels, time columns).

Files are read into long data frames by :mod:`recmetrics.io`, upstream of
this layer.
"""
