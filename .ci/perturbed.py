"""Run pytest (by default: strict nbval of every chapter) with perturbed arithmetic.

This proves that the book's printed numbers do not depend on the processor.

Usage: python .ci/perturbed.py [pytest arguments]     (default: book)

The stored outputs of the chapters were produced on one machine; nbval
compares every printed digit. A number that sits at the rounding floor (the
last bits of an ill-conditioned solve, a sum whose order depends on the SIMD
width, an argmax between two values closer than round-off) changes between
machines. This script reproduces such a change on the machine it runs on, by
running the same tests a second time with different arithmetic:

* NumPy: every SIMD target that NumPy dispatches at run time *and* this CPU
  supports is disabled (``NPY_DISABLE_CPU_FEATURES``), so NumPy's loops fall
  back to its compile-time baseline (e.g. SSE4.2 instead of AVX2/AVX-512).
  The list is computed here from ``__cpu_dispatch__`` and
  ``__cpu_features__``, so it is right on AVX2 and AVX-512 machines alike.
* OpenBLAS (NumPy's and SciPy's): an older kernel set
  (``OPENBLAS_CORETYPE=Sandybridge``: AVX without FMA; ``Nehalem`` if the
  machine itself is a Sandybridge), different from the native Haswell / Zen /
  SkylakeX / Cooperlake kernels.
* numba: code generated for a generic x86-64 CPU (``NUMBA_CPU_NAME=generic``,
  which also empties ``NUMBA_CPU_FEATURES``), with its own fresh
  ``NUMBA_CACHE_DIR`` so that no natively compiled kernel is reused.

Before the tests run, a fresh interpreter started with the same environment
(the Jupyter kernels of nbval inherit it the same way) checks that each
setting took effect: NumPy reports the disabled targets as not found, every
OpenBLAS library loaded reports the forced core type (threadpoolctl), and
numba's code generator targets "generic" with no features, and emits no
AVX/AVX-512 (ymm/zmm) instructions. Any failure aborts with a message.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

PROBE = r"""
import json, sys
import numpy as np
import scipy.linalg  # noqa: F401  (loads SciPy's own OpenBLAS)
import threadpoolctl
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

out = {
    "numpy": np.__version__,
    "dispatch": list(__cpu_dispatch__),
    "available": [f for f in __cpu_dispatch__ if __cpu_features__.get(f)],
    "openblas": sorted({i.get("architecture") or "?" for i in threadpoolctl.threadpool_info()
                        if i.get("internal_api") == "openblas"}),
}
try:
    import numba
    from numba.core import config
    from numba.core.registry import cpu_target

    codegen = cpu_target.target_context.codegen()
    _, cpu, features = codegen.magic_tuple()

    @numba.njit(cache=False)
    def _axpy(a, x, y):
        s = 0.0
        for i in range(x.shape[0]):
            s += a * x[i] + y[i]
        return s

    x = np.ones(64)
    _axpy(1.5, x, x)
    asm = "\n".join(_axpy.inspect_asm().values())
    out["numba"] = {
        "cpu": cpu, "features": features, "cache_dir": config.CACHE_DIR,
        "wide_registers": ("ymm" in asm) or ("zmm" in asm),
    }
except ImportError:
    out["numba"] = None
