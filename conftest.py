"""Root pytest configuration: settings every run needs, also ``pytest book/x.ipynb``.

* The first large call on a cold numba cache prints a one-line notice on
  standard error (recmetrics._kernels); the chapters' stored outputs do not
  hold it, so nbval runs with the notice off (the kernels inherit the
  environment).
* Small inputs take the NumPy version of the counting kernels until the
  compiled ones exist (in this process or in numba's on-disk cache), so which
  path a test takes would depend on the state of the cache: the tests take
  the compiled kernels always, and tests/test_kernels.py checks the NumPy
  path and the routing against them explicitly.
"""

import os

os.environ.setdefault("RECMETRICS_COMPILE_NOTICE", "0")

from recmetrics._kernels import _dispatch  # noqa: E402

_dispatch._SMALL_TO_NUMPY = False
