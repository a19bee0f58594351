"""The Open Bandit Dataset's small sample: real logged clicks with propensities.

The Open Bandit Dataset (Saito et al., 2021) logs a fashion e-commerce
site's item recommendations (ZOZOTOWN) under two logging policies, uniform
random (``'random'``) and Bernoulli Thompson sampling (``'bts'``), in three
campaigns (``'all'``, ``'men'``, ``'women'``). Each logged impression is one
item (the *action*) shown at one of three positions, whether it was clicked
(the *reward*) and the logging policy's probability of showing that item
there (the *propensity score*): what off-policy estimators need. The data
are released under CC BY 4.0 by ZOZO, Inc.

A sample of 10,000 impressions per policy and campaign ships inside the
source distribution of the ``obp`` package, version 0.5.7 (which itself
does not install on Python 3.11). :func:`fetch_open_bandit` downloads that
source distribution once from the package index with pip, checks its
SHA-256, and keeps the twelve data files, the Thompson sampling priors and
obp's licence in a cache directory (:func:`data_home`); from then on
:func:`open_bandit`, :func:`open_bandit_items` and :func:`open_bandit_prior`
read the cache offline, checking each file's SHA-256. From a shell::

    python -m recmetrics.datasets fetch open_bandit

References
----------
Y. Saito, S. Aihara, M. Matsutani and Y. Narita. Open Bandit Dataset and
Pipeline: Towards Realistic and Reproducible Off-Policy Evaluation.
NeurIPS Datasets and Benchmarks Track, 2021. arXiv:2008.07146. Data:
https://research.zozo.com/data.html (CC BY 4.0); code:
https://github.com/st-tech/zr-obp (Apache-2.0), ``obp/dataset/real.py``.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import check_choice

__all__ = [
    "data_home",
    "fetch_open_bandit",
    "open_bandit",
    "open_bandit_items",
    "open_bandit_prior",
    "POLICIES",
    "CAMPAIGNS",
]

#: The logging policies: uniform random and Bernoulli Thompson sampling.
POLICIES = ("random", "bts")
#: The campaigns: every item, the men's items, the women's items.
CAMPAIGNS = ("all", "men", "women")

OBP_VERSION = "0.5.7"
#: SHA-256 of ``obp-0.5.7.tar.gz``, the source distribution on PyPI.
OBP_SDIST_SHA256 = "3060d67fedfcfadf1e7a6f2608987f74412b5eb74d2c567edeb147595c68f2a0"
#: The shell command that fills the cache.
FETCH_COMMAND = "python -m recmetrics.datasets fetch open_bandit"
_DIRECTORY = f"open_bandit-obp-{OBP_VERSION}"

# the files kept from the source distribution (path inside it -> SHA-256)
_FILES = {
    "obp/dataset/obd/bts/all/all.csv": (
        "0ad874e4dbf6902f0845dd478ad8dde5ef6903583d3ffaace78411bdad064106"
    ),
    "obp/dataset/obd/bts/all/item_context.csv": (
        "5d4359ba1cfa3ae88f0f1bae66bd633859fe6323817183632ee57b83539d9153"
    ),
    "obp/dataset/obd/bts/men/item_context.csv": (
        "3b411ed6b0471316321a6b93f4f756bb25888eac6218cd71d0b603d41d85732d"
    ),
    "obp/dataset/obd/bts/men/men.csv": (
        "db6d1f7ed2d591ba521533e45286d4c1fba7fe57a8ad2e80342210335f43c527"
    ),
    "obp/dataset/obd/bts/women/item_context.csv": (
        "a56295bad066a558eb783055afd9279f5f4e209a4776eafc22151c53f0ac89d4"
    ),
    "obp/dataset/obd/bts/women/women.csv": (
        "e5d1b49a39b608585a2f3014a3f54970430cd37a495c1b73fceb85cdf428a5b8"
    ),
    "obp/dataset/obd/random/all/all.csv": (
        "7168295b6e0a9eabcf3392320a5dd434e542b68e705d5cd9491499af589812f1"
    ),
    "obp/dataset/obd/random/all/item_context.csv": (
        "eba04cc23d5f130a93ff174c5392986882b94c3839433cb8143870eaa6221358"
    ),
    "obp/dataset/obd/random/men/item_context.csv": (
        "6d855c2b7e917d0448d71bbe62c023147495882c0fdc8c41e86fef86abf9fe09"
    ),
    "obp/dataset/obd/random/men/men.csv": (
        "ede6d08c6877f99cd3770f7d09e26c738e6aa6de4445ccccfb1356ba5d06b1eb"
    ),
    "obp/dataset/obd/random/women/item_context.csv": (
        "b1ca4905f97703d196004f2ad4552c1e90c2afad8b50688d333b0d2dc0b33147"
    ),
    "obp/dataset/obd/random/women/women.csv": (
        "e65f3bd3beb17664fa69cc129bf7bf852a775f8ffa630506e505fc905315bb34"
    ),
    "obp/policy/conf/prior_bts.yaml": (
        "81a54fbdc184021ccc62ab97de81ec35461c032e3d7f99ccaa0a9745f732d251"
    ),
    "LICENSE": "6bc32ef299d465f98043edc6e487a6e72a69600f3a2144f4e69be8f1b36be9f7",
}


def data_home(data_home=None) -> Path:
    """The directory that holds the downloaded data.

    ``data_home`` if given, else the environment variable
    ``RECMETRICS_DATA``, else ``$XDG_CACHE_HOME/recmetrics``, else
    ``~/.cache/recmetrics``. It lies outside the package, so that
    reinstalling the package keeps the data.

    Parameters
    ----------
    data_home : str or os.PathLike, optional
        The directory to use.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> data_home("/tmp/somewhere").as_posix()
    '/tmp/somewhere'
    """
    return _home(data_home)


def _home(data_home) -> Path:
    if data_home is not None:
        if not isinstance(data_home, str | os.PathLike):
            raise TypeError(
                f"data_home must be a path (str or os.PathLike), got {type(data_home).__name__}"
            )
        return Path(data_home).expanduser()
    if os.environ.get("RECMETRICS_DATA"):
        return Path(os.environ["RECMETRICS_DATA"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "recmetrics"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _complete(root: Path) -> bool:
    return all((root / name).is_file() for name in _FILES)


def fetch_open_bandit(data_home=None, *, archive=None, quiet=False) -> Path:
    """Put the Open Bandit Dataset sample in the cache (once; nothing if it is there).

    Runs ``pip download --no-deps --no-binary :all: --ignore-requires-python
    obp==0.5.7`` (the package index configured for pip, the only network
    access in the package), checks the archive's SHA-256, and extracts the
    data files, the Thompson sampling priors and obp's licence into
    ``<data_home>/open_bandit-obp-0.5.7/``, each checked against its
    SHA-256. With ``archive`` (a copy of ``obp-0.5.7.tar.gz``) nothing is
    downloaded.

    Parameters
    ----------
    data_home : str or os.PathLike, optional
        Where the cache lives (:func:`data_home`).
    archive : str or os.PathLike, optional
        A local copy of obp 0.5.7's source distribution.
    quiet : bool, default False
        Do not print what is done.

    Returns
    -------
    pathlib.Path
        The directory of the data.

    Raises
    ------
    RuntimeError
        If pip fails, or if a checksum does not match (nothing is kept).
    """
    root = _home(data_home) / _DIRECTORY
    if _complete(root):
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root.parent, prefix=".fetch-") as tmp:
        tmp = Path(tmp)
        if archive is None:
            if not quiet:
                print(f"downloading obp {OBP_VERSION}'s source distribution with pip")
            command = [
                sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                "--no-binary", ":all:", "--ignore-requires-python",
                f"obp=={OBP_VERSION}", "--dest", str(tmp),
            ]  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(
                    f"pip could not download obp=={OBP_VERSION}:\n{done.stderr.strip()}"
                )
            archive = tmp / f"obp-{OBP_VERSION}.tar.gz"
        archive = Path(archive)
        if not archive.is_file():
            raise FileNotFoundError(f"archive: no file {archive}")
        found = _sha256(archive)
        if found != OBP_SDIST_SHA256:
            raise RuntimeError(
                f"{archive.name}: SHA-256 {found}, expected {OBP_SDIST_SHA256}; nothing was kept"
            )
        staging = tmp / _DIRECTORY
        prefix = f"obp-{OBP_VERSION}/"
        with tarfile.open(archive, "r:gz") as tar:
            for name, expected in _FILES.items():
                member = tar.getmember(prefix + name)
                target = staging / name
                target.parent.mkdir(parents=True, exist_ok=True)
                with tar.extractfile(member) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                if _sha256(target) != expected:
                    raise RuntimeError(f"{name}: wrong SHA-256 in the archive; nothing was kept")
        if root.exists():  # an incomplete earlier copy
            shutil.rmtree(root)
        os.replace(staging, root)
    if not quiet:
        print(f"the Open Bandit Dataset sample is in {root}")
    return root


@functools.cache
def _checked(path: Path, expected: str, size: int, mtime: float) -> None:
    # once per process and file version: the SHA-256 of the cached file
    if _sha256(path) != expected:
        raise RuntimeError(
            f"{path}: the file differs from obp {OBP_VERSION}'s; delete {path.parent} "
            f"and run: {FETCH_COMMAND}"
        )


def _path(name: str, data_home) -> Path:
    root = _home(data_home) / _DIRECTORY
    path = root / name
    if not path.is_file():
        where = "" if data_home is None else f" --data-home {root.parent}"
        raise FileNotFoundError(
            f"the Open Bandit Dataset sample is not in {root}: it is downloaded once, "
            f"from the package index, with the shell command\n    {FETCH_COMMAND}{where}\n"
            "(or recmetrics.datasets.fetch_open_bandit() from Python)"
        )
    stat = path.stat()
    _checked(path, _FILES[name], stat.st_size, stat.st_mtime)
    return path


def _check(policy, campaign):
    check_choice(policy, "policy", POLICIES)
    check_choice(campaign, "campaign", CAMPAIGNS)


def open_bandit(policy="random", campaign="all", *, data_home=None) -> pd.DataFrame:
    """The logged impressions of one logging policy and campaign, one row each.

    Read from the cache that :func:`fetch_open_bandit` fills (offline). The
    rows are in the order of the file, which is the order of time, as obp's
    ``OpenBanditDataset`` sorts them; the columns take obp's argument names
    (``action``, ``position``, ``reward``, ``pscore``), which the off-policy
    estimators take too.

    Parameters
    ----------
    policy : {'random', 'bts'}, default 'random'
        The logging policy: uniform random, or Bernoulli Thompson sampling.
    campaign : {'all', 'men', 'women'}, default 'all'
        Which items could be shown: all 80, the 34 men's or the 46 women's.
    data_home : str or os.PathLike, optional
        Where the cache lives (:func:`data_home`).

    Returns
    -------
    pandas.DataFrame
        10,000 rows with the columns

        =============================  ==========  ================================
        ``round``                      int64       0, 1, ...: the order of time
        ``timestamp``                  datetime64  UTC
        ``action``                     int64       the item shown (0 to n_items - 1)
        ``position``                   int64       0, 1 or 2 (the file's 1, 2, 3
                                                   minus one, as obp)
        ``reward``                     int64       1 if the item was clicked, else 0
        ``pscore``                     float64     the logging policy's probability
                                                   of this item at this position
        ``user_feature_0`` .. ``_3``   category    hashed user attributes
        ``user_item_affinity_<i>``     float64     one per item ``i`` (the file's
                                                   ``user-item_affinity_<i>``)
        =============================  ==========  ================================

    Raises
    ------
    FileNotFoundError
        If the cache is empty; the message gives the command that fills it.

    Examples
    --------
    >>> logs = open_bandit("random", "all")
    >>> logs.shape, int(logs["reward"].sum()), float(logs["pscore"].iloc[0])
    ((10000, 90), 38, 0.0125)

    References
    ----------
    Saito, Aihara, Matsutani and Narita, Open Bandit Dataset and Pipeline,
    NeurIPS Datasets and Benchmarks 2021 (data: CC BY 4.0).
    """
    _check(policy, campaign)
    raw = pd.read_csv(_path(f"obp/dataset/obd/{policy}/{campaign}/{campaign}.csv", data_home))
    raw = raw.drop(columns=raw.columns[0])  # the file's row numbers
    raw["timestamp"] = pd.to_datetime(raw["timestamp"], utc=True)
    raw = raw.sort_values("timestamp", kind="stable", ignore_index=True)
    position = raw["position"].to_numpy()
    frame = pd.DataFrame(
        {
            "round": np.arange(len(raw), dtype=np.int64),
            "timestamp": raw["timestamp"],
            "action": raw["item_id"].astype(np.int64),
            # obp: rankdata(position, "dense") - 1
            "position": np.unique(position, return_inverse=True)[1].astype(np.int64),
            "reward": raw["click"].astype(np.int64),
            "pscore": raw["propensity_score"].astype(np.float64),
        }
    )
    users = {c: raw[c].astype("category") for c in raw.columns if c.startswith("user_feature")}
    affinity = {
        c.replace("user-item_affinity", "user_item_affinity"): raw[c].astype(np.float64)
        for c in raw.columns
        if c.startswith("user-item_affinity")
    }
    return pd.concat([frame, pd.DataFrame(users), pd.DataFrame(affinity)], axis=1)


def open_bandit_items(policy="random", campaign="all", *, data_home=None) -> pd.DataFrame:
    """The item features of one campaign, one row per item (obp's ``item_context.csv``).

    Parameters
    ----------
    policy : {'random', 'bts'}, default 'random'
        Which copy to read (the two policies' files list the same items).
    campaign : {'all', 'men', 'women'}, default 'all'
    data_home : str or os.PathLike, optional
        Where the cache lives (:func:`data_home`).

    Returns
    -------
    pandas.DataFrame
        One row per item: ``action`` (int64, as in :func:`open_bandit`),
        ``item_feature_0`` (float64, a standardised price) and
        ``item_feature_1`` .. ``item_feature_3`` (category: hashed
        attributes).

    Examples
    --------
    >>> open_bandit_items("random", "men").shape
    (34, 5)
    """
    _check(policy, campaign)
    raw = pd.read_csv(_path(f"obp/dataset/obd/{policy}/{campaign}/item_context.csv", data_home))
    raw = raw.drop(columns=raw.columns[0])
    frame = pd.DataFrame(
        {
            "action": raw["item_id"].astype(np.int64),
            "item_feature_0": raw["item_feature_0"].astype(np.float64),
        }
    )
    for c in ("item_feature_1", "item_feature_2", "item_feature_3"):
        frame[c] = raw[c].astype("category")
    return frame.sort_values("action", kind="stable", ignore_index=True)


def open_bandit_prior(campaign="all", *, data_home=None) -> dict:
    """The Beta priors of the Thompson sampling policy in the logs (obp's ``prior_bts.yaml``).

    obp's ``BernoulliTS(is_zozotown_prior=True)`` reads these numbers as
    the Beta parameters from which ZOZOTOWN's Bernoulli Thompson sampling
    drew each item's click rate (obp documents them as those at the start
    of the data collection). They do not reproduce the propensities logged
    in the ``'bts'`` sample, which changed over the week: the correlation of
    the two at the logged item and position is below 0.1 (see the
    counterfactual chapter).

    Parameters
    ----------
    campaign : {'all', 'men', 'women'}, default 'all'
    data_home : str or os.PathLike, optional
        Where the cache lives (:func:`data_home`).

    Returns
    -------
    dict
        ``{'alpha': ndarray, 'beta': ndarray}``, one float per item, in the
        order of ``action``.

    Examples
    --------
    >>> prior = open_bandit_prior("men")
    >>> prior["alpha"].shape
    (34,)
    """
    check_choice(campaign, "campaign", CAMPAIGNS)
    try:
        import yaml
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "open_bandit_prior() reads a YAML file: pip install PyYAML (in a checkout of "
            'this repository: pip install ".[data]")'
        ) from None
    with open(_path("obp/policy/conf/prior_bts.yaml", data_home)) as f:
        priors = yaml.safe_load(f)
    entry = priors[campaign]
    return {key: np.asarray(entry[key], dtype=np.float64) for key in ("alpha", "beta")}
