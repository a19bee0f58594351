"""trec_eval's ``relstring`` on the command line: one string per query, never a mean.

``-m relstring`` (trec_eval's default, 10 characters) or ``-m relstring.N``
(``relstring_N``) is :func:`recmetrics.relstring` of each evaluated query:
the grades of its first ``N`` documents as a string (``m_relstring.c``).
It is a string, not a number, so it has per-query values only:

* ``--format trec`` with ``--per-user`` (``-q``) prints trec_eval's line
  ``relstring<pad>\\tquery\\t'0110-...'`` (``te_print_q_relstring``), in
  trec_eval's order, and no ``all`` line; unchanged by ``-Z``, as
  trec_eval prints it (no ``Z``);
* ``--format json``, ``table``, ``latex`` with ``--per-user``: a text
  column, after the numbers; ``csv`` quotes it as trec_eval prints it
  (``'0110'``), so that a reader keeps it as text (``0110`` would read as
  the number 110);
* without ``--per-user`` a ``-m relstring`` is refused (exit status 2), and
  the groups (``-m all_trec``) leave it out, as trec_eval prints it for
  each query only; ``compare`` (means) refuses it.

The string needs one order of the documents: ties are broken by the
``--ties`` given when it is deterministic, else (``expected``, the
package's default) by trec_eval's order (``form_res_rels.c``). trec_eval's
``-M`` and ``-J`` apply; ``-l`` does not (the string shows the grades).
"""

from __future__ import annotations

import re

import pandas as pd

__all__ = ["RELSTRING", "relstring_label", "relstring_table"]

RELSTRING = "relstring"
_NAME = re.compile(r"^relstring(?:[._](\d+))?$")


def relstring_label(name):
    """``(label, N)`` for trec_eval's ``relstring[.N]``, else None.

    Examples
    --------
    >>> relstring_label("relstring"), relstring_label("relstring.20"), relstring_label("map")
    (('relstring', 10), ('relstring_20', 20), None)
    """
    m = _NAME.match(name) if isinstance(name, str) else None
    if m is None:
        return None
    if m.group(1) is None:
        return (RELSTRING, 10)
    n = int(m.group(1))
    if n < 1:
        raise ValueError(f"measure {name!r}: the length of the string must be >= 1")
    return (f"relstring_{n}", n)


def relstring_table(truth, run, frames, args, users):
    """The strings of each ``(label, N)`` of ``args.relstrings``, one row per query.

    ``frames`` holds the column names (``user``, ``item``, ``score``,
    ``rank``, ``relevance``); ``users`` is the index of the numeric table
    (None: the queries of the ranking, by ``--users`` or the preset's).
    """
    from .. import conventions
    from ..evaluation._trec_options import trec_frames
    from ..inputs.frames import from_frames
    from ..metrics.trec_gain import relstring
    from ._keyword_options import _KEYWORD_OPTIONS

    passed = {k: getattr(args, k) for k in _KEYWORD_OPTIONS}
    options = conventions.resolve(args.convention, passed)[0]
    ties = options.get("ties") or "expected"
    ties = "trec_eval" if ties == "expected" else ties
    opts = {
        "max_depth": options.get("max_depth"),
        "relevance_level": None,  # the grades as they are
        "judged_only": options.get("judged_only"),
        "users": args.users or options.get("users"),
        "score_dtype": options.get("score_dtype"),
    }
    t, p, who, relevance = trec_frames(truth, run, frames, opts)
    r = from_frames(
        t, p, user=frames["user"], item=frames["item"], score=frames["score"],
        rank=frames["rank"], relevance=relevance, users=who, ties=ties,
        retrieve_nonpositive=options.get("retrieve_nonpositive") is not False,
        score_dtype=opts["score_dtype"],
    )  # fmt: skip
    columns = {}
    for label, n in args.relstrings:
        strings = relstring(r, k=n, ties=ties)
        if not isinstance(strings, pd.Series):  # one user
            strings = pd.Series([strings], index=r.user_ids)
        columns[label] = strings
    table = pd.DataFrame(columns, dtype=object)
    if args.format == "csv":
        table = table.map(lambda text: f"'{text}'")
    if users is not None:
        table = table.reindex(users).fillna("''" if args.format == "csv" else "")
    return table
