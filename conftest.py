"""Root pytest configuration: settings every run needs, also ``pytest book/x.ipynb``.

The first large call on a cold numba cache prints a one-line notice on
standard error (recmetrics._kernels); the chapters' stored outputs do not hold
it, so nbval runs with the notice off (the kernels inherit the environment).
"""

import os

os.environ.setdefault("RECMETRICS_COMPILE_NOTICE", "0")
