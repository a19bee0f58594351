"""Shared pieces of the public docstrings, written once and filled in by :func:`fill_doc`.

The parameters that most metric functions share (the input pair ``a, b``,
``k``, ``ranks``, ``n_items``, ``mask``, ``ties``, ``no_relevant``,
``per_user``, ...) and the references that many of them cite are written
once here, in the style of scipy's ``doccer`` and scikit-learn's shared
parameter descriptions. A docstring names a piece with a placeholder
``%(name)s``, usually on a line of its own inside its ``Parameters``,
``Returns`` or ``References`` section: the ``Parameters`` section of
:func:`recmetrics.precision` is the section header followed by the lines
``%(a_b)s``, ``%(k)s``, ..., ``%(per_user)s``, and the function is decorated
with ``@fill_doc``.

:func:`fill_doc` replaces each placeholder at import time, indenting every
line of the piece like the line that holds the placeholder, so the source
docstrings keep their sections (and pass the lint's docstring rules) while
``help()``, ``__doc__`` and the doctests (collected from ``__doc__`` after
import) see the full text. Only ``%(name)s`` with a known name is replaced
(braces of LaTeX and a literal ``%`` are left alone); an unknown name raises
``KeyError`` at import, so a typo cannot reach a user.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["DOCS", "fill_doc", "fill_text"]


def _indent(text: str, prefix: str = "    ") -> str:
    return textwrap.indent(text, prefix, lambda line: bool(line.strip()))


def _wrap(text: str, width: int = 72) -> str:
    """Re-fill the paragraphs (and ``* `` bullet items) of ``text`` to ``width`` columns.

    URLs and DOIs are never broken. The pieces hold no literal blocks or math,
    which re-filling would break.
    """
    out = []
    for para in textwrap.dedent(text).strip("\n").split("\n\n"):
        if para.lstrip().startswith("* "):
            items = re.split(r"\n(?=\* )", para.strip())
            out.append(
                "\n".join(
                    textwrap.fill(
                        " ".join(item[2:].split()),
                        width,
                        initial_indent="* ",
                        subsequent_indent="  ",
                        break_long_words=False,
                        break_on_hyphens=False,
                    )
                    for item in items
                )
            )
        else:
            out.append(
                textwrap.fill(
                    " ".join(para.split()), width, break_long_words=False, break_on_hyphens=False
                )
            )
    return "\n\n".join(out)


def _param(header: str, description: str) -> str:
    """A numpydoc entry: ``name : type`` and its description, indented by four spaces."""
    return header + "\n" + _indent(_wrap(description))


# --------------------------------------------------------------------------
# what the arguments of a metric mean, read from their types
_INPUT_FORMS = """\
What the arguments mean is decided by their *types*, never by their
values:

* one argument: a ranked list of gains (relevance grades >= 0 of the
  recommended items, best first; 0 = not relevant), the teaching form
  ``ndcg([3, 2, 3, 0, 1, 2])``. The list is its own catalogue.
* a ranked list and its relevant items: the first argument is one ranked
  list of item ids (best first, no repeats), the second a ``set`` or
  ``frozenset`` of relevant ids, or a ``dict`` item id -> grade (graded
  relevance; grade 0 = not relevant). For several users: a sequence of
  ranked lists and a list of sets or dicts, one per user. Relevant items
  missing from a list count in ``|R|`` but are never retrieved.
* any other pair of array-likes: ``(y_true, y_score)`` in scikit-learn's
  order, the gains (>= 0; dense or scipy.sparse) and the scores (dense and
  finite; higher is ranked first) of every item. 1-D arrays of equal length
  are one user; 2-D arrays of shape ``(n_users, n_items)`` hold one user per
  row, each ranked over its whole row (minus ``mask``).
* two pandas DataFrames in the long format of recommender libraries:
  ``truth`` (one row per relevant user-item pair, columns ``user`` and
  ``item``; a column ``relevance``, when present, holds the grades: 0 =
  judged non-relevant, as in TREC qrels) and ``predictions`` (columns
  ``user``, ``item`` and ``score``). Per-user results are indexed by the
  user ids. For other column names, a ``rank`` column, another relevance
  column or another user policy, build the
  ranking with :func:`~recmetrics.from_frames` (or pass the column keywords
  to :func:`~recmetrics.evaluate`).
