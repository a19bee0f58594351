"""Several models against a baseline on several metrics: a tidy table, and marks."""

from __future__ import annotations

from collections.abc import Hashable, Mapping

import numpy as np
import pandas as pd

from .._validation import check_choice, check_count, check_probability, check_seed
from ._common import _MISSING, _NAN, _align, _as_frame, _check_n_resamples, _columns_of
from .bootstrap import _CI_METHODS, _bootstrap
from .corrections import _ADJUSTMENTS, adjust_pvalues
from .paired import PAIRED_TESTS, _paired_tests

__all__ = ["compare", "significance_table"]


def _check_models(per_user_by_model, baseline):
    """The model names of ``compare``'s input, and its baseline (default: the first)."""
    if not isinstance(per_user_by_model, Mapping):
        raise TypeError(
            "per_user_by_model must be a dict of model name -> per-user values, got "
            f"{type(per_user_by_model).__name__}"
        )
    if len(per_user_by_model) < 2:
        raise ValueError(
            "per_user_by_model must hold at least two models (a baseline and one to compare "
            f"with it), got {len(per_user_by_model)}"
        )
    names = list(per_user_by_model)
    if baseline is None:
        baseline = names[0]
    elif not isinstance(baseline, Hashable):
        raise TypeError(f"baseline must be a model name, got {type(baseline).__name__}")
    if baseline not in per_user_by_model:
        raise ValueError(f"baseline {baseline!r} is not one of the models {names}")
    return names, baseline


def _model_label(name):
    """How error messages name one model's values."""
    return f"per_user_by_model[{name!r}]"


def _read_models(per_user_by_model, names, baseline):
    """Per model: its per-user frame and whether it had an index (one metric: one name)."""
    frames = {name: _as_frame(per_user_by_model[name], _model_label(name)) for name in names}
    if all(f.shape[1] == 1 for f, _ in frames.values()):
        # one metric: named after the baseline's Series (or the first named one)
        given = [frames[baseline][0].columns[0]] + [f.columns[0] for f, _ in frames.values()]
        metric = next((c for c in given if c != "value"), "value")
        frames = {k: (f.set_axis([metric], axis=1), i) for k, (f, i) in frames.items()}
    return frames


def _tidy_table(rows, correction, alpha):
    """``compare``'s rows as a table, p-values adjusted over all tests, significance flags."""
    table = pd.DataFrame(rows)
    for col in ("mean", "ci_low", "ci_high", "difference", "pvalue"):
        table[col] = table[col].astype(np.float64)
    tested = table["pvalue"].notna().to_numpy()
    adjusted = np.full(len(table), np.nan)
    adjusted[tested] = adjust_pvalues(table["pvalue"].to_numpy()[tested], correction)
    table["pvalue_adjusted"] = adjusted
    table["significant"] = (table["pvalue_adjusted"] < alpha).astype(bool)
    return table


def compare(
    per_user_by_model,
    *,
    baseline=None,
    test="t",
    correction="holm",
    alpha=0.05,
    level=0.95,
    ci_method="bca",
    n_resamples=10_000,
    seed=0,
    missing="raise",
    nan="drop",
):
    """Several models on several metrics: means, intervals, and tests against a baseline.

    Parameters
    ----------
    per_user_by_model : dict of str -> pandas.DataFrame
        For each model (at least two), its per-user values
        (``evaluate(..., per_user=True)``), the same metrics as columns and
        the same users; or one Series (or array) per model for a single
        metric, labelled by the Series' name.
    baseline : str, optional
        The model the others are compared with (default: the first).
    test : {'t', 'wilcoxon', 'sign', 'randomization'}, default 't'
        The paired test (see :func:`paired_test`).
    correction : {'holm', 'bonferroni', 'bh', 'none'}, default 'holm'
        Adjustment over all (model, metric) tests (see :func:`adjust_pvalues`).
    alpha : float, default 0.05
        Level at which an adjusted p-value counts as significant, in (0, 1).
    level, ci_method : float, str
        The interval of each mean (see :func:`bootstrap_ci`).
    n_resamples : int, default 10000
        Resamples of the bootstrap intervals and of a randomization test.
    seed : None, int or numpy.random.Generator, default 0
        An integer seeds every interval and test afresh (each model's users
        are resampled with the same draws); a Generator is drawn from in
        turn; ``None`` draws one seed from fresh OS entropy and then acts as
        that integer.
    missing, nan : str
        As in :func:`paired_test`.

    Returns
    -------
    pandas.DataFrame
        Tidy: one row per (model, metric), with the columns ``model``,
        ``metric``, ``mean``, ``ci_low``, ``ci_high``, ``difference`` (to the
        baseline), ``pvalue``, ``pvalue_adjusted`` (``float64``, NaN for the
        baseline itself) and ``significant`` (``bool``, False for the
        baseline).

    Raises
    ------
    TypeError
        For ``per_user_by_model`` that is not a dict, values that are not
        per-user numbers, arguments of the wrong type.
    ValueError
        For fewer than two models, an unknown baseline or option, ``alpha``
        or ``level`` outside (0, 1), models with different metrics, and as in
        :func:`paired_test` and :func:`bootstrap_ci`.

    See Also
    --------
    significance_table : the same as a printable table with marks.

    References
    ----------
    B. Carterette. Multiple testing in statistical analysis of systems-based
    information retrieval experiments. ACM TOIS 30(1), 2012.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> base = pd.DataFrame({"ndcg@10": rng.random(200), "recall@10": rng.random(200)})
    >>> better = base + rng.normal(0.05, 0.1, base.shape)
    >>> table = compare({"pop": base, "als": better}, n_resamples=1000)
    >>> table.loc[table["model"] == "als", ["metric", "significant"]].values.tolist()
    [['ndcg@10', True], ['recall@10', True]]
    """
    names, baseline = _check_models(per_user_by_model, baseline)
    check_choice(test, "test", PAIRED_TESTS)
    check_choice(correction, "correction", _ADJUSTMENTS)
    alpha = check_probability(alpha, "alpha")
    level = check_probability(level, "level")
    check_choice(ci_method, "ci_method", _CI_METHODS)
    n_resamples = _check_n_resamples(n_resamples)
    check_seed(seed)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)
    check_choice(missing, "missing", _MISSING)
    check_choice(nan, "nan", _NAN)
    frames = _read_models(per_user_by_model, names, baseline)
    base, base_indexed = frames[baseline]
    rows = []
    for name in names:
        values, indexed = frames[name]
        if name == baseline:
            tests = None
        else:
            b, a = _align(
                base,
                base_indexed,
                values,
                indexed,
                missing,
                (_model_label(baseline), _model_label(name)),
            )
            tests = _paired_tests(
                a,
                b,
                test,
                "two-sided",
                n_resamples,
                check_seed(seed),
                nan,
                (_model_label(name), _model_label(baseline)),
            )
            values = values[list(base.columns)]
        cis = _bootstrap(
            _columns_of(values, nan, _model_label(name)),
            level,
            ci_method,
            n_resamples,
            check_seed(seed),
            _model_label(name),
        )
        for metric, ci in cis.items():
            rows.append(
                {
                    "model": name,
                    "metric": metric,
                    "mean": ci.estimate,
                    "ci_low": ci.low,
                    "ci_high": ci.high,
                    "difference": np.nan if tests is None else tests[metric].mean_difference,
                    "pvalue": np.nan if tests is None else tests[metric].pvalue,
                }
            )
    return _tidy_table(rows, correction, alpha)