print(json.dumps(out))
"""


def probe(env):
    res = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"perturbed run: the probe interpreter failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


X86 = platform.machine().lower() in ("x86_64", "amd64", "i686", "x86")


def _coretype(native):
    """An OpenBLAS kernel set that differs from the native one(s), or None."""
    if not native:
        return None  # NumPy and SciPy do not use OpenBLAS here
    if X86:
        return "Nehalem" if "Sandybridge" in native else "Sandybridge"
    if platform.machine().lower() in ("aarch64", "arm64"):
        return "ARMV8" if "ARMV8" not in native else None
    return None


def main(args):
    base = dict(os.environ)
    for key in (
        "NPY_DISABLE_CPU_FEATURES",
        "NPY_ENABLE_CPU_FEATURES",
        "OPENBLAS_CORETYPE",
        "NUMBA_CPU_NAME",
        "NUMBA_CPU_FEATURES",
        "NUMBA_CACHE_DIR",
    ):
        base.pop(key, None)
    native = probe(base)

    env = dict(base)
    disable = native["available"]
    if disable:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(disable)
    coretype = _coretype(native["openblas"])
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    cache = tempfile.mkdtemp(prefix="numba-generic-")
    env["NUMBA_CPU_NAME"] = "generic"
    env["NUMBA_CACHE_DIR"] = cache
    # the empty cache makes the first large call compile: its one-line notice on
    # standard error is not part of the chapters' stored outputs
    env["RECMETRICS_COMPILE_NOTICE"] = "0"
    try:
        got = probe(env)
        problems = []
        still = [f for f in disable if f in got["available"]]
        if still:
            problems.append(f"NumPy still dispatches {still}")
        if coretype and got["openblas"] != [coretype]:
            problems.append(f"OpenBLAS core types {got['openblas']}, expected [{coretype!r}]")
        nb = got["numba"]
        if native["numba"] is not None:
            if nb is None:
                problems.append("numba not importable in the perturbed environment")
            else:
                if (nb["cpu"], nb["features"]) != ("generic", ""):
                    problems.append(f"numba targets cpu={nb['cpu']!r} features={nb['features']!r}")
                if nb["wide_registers"] and X86:
                    problems.append("numba's generic code still uses ymm/zmm registers")
                if os.path.realpath(nb["cache_dir"]) != os.path.realpath(cache):
                    problems.append(f"numba cache dir {nb['cache_dir']!r}, expected {cache!r}")
        if problems:
            sys.exit("perturbed run: settings did not take effect: " + "; ".join(problems))
        native_numba = native["numba"]["cpu"] if native["numba"] else "absent"
        print("perturbed numerical environment (each setting checked in a fresh interpreter):")
        print(
            f"  NPY_DISABLE_CPU_FEATURES={env.get('NPY_DISABLE_CPU_FEATURES', '')!r}"
            f"  (NumPy {native['numpy']} dispatches {native['dispatch']}; "
            f"now found: {got['available'] or 'none'})"
        )
        shown = coretype or "(not set: no OpenBLAS, or no older kernel known)"
        print(f"  OPENBLAS_CORETYPE={shown}  (native {native['openblas']}, now {got['openblas']})")
        print(
            f"  NUMBA_CPU_NAME=generic  (native {native_numba!r}; now cpu={nb and nb['cpu']!r}, "
            f"features={nb and nb['features']!r}, no ymm/zmm: {nb and not nb['wide_registers']})"
        )
        print(f"  NUMBA_CACHE_DIR={cache}", flush=True)
        start = time.perf_counter()
        report = os.path.join(cache, "junit.xml")
        cmd = [sys.executable, "-m", "pytest", *(args or ["book"]), f"--junitxml={report}"]
        res = subprocess.run(cmd, env=env)
        returncode = res.returncode
        if returncode:
            # A kernel that dies before it starts (a Jupyter start-up failure, seen
            # once in CI: every cell of one notebook errors) says nothing about the
            # numbers; those notebooks run once more. Any other failure stands.
            died = kernels_that_died(report)
            if died:
                print(f"perturbed run: kernel start-up failed for {died}; running them again")
                returncode = subprocess.run(
                    [sys.executable, "-m", "pytest", *died], env=env
                ).returncode
        print(
            f"perturbed run: pytest exited with {returncode} "
            f"after {time.perf_counter() - start:.0f} s",
            flush=True,
        )
        return returncode
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def kernels_that_died(report):
    """The notebooks whose only problems were kernels dying at start-up, or [].

    Read from pytest's JUnit report: every failed or errored item must carry
    jupyter_client's "Kernel died before replying to kernel_info"; otherwise
    the run failed for a real reason and nothing is retried.
    """
    import xml.etree.ElementTree as ET

    try:
        root = ET.parse(report).getroot()
    except (OSError, ET.ParseError):
        return []
    died = set()
    for case in root.iter("testcase"):
        for bad in list(case.findall("failure")) + list(case.findall("error")):
            text = (bad.get("message") or "") + (bad.text or "")
            if "Kernel died before replying to kernel_info" not in text:
                return []
            # classname "book.conventions.ipynb" is the file book/conventions.ipynb
            name = case.get("classname", "").removesuffix(".ipynb")
            if not name:
                return []
            died.add(name.replace(".", "/") + ".ipynb")
    return sorted(died)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
