"""unjudged@k (trec_eval 10.0's ``unj``) of a query whose qrels lines are all negative grades.

Such a query is in the qrels (every line says: in the pool, not judged), so
trec_eval evaluates it (``m_unjudged.c``): its retrieved documents are all
unjudged, ``unj_k`` = min(k, n) / k. We used to treat it as a user without
any judgment (undefined, 0 under trec_eval's preset). The expected lines
below are trec_eval 10.0-rc3's own output on these files (built from
usnistgov/trec_eval; pytrec_eval's 9.0.8 has no ``unj``, and hangs on such
queries, so it is not called here).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_io_cli import in_process

import recmetrics as rm

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 a -1\nq2 0 d -1\n"
RUN = (
    "q1 Q0 b 1 3 r\nq1 Q0 a 2 2 r\nq1 Q0 c 3 1 r\n"
    "q2 Q0 a 1 3 r\nq2 Q0 d 2 2 r\nq2 Q0 x 3 1 r\n"
    "q3 Q0 x 1 1 r\n"
)
# trec_eval -q -m unj -m unj.2 qrels run  (trec_eval 10.0-rc3)
TREC_EVAL_10 = """\
unj_2                 \tq1\t0.0000
unj_5                 \tq1\t0.2000
unj_10                \tq1\t0.1000
unj_20                \tq1\t0.0500
unj_2                 \tq2\t1.0000
unj_5                 \tq2\t0.6000
unj_10                \tq2\t0.3000
unj_20                \tq2\t0.1500
unj_2                 \tall\t0.5000
unj_5                 \tall\t0.4000
unj_10                \tall\t0.2000
unj_20                \tall\t0.1000
"""


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path / "qrels", tmp_path / "run"


def test_cli_prints_trec_eval_10s_unj(files):
    out = in_process(
        "evaluate", *files, "-m", "unj", "unj.2", "-q", "--convention", "trec_eval",
        "--format", "trec",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert sorted(out.stdout.strip().splitlines()) == sorted(TREC_EVAL_10.strip().splitlines())


def test_a_query_of_pooled_lines_only_is_evaluated(files):
    qrels, run = rm.io.read_trec_qrels(files[0]), rm.io.read_trec_run(files[1])
    got = rm.evaluate(
        qrels, run, ["unjudged@2", "unjudged@5", "judged@2"], users="both", per_user=True
    )
    assert got.loc["q2"].tolist() == [1.0, 0.6, 0.0]
    assert got.loc["q1"].tolist() == [0.0, 0.2, 1.0]
    # the function itself, every tie policy (q2's list has no tie)
    for ties in ("expected", "optimistic", "pessimistic", "trec_eval"):
        r = rm.from_frames(qrels, run, ties=ties)
        np.testing.assert_allclose(rm.unjudged(r, k=5, per_user=True)["q2"], 0.6)


def test_a_user_without_any_truth_row_stays_undefined(files):
    qrels, run = rm.io.read_trec_qrels(files[0]), rm.io.read_trec_run(files[1])
    per = rm.evaluate(qrels, run, ["unjudged@2", "judged@2"], users="all", per_user=True)
    assert per.loc["q3"].isna().all()  # in the run only: neither evaluates it
    zero = rm.evaluate(qrels, run, ["unjudged@2"], users="all", per_user=True, no_relevant="zero")
    assert zero.loc["q3", "unjudged@2"] == 0.0 and zero.loc["q2", "unjudged@2"] == 1.0


def test_pooled_only_user_with_ties():
    # q: pooled x and y, tied with an unpooled z; all three are unjudged in every order
    truth = pd.DataFrame({"user": "q", "item": ["x", "y"], "relevance": [-1, -1]})
    run = pd.DataFrame({"user": "q", "item": ["x", "y", "z", "w"], "score": [1.0, 1.0, 1.0, 0.0]})
    assert rm.unjudged(truth, run, k=3) == 1.0
    assert rm.judged(truth, run, k=3) == 0.0
