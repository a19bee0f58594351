"""Beyond accuracy (being split into submodules; see :mod:`.lists`)."""

from .lists import *  # noqa: F403
from .lists import __all__  # noqa: F401
from .lists import (  # noqa: F401
    PRESETS,
    SOURCES,
    _by_popularity,
    _check_eval_frames,
    _check_eval_matrix,
    _columns,
    _pair_sums_numpy,
    _read_lists,
    _resolve,
    _Space,
)
