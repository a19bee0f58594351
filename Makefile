# Two entry points:
#   make book   build the HTML book into _build/html (warnings are errors)
#   make test   run every test (in $(TEST_WORKERS) pytest-xdist workers): unit, property,
#               cross-library, doctests,
#               strict nbval of every notebook; then strict nbval of every
#               notebook again in a perturbed numerical environment
#               (make test-perturbed); then the package as a wheel in a fresh
#               environment (make wheel-check); then the strict book build
#   make lint   ruff: lint and format check of the package, tests, benchmarks
#               and CI scripts (lines <= 100), lint of the notebooks' code
#               cells (lines <= 88, book/ruff.toml); CI runs it before make test
# All create or reuse the virtual environment .venv from requirements.txt.

PYTHON ?= python3.11
# make test runs pytest in this many worker processes (pytest-xdist), each test
# file (each notebook) whole in one worker: nbval runs a notebook's cells in order
TEST_WORKERS ?= 2
XDIST := -n $(TEST_WORKERS) --dist loadfile
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book test test-perturbed wheel-check browser-test lint lab pdf env data notebooks bench clean

# One BLAS thread: multithreaded reductions can round differently from run to
# run, and nbval compares every printed digit.
export OPENBLAS_NUM_THREADS := 1
export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
# No "compiling the kernels" line on standard error when a chapter's first large
# call meets an empty numba cache (make test-perturbed starts with one): nbval
# compares the stderr of every cell too.
export RECMETRICS_COMPILE_NOTICE := 0

env: $(STAMP)

# MathJax, served with the book so that formulas render offline: the npm
# registry's tarball of the pinned version, checked against its SHA-256, the
# es5/ build unpacked to _mathjax/mathjax/ (copied to the site's root by
# html_extra_path; _static/ would inject every .js file as a script).
MATHJAX_VERSION := 3.2.2
MATHJAX_SHA256 := 1b9c0a1c44df864e915690558e72adb9cc5203360daefd385084ced3b6c64c09
MATHJAX := _mathjax/mathjax/es5/tex-mml-chtml.js

$(MATHJAX):
	rm -rf _mathjax && mkdir -p _mathjax/mathjax
	cd _mathjax && npm pack --silent mathjax@$(MATHJAX_VERSION) > /dev/null
	echo "$(MATHJAX_SHA256)  _mathjax/mathjax-$(MATHJAX_VERSION).tgz" | sha256sum -c --quiet
	tar -xzf _mathjax/mathjax-$(MATHJAX_VERSION).tgz -C _mathjax/mathjax \
		--strip-components=1 package/es5 package/LICENSE
	rm _mathjax/mathjax-$(MATHJAX_VERSION).tgz

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $(STAMP)

# The Open Bandit Dataset's sample (recmetrics.datasets.open_bandit), once, into the
# user's cache outside the package (~/.cache/recmetrics, or $$RECMETRICS_DATA): obp
# 0.5.7's source distribution from the package index, checked against its SHA-256
# and each kept file against its own; a no-op when the cache is complete.
data: $(STAMP)
	$(BIN)/python -m recmetrics.datasets fetch open_bandit --quiet

book: $(STAMP) $(MATHJAX) data
	$(BIN)/jupyter-book build . -W -n --keep-going
	$(BIN)/python .ci/check_html.py _build/html

test: $(STAMP) $(MATHJAX) data
	$(BIN)/python -m pytest $(XDIST)
	$(BIN)/python .ci/perturbed.py $(XDIST) book
	$(MAKE) --no-print-directory wheel-check
	$(BIN)/jupyter-book build . -W -n --keep-going
	$(BIN)/python .ci/check_html.py _build/html
	$(BIN)/python .ci/browser_test.py _build/html

# The chapters in JupyterLab (pinned in requirements-lab.txt, an optional extra of
# the environment: make book and make test do not install it), opened on book/.
LAB_STAMP := $(VENV)/.lab-installed
$(LAB_STAMP): $(STAMP) requirements-lab.txt
	$(BIN)/python -m pip install --quiet -r requirements-lab.txt
	touch $(LAB_STAMP)

lab: $(LAB_STAMP)
	$(BIN)/jupyter lab --notebook-dir=book $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

# The whole book as one PDF, _build/latex/evaluating-recommenders.pdf, through
# XeLaTeX (not part of make test; needs the Debian packages listed in the README)
pdf: $(STAMP)
	$(BIN)/jupyter-book build . --builder pdflatex
	@ls -l _build/latex/evaluating-recommenders.pdf

# Every page of the built book in headless Chromium (Debian's chromium package),
# served on 127.0.0.1 with every other host blocked; screenshots in _build/screenshots
browser-test: $(STAMP)
	$(BIN)/python .ci/browser_test.py _build/html

LINTED := recmetrics tests benchmarks .ci conftest.py
lint: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/ruff check book

# Strict nbval of every chapter, a second time, with different arithmetic:
# NumPy's run-time SIMD targets disabled (NPY_DISABLE_CPU_FEATURES, the list
# computed from what NumPy dispatches on this CPU), OpenBLAS on an older kernel
# (OPENBLAS_CORETYPE=Sandybridge), numba compiled for a generic x86-64 CPU
# (NUMBA_CPU_NAME=generic, fresh NUMBA_CACHE_DIR). The script checks that each
# setting takes effect before running the tests. A chapter that prints a number
# at the rounding floor fails here on any machine. See .ci/perturbed.py.
test-perturbed: $(STAMP) data
	$(BIN)/python .ci/perturbed.py $(XDIST) book

# The package as users install it: sdist and wheel built (python -m build),
# every tracked file of recmetrics/ checked in both, the wheel installed
# non-editable into a fresh virtual environment outside the checkout (versions
# constrained by requirements.txt), then, from another folder: import,
# `recmetrics --help`, a small evaluation and strict nbval of a MovieLens
# chapter on an empty numba cache. About 2 minutes on 2 cores. See .ci/wheel_check.py.
wheel-check: $(STAMP) data
	$(BIN)/python .ci/wheel_check.py

# Re-execute notebooks top to bottom in fresh kernels, storing their outputs
# (run this after editing a chapter, before committing it):
#   make notebooks               all chapters
#   make notebooks NB=book/x.ipynb   one chapter
NB ?= $(wildcard book/*.ipynb)
notebooks: $(STAMP) data
	$(BIN)/python tests/execute_notebooks.py $(NB)

clean:
	rm -rf _build _mathjax
