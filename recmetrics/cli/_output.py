"""Writing the results: table, csv, json, latex (booktabs) and trec_eval's own lines."""

from __future__ import annotations

import json
import numbers

import numpy as np
import pandas as pd


def _write(table, fmt, digits, out, *, value_name="value"):
    if fmt == "json":
        if isinstance(table, pd.Series):
            data = {k: _json_value(v) for k, v in table.items()}
        else:
            data = {
                str(uid): {k: _json_value(v) for k, v in row.items()}
                for uid, row in table.iterrows()
            }
        json.dump(data, out, indent=2)
        out.write("\n")
        return
    frame = table.to_frame(value_name) if isinstance(table, pd.Series) else table
    if isinstance(table, pd.Series):
        frame.index.name = "measure"
    if fmt == "csv":
        frame.to_csv(out)
    elif fmt == "latex":
        out.write(_latex(frame, digits))
    else:
        out.write(frame.to_string(float_format=f"%.{digits}f".__mod__, na_rep="NaN") + "\n")


def _json_value(v):
    """A JSON value with every digit of a float (repr), null for NaN."""
    if isinstance(v, bool | np.bool_):
        return bool(v)
    if isinstance(v, numbers.Real):
        return None if np.isnan(v) else float(v)
    return None if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)


def _write_trec(table, per_user, digits, out):
    """trec_eval's own output: ``measure  query  value`` lines, ``all`` for the mean."""
    if per_user:
        for uid, row in table.iterrows():
            for label, value in row.items():
                if not pd.isna(value):
                    out.write(f"{label:<22}\t{uid}\t{value:.{digits}f}\n")
        means = table.mean()
    else:
        means = table
    for label, value in means.items():
        out.write(f"{label:<22}\tall\t{value:.{digits}f}\n")


_TEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _tex(text):
    """Text with LaTeX's special characters escaped."""
    return "".join(_TEX.get(c, c) for c in str(text))


def _tex_cell(value, digits):
    if value is None or (isinstance(value, float | np.floating) and np.isnan(value)):
        return "--"
    if isinstance(value, float | np.floating):
        return f"{value:.{digits}f}"
    return _tex(value)


def _latex(frame, digits):
    """A booktabs ``tabular`` of ``frame``: its index levels, then its columns.

    Written here rather than by ``DataFrame.to_latex`` (which needs jinja2,
    not a dependency of the package, and does not escape ``_`` by default);
    an outer index value repeated from the row above is left blank.

    Examples
    --------
    >>> frame = pd.DataFrame({"value": [0.25, float("nan")]}, index=["P_10", "map"])
    >>> frame.index.name = "measure"
    >>> print(_latex(frame, 3), end="")
    \\begin{tabular}{lr}
    \\toprule
    measure & value \\\\
    \\midrule
    P\\_10 & 0.250 \\\\
    map & -- \\\\
    \\bottomrule
    \\end{tabular}
    """
    levels = frame.index.nlevels
    names = ["" if n is None else n for n in frame.index.names]
    align = "l" * levels + "".join(
        "r"
        if pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
        else "l"
        for c in frame.columns
    )
    lines = [
        f"\\begin{{tabular}}{{{align}}}",
        "\\toprule",
        " & ".join(_tex(c) for c in [*names, *frame.columns]) + " \\\\",
        "\\midrule",
    ]
    previous = None
    for key, row in zip(frame.index, frame.itertuples(index=False), strict=True):
        key = key if isinstance(key, tuple) else (key,)
        shown = [_tex(k) for k in key]
        if previous is not None:
            for j in range(levels - 1):
                if key[j] != previous[j]:
                    break
                shown[j] = ""
        previous = key
        lines.append(" & ".join(shown + [_tex_cell(v, digits) for v in row]) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def _write_comparison(table, fmt, digits, out):
    """The table of ``compare``, indexed by (model, metric), in one of the output formats."""
    if fmt == "json":
        records = [
            {k: _json_value(v) for k, v in row.items()}
            for row in table.reset_index().to_dict("records")
        ]
        json.dump(records, out, indent=2)
        out.write("\n")
    elif fmt == "csv":
        table.to_csv(out)
    elif fmt == "latex":
        out.write(_latex(table, digits))
    else:
        float_format = f"%.{digits}f".__mod__
        out.write(table.to_string(float_format=float_format, na_rep="") + "\n")