* a :class:`~recmetrics.Ranking` built beforehand (for instance by
  :func:`~recmetrics.from_scores` or :func:`~recmetrics.from_frames`), with
  no second argument.

Leave both out to pass ``ranks=`` instead. Two sequences neither of which
holds a set or dict are always ``(y_true, y_score)``: pass relevant items
as sets or dicts to have ranked lists of item ids read as such."""

_K = _param(
    "k : int, optional",
    """\
Cutoff: only the top ``k`` positions count (an integer >= 1). ``None``
(default) is the whole ranking: the whole list, the whole row of a score
matrix (minus ``mask``), or ``n_items`` positions for ``ranks=``. With
``ranks=`` and no ``n_items`` the length of the ranking is unknown, and
a metric that needs it (precision's denominator, for instance) raises
``ValueError`` unless ``k`` is given.""",
)

_RANKS = _param(
    "ranks : array-like of int, or sequence of array-likes of int, optional",
    """\
Instead of the two positional inputs: the 1-based ranks of held-out relevant items in each
user's ranking (leave-one-out and sampled evaluation). A 1-D array gives
one relevant item per user; a sequence of 1-D arrays gives each user's
relevant items, at distinct ranks. Ranks hold no ties. The result is a
mean over users (or, with ``per_user``, one value per user), even for a
single rank.""",
)

_N_ITEMS = _param(
    "n_items : int or array-like of int, optional",
    """\
Catalogue size, shared or one per user, for ranked lists and ``ranks=``:
items outside a list are taken as tied below it, and with ``ranks=`` it
is also the length of the ranking. AUC and the true-negative count need
it. A list (with its relevant items missing from it) or a rank may not
exceed it. It does not apply (``TypeError``) to ``(y_true, y_score)``,
whose catalogue is the columns (exclude items with ``mask``), to a list
of gains, which is its own catalogue, or to a prebuilt Ranking.""",
)

_MASK = _param(
    "mask : array-like or scipy.sparse of bool, optional",
    """\
Score matrices only, of the shape of ``y_score``: ``True`` (or 1)
excludes that item for that user, e.g. the user's training
interactions. Excluded items are neither ranked nor relevant, and the
user's catalogue shrinks by them. The other input forms raise
``TypeError``.""",
)

_TIES = _param(
    "ties : {'expected', 'optimistic', 'pessimistic', 'trec_eval'}, optional",
    """\
How items with equal scores are ordered (only score matrices can hold
ties). ``None`` (default) means ``'expected'``: the exact expectation of
the metric over all orders of the tied items (McSherry & Najork, 2008),
deterministic and independent of the input order. ``'optimistic'`` puts
the relevant items of a tie first (higher gain first), ``'pessimistic'``
last (lower gain first), and ``'trec_eval'`` orders tied items by column,
higher index first, as trec_eval orders tied documents by decreasing
document id. For a prebuilt :class:`~recmetrics.Ranking`, ``None`` means
the policy it was built with, and another policy raises ``ValueError``.""",
)

_NO_RELEVANT = _param(
    "no_relevant : {'skip', 'zero', 'one', 'raise'}, default 'skip'",
    """\
What a user for whom the metric is undefined counts as: a user without
relevant items (for AUC, also one without non-relevant items).
``'skip'`` (the book's recommendation) leaves the user out of the mean
and gives NaN per user (a single such user, or a mean over no user at
all, is NaN); ``'zero'`` counts 0 (trec_eval, scikit-learn's
``ndcg_score``, torchmetrics' default); ``'one'`` counts 1
(scikit-learn's ``label_ranking_average_precision_score``, torchmetrics'
``empty_target_action='pos'``); ``'raise'`` raises ``ValueError``.""",
)

_JUDGED_ONLY = _param(
    "judged_only : bool, default False",
    """\
``True`` evaluates Sakai's condensed list (Sakai, 2007; trec_eval's
``-J``): every unjudged ranked item is removed and the judged ones close
up (:meth:`~recmetrics.Ranking.condensed`). Only long data frames tell
judged items from unjudged ones (the pairs of ``truth`` with a grade >= 0
are judged); every other input form judges every item, so its ranking is
evaluated as it is.""",
)

_PER_USER = _param(
    "per_user : bool, default False",
    """\
Return one value per user, a ``numpy.ndarray`` of shape ``(n_users,)``
(a ``pandas.Series`` indexed by user id for data frames), instead of the
mean over users. One user's input (a list of gains, one
ranked list with a set or dict, 1-D ``y_true`` and ``y_score``) always
gives a float.""",
)

_RETURNS_METRIC = _param(
    "float or numpy.ndarray of shape (n_users,)",
    """\
The mean of the per-user values (users left out by
``no_relevant='skip'`` do not count); the value of the one user for one
user's input; or, with ``per_user=True``, the value of every user.""",
)

