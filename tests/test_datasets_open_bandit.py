"""recmetrics.datasets' Open Bandit Dataset: the cache, its checks, the frames.

The cache is filled before the tests by ``make`` (``python -m
recmetrics.datasets fetch open_bandit``); nothing here downloads.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile

import numpy as np
import pandas as pd
import pytest

import recmetrics as rm
from recmetrics.datasets import _open_bandit as obd

ROOT = rm.datasets.data_home() / obd._DIRECTORY
N_ITEMS = {"all": 80, "men": 34, "women": 46}
CASES = [(p, c) for p in rm.datasets.POLICIES for c in rm.datasets.CAMPAIGNS]


def _raw(policy, campaign, name=None):
    return pd.read_csv(ROOT / f"obp/dataset/obd/{policy}/{campaign}/{name or campaign}.csv")


@pytest.mark.parametrize(("policy", "campaign"), CASES)
def test_logs_are_the_files_with_obps_conventions(policy, campaign):
    logs = rm.datasets.open_bandit(policy, campaign)
    raw = _raw(policy, campaign)
    n = N_ITEMS[campaign]
    assert len(logs) == len(raw) == 10_000
    assert list(logs.columns[:6]) == [
        "round",
        "timestamp",
        "action",
        "position",
        "reward",
        "pscore",
    ]
    assert logs["round"].tolist() == list(range(10_000))
    assert logs["timestamp"].is_monotonic_increasing
    # the file is already in the order of time: the rows are the file's rows
    np.testing.assert_array_equal(logs["action"], raw["item_id"])
    np.testing.assert_array_equal(logs["reward"], raw["click"])
    np.testing.assert_array_equal(logs["pscore"], raw["propensity_score"])
    np.testing.assert_array_equal(logs["position"], raw["position"] - 1)  # 1..3 -> 0..2
    assert set(logs["action"]) == set(range(n))
    assert logs["pscore"].between(0, 1, inclusive="right").all()
    if policy == "random":  # uniform over the campaign's items at each position
        np.testing.assert_allclose(logs["pscore"], 1.0 / n)
    affinity = [c for c in logs.columns if c.startswith("user_item_affinity_")]
    assert affinity == [f"user_item_affinity_{i}" for i in range(n)]
    assert [c for c in logs.columns if c.startswith("user_feature_")] == [
        f"user_feature_{i}" for i in range(4)
    ]
    assert all(logs[f"user_feature_{i}"].dtype == "category" for i in range(4))
    assert logs.shape[1] == 6 + 4 + n


@pytest.mark.parametrize(("policy", "campaign"), CASES)
def test_items_and_prior(policy, campaign):
    items = rm.datasets.open_bandit_items(policy, campaign)
    raw = _raw(policy, campaign, "item_context")
    assert items["action"].tolist() == list(range(N_ITEMS[campaign]))
    np.testing.assert_array_equal(items["item_feature_0"], raw["item_feature_0"])
    prior = rm.datasets.open_bandit_prior(campaign)
    assert prior["alpha"].shape == prior["beta"].shape == (N_ITEMS[campaign],)
    assert (prior["alpha"] > 0).all() and (prior["beta"] > 0).all()


def test_clicks_of_the_two_policies():
    # figures quoted in the counterfactual chapter's data section
    clicks = {(p, c): int(rm.datasets.open_bandit(p, c)["reward"].sum()) for p, c in CASES}
    assert clicks[("random", "all")] == 38
    assert clicks[("bts", "all")] == 42


def test_missing_cache_gives_the_command(tmp_path):
    with pytest.raises(FileNotFoundError, match="python -m recmetrics.datasets fetch open_bandit"):
        rm.datasets.open_bandit(data_home=tmp_path)
    with pytest.raises(FileNotFoundError, match="--data-home"):
        rm.datasets.open_bandit_prior(data_home=tmp_path)


def test_a_changed_file_is_refused(tmp_path):
    copy = tmp_path / obd._DIRECTORY
    shutil.copytree(ROOT, copy)
    path = copy / "obp/dataset/obd/random/men/men.csv"
    data = bytearray(path.read_bytes())
    data[-3] = ord("7") if data[-3] != ord("7") else ord("8")
    path.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="differs from obp"):
        rm.datasets.open_bandit("random", "men", data_home=tmp_path)
    rm.datasets.open_bandit("random", "women", data_home=tmp_path)  # the others are fine


def test_fetch_does_nothing_on_a_complete_cache(tmp_path):
    shutil.copytree(ROOT, tmp_path / obd._DIRECTORY)
    assert rm.datasets.fetch_open_bandit(tmp_path, quiet=True) == tmp_path / obd._DIRECTORY
    done = subprocess.run(
        [sys.executable, "-m", "recmetrics.datasets", "fetch", "open_bandit", "--quiet",
         "--data-home", str(tmp_path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


def test_fetch_refuses_a_wrong_archive(tmp_path):
    fake = tmp_path / "obp-0.5.7.tar.gz"
    with tarfile.open(fake, "w:gz") as tar:
        tar.add(ROOT / "LICENSE", arcname="obp-0.5.7/LICENSE")
    home = tmp_path / "home"
    with pytest.raises(RuntimeError, match="SHA-256.*nothing was kept"):
        rm.datasets.fetch_open_bandit(home, archive=fake, quiet=True)
    assert not (home / obd._DIRECTORY).exists()
    with pytest.raises(FileNotFoundError, match="archive"):
        rm.datasets.fetch_open_bandit(home, archive=tmp_path / "none.tar.gz", quiet=True)
    done = subprocess.run(
        [sys.executable, "-m", "recmetrics.datasets", "fetch", "open_bandit", "--quiet",
         "--data-home", str(home), "--archive", str(fake)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and "SHA-256" in done.stderr


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"policy": "uniform"}, ValueError, "policy"),
        ({"campaign": "kids"}, ValueError, "campaign"),
        ({"data_home": 3}, TypeError, "data_home"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        rm.datasets.open_bandit(**kwargs)


def test_data_home_order(monkeypatch, tmp_path):
    monkeypatch.setenv("RECMETRICS_DATA", str(tmp_path / "a"))
    assert rm.datasets.data_home() == tmp_path / "a"
    assert rm.datasets.data_home(tmp_path / "b") == tmp_path / "b"
    monkeypatch.delenv("RECMETRICS_DATA")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    assert rm.datasets.data_home() == tmp_path / "c" / "recmetrics"
