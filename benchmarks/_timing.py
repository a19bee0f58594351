"""Helpers shared by the benchmark scripts: best-of timing and the processor model."""

from __future__ import annotations

import platform
import time
from pathlib import Path

# Where every benchmark saves its results: the chapters that show them
# (performance, scale) read them from book/data/benchmarks/.
RESULTS = Path(__file__).resolve().parents[1] / "book" / "data" / "benchmarks"


def best_of(fn, repeat):
    """The shortest of ``repeat`` wall-clock timings of ``fn()``, in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def cpu_model():
    """The processor model (results differ between AVX2 and AVX-512 machines)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