# --------------------------------------------------------------------------
# the cumulative-gain family (cg, dcg, idcg, ndcg)
_GAIN = _param(
    "gain : {'linear', 'exponential', 'binary'}, default 'linear'",
    """\
The gain ``g`` of a grade: ``g(rel) = rel`` (Järvelin & Kekäläinen,
trec_eval, scikit-learn, ranx's ``ndcg``), ``2^rel - 1`` (Burges et al.,
2005; ranx's ``ndcg_burges``; grades up to 1023), or 1 for every
relevant item (libraries that know only a set of relevant items). The
three coincide for binary relevance.""",
)

_LOG_BASE = _param(
    "log_base : float, default 2",
    """\
Base ``b > 1`` of the logarithm in the discount (``math.e`` for
Microsoft Recommenders and Spark). With ``discount='log'`` it cancels
out of NDCG.""",
)

_DISCOUNT = _param(
    "discount : {'log', 'jarvelin'}, default 'log'",
    """\
``'log'``: ``1 / log_b(i + 1)``, the discount of most libraries;
``'jarvelin'``: the original ``1 / max(1, log_b(i))`` of Järvelin &
Kekäläinen (2002), which leaves the ranks ``i <= b`` undiscounted
(LensKit's default with ``b = 2``). See :func:`~recmetrics.discount`.""",
)

_IDCG = _param(
    "idcg : {'min', 'k'}, default 'min'",
    """\
The ideal list: ``'min'`` holds the user's relevant items in decreasing
order of gain, so only ``min(|R|, k)`` positions carry gain (most
libraries); ``'k'`` is as if ``k`` relevant items filled the list
(RecTools' default; needs a cutoff ``k`` and binary relevance), which
caps NDCG below 1 for users with fewer than ``k`` relevant items.""",
)

# --------------------------------------------------------------------------
# the libraries behind the convention presets
_LIBRARY_REFERENCES = (
    "tamm2021",
    "trec_eval",
    "pedregosa2011",
    "bassani2022",
    "detlefsen2022",
    "zhao2021",
    "argyriou2020",
    "meng2016",
    "ekstrand2020",
)

# --------------------------------------------------------------------------
# AUC and rank loss
_AUC_AVERAGE = _param(
    "average : {'user', 'weighted', 'relevant', 'global'}, default 'user'",
    """\
``'user'``: the mean of the per-user AUCs. ``'weighted'``: the per-user
AUCs weighted by each user's number of ranked items (impressions), the
GAUC of Zhou et al. (2018). ``'relevant'``: weighted by each user's number
of relevant items (its support), scikit-learn's ``average='weighted'`` with
the users as labels (``roc_auc_score(y_true.T, y_score.T,
average='weighted')``). With a weighted average ``no_relevant`` may be
``'skip'``, ``'zero'`` or ``'raise'``. ``'global'``: pool every (user, item) pair of
``(y_true, y_score)`` into one ranking and compute one AUC, as
``sklearn.metrics.roc_auc_score`` on the flattened arrays (score
matrices only, without ``per_user``).""",
)

# --------------------------------------------------------------------------
# rating prediction (rmse, mae, rating_errors_by_user)
_RATING_Y = "\n".join(
    [
        _param(
            "y_true : array-like of shape (n_ratings,)",
            """\
True ratings :math:`r_{ui}` of the test pairs (finite numbers).""",
        ),
        _param(
            "y_pred : array-like of shape (n_ratings,)",
            """\
Predicted ratings :math:`\\hat r_{ui}` of the same pairs, in the same
order.""",
        ),
    ]
)

