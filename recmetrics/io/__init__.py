"""Files in and out (being carved into submodules; see trec)."""

from .trec import *  # noqa: F403
from .trec import _WRITE_ROWS as _WRITE_ROWS
from .trec import __all__ as __all__
from .trec import _blocks as _blocks
