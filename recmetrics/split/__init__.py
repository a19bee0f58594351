"""Splitting protocols (being carved into submodules; see by_time)."""

from .by_time import *  # noqa: F403
from .by_time import __all__ as __all__
from .by_time import _align_ids as _align_ids
from .by_time import _as_int_ids as _as_int_ids
from .by_time import _dtype_text as _dtype_text
from .by_time import _id_index as _id_index
from .by_time import _id_kind as _id_kind
from .by_time import _show as _show
from .by_time import _whole as _whole