_RATING_CLIP = _param(
    "clip : (float, float), optional",
    """\
Clip the predictions to the rating scale ``(low, high)`` before
measuring errors (``low <= high``). When the true ratings lie in the
scale, clipping can only reduce every error.""",
)

_RATING_AVERAGE = "\n".join(
    [
        _param(
            "users : array-like of shape (n_ratings,), optional",
            """\
The user of each rating (hashable ids of one kind, no missing id);
required when ``average='user'``.""",
        ),
        _param(
            "average : {'global', 'user'}, default 'global'",
            """\
``'global'`` averages the errors over all test pairs, so every rating
weighs the same and heavy users dominate (the Netflix Prize and most
papers); ``'user'`` computes the metric per user and takes the
unweighted mean over users, so every user weighs the same.""",
        ),
    ]
)

_RATING_MIN = _param(
    "min_ratings : int, default 1",
    """\
With ``average='user'``, leave out users with fewer test ratings (must
stay 1 with ``average='global'``).""",
)

# --------------------------------------------------------------------------
# sampled metrics
_SAMPLED_N_ITEMS = _param(
    "n_items : int",
    """\
Catalogue size ``n``: the relevant item and ``n - 1`` irrelevant ones
(an integer >= 2, at most 2**53).""",
)

_SAMPLED_N_SAMPLES = _param(
    "n_samples : int",
    """\
Number ``m`` of sampled irrelevant items (>= 1; at most ``n - 1``
without replacement).""",
)

_SAMPLED_REPLACE = _param(
    "replace : bool, default True",
    """\
Sample the irrelevant items with replacement (``r~ - 1`` is binomial,
the model of Krichene & Rendle) or without (hypergeometric).""",
)

_SAMPLED_METRIC = _param(
    "metric : str, callable or RankMetric",
    """\
A registered metric name with an optional cutoff (``"ndcg@10"``,
``"recall@10"``, ``"auc"``, ...), or a vectorised callable ``f(ranks)``
(or ``f(ranks, n_items=...)``) returning one float per rank; see
:func:`metric_function`.""",
)

