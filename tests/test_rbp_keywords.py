"""RBP's gain and residual reach rm.evaluate and the CLI under their own names.

``gain`` is ndcg's (default 'linear'); rbp's is ``rbp_gain`` (default
'binary'), rbp_residual's definition ``rbp_residual_definition``. A metric
keyword that none of the requested metrics reads warns.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from test_io_cli import in_process

import recmetrics as rm

Y = np.array([[2, 0, 1, 0, 3], [0, 1, 0, 0, 0], [0, 0, 0, 0, 0]])
S = np.array([[0.5, 0.4, 0.4, 0.2, 0.1], [0.3, 0.3, 0.2, 0.1, 0.0], [0.1, 0.2, 0.3, 0.4, 0.5]])


@pytest.mark.parametrize("gain", ["binary", "linear", "scaled"])
def test_rbp_gain_reaches_rbp(gain):
    got = rm.evaluate(Y, S, ["rbp", "RBP(p=0.9)"], rbp_gain=gain, per_user=True)
    np.testing.assert_allclose(got["rbp"], rm.rbp(Y, S, gain=gain, per_user=True), atol=1e-15)
    np.testing.assert_allclose(
        got["RBP(p=0.9)"], rm.rbp(Y, S, p=0.9, gain=gain, per_user=True), atol=1e-15
    )


def test_default_is_binary_and_the_name_wins():
    plain = rm.evaluate(Y, S, ["rbp"])["rbp"]
    assert plain == rm.rbp(Y, S, gain="binary")
    got = rm.evaluate(Y, S, ["rbp(gain='scaled')", "rbp"], rbp_gain="linear")
    assert got["rbp(gain='scaled')"] == pytest.approx(rm.rbp(Y, S, gain="scaled"), abs=1e-15)
    assert got["rbp"] == pytest.approx(rm.rbp(Y, S, gain="linear"), abs=1e-15)


@pytest.mark.parametrize("definition", ["moffat_zobel", "trec_eval"])
def test_rbp_residual_definition(definition):
    truth = pd.DataFrame({"user": "q", "item": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"user": "q", "item": ["a", "b"], "score": [2.0, 1.0]})
    got = rm.evaluate(truth, run, ["rbp_residual"], rbp_residual_definition=definition)
    want = rm.rbp_residual(truth, run, definition=definition)
    assert got["rbp_residual"] == pytest.approx(want, abs=1e-15)
    if definition == "trec_eval":  # no unjudged document: trec_eval's residual is 0
        assert want == 0.0
    else:
        assert want > 0


def test_ndcg_gain_with_rbp_only_warns():
    with pytest.warns(UserWarning, match=r"gain='linear' is read by none .*rbp_gain"):
        rm.evaluate(Y, S, ["rbp"], gain="linear")
    with pytest.warns(UserWarning, match=r"log_base=10 is read by none .*ndcg"):
        rm.evaluate(Y, S, ["precision@2"], log_base=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rm.evaluate(Y, S, ["rbp", "ndcg@3"], gain="linear", rbp_gain="linear")
        rm.evaluate(Y, S, ["ndcg@3"], convention="ranx")  # a preset's values are not passed


@pytest.mark.parametrize(
    ("kw", "name"),
    [({"rbp_gain": "exponential"}, "rbp_gain"), ({"rbp_residual_definition": "x"}, "rbp_resid")],
)
def test_bad_values_name_the_keyword(kw, name):
    with pytest.raises(ValueError, match=name):
        rm.evaluate(Y, S, ["rbp", "rbp_residual"], **kw)


def test_cli_options(tmp_path):
    truth = pd.DataFrame({"user": ["u", "u", "v"], "item": ["a", "b", "a"], "grade": [3, 1, 2]})
    run = pd.DataFrame(
        {"user": ["u", "u", "u", "v", "v"], "item": ["a", "c", "b", "b", "a"],
         "score": [3.0, 2.0, 1.0, 2.0, 1.0]}
    )  # fmt: skip
    truth.to_csv(tmp_path / "t.csv", index=False)
    run.to_csv(tmp_path / "r.csv", index=False)
    # (the CLI's "rbp" is trec_eval 10.0's, whose name sets gain='scaled')
    out = in_process(
        "evaluate", tmp_path / "t.csv", tmp_path / "r.csv", "-m", "rank_biased_precision",
        "--relevance", "grade", "--rbp-gain", "linear", "--format", "json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    want = rm.rbp(rm.from_frames(truth, run, relevance="grade"), gain="linear")
    assert float(pd.read_json(__import__("io").StringIO(out.stdout), typ="series").iloc[0]) == (
        pytest.approx(want, abs=1e-12)
    )
    bad = in_process(
        "evaluate", tmp_path / "t.csv", tmp_path / "r.csv", "-m", "rbp", "--rbp-gain", "exp",
    )  # fmt: skip
    assert bad.returncode == 2 and "rbp-gain" in bad.stderr
