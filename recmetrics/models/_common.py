"""What every model shares: the training matrix, the optional ``implicit``, counts."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.sparse as sp

from ..split.matrix import interaction_matrix


def _train_matrix(train):
    """``train`` as a new CSR float64 matrix without stored zeros, or a clear error."""
    if not sp.issparse(train):
        raise TypeError(
            "train must be a scipy.sparse user x item matrix of training interactions "
            f"(see recmetrics.split.interaction_matrix), got {type(train).__name__}"
        )
    if train.ndim != 2:
        raise ValueError(
            f"train must be a 2-D user x item matrix, got a {train.ndim}-D sparse array "
            f"of shape {train.shape}"
        )
    if train.dtype.kind not in "biuf":
        raise TypeError(f"train must hold real numbers, got dtype {train.dtype}")
    # a copy (the caller's matrix is never changed) without its stored zeros:
    # a stored zero is no interaction, in every model
    m = sp.csr_matrix(train, dtype=np.float64, copy=True)
    m.eliminate_zeros()
    if m.shape[0] == 0 or m.shape[1] == 0 or m.nnz == 0:
        raise ValueError(f"train has no interaction (shape {m.shape})")
    if not np.all(np.isfinite(m.data)) or (m.data < 0).any():
        raise ValueError("train must hold finite, non-negative values")
    return m


def _implicit():
    try:
        with warnings.catch_warnings():
            # implicit imports tqdm.auto, which warns in notebooks without ipywidgets
            warnings.filterwarnings("ignore", message="IProgress not found")
            import implicit  # noqa: F401
            import implicit.cpu.als  # noqa: F401
            import implicit.nearest_neighbours  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "this model needs the 'implicit' package: "
            'pip install "implicit>=0.7.2" "threadpoolctl>=3" (or, in a checkout of this '
            'repository, pip install ".[data]")'
        ) from None


def _positive_int(x, name):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral) or x < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {x!r}")
    return int(x)


def _interactions(frame, name, users, items, **keywords):
    """``interaction_matrix(frame, users, items)``, its errors naming ``frame`` as ``name``.

    :func:`recmetrics.split.interaction_matrix` calls its frame ``data``; a
    model or :func:`recmetrics.models.tune` passes its own argument.
    """
    try:
        return interaction_matrix(frame, users, items, **keywords)
    except (TypeError, ValueError) as exc:
        msg = str(exc)
        if not msg.startswith("data"):
            raise
        raise type(exc)(name + msg[len("data") :]) from None
