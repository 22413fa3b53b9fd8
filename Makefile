# From Attention to ViT. `make lab` to learn, `make test` to run the whole suite.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# tiny models on 2 cores: one thread per process avoids oversubscription (xdist runs 2 kernels)
export OMP_NUM_THREADS ?= 1
STAMP  := $(VENV)/.installed
# the tests and the solved notebooks always run on the reference blocks (only lab-mine sets it)
unexport HELPERS_BLOCKS
JOBS   ?= 2
# the grader's sandbox: auto (bubblewrap where installed), bwrap (required) or none
SANDBOX ?= auto

.PHONY: lab lab-mine lint test test-fast test-notebooks test-gpu test-e2e student export execute grade bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall only when requirements change; a torch that satisfies torch>=2.3 is kept.
$(STAMP): requirements.txt pyproject.toml | $(PY)
	$(PY) -m pip install --upgrade --quiet pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/00_welcome.ipynb

## the later notebooks on your own blocks (those whose checks pass; the reference for the rest)
lab-mine: $(STAMP)
	$(PY) -m helpers export --mine
	HELPERS_BLOCKS=mine $(VENV)/bin/jupyter lab notebooks/

## ruff: lint and formatting (line length 100, settings in pyproject.toml)
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

## the whole suite: lint, unit tests, checks, generated notebooks in sync, nbval over solutions/
test: lint
	$(PY) -m pytest -n $(JOBS) --dist loadfile tests solutions \
		--nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
		--nbval-cell-timeout 300

test-fast: $(STAMP)
	$(PY) -m pytest -q tests -m "not slow"

test-notebooks: $(STAMP)
	$(PY) -m pytest -n $(JOBS) --dist loadfile solutions --nbval --nbval-current-env \
		--nbval-sanitize-with tests/nbval_sanitize.cfg

## nbval over solutions/ on whatever accelerator torch finds, against the stored CPU outputs
test-gpu: $(STAMP)
	$(PY) -c "import helpers; d = helpers.get_device(); print('device:', d); assert d.type != 'cpu', 'no GPU found'"
	$(PY) -m pytest solutions --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg

student: $(STAMP)
	$(PY) -m helpers export
	$(PY) -m helpers student

execute: $(STAMP)
	$(PY) -m helpers execute solutions/*.ipynb

grade: $(STAMP)
	$(PY) -m helpers grade $(SUBMISSIONS) --out grades.csv --feedback feedback --jobs $(JOBS) \
		--sandbox $(SANDBOX)

## every solved notebook in a fresh kernel: seconds and peak memory -> bench/bench.md, bench.json
bench: $(STAMP)
	$(PY) -m helpers bench solutions/*.ipynb --out bench

## the JupyterLab end-to-end test alone (needs Debian's chromium); screenshots in artifacts/e2e/
test-e2e: $(STAMP)
	$(PY) -m pytest -v tests/e2e

clean:
	rm -rf $(VENV) .pytest_cache