# --------------------------------------------------------------------------
# references, one paragraph each, re-filled by _wrap (cited in the text as "Author (year)")
_REFERENCES = {
    "bassani2022": "Bassani, E. (2022). ranx: a blazing-fast Python library for ranking "
    "evaluation and comparison. Proceedings of ECIR 2022, LNCS 13186, 259-264. "
    "doi:10.1007/978-3-030-99739-7_30",
    "argyriou2020": "Argyriou, A., González-Fierro, M. and Zhang, L. (2020). Microsoft "
    "Recommenders: best practices for production-ready recommendation systems. Companion "
    "Proceedings of the Web Conference 2020, 50-51. doi:10.1145/3366424.3382692",
    "bennett2007": "Bennett, J. and Lanning, S. (2007). The Netflix Prize. Proceedings of KDD "
    "Cup and Workshop 2007.",
    "buckley2005": "Buckley, C. and Voorhees, E. M. (2005). Retrieval system evaluation. In "
    "Voorhees, E. M. and Harman, D. K. (eds.), TREC: Experiment and Evaluation in Information "
    "Retrieval, Ch. 3. MIT Press.",
    "buckley2004": "Buckley, C. and Voorhees, E. M. (2004). Retrieval evaluation with "
    "incomplete information. Proceedings of SIGIR 2004, 25-32. doi:10.1145/1008992.1009000",
    "burges2005": "Burges, C., Shaked, T., Renshaw, E., Lazier, A., Deeds, M., Hamilton, N. and "
    "Hullender, G. (2005). Learning to rank using gradient descent. Proceedings of ICML 2005, "
    "89-96. doi:10.1145/1102351.1102363",
    "chai2014": "Chai, T. and Draxler, R. R. (2014). Root mean square error (RMSE) or mean "
    "absolute error (MAE)? Geoscientific Model Development 7(3), 1247-1250. "
    "doi:10.5194/gmd-7-1247-2014",
    "davis2006": "Davis, J. and Goadrich, M. (2006). The relationship between precision-recall "
    "and ROC curves. Proceedings of ICML 2006, 233-240. doi:10.1145/1143844.1143874",
    "deshpande2004": "Deshpande, M. and Karypis, G. (2004). Item-based top-N recommendation "
    "algorithms. ACM Transactions on Information Systems 22(1), 143-177. "
    "doi:10.1145/963770.963776",
    "detlefsen2022": "Detlefsen, N. S. et al. (2022). TorchMetrics: measuring reproducibility in "
    "PyTorch. Journal of Open Source Software 7(70), 4101. doi:10.21105/joss.04101",
    "ekstrand2020": "Ekstrand, M. D. (2020). LensKit for Python: next-generation software for "
    "recommender systems experiments. Proceedings of CIKM 2020, 2999-3006. "
    "doi:10.1145/3340531.3412778",
    "fawcett2006": "Fawcett, T. (2006). An introduction to ROC analysis. Pattern Recognition "
    "Letters 27(8), 861-874. doi:10.1016/j.patrec.2005.10.010",
    "gautschi2004": "Gautschi, W. (2004). Orthogonal Polynomials: Computation and Approximation, "
    "Sec. 2.2. Oxford University Press.",
    "golub1969": "Golub, G. H. and Welsch, J. H. (1969). Calculation of Gauss quadrature rules. "
    "Mathematics of Computation 23(106), 221-230. doi:10.1090/S0025-5718-69-99647-1",
    "hanley1982": "Hanley, J. A. and McNeil, B. J. (1982). The meaning and use of the area under "
    "a receiver operating characteristic (ROC) curve. Radiology 143(1), 29-36. "
    "doi:10.1148/radiology.143.1.7063747",
    "herlocker2004": "Herlocker, J. L., Konstan, J. A., Terveen, L. G. and Riedl, J. T. (2004). "
    "Evaluating collaborative filtering recommender systems. ACM Transactions on Information "
    "Systems 22(1), 5-53. doi:10.1145/963770.963772",
    "jarvelin2002": "Järvelin, K. and Kekäläinen, J. (2002). Cumulated gain-based evaluation of "
    "IR techniques. ACM Transactions on Information Systems 20(4), 422-446. "
    "doi:10.1145/582415.582418",
    "koren2009": "Koren, Y., Bell, R. and Volinsky, C. (2009). Matrix factorization techniques "
    "for recommender systems. Computer 42(8), 30-37. doi:10.1109/MC.2009.263",
    "krichene2020": "Krichene, W. and Rendle, S. (2020). On sampled metrics for item "
    "recommendation. Proceedings of KDD 2020, 1748-1757. doi:10.1145/3394486.3403226",
    "krichene2022": "Krichene, W. and Rendle, S. (2022). On sampled metrics for item "
    "recommendation. Communications of the ACM 65(7), 75-83. doi:10.1145/3535335",
    "lawson1974": "Lawson, C. L. and Hanson, R. J. (1974). Solving Least Squares Problems. "
    "Prentice-Hall.",
    "loader2000": "Loader, C. (2000). Fast and accurate computation of binomial probabilities. "
    "Technical report, Lucent Technologies, Bell Labs.",
    "macavaney2022": "MacAvaney, S., Macdonald, C. and Ounis, I. (2022). Streamlining "
    "evaluation with ir-measures. Proceedings of ECIR 2022, LNCS 13186, 305-310. "
    "doi:10.1007/978-3-030-99739-7_38 (https://github.com/terrierteam/ir_measures)",
    "manning2008": "Manning, C. D., Raghavan, P. and Schütze, H. (2008). Introduction to "
    "Information Retrieval, Ch. 8 (evaluation). Cambridge University Press.",
    "meng2016": "Meng, X. et al. (2016). MLlib: machine learning in Apache Spark. Journal of "
    "Machine Learning Research 17(34), 1-7.",
    "mcsherry2008": "McSherry, F. and Najork, M. (2008). Computing information retrieval "
    "performance measures efficiently in the presence of tied scores. Proceedings of ECIR 2008, "
    "LNCS 4956, 414-421. doi:10.1007/978-3-540-78646-7_38",
    "moffat2008": "Moffat, A. and Zobel, J. (2008). Rank-biased precision for measurement of "
    "retrieval effectiveness. ACM Transactions on Information Systems 27(1), 2:1-2:27. "
    "doi:10.1145/1416950.1416952",
    "pedregosa2011": "Pedregosa, F. et al. (2011). Scikit-learn: machine learning in Python. "
    "Journal of Machine Learning Research 12, 2825-2830 (``sklearn/metrics/_ranking.py``).",
    "sakai2007": "Sakai, T. (2007). Alternatives to bpref. Proceedings of SIGIR 2007, 71-78. "
    "doi:10.1145/1277741.1277756",
    "tamm2021": "Tamm, Y.-M., Damdinov, R. and Vasilev, A. (2021). Quality metrics in "
    "recommender systems: do we calculate metrics consistently? Proceedings of RecSys 2021, "
    "708-713. doi:10.1145/3460231.3478848",
    "trec_eval": "trec_eval, the evaluation program of TREC (NIST), "
    "https://github.com/usnistgov/trec_eval, run here through pytrec_eval: Van Gysel, C. and "
    "de Rijke, M. (2018). Pytrec_eval: an extremely fast Python interface to trec_eval. "
    "Proceedings of SIGIR 2018, 873-876. doi:10.1145/3209978.3210065",
    "vanrijsbergen1979": "van Rijsbergen, C. J. (1979). Information Retrieval, 2nd ed., Ch. 7. "
    "Butterworths, London.",
    "voorhees1999": "Voorhees, E. M. (1999). The TREC-8 question answering track report. "
    "Proceedings of TREC-8, 77-82.",
    "wang2013": "Wang, Y., Wang, L., Li, Y., He, D. and Liu, T.-Y. (2013). A theoretical "
    "analysis of NDCG type ranking measures. Proceedings of COLT 2013, 25-54.",
    "willmott2005": "Willmott, C. J. and Matsuura, K. (2005). Advantages of the mean absolute "
    "error (MAE) over the root mean square error (RMSE) in assessing average model performance. "
    "Climate Research 30(1), 79-82. doi:10.3354/cr030079",
    "xiang2012": "Xiang, L. (2012). Recommender System Practice (in Chinese). Posts & Telecom "
    "Press, Beijing.",
    "zhao2021": "Zhao, W. X. et al. (2021). RecBole: towards a unified, comprehensive and "
    "efficient framework for recommendation algorithms. Proceedings of CIKM 2021, 4653-4664. "
    "doi:10.1145/3459637.3482016",
    "zhou2016": "Zhou, Z.-H. (2016). Machine Learning (in Chinese), Ch. 2. Tsinghua University "
    "Press, Beijing.",
    "zhou2018": "Zhou, G. et al. (2018). Deep interest network for click-through rate "
    "prediction. Proceedings of KDD 2018, 1059-1068. doi:10.1145/3219819.3219823",
    # issue 26: trec_eval's summaries and infAP
    "yilmaz2006": "Yilmaz, E. and Aslam, J. A. (2006). Estimating average precision with "
    "incomplete and imperfect judgments. Proceedings of CIKM 2006, 102-111. "
    "doi:10.1145/1183614.1183633",
    "robertson2006": "Robertson, S. (2006). On GMAP: and other transformations. Proceedings "
    "of CIKM 2006, 78-83. doi:10.1145/1183614.1183630",
    # scikit-learn's curves and multilabel ranking measures (recmetrics/metrics/curves.py)
    "mcclish1989": "McClish, D. K. (1989). Analyzing a portion of the ROC curve. Medical "
    "Decision Making 9(3), 190-195. doi:10.1177/0272989X8900900307",
    "martin1997": "Martin, A., Doddington, G., Kamm, T., Ordowski, M. and Przybocki, M. (1997). "
    "The DET curve in assessment of detection task performance. Proc. Eurospeech 1997, "
    "1895-1898",
    "tsoumakas2010": "Tsoumakas, G., Katakis, I. and Vlahavas, I. (2010). Mining multi-label "
    "data. In Data Mining and Knowledge Discovery Handbook, 667-685. Springer. "
    "doi:10.1007/978-0-387-09823-4_34",
}