def significance_table(table, *, digits=4, marks=("*", ""), alpha=None):
    """The tidy output of :func:`compare` as models x metrics, with significance marks.

    Parameters
    ----------
    table : pandas.DataFrame
        The output of :func:`compare` (at least the columns ``model``,
        ``metric``, ``mean`` and ``significant``, or ``pvalue_adjusted``
        with ``alpha``), one row per (model, metric).
    digits : int, default 4
        Decimals of the means, from 0 to 17.
    marks : (str, str), default ('*', '')
        Appended to a mean that differs significantly from the baseline,
        and to one that does not.
    alpha : float, optional
        Re-threshold the adjusted p-values at this level, in (0, 1), instead
        of the ``significant`` column.

    Returns
    -------
    pandas.DataFrame
        Strings such as ``'0.4123*'``; export with ``.to_markdown()`` or
        ``.to_latex()``.

    Raises
    ------
    TypeError
        For a ``table`` that is not a DataFrame, non-numeric means, a
        ``significant`` column that is not boolean, ``digits`` that is not
        an integer, ``marks`` that is not two strings.
    ValueError
        For missing columns, an empty table, a (model, metric) pair given
        twice, ``digits`` outside [0, 17], ``alpha`` outside (0, 1).

    See Also
    --------
    compare

    References
    ----------
    T. Sakai. Statistical reform in information retrieval? SIGIR Forum
    48(1), 2014.

    Examples
    --------
    >>> t = pd.DataFrame({"model": ["a", "b"], "metric": ["ndcg", "ndcg"], "mean": [0.3, 0.35],
    ...                   "pvalue_adjusted": [np.nan, 0.01], "significant": [False, True]})
    >>> significance_table(t, digits=2).to_dict()
    {'ndcg': {'a': '0.30', 'b': '0.35*'}}
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(
            "table must be the DataFrame that recmetrics.stats.compare returns, got "
            f"{type(table).__name__}"
        )
    digits = check_count(digits, "digits", minimum=0, maximum=17)
    if (
        not isinstance(marks, (tuple, list))
        or len(marks) != 2
        or not all(isinstance(m, str) for m in marks)
    ):
        raise TypeError(f"marks must be two strings (significant, not significant), got {marks!r}")
    if alpha is not None:
        alpha = check_probability(alpha, "alpha")
    flag = "significant" if alpha is None else "pvalue_adjusted"
    absent = [c for c in ("model", "metric", "mean", flag) if c not in table.columns]
    if absent:
        raise ValueError(
            f"table lacks the column(s) {absent}: it must be the output of recmetrics.stats.compare"
        )
    if len(table) == 0:
        raise ValueError("table is empty")
    for col in ("mean", "pvalue_adjusted") if alpha is not None else ("mean",):
        dtype = table[col].dtype
        if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
            raise TypeError(f"table[{col!r}] must hold numbers, got dtype {dtype}")
    if alpha is None:
        if not pd.api.types.is_bool_dtype(table["significant"].dtype):
            raise TypeError(
                f"table['significant'] must be booleans, got dtype {table['significant'].dtype}"
            )
        sig = table["significant"].to_numpy(dtype=bool)
    else:
        sig = (table["pvalue_adjusted"] < alpha).to_numpy()
    keys = table[["model", "metric"]]
    if keys.isna().any().any():
        raise ValueError("table has a missing model or metric name")
    if keys.duplicated().any():
        model, metric = keys[keys.duplicated()].iloc[0]
        raise ValueError(f"table has the row (model {model!r}, metric {metric!r}) twice")
    text = [
        f"{m:.{digits}f}{marks[0] if s else marks[1]}"
        for m, s in zip(table["mean"].to_numpy(dtype=np.float64), sig, strict=True)
    ]
    out = table.assign(text=text).pivot(index="model", columns="metric", values="text")
    out = out.loc[pd.unique(table["model"]), pd.unique(table["metric"])]
    out.index.name, out.columns.name = None, None
    return out
