.PHONY: setup demo test lint
DEMO_CLAIM ?= The Eiffel Tower is located in Rome.

setup:
	./scripts/setup.sh

# Command 1: set up and verify a claim offline with the embedded model and the built-in corpus
# (whose search indexes setup builds while llama.cpp compiles; verify builds whatever is still missing).
demo:
	./scripts/setup.sh --index
	HF_HUB_OFFLINE=1 .venv/bin/factdebate verify "$(DEMO_CLAIM)"

# Command 2: set up and run the tests (what CI runs).
test: setup
	./scripts/ci-system-deps.sh || echo "warning: could not install Debian's chromium/postgresql; the browser and PostgreSQL tests will be skipped" >&2
	./scripts/test.sh

lint:
	.venv/bin/ruff check src tests benchmarks
	.venv/bin/mypy
	.venv/bin/lint-imports
