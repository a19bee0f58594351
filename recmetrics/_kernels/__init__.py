"""Counting kernels (being carved into submodules; see _counting)."""

from ._counting import *  # noqa: F403
from ._counting import __all__ as __all__
