# Two entry points:
#   make book   build the HTML book into _build/html (warnings are errors)
#   make test   run every test: unit, property, cross-library, doctests,
#               strict nbval of every notebook, then the strict book build
# Both create or reuse the virtual environment .venv from requirements.txt.

PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book test env notebooks bench clean

# One BLAS thread: multithreaded reductions can round differently from run to
# run, and nbval compares every printed digit.
export OPENBLAS_NUM_THREADS := 1
export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1

env: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $(STAMP)

book: $(STAMP)
	$(BIN)/jupyter-book build . -W -n --keep-going

test: $(STAMP)
	$(BIN)/python -m pytest
	$(BIN)/jupyter-book build . -W -n --keep-going

# Re-execute notebooks top to bottom in fresh kernels, storing their outputs
# (run this after editing a chapter, before committing it):
#   make notebooks               all chapters
#   make notebooks NB=book/x.ipynb   one chapter
NB ?= $(wildcard book/*.ipynb)
notebooks: $(STAMP)
	$(BIN)/python tests/execute_notebooks.py $(NB)

clean:
	rm -rf _build