#: Every piece a docstring can name as ``%(name)s``.
# --------------------------------------------------------------------------
# beyond-accuracy metrics (recmetrics.beyond)
_BEYOND_PER_USER = """\
per_user : bool, default False
    Return one value per user (a NumPy array, or a pandas Series indexed
    by user id for DataFrame input) instead of the mean over the users
    for whom the value is defined."""

_N_USERS_POP = """\
n_users : int, optional
    With counts, the denominator of the popularity fraction (the number
    of training users, or of interactions for the interaction-share
    variant); derived from a DataFrame otherwise."""

_BEYOND_CONVENTION = """\
convention : str, optional
    Reproduce one library's definition (see
    :data:`recmetrics.beyond.PRESETS` and
    :func:`recmetrics.beyond.describe`): the preset fills every keyword
    left at ``None``; an explicit keyword that contradicts it raises."""


DOCS: dict[str, str] = {
    "input_forms": _wrap(_INPUT_FORMS),
    "a_b": "a, b : array-like, sequence, set, dict or Ranking, optional\n"
    + _indent(_wrap(_INPUT_FORMS, 68)),
    "k": _K,
    "ranks": _RANKS,
    "n_items": _N_ITEMS,
    "mask": _MASK,
    "ties": _TIES,
    "no_relevant": _NO_RELEVANT,
    "per_user": _PER_USER,
    "judged_only": _JUDGED_ONLY,
    "returns_metric": _RETURNS_METRIC,
    "gain": _GAIN,
    "log_base": _LOG_BASE,
    "discount": _DISCOUNT,
    "idcg": _IDCG,
    "auc_average": _AUC_AVERAGE,
    "rating_y": _RATING_Y,
    "rating_clip": _RATING_CLIP,
    "rating_average": _RATING_AVERAGE,
    "rating_min_ratings": _RATING_MIN,
    "sampled_n_items": _SAMPLED_N_ITEMS,
    "sampled_n_samples": _SAMPLED_N_SAMPLES,
    "sampled_replace": _SAMPLED_REPLACE,
    "sampled_metric": _SAMPLED_METRIC,
    "beyond_per_user": _BEYOND_PER_USER,
    "n_users_pop": _N_USERS_POP,
    "beyond_convention": _BEYOND_CONVENTION,
    **{f"ref_{key}": _wrap(text) for key, text in _REFERENCES.items()},
    "ref_libraries": "\n\n".join(_wrap(_REFERENCES[key]) for key in _LIBRARY_REFERENCES),
}

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def fill_text(doc: str) -> str:
    """Replace every ``%(name)s`` of ``doc`` by ``DOCS[name]``, indented like its line.

    Examples
    --------
    >>> print(fill_text("Parameters\\n    ----------\\n    %(per_user)s").splitlines()[2])
        per_user : bool, default False
    >>> fill_text("%(nope)s")
    Traceback (most recent call last):
    ...
    KeyError: 'unknown docstring placeholder %(nope)s'
    """
    out = []
    for line in doc.split("\n"):
        indent = line[: len(line) - len(line.lstrip())]

        def piece(match, indent=indent):
            name = match.group(1)
            if name not in DOCS:
                raise KeyError(f"unknown docstring placeholder %({name})s")
            first, *rest = DOCS[name].split("\n")
            return "\n".join([first, *((indent + r) if r.strip() else "" for r in rest)])

        out.append(_PLACEHOLDER.sub(piece, line))
    filled = "\n".join(out)
    if "%(" in filled:
        raise KeyError(
            f"malformed docstring placeholder near {filled[filled.index('%(') :][:30]!r}"
        )
    return filled


def fill_doc(obj):
    """Decorator: fill the shared pieces into the docstring of a function or class.

    The object is returned unchanged apart from its ``__doc__`` (left as it
    is when docstrings are stripped, ``python -OO``).
    """
    if obj.__doc__:
        obj.__doc__ = fill_text(obj.__doc__)
    return obj
