"""The package as users get it: built as a wheel, installed into a fresh environment.

The editable install of the book's environment imports the package straight
from the checkout, so it cannot see a wheel that leaves subpackages out, or a
dependency used but not declared. This script, run by ``make wheel-check``
(part of ``make test``):

1. builds the sdist and, from it, the wheel (``python -m build``, isolated:
   setuptools comes from the package registry, as for any user);
2. fails on any file of the package tree (``git ls-files recmetrics``) that
   is missing from the sdist or from the wheel's RECORD, and on a declared
   dependency list without numba;
3. creates a virtual environment in a temporary folder outside the checkout
   and installs the wheel, non-editable, with the extras the chapter needs and
   the test runner, every version constrained by ``requirements.txt`` (its
   pins, without the ``-e .`` line): nothing but what the wheel declares;
4. from another folder, with ``PYTHONPATH`` unset: imports the package (from
   the fresh environment, not the checkout), runs ``recmetrics --help``,
   evaluates a small input, and re-executes a MovieLens chapter
   (``book/protocols.ipynb``, copied out of the checkout) under strict nbval
   in that environment's kernel, with an empty numba cache.

Pip's download cache serves the installs after the first run. Usage::

    .venv/bin/python .ci/wheel_check.py [--chapter book/protocols.ipynb] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# what the chapter run needs beside the wheel and its extras
RUNNER = ["pytest", "nbval", "ipykernel"]
SMOKE = """
import sys
import numpy as np
import recmetrics as rm
from recmetrics import _kernels
print(rm.__file__)
assert sys.prefix in rm.__file__, f"imported from {rm.__file__}, not from {sys.prefix}"
assert _kernels.HAVE_NUMBA, "numba is not installed with the wheel"
y_true = np.array([[1, 0, 0, 1], [0, 1, 0, 0]])
y_score = np.array([[0.9, 0.8, 0.1, 0.3], [0.2, 0.7, 0.4, 0.1]])
table = rm.evaluate(y_true, y_score, ["ndcg@3", "map@3", "auc"])
print(table.to_string())
# user 1: relevant at positions 1 and 3, AP = (1 + 2/3) / 2; user 2: at position 1
assert abs(table["map@3"] - 11 / 12) < 1e-12, table
assert abs(table["auc"] - 7 / 8) < 1e-12, table  # 3 of 4 pairs in order, then all
# every module of the installed package imports (the command's entry modules aside)
import importlib
import pkgutil

names = [m.name for m in pkgutil.walk_packages(rm.__path__, "recmetrics.")]
for name in names:
    if not name.endswith("__main__"):
        importlib.import_module(name)
assert {"recmetrics.metrics.topn", "recmetrics.providers.trec_eval"} <= set(names), names
print(len(names), "modules import")
"""


def run(cmd, **kwargs):
    """Run ``cmd``, echoing it and its time; stop the check with its output if it fails."""
    line = " ".join(str(c) for c in cmd)
    print("+", line if len(line) < 160 else line[:157] + "...", flush=True)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, text=True, capture_output=True, **kwargs)
    if done.returncode != 0:
        sys.stdout.write(done.stdout[-5000:])
        sys.stderr.write(done.stderr[-5000:])
        raise SystemExit(f"wheel check failed: {line}")
    print(f"  ({time.perf_counter() - t0:.0f} s)", flush=True)
    return done.stdout


def tracked_package_files():
    """The package tree's files under version control (.py and data), relative paths."""
    out = run(["git", "-C", str(ROOT), "ls-files", "recmetrics"])
    files = {line for line in out.splitlines() if line}
    if not any(f.endswith("/__init__.py") for f in files):
        raise SystemExit("wheel check failed: git ls-files found no package files")
    return files


def check_contents(sdist, wheel, tracked):
    """Every tracked file of the package is in the sdist and in the wheel's RECORD."""
    with zipfile.ZipFile(wheel) as zf:
        record = next(n for n in zf.namelist() if n.endswith(".dist-info/RECORD"))
        in_wheel = {line.split(",")[0] for line in zf.read(record).decode().splitlines()}
        metadata = zf.read(record.replace("RECORD", "METADATA")).decode()
    with tarfile.open(sdist) as tf:
        in_sdist = {name.split("/", 1)[1] for name in tf.getnames() if "/" in name}
    problems = [f"missing from the wheel: {f}" for f in sorted(tracked - in_wheel)]
    problems += [f"missing from the sdist: {f}" for f in sorted(tracked - in_sdist)]
    requires = [
        line.split(":", 1)[1].strip()
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    if not any(r.startswith("numba") for r in requires):
        problems.append(f"numba is not a declared dependency: {requires}")
    if problems:
        raise SystemExit("wheel check failed:\n  " + "\n  ".join(problems))
    packages = sorted({f.rsplit("/", 1)[0] for f in tracked if f.endswith("/__init__.py")})
    print(f"{len(tracked)} package files in the sdist and the wheel ({', '.join(packages)})")
    print(f"declared dependencies: {', '.join(requires)}")


def chapter_extras(chapter):
    """The extras named by the chapter's "Run this chapter" install line."""
    text = chapter.read_text(encoding="utf-8")
    start = text.find("recmetrics-book[")
    if start < 0:
        return []
    return text[start + len("recmetrics-book[") : text.find("]", start)].split(",")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapter", default="book/protocols.ipynb")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    t0 = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="recmetrics-wheel-check-"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    try:
        dist = tmp / "dist"
        run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], env=env)
        sdist = next(dist.glob("*.tar.gz"))
        wheel = next(dist.glob("*.whl"))
        check_contents(sdist, wheel, tracked_package_files())

        venv = tmp / "venv"
        run([sys.executable, "-m", "venv", str(venv)], env=env)
        py = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
        pins = [
            line
            for line in (ROOT / "requirements.txt").read_text().splitlines()
            if line.strip() and not line.lstrip().startswith(("-e", "#"))
        ]
        constraints = tmp / "constraints.txt"
        constraints.write_text("\n".join(pins) + "\n")
        chapter = ROOT / args.chapter
        extras = chapter_extras(chapter)
        target = f"{wheel}[{','.join(extras)}]" if extras else str(wheel)
        run(
            [py, "-m", "pip", "install", "--quiet", "-c", constraints, target, *RUNNER],
            env=env,
            cwd=tmp,
        )

        elsewhere = tmp / "elsewhere"  # neither the checkout nor its parent
        elsewhere.mkdir()
        print(run([py, "-c", SMOKE], env=env, cwd=elsewhere))
        script = venv / ("Scripts" if os.name == "nt" else "bin") / "recmetrics"
        usage = run([script, "--help"], env=env, cwd=elsewhere)
        if "evaluate" not in usage:
            raise SystemExit(f"wheel check failed: recmetrics --help says\n{usage}")
        print("recmetrics --help: ok")

        shutil.copy(chapter, elsewhere / chapter.name)
        shutil.copy(ROOT / "tests" / "nbval_sanitize.cfg", elsewhere / "sanitize.cfg")
        nb_env = dict(
            env,
            NUMBA_CACHE_DIR=str(tmp / "numba-cache"),  # empty: the first call compiles
            RECMETRICS_COMPILE_NOTICE="0",  # nbval compares stderr too
        )
        pytest_cmd = [py, "-m", "pytest", "--nbval", "--nbval-current-env"]
        pytest_cmd += ["--nbval-sanitize-with", "sanitize.cfg", "-p", "no:cacheprovider"]
        print(run([*pytest_cmd, "-q", chapter.name], env=nb_env, cwd=elsewhere)[-300:])
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"wheel check passed in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
