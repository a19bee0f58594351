"""The libraries' definitions of the beyond-accuracy metrics, as keyword values.

:data:`PRESETS` and :data:`SOURCES` come from :mod:`recmetrics.providers`
(one provider file per library); :func:`_resolve` gives each metric the
values of its keywords under ``convention=``, and :func:`describe` tabulates
the presets.
"""

from __future__ import annotations

import pandas as pd

from ..._validation import check_choice
from ...providers import BEYOND_PRESETS, BEYOND_SOURCES
from ...providers import PRESETS as RANKING_PRESETS

__all__ = ["PRESETS", "SOURCES", "describe"]

# the libraries' definitions, one provider file per library (recmetrics.providers)
PRESETS: dict[str, dict[str, dict]] = BEYOND_PRESETS
"""Library -> metric -> keywords (from :mod:`recmetrics.providers`)."""


def _resolve(metric, convention, passed, defaults):
    """Values of the keywords: passed, else the preset's, else the default."""
    preset = {}
    if convention is not None:
        _check_convention_type(convention)
        if convention not in PRESETS:
            if convention in RANKING_PRESETS:
                raise ValueError(
                    f"convention={convention!r} defines no beyond-accuracy metrics here; "
                    f"presets of this family: {', '.join(sorted(PRESETS))}"
                )
        check_choice(convention, "convention", tuple(PRESETS))
        if metric not in PRESETS[convention]:
            have = ", ".join(sorted(PRESETS[convention])) or "none"
            raise ValueError(
                f"convention={convention!r} has no {metric} (the library's metrics of this "
                f"family here: {have})"
            )
        preset = PRESETS[convention][metric]
    out = {}
    for key, default in defaults.items():
        value = passed.get(key)
        if key in preset:
            if value is not None and not _same(value, preset[key]):
                raise ValueError(
                    f"convention={convention!r} sets {key}={preset[key]!r} for {metric}, "
                    f"but {key}={value!r} was passed; drop one of them"
                )
            value = preset[key]
        out[key] = default if value is None else value
    return out


def _check_convention_type(convention):
    if not isinstance(convention, str):
        raise TypeError(
            f"convention must be a preset name (a string such as 'rectools'), got "
            f"{type(convention).__name__}"
        )


def _same(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b


SOURCES: dict[str, dict[str, str]] = BEYOND_SOURCES
"""Library -> metric -> the file and function each preset was read from."""


def describe(convention=None):
    """The beyond-accuracy presets: what each library's definition sets, and where it comes from.

    Parameters
    ----------
    convention : str, optional
        One library (a key of :data:`PRESETS`); all of them by default.

    Returns
    -------
    pandas.DataFrame
        One row per (library, metric) with the keywords the preset sets and
        the source file and function.

    See Also
    --------
    recmetrics.conventions.describe : The presets of the ranking metrics.

    References
    ----------
    .. [1] M. Kaminskas and D. Bridge. Diversity, Serendipity, Novelty, and
       Coverage. ACM TiiS 7(1), 2016.

    Examples
    --------
    >>> describe("recbole").loc[("recbole", "entropy"), "keywords"]
    "base=2.718281828459045, normalize='distinct'"
    """
    if convention is not None:
        _check_convention_type(convention)
    names = tuple(PRESETS) if convention is None else (convention,)
    for name in names:
        check_choice(name, "convention", tuple(PRESETS))
    rows = {
        (name, metric): {
            "keywords": ", ".join(f"{key}={value!r}" for key, value in kw.items()),
            "source": SOURCES[name][metric],
        }
        for name in names
        for metric, kw in PRESETS[name].items()
    }
    table = pd.DataFrame(rows).T
    table.index.names = ["convention", "metric"]
    return table
