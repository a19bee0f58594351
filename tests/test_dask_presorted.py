"""``rm.dask.evaluate(..., presorted=True)``: frames sorted by user, evaluated without a shuffle.

The per-user values must be those of one process bit for bit whatever the
partitions (a user's rows split over two partitions, partitions holding no
user of the other frame, more ranges than users, one partition), and frames
that are not sorted are refused before any evaluation. Run on Dask's default
threaded scheduler (the cluster is covered by tests/test_distributed.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm

dd = pytest.importorskip("dask.dataframe")

pytestmark = pytest.mark.filterwarnings("ignore:The copy keyword is deprecated")

METRICS = ["ndcg@10", "map@10", "precision@5", "recall@10", "mrr", "auc"]


def sorted_frames(n_users=600, n_items=80, seed=3, ids=int):
    """Truth (grades 0-3) and tied predictions, sorted by user; some users in one frame only."""
    rng = np.random.default_rng(seed)
    t_rows, p_rows = [], []
    for u in range(n_users):
        uid = ids(u) if ids is int else f"u{u:05d}"
        if u % 7 != 2:
            rel = rng.choice(n_items, size=rng.integers(1, 6), replace=False)
            t_rows.append(
                pd.DataFrame({"user": uid, "item": rel, "grade": rng.integers(0, 4, rel.size)})
            )
        if u % 5 != 1:
            items = rng.choice(n_items, size=rng.integers(1, 25), replace=False)
            score = np.round(rng.random(items.size), 1)  # ties
            p_rows.append(pd.DataFrame({"user": uid, "item": items, "score": score}))
    return pd.concat(t_rows, ignore_index=True), pd.concat(p_rows, ignore_index=True)


def dask_frames(truth, pred, nt, np_):
    # sort=False keeps the row order and cuts by row count: users straddle partitions
    return dd.from_pandas(truth, npartitions=nt, sort=False), dd.from_pandas(
        pred, npartitions=np_, sort=False
    )


def check_per_user(per, want, metrics=METRICS):
    per = per.set_index("user").sort_index()
    assert len(per) == len(want) > 0
    np.testing.assert_array_equal(per.index.to_numpy(), want.index.to_numpy())
    np.testing.assert_array_equal(per[metrics].to_numpy(float), want[metrics].to_numpy(float))


@pytest.mark.parametrize(
    ("nt", "np_", "npartitions", "kw"),
    [
        (3, 7, 5, dict(relevance="grade")),
        (1, 1, 4, dict(relevance="grade", users="all", no_relevant="zero")),
        (4, 9, 1, dict(relevance="grade", ties="optimistic")),
        (2, 3, 1000, dict(users="both")),  # more ranges asked for than users
        (5, 2, 6, dict(relevance="grade", convention="trec_eval", metrics=["map", "ndcg@10"])),
    ],
)
def test_presorted_equals_single_process_bit_for_bit(nt, np_, npartitions, kw):
    truth, pred = sorted_frames()
    dt, dp = dask_frames(truth, pred, nt, np_)
    kw = dict(kw)
    metrics = kw.pop("metrics", METRICS)
    per = rm.dask.evaluate(
        dt, dp, metrics, per_user=True, presorted=True, npartitions=npartitions, **kw
    ).compute()
    check_per_user(per, rm.evaluate(truth, pred, metrics, per_user=True, **kw), metrics)
    means = rm.dask.evaluate(dt, dp, metrics, presorted=True, npartitions=npartitions, **kw)
    np.testing.assert_allclose(means, rm.evaluate(truth, pred, metrics, **kw), rtol=1e-13)


def test_presorted_string_ids_and_shuffle_agree():
    truth, pred = sorted_frames(n_users=300, ids=str)
    dt, dp = dask_frames(truth, pred, 3, 4)
    want = rm.evaluate(truth, pred, METRICS, relevance="grade", per_user=True)
    for presorted in (True, False):
        per = rm.dask.evaluate(
            dt, dp, METRICS, relevance="grade", per_user=True, presorted=presorted
        ).compute()
        check_per_user(per, want)


def test_presorted_one_user_in_every_partition():
    """All rows of one user, cut into several partitions: one range, one evaluation."""
    truth = pd.DataFrame({"user": 7, "item": np.arange(6), "grade": [1, 2, 3, 1, 2, 3]})
    pred = pd.DataFrame({"user": 7, "item": np.arange(40), "score": np.arange(40) % 4 / 4})
    dt, dp = dask_frames(truth, pred, 3, 5)
    per = rm.dask.evaluate(
        dt, dp, METRICS, relevance="grade", per_user=True, presorted=True, npartitions=4
    ).compute()
    check_per_user(per, rm.evaluate(truth, pred, METRICS, relevance="grade", per_user=True))


def test_presorted_refuses_unsorted_frames_and_bad_flags():
    truth, pred = sorted_frames(n_users=200)
    dt, dp = dask_frames(truth, pred, 2, 3)
    shuffled = dd.from_pandas(pred.sample(frac=1, random_state=1), npartitions=3, sort=False)
    with pytest.raises(ValueError, match="presorted=True but predictions is not sorted by 'user'"):
        rm.dask.evaluate(dt, shuffled, presorted=True)
    # each partition sorted, but the second holds smaller users than the first
    half = len(truth) // 2
    swapped = pd.concat([truth.iloc[half:], truth.iloc[:half]], ignore_index=True)
    parts = dd.from_pandas(swapped, npartitions=2, sort=False)
    assert parts.npartitions == 2
    with pytest.raises(ValueError, match="truth is not sorted.*starts before the previous"):
        rm.dask.evaluate(parts, dp, presorted=True)
    with pytest.raises(TypeError, match="presorted must be True or False, got 'yes'"):
        rm.dask.evaluate(dt, dp, presorted="yes")
    with pytest.raises(TypeError, match="presorted must be True or False"):
        rm.dask.evaluate(dt, dp, presorted=1)
    # without presorted the same unsorted frames are shuffled and evaluated
    per = rm.dask.evaluate(dt, shuffled, METRICS, per_user=True).compute()
    check_per_user(per, rm.evaluate(truth, pred, METRICS, per_user=True))
